/* SPDX-License-Identifier: ISC AND BSD-2-Clause
 * Copyright (c) 2026 The fscp authors.  See LICENSE. */
/* progress: scp's progress meter, reproducing OpenSSH 9.2 (progressmeter.c
 * rev 1.50) output byte for byte, including its quirks:
 *  - the name field is win_size-36 columns; when that is not positive the
 *    line has no "\r" and no name at all (scp's behaviour below 36 columns);
 *  - exactly win_size-1 bytes are written even when the text is shorter
 *    (at 35 columns scp's line ends in a NUL byte);
 *  - the name is padded in bytes by printf, then cut to the field's width in
 *    display columns, with unprintable bytes shown as \ooo (OpenSSH's
 *    snmprintf), so non-ASCII names can make the text longer than the line,
 *    in which case the tail is cut (the 9.3 "wide terminal" fix is not
 *    reproduced on purpose);
 *  - scp keeps the speed in an int and converts doubles with x86-64's
 *    cvttsd2si semantics (out of range gives INT_MIN); see to_int().
 *
 * Derived from OpenSSH's progressmeter.c: format_size() and format_rate()
 * are its functions of those names, progress_format() and progress_advance()
 * split its refresh_progress_meter() (the same fields, rounding, speed
 * average and ETA arithmetic), and window_size() and can_output() are its
 * setscreensize() and can_output().  Its notice, as its licence requires:
 *
 * Copyright (c) 2003 Nils Nordman.  All rights reserved.
 *
 * Redistribution and use in source and binary forms, with or without
 * modification, are permitted provided that the following conditions
 * are met:
 * 1. Redistributions of source code must retain the above copyright
 *    notice, this list of conditions and the following disclaimer.
 * 2. Redistributions in binary form must reproduce the above copyright
 *    notice, this list of conditions and the following disclaimer in the
 *    documentation and/or other materials provided with the distribution.
 *
 * THIS SOFTWARE IS PROVIDED BY THE AUTHOR ``AS IS'' AND ANY EXPRESS OR
 * IMPLIED WARRANTIES, INCLUDING, BUT NOT LIMITED TO, THE IMPLIED WARRANTIES
 * OF MERCHANTABILITY AND FITNESS FOR A PARTICULAR PURPOSE ARE DISCLAIMED.
 * IN NO EVENT SHALL THE AUTHOR BE LIABLE FOR ANY DIRECT, INDIRECT,
 * INCIDENTAL, SPECIAL, EXEMPLARY, OR CONSEQUENTIAL DAMAGES (INCLUDING, BUT
 * NOT LIMITED TO, PROCUREMENT OF SUBSTITUTE GOODS OR SERVICES; LOSS OF USE,
 * DATA, OR PROFITS; OR BUSINESS INTERRUPTION) HOWEVER CAUSED AND ON ANY
 * THEORY OF LIABILITY, WHETHER IN CONTRACT, STRICT LIABILITY, OR TORT
 * (INCLUDING NEGLIGENCE OR OTHERWISE) ARISING IN ANY WAY OUT OF THE USE OF
 * THIS SOFTWARE, EVEN IF ADVISED OF THE POSSIBILITY OF SUCH DAMAGE.
 */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "engine/progress.h"
#include "util/clock.h"
#include "util/mtext.h"
#include "util/xmalloc.h"

#define PROGRESS_DEFAULT_COLS 80
#define PROGRESS_MAX_COLS 512
#define PROGRESS_STALL_SECS 5
#define PROGRESS_INTERVAL 1.0
/* snmprintf gets sizeof(buf)-1 = 512 bytes (NUL included) after the "\r". */
#define PROGRESS_NAME_MAX PROGRESS_MAX_COLS

struct progress {
	int fd;
	int win_size;
	char *name;
	off_t total;
	off_t counter;		/* latest position reported by the engine */
	double start;		/* monotonic seconds at progress_start */
	double last_update;	/* monotonic seconds at the last redraw */
	bool started;
	struct progress_state st;
	char line[PROGRESS_MAX_COLS + 2];
};

/* double -> int as the x86-64 scp binary does it (cvttsd2si): truncation,
 * and INT_MIN for NaN or anything out of range instead of undefined
 * behaviour. */
static int
to_int(double d)
{
	if (!(d > (double)INT_MIN - 1.0 && d < (double)INT_MAX + 1.0))
		return INT_MIN;
	return (int)d;
}

/* off_t -> int keeping the low 32 bits, as gcc does for scp's casts. */
static int
wrap_int(long long v)
{
	return (int)(int32_t)(uint32_t)(unsigned long long)v;
}

