/* SPDX-License-Identifier: ISC
 * Copyright (c) 2026 The fscp authors.  See LICENSE. */
/* Unit tests for progress: scp 9.2's meter line, byte for byte.
 *
 * Expected lines are worked out by hand from progressmeter.c 1.50's
 * arithmetic; the "real_*" cases are lines captured from /usr/bin/scp
 * (OpenSSH 9.2p1) under script(1) against a loopback sshd, with a speed
 * chosen that prints the same rate. */
#include "config.h"

#include <check.h>
#include <fcntl.h>
#include <limits.h>
#include <locale.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include "../check_main.h"
#include "engine/progress.h"

static struct progress_state
st_make(off_t total, off_t cur, double bps, double elapsed, double stalled)
{
	struct progress_state st;

	memset(&st, 0, sizeof(st));
	st.total = total;
	st.cur = cur;
	st.bytes_per_sec = bps;
	st.elapsed = elapsed;
	st.stalled = stalled;
	st.done = cur >= total;
	return st;
}

/* "\r" + name padded/cut to win-36 columns + tail: the layout by hand. */
static char *
expect_line(int win, const char *name, const char *tail)
{
	static char buf[2048];
	int w = win - 36;

	snprintf(buf, sizeof(buf), "\r%-*.*s%s", w, w, name, tail);
	return buf;
}

static void
show(char *dst, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c == '\r')
			dst += sprintf(dst, "\\r");
		else if (c < 32 || c > 126)
			dst += sprintf(dst, "\\x%02x", c);
		else
			*dst++ = (char)c;
	}
	*dst = '\0';
}

static void
check_fmt_n(int win, const char *name, struct progress_state st,
    const char *exp, size_t explen)
{
	char buf[600], a[3000], b[3000];
	size_t n;

	memset(buf, 'X', sizeof(buf));
	n = progress_format(buf, sizeof(buf), win, name, &st);
	show(a, buf, n);
	show(b, exp, explen);
	ck_assert_msg(n == (size_t)win - 1, "length %zu, want %d", n, win - 1);
	ck_assert_msg(n == explen && memcmp(buf, exp, n) == 0,
	    "\n got [%s]\nwant [%s]", a, b);
}

static void
check_fmt(int win, const char *name, struct progress_state st,
    const char *exp)
{
	check_fmt_n(win, name, st, exp, strlen(exp));
}

/* ---- lines from the scp 9.2 sources and from real scp runs ---- */

START_TEST(doc_example)
{
	/* scp-semantics.md §9: 195KB done at 455.1MB/s, 80 columns. */
	const char *exp = "\rpm.bin                                       "
	    " 100%  195KB 455.1MB/s   00:00    ";

	ck_assert_uint_eq(strlen(exp), 80);	/* "\r" + 79 columns */
	check_fmt(81, "pm.bin", st_make(199680, 199680, 477207142, 0.0004, 0),
	    exp);
}
END_TEST

START_TEST(real_first_line)
{
	/* Every scp transfer starts with this line (captured, 80 columns). */
	check_fmt(81, "pm.bin", st_make(199680, 0, 0, 0.00001, 0),
	    "\rpm.bin                                          0%    0     "
	    "0.0KB/s   --:-- ETA");
}
END_TEST

START_TEST(real_done_80)
{
	check_fmt(81, "pm.bin", st_make(199680, 199680, 18874368, 0.01, 0),
	    "\rpm.bin                                        100%  195KB  "
	    "18.0MB/s   00:00    ");
}
END_TEST

START_TEST(real_empty_file)
{
	check_fmt(81, "empty.txt", st_make(0, 0, 0, 0.00001, 0),
	    "\rempty.txt                                     100%    0     "
	    "0.0KB/s   00:00    ");
}
END_TEST

START_TEST(real_9999_vs_10000)
{
	check_fmt(81, "n9999", st_make(9999, 9999, 6396314, 0.001, 0),
	    "\rn9999                                         100% 9999     "
	    "6.1MB/s   00:00    ");
	check_fmt(81, "n10000", st_make(10000, 10000, 7025459, 0.001, 0),
	    "\rn10000                                        100%   10KB   "
	    "6.7MB/s   00:00    ");
}
END_TEST