static const char progress_units[] = " KMGT";

static void
format_size(char *buf, size_t sz, long long bytes)
{
	int i;

	for (i = 0; bytes >= 10000 && progress_units[i] != 'T'; i++)
		bytes = (bytes + 512) / 1024;
	snprintf(buf, sz, "%4lld%c%s", bytes, progress_units[i],
	    i ? "B" : " ");
}

/* Hundredths of the unit, so one decimal can be rounded; never below K. */
static void
format_rate(char *buf, size_t sz, long long bytes)
{
	int i;

	bytes *= 100;
	for (i = 0; bytes >= 100 * 1000 && progress_units[i] != 'T'; i++)
		bytes = (bytes + 512) / 1024;
	if (i == 0) {
		i = 1;
		bytes = (bytes + 512) / 1024;
	}
	snprintf(buf, sz, "%3lld.%1lld%c%s", (bytes + 5) / 100,
	    (bytes + 5) / 10 % 10, progress_units[i], "B");
}

/* The name field as OpenSSH's snmprintf("%-*s") makes it: padded to
 * `width` BYTES, then copied while it fits in `width` display columns and
 * `maxsz` bytes (NUL included); printable characters are copied, each byte
 * of anything else becomes \ooo.  Returns the bytes written to dst. */
static size_t
format_name(char *dst, size_t maxsz, int width, const char *name)
{
	char *src = xasprintf("%-*s", width, name);
	size_t dl = mtext_nvis(dst, maxsz, &width, src);

	free(src);
	return dl;
}

/* Append to the line the way scp's bounded snprintf/strlcat calls do: the
 * text is cut so the line stays under win_size bytes.  (When the name alone
 * overflows the line, what follows it is never visible, so cutting
 * everything at win_size-1 gives the same bytes as scp writes.) */
static void
line_add(char *line, size_t *len, size_t cap, const char *s)
{
	size_t n = strlen(s);

	if (*len >= cap)
		return;
	if (n > cap - *len)
		n = cap - *len;
	memcpy(line + *len, s, n);
	*len += n;
}

size_t
progress_format(char *buf, size_t bufsz, int win_size, const char *name,
    const struct progress_state *st)
{
	/* Name (<= 512 bytes) plus the fields (< 100 bytes) fit here. */
	char line[PROGRESS_MAX_COLS + 256];
	char field[128];
	size_t len = 0, cap, out;
	long long bytes_left = (long long)st->total - (long long)st->cur;
	int bps = to_int(st->bytes_per_sec);
	int file_len, percent;

	if (bufsz == 0)
		return 0;
	if (win_size < 1)
		win_size = 1;
	if (win_size > PROGRESS_MAX_COLS + 1)
		win_size = PROGRESS_MAX_COLS + 1;
	cap = (size_t)win_size - 1;

	file_len = win_size - 36;
	if (file_len > 0) {
		line[len++] = '\r';
		len += format_name(line + len, PROGRESS_NAME_MAX, file_len,
		    name != NULL ? name : "");
	}

	if (st->total == 0 || st->cur == st->total)
		percent = 100;
	else
		percent = to_int(((float)st->cur / (float)st->total) * 100);
	snprintf(field, sizeof(field), " %3d%% ", percent);
	line_add(line, &len, sizeof(line), field);

	format_size(field, sizeof(field), (long long)st->cur);
	line_add(line, &len, sizeof(line), field);
	line_add(line, &len, sizeof(line), " ");

	format_rate(field, sizeof(field), (long long)bps);
	line_add(line, &len, sizeof(line), field);
	line_add(line, &len, sizeof(line), "/s ");

	if (st->stalled >= PROGRESS_STALL_SECS) {
		line_add(line, &len, sizeof(line), "- stalled -");
	} else if (bps == 0 && bytes_left != 0) {
		line_add(line, &len, sizeof(line), "  --:-- ETA");
	} else {
		int secs, hours, mins;

		if (bytes_left > 0)
			secs = wrap_int(bytes_left / bps);
		else
			secs = to_int(st->elapsed);
		hours = secs / 3600;
		secs -= hours * 3600;
		mins = secs / 60;
		secs -= mins * 60;
		if (hours != 0)
			snprintf(field, sizeof(field), "%d:%02d:%02d", hours,
			    mins, secs);
		else
			snprintf(field, sizeof(field), "  %02d:%02d", mins,
			    secs);
		line_add(line, &len, sizeof(line), field);
		line_add(line, &len, sizeof(line),
		    bytes_left > 0 ? " ETA" : "    ");
	}

	/* scp writes win_size-1 bytes whatever the text's length: cut a long
	 * line, and pad a short one with the NUL that ends it. */
	out = cap < bufsz - 1 ? cap : bufsz - 1;
	memset(buf, 0, out + 1);
	memcpy(buf, line, len < out ? len : out);
	return out;
}