START_TEST(real_long_name_cut)
{
	const char *n = "a very long file name that exceeds the forty five "
	    "column field.bin";

	check_fmt(81, n, st_make(199680, 0, 0, 0.00001, 0),
	    "\ra very long file name that exceeds the forty    0%    0     "
	    "0.0KB/s   --:-- ETA");
	/* 120 columns: the whole name fits in the 85-column field. */
	check_fmt(121, n, st_make(199680, 199680, 4613734, 0.04, 0),
	    expect_line(121, n, " 100%  195KB   4.4MB/s   00:00    "));
}
END_TEST

START_TEST(real_narrow_40)
{
	/* 40 columns: a 5-column name field. */
	check_fmt(41, "pm.bin", st_make(199680, 0, 0, 0.00001, 0),
	    "\rpm.bi   0%    0     0.0KB/s   --:-- ETA");
	check_fmt(41, "pm.bin", st_make(199680, 199680, 15728640, 0.01, 0),
	    "\rpm.bi 100%  195KB  15.0MB/s   00:00    ");
}
END_TEST

START_TEST(real_narrow_35_nul)
{
	/* 35 columns: no name, no "\r", and scp writes the NUL too. */
	check_fmt_n(36, "pm.bin", st_make(199680, 0, 0, 0.00001, 0),
	    "   0%    0     0.0KB/s   --:-- ETA\0", 35);
	check_fmt_n(36, "pm.bin", st_make(199680, 199680, 15204352, 0.01, 0),
	    " 100%  195KB  14.5MB/s   00:00    \0", 35);
}
END_TEST

START_TEST(real_narrow_34)
{
	check_fmt(35, "pm.bin", st_make(199680, 0, 0, 0.00001, 0),
	    "   0%    0     0.0KB/s   --:-- ETA");
	check_fmt(35, "pm.bin", st_make(199680, 199680, 7025459, 0.03, 0),
	    " 100%  195KB   6.7MB/s   00:00    ");
}
END_TEST

START_TEST(real_sftp_limited_sequence)
{
	/* scp -l 8000 of 3000000 bytes (SFTP mode): a redraw with no new
	 * bytes ages the average by 0.9 and the ETA grows. */
	struct progress_state st = st_make(3000000, 261120, 256410, 1.0, 0);

	check_fmt(81, "slow.bin", st,
	    expect_line(81, "slow.bin", "   8%  255KB 250.4KB/s   00:10 ETA"));
	progress_advance(&st, 261120, 2.0, 1.0);
	ck_assert_int_eq((int)st.bytes_per_sec, 230769);
	check_fmt(81, "slow.bin", st,
	    expect_line(81, "slow.bin", "   8%  255KB 225.4KB/s   00:11 ETA"));
	/* the end: the true average over 2.9 s */
	progress_advance(&st, 3000000, 2.9, 0.9);
	check_fmt(81, "slow.bin", st,
	    expect_line(81, "slow.bin", " 100% 2930KB   1.0MB/s   00:02    "));
}
END_TEST

START_TEST(real_legacy_limited_end)
{
	struct progress_state st = st_make(3000000, 2932736, 993792, 2.0, 0);

	progress_advance(&st, 3000000, 3.0995, 0.1);
	ck_assert_int_eq((int)st.bytes_per_sec, (int)(3000000 / 3.0995));
	check_fmt(81, "slow.bin", st,
	    expect_line(81, "slow.bin", " 100% 2930KB 945.2KB/s   00:03    "));
}
END_TEST

/* ---- hand-computed cases ---- */

START_TEST(width_wide_and_capped)
{
	struct progress_state st = st_make(1000, 500, 0, 1, 0);
	const char *tail = "  50%  500     0.0KB/s   --:-- ETA";

	check_fmt(201, "w.bin", st, expect_line(201, "w.bin", tail));
	check_fmt(513, "w.bin", st, expect_line(513, "w.bin", tail));
	/* progress_format caps like scp: at most 512 columns */
	{
		char buf[600];
		size_t n = progress_format(buf, sizeof(buf), 1000, "w.bin",
		    &st);

		ck_assert_uint_eq(n, 512);
		ck_assert(memcmp(buf, expect_line(513, "w.bin", tail), n) ==
		    0);
	}
	/* 36 columns: a 1-column name field; 35: none, and no "\r" */
	check_fmt(37, "w.bin", st, "\rw  50%  500     0.0KB/s   --:-- ETA");
	check_fmt_n(36, "w.bin", st, "  50%  500     0.0KB/s   --:-- ETA\0",
	    35);
	check_fmt(21, "w.bin", st, "  50%  500     0.0KB");
	check_fmt(2, "w.bin", st, " ");
}
END_TEST

START_TEST(sizes_across_units)
{
#define T(cur, str) check_fmt(81, "f", st_make((off_t)1 << 62, cur, 0, 1, 0), \
	    expect_line(81, "f", "   0% " str "   0.0KB/s   --:-- ETA"))
	T(0, "   0  ");
	T(9999, "9999  ");
	T(10000, "  10KB");
	T(10751, "  10KB");		/* 10.499 KB */
	T(10752, "  11KB");		/* rounds half up */
	T(10239487, "9999KB");
	T(10239488, "  10MB");
	T(5368709120LL, "5120MB");	/* 5 GiB still fits in MB */
	T(21474836480LL, "  20GB");
	T(17592186044416LL, "  16TB");
#undef T
	/* beyond T it keeps growing: the line is longer and cut at the end */
	check_fmt(81, "f", st_make((off_t)1 << 62, (off_t)1 << 60, 0, 1, 0),
	    expect_line(81, "f", "  25% 1048576TB   0.0KB/s   --:-- "));
}
END_TEST

START_TEST(rates_across_units)
{
#define T(bps, str) check_fmt(81, "f", st_make(0, 0, bps, 0, 0), \
	    expect_line(81, "f", " 100%    0   " str "/s   00:00    "))
	T(0, "  0.0KB");
	T(46, "  0.0KB");
	T(47, "  0.1KB");		/* 0.05 rounds up */
	T(999, "  1.0KB");
	T(1000, "  1.0KB");
	T(1022976, "999.0KB");
	T(1024000, "  1.0MB");
	T(1048576, "  1.0MB");
	T(2000000000, "  1.9GB");
	T(INT_MAX, "  2.0GB");
#undef T
	/* 999.96 KB/s rounds to 1000.0: one column too many, cut at the end */
	check_fmt(81, "f", st_make(0, 0, 1023959, 0, 0),
	    expect_line(81, "f", " 100%    0   1000.0KB/s   00:00   "));
}
END_TEST

START_TEST(rate_int_overflow)
{
	/* scp keeps the speed in an int; x86-64 turns an out-of-range double
	 * into INT_MIN, which format_rate prints as it does. */
	struct progress_state st = st_make(0, 0, 3e9, 0, 0);

	check_fmt(81, "f", st,
	    expect_line(81, "f", " 100%    0   -2097151.-9KB/s   00:"));
}
END_TEST

START_TEST(percent)
{
	check_fmt(81, "f", st_make(3, 1, 1, 1, 0),
	    expect_line(81, "f", "  33%    1     0.0KB/s   00:02 ETA"));
	check_fmt(81, "f", st_make(3, 2, 1, 1, 0),
	    expect_line(81, "f", "  66%    2     0.0KB/s   00:01 ETA"));
	/* float precision: 16777216/16777217 is 1.0f, so 100% before the end */
	check_fmt(81, "f", st_make(16777217, 16777216, 1000, 1, 0),
	    expect_line(81, "f", " 100%   16MB   1.0KB/s   00:00 ETA"));
	/* a file that grew: more than 100%, and the elapsed time */
	check_fmt(81, "f", st_make(100, 150, 10, 7, 0),
	    expect_line(81, "f", " 150%  150     0.0KB/s   00:07    "));
}
END_TEST

START_TEST(eta_and_hours)
{
	/* 125 s left */
	check_fmt(81, "f", st_make(126000, 1000, 1000, 1, 0),
	    expect_line(81, "f", "   0% 1000     1.0KB/s   02:05 ETA"));
	/* 2:01:01 left */
	check_fmt(81, "f", st_make(7262000, 1000, 1000, 1, 0),
	    expect_line(81, "f", "   0% 1000     1.0KB/s 2:01:01 ETA"));
	/* 10 hours is one column too long: " ETA" loses its last letter */
	check_fmt(81, "f", st_make(36001000, 1000, 1000, 1, 0),
	    expect_line(81, "f", "   0% 1000     1.0KB/s 10:00:00 ET"));
	/* done: the elapsed time, truncated */
	check_fmt(81, "f", st_make(1000, 1000, 1000, 3725.9, 0),
	    expect_line(81, "f", " 100% 1000     1.0KB/s 1:02:05    "));
	check_fmt(81, "f", st_make(1000, 1000, 1000, 59.99, 0),
	    expect_line(81, "f", " 100% 1000     1.0KB/s   00:59    "));
}
END_TEST