void
progress_advance(struct progress_state *st, off_t cur, double since_start,
    double since_last)
{
	long long transferred = (long long)cur - (long long)st->cur;
	long long bytes_left = (long long)st->total - (long long)cur;
	double elapsed;
	int bps = to_int(st->bytes_per_sec);
	int cur_speed;

	if (bytes_left > 0) {
		elapsed = since_last;
	} else {
		/* At the end scp shows the true average over the transfer. */
		elapsed = since_start;
		transferred = (long long)st->total;
		bps = 0;
	}
	if (elapsed != 0)
		cur_speed = to_int((double)transferred / elapsed);
	else
		cur_speed = wrap_int(transferred);

	if (bps != 0)
		bps = to_int(bps * 0.9 + cur_speed * (1.0 - 0.9));
	else
		bps = cur_speed;

	/* scp's counter is a long: each addition truncates. */
	if (transferred == 0) {
		double s = st->stalled + elapsed;
		st->stalled = (s > -9.2e18 && s < 9.2e18) ? (double)(long)s : s;
	} else {
		st->stalled = 0;
	}
	st->cur = cur;
	st->bytes_per_sec = bps;
	st->elapsed = since_start;
	st->done = bytes_left <= 0;
}

/* scp draws only while it is in the terminal's foreground process group. */
static bool
can_output(int fd)
{
	return getpgrp() == tcgetpgrp(fd);
}

/* The terminal's width, re-read at every redraw: that is when scp applies
 * a SIGWINCH, and a once-a-second ioctl saves a global signal handler. */
static int
window_size(int fd)
{
	struct winsize ws;
	int cols = PROGRESS_DEFAULT_COLS;

	if (ioctl(fd, TIOCGWINSZ, &ws) != -1 && ws.ws_col != 0)
		cols = ws.ws_col > PROGRESS_MAX_COLS ? PROGRESS_MAX_COLS :
		    ws.ws_col;
	return cols + 1;
}

static void
write_all(int fd, const char *s, size_t n)
{
	while (n > 0) {
		ssize_t w = write(fd, s, n);

		if (w < 0) {
			if (errno == EINTR || errno == EAGAIN)
				continue;
			return;
		}
		s += w;
		n -= (size_t)w;
	}
}

static void
redraw(struct progress *p, double now)
{
	size_t n;

	if (!can_output(p->fd))
		return;
	p->win_size = window_size(p->fd);
	progress_advance(&p->st, p->counter, now - p->start,
	    now - p->last_update);
	n = progress_format(p->line, sizeof(p->line), p->win_size, p->name,
	    &p->st);
	write_all(p->fd, p->line, n);
	p->last_update = now;
}

struct progress *
progress_new(int fd, bool quiet)
{
	struct progress *p;

	if (quiet || !isatty(fd) || !can_output(fd))
		return NULL;
	p = xcalloc(1, sizeof(*p));
	p->fd = fd;
	p->win_size = window_size(fd);
	return p;
}

/* As scp's sftp client shows it: the last path component, or the whole
 * path when it ends in '/'. */
static const char *
display_name(const char *path)
{
	const char *s = strrchr(path, '/');

	if (s == NULL || s[1] == '\0')
		return path;
	return s + 1;
}

void
progress_start(struct progress *p, const char *name, off_t total)
{
	if (p == NULL)
		return;
	free(p->name);
	p->name = xstrdup(display_name(name != NULL ? name : ""));
	p->total = total;
	p->counter = 0;
	memset(&p->st, 0, sizeof(p->st));
	p->st.total = total;
	p->start = p->last_update = clock_now();
	p->started = true;
	redraw(p, p->start);
}

void
progress_update(struct progress *p, off_t cur)
{
	double now;

	if (p == NULL || !p->started)
		return;
	p->counter = cur;
	now = clock_now();
	if (now - p->last_update >= PROGRESS_INTERVAL)
		redraw(p, now);
}

void
progress_finish(struct progress *p)
{
	if (p == NULL || !p->started)
		return;
	p->started = false;
	if (!can_output(p->fd))
		return;
	/* Like scp: redraw unless the last line already showed the end. */
	if (p->st.cur != p->total)
		redraw(p, clock_now());
	write_all(p->fd, "\n", 1);
}

void
progress_free(struct progress *p)
{
	if (p == NULL)
		return;
	free(p->name);
	free(p);
}