START_TEST(stalled_and_unknown)
{
	check_fmt(81, "f", st_make(2000, 1000, 1000, 9, 4),
	    expect_line(81, "f", "  50% 1000     1.0KB/s   00:01 ETA"));
	check_fmt(81, "f", st_make(2000, 1000, 1000, 9, 5),
	    expect_line(81, "f", "  50% 1000     1.0KB/s - stalled -"));
	/* stalled wins even at the end */
	check_fmt(81, "f", st_make(1000, 1000, 1000, 9, 6),
	    expect_line(81, "f", " 100% 1000     1.0KB/s - stalled -"));
	check_fmt(81, "f", st_make(2000, 1000, 0, 9, 0),
	    expect_line(81, "f", "  50% 1000     0.0KB/s   --:-- ETA"));
	/* rate shown as 0.0 but not 0: a (long) ETA */
	check_fmt(81, "f", st_make(2000, 1000, 10, 9, 0),
	    expect_line(81, "f", "  50% 1000     0.0KB/s   01:40 ETA"));
}
END_TEST

START_TEST(names)
{
	struct progress_state st = st_make(0, 0, 0, 0, 0);
	const char *tail = " 100%    0     0.0KB/s   00:00    ";
	char exp[256];

	/* exactly 45, 46 columns */
	check_fmt(81, "123456789012345678901234567890123456789012345", st,
	    expect_line(81, "123456789012345678901234567890123456789012345",
	    tail));
	check_fmt(81, "1234567890123456789012345678901234567890123456", st,
	    expect_line(81, "123456789012345678901234567890123456789012345",
	    tail));
	/* C locale: unprintable bytes become \ooo, 4 columns each; the byte
	 * padding is then cut to the field's 45 columns */
	setlocale(LC_CTYPE, "C");
	snprintf(exp, sizeof(exp), "\r%-45s%s", "a\\011b", tail);
	check_fmt(81, "a\tb", st, exp);
	snprintf(exp, sizeof(exp), "\r%-45s%s", "caf\\303\\251", tail);
	check_fmt(81, "caf\xc3\xa9", st, exp);
	/* an escape that does not fit stops the name there; the text is then
	 * short of the line, which ends in NULs (scp: its NUL + stack bytes) */
	check_fmt_n(41, "abc\x01", st,
	    "\rabc 100%    0     0.0KB/s   00:00    \0\0", 40);
}
END_TEST

START_TEST(names_utf8)
{
	struct progress_state st = st_make(0, 0, 0, 0, 0);
	char exp[256];

	if (setlocale(LC_CTYPE, "C.UTF-8") == NULL)
		return;
	/* é is 2 bytes, 1 column: padded in bytes, so the line is one column
	 * short but still win_size-1 bytes */
	snprintf(exp, sizeof(exp), "\r%-45s%s", "caf\xc3\xa9",
	    " 100%    0     0.0KB/s   00:00    ");
	check_fmt(81, "caf\xc3\xa9", st, exp);
	/* a long name in 2-column characters: cut at 44 columns, 66 bytes,
	 * which pushes the fields off the end (the 9.2 wide-name bug) */
	{
		char name[200] = "";

		exp[0] = '\r';
		exp[1] = '\0';
		for (int i = 0; i < 30; i++)
			strcat(name, "\xe6\xbc\xa2");
		for (int i = 0; i < 22; i++)
			strcat(exp, "\xe6\xbc\xa2");
		strcat(exp, " 100%    0   ");
		check_fmt(81, name, st, exp);
	}
	setlocale(LC_CTYPE, "C");
}
END_TEST

/* ---- progress_advance: scp's bookkeeping ---- */

START_TEST(advance_sequence)
{
	struct progress_state st = st_make(1000000, 0, 0, 0, 0);

	/* the first redraw at start */
	progress_advance(&st, 0, 0.00001, 0.00001);
	ck_assert_int_eq((int)st.bytes_per_sec, 0);
	ck_assert_int_eq((int)st.stalled, 0);
	check_fmt(81, "f", st,
	    expect_line(81, "f", "   0%    0     0.0KB/s   --:-- ETA"));
	/* the first speed is taken as is */
	progress_advance(&st, 100000, 1.0, 1.0);
	ck_assert_int_eq((int)st.bytes_per_sec, 100000);
	/* then 0.9 old + 0.1 new, truncated to an int each time */
	progress_advance(&st, 300000, 2.0, 1.0);
	ck_assert_int_eq((int)st.bytes_per_sec, 110000);
	progress_advance(&st, 300123, 3.0, 1.0);
	ck_assert_int_eq((int)st.bytes_per_sec, (int)(110000 * 0.9 + 123 *
	    (1.0 - 0.9)));
	ck_assert_int_eq((int)st.bytes_per_sec, 99012);
	/* speed over an interval that is not a whole second */
	progress_advance(&st, 400123, 4.5, 1.5);
	ck_assert_int_eq((int)st.bytes_per_sec,
	    (int)(99012 * 0.9 + (int)(100000 / 1.5) * (1.0 - 0.9)));
	check_fmt(81, "f", st,
	    expect_line(81, "f", "  40%  391KB  93.5KB/s   00:06 ETA"));
}
END_TEST

START_TEST(advance_stall)
{
	struct progress_state st = st_make(1000, 500, 100, 1, 0);

	for (int i = 1; i <= 5; i++) {
		progress_advance(&st, 500, 1.0 + i, 1.0);
		ck_assert_int_eq((int)st.stalled, i);
	}
	check_fmt(81, "f", st,
	    expect_line(81, "f", "  50%  500     0.1KB/s - stalled -"));
	/* progress resets it */
	progress_advance(&st, 501, 7, 1.0);
	ck_assert_int_eq((int)st.stalled, 0);
	/* scp's stall counter is a long: sub-second gaps never add up */
	for (int i = 0; i < 10; i++)
		progress_advance(&st, 501, 8 + i, 0.999);
	ck_assert_int_eq((int)st.stalled, 0);
}
END_TEST

START_TEST(advance_done)
{
	struct progress_state st = st_make(199680, 100000, 5000, 1, 0);

	/* at the end the average is thrown away: total / time since start */
	progress_advance(&st, 199680, 0.0004, 0.0002);
	ck_assert_int_eq((int)st.bytes_per_sec, (int)(199680 / 0.0004));
	ck_assert(st.done);
	check_fmt(81, "pm.bin", st, expect_line(81, "pm.bin",
	    " 100%  195KB 476.1MB/s   00:00    "));
	/* no time at all: the speed is the byte count */
	st = st_make(199680, 0, 0, 0, 0);
	progress_advance(&st, 199680, 0, 0);
	ck_assert_int_eq((int)st.bytes_per_sec, 199680);
	/* empty file: 0 B/s, 100%, "00:00" */
	st = st_make(0, 0, 0, 0, 0);
	progress_advance(&st, 0, 0.00001, 0.00001);
	check_fmt(81, "empty.txt", st, expect_line(81, "empty.txt",
	    " 100%    0     0.0KB/s   00:00    "));
}
END_TEST

/* ---- the meter on a real terminal ---- */

START_TEST(meter_null_cases)
{
	int fd = open("/dev/null", O_WRONLY);

	ck_assert_ptr_null(progress_new(fd, false));
	ck_assert_ptr_null(progress_new(fd, true));
	close(fd);
	/* every call takes NULL */
	progress_start(NULL, "x", 1);
	progress_update(NULL, 1);
	progress_finish(NULL);
	progress_free(NULL);
}
END_TEST

/* Read everything the child writes to the pty until it exits. */
static size_t
read_pty(int master, char *buf, size_t cap)
{
	size_t n = 0;

	for (;;) {
		ssize_t r = read(master, buf + n, cap - 1 - n);

		if (r <= 0)
			break;
		n += (size_t)r;
	}
	buf[n] = '\0';
	return n;
}

START_TEST(meter_on_pty)
{
	int master = posix_openpt(O_RDWR | O_NOCTTY);
	char out[4096], a[9000];
	pid_t pid;
	size_t n;
	int status;

	ck_assert_int_ge(master, 0);
	ck_assert_int_eq(grantpt(master), 0);
	ck_assert_int_eq(unlockpt(master), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		/* A session of its own with the pty as controlling terminal,
		 * so the child is in its foreground process group. */
		struct winsize ws = { .ws_row = 24, .ws_col = 60 };
		struct termios tio;
		struct progress *p;
		int fd;

		setsid();
		fd = open(ptsname(master), O_RDWR);
		if (fd < 0)
			_exit(2);
		ioctl(fd, TIOCSCTTY, 0);
		tcgetattr(fd, &tio);
		cfmakeraw(&tio);
		tcsetattr(fd, TCSANOW, &tio);
		ioctl(fd, TIOCSWINSZ, &ws);
		p = progress_new(fd, false);
		if (p == NULL)
			_exit(3);
		if (progress_new(fd, true) != NULL)
			_exit(4);
		progress_start(p, "dir/f.bin", 1000);
		progress_update(p, 500);	/* < 1 s: no redraw */
		usleep(1100000);
		progress_update(p, 700);	/* redraw */
		progress_update(p, 1000);	/* < 1 s: no redraw */
		progress_finish(p);		/* final redraw + "\n" */
		progress_start(p, "g", 0);	/* empty: no final redraw */
		progress_finish(p);
		progress_free(p);
		close(fd);
		_exit(0);
	}
	n = read_pty(master, out, sizeof(out));
	waitpid(pid, &status, 0);
	close(master);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	    "child status %d", status);
	show(a, out, n);
	/* 60 columns: 60-byte lines with a 25-column name field */
	ck_assert_msg(n == 4 * 60 + 2, "got %zu bytes: [%s]", n, a);
	ck_assert_msg(memcmp(out, expect_line(61, "f.bin",
	    "   0%    0     0.0KB/s   --:-- ETA"), 60) == 0, "[%s]", a);
	/* 700 bytes after ~1.1 s; the speed depends on timing */
	ck_assert_msg(memcmp(out + 60, expect_line(61, "f.bin",
	    "  70%  700     0."), 43) == 0, "[%s]", a);
	ck_assert_msg(memcmp(out + 60 + 56, " ETA", 4) == 0, "[%s]", a);
	ck_assert_msg(memcmp(out + 120, expect_line(61, "f.bin",
	    " 100% 1000     0."), 43) == 0, "[%s]", a);
	ck_assert_msg(memcmp(out + 120 + 56, "    \n", 5) == 0, "[%s]", a);
	/* the empty file: its first line is final, finish adds only "\n" */
	ck_assert_msg(memcmp(out + 181, expect_line(61, "g",
	    " 100%    0     0.0KB/s   00:00    \n"), 61) == 0, "[%s]", a);
}
END_TEST

static Suite *
progress_suite(void)
{
	Suite *s = suite_create("progress");
	TCase *tc = tcase_create("format");
	TCase *tm = tcase_create("meter");

	tcase_add_test(tc, doc_example);
	tcase_add_test(tc, real_first_line);
	tcase_add_test(tc, real_done_80);
	tcase_add_test(tc, real_empty_file);
	tcase_add_test(tc, real_9999_vs_10000);
	tcase_add_test(tc, real_long_name_cut);
	tcase_add_test(tc, real_narrow_40);
	tcase_add_test(tc, real_narrow_35_nul);
	tcase_add_test(tc, real_narrow_34);
	tcase_add_test(tc, real_sftp_limited_sequence);
	tcase_add_test(tc, real_legacy_limited_end);
	tcase_add_test(tc, width_wide_and_capped);
	tcase_add_test(tc, sizes_across_units);
	tcase_add_test(tc, rates_across_units);
	tcase_add_test(tc, rate_int_overflow);
	tcase_add_test(tc, percent);
	tcase_add_test(tc, eta_and_hours);
	tcase_add_test(tc, stalled_and_unknown);
	tcase_add_test(tc, names);
	tcase_add_test(tc, names_utf8);
	tcase_add_test(tc, advance_sequence);
	tcase_add_test(tc, advance_stall);
	tcase_add_test(tc, advance_done);
	suite_add_tcase(s, tc);
	tcase_add_test(tm, meter_null_cases);
	tcase_add_test(tm, meter_on_pty);
	tcase_set_timeout(tm, 30);
	suite_add_tcase(s, tm);
	return s;
}

int
main(void)
{
	return check_main(progress_suite());
}
