/* SPDX-License-Identifier: ISC
 * Copyright (c) 2026 The fscp authors.  See LICENSE. */
/* Unit tests for proxycmd: the shell it runs under, spawning, its held
 * stderr, and the relay's pace.  The command's text is tests/unit/policy/check_proxytext. */
#include "config.h"

#include <check.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../check_main.h"
#include "transport/proxycmd.h"

START_TEST(shell_choice)
{
	ck_assert_str_eq(proxycmd_shell(NULL), "/bin/sh");
	ck_assert_str_eq(proxycmd_shell(""), "/bin/sh");
	ck_assert_str_eq(proxycmd_shell("/bin/bash"), "/bin/bash");
}
END_TEST

/* ---- spawn ----------------------------------------------------------------- */

static void
read_all(int fd, char *buf, size_t len)
{
	size_t n = 0;
	ssize_t r;

	while (n + 1 < len && (r = read(fd, buf + n, len - 1 - n)) > 0)
		n += (size_t)r;
	buf[n] = '\0';
}

START_TEST(spawn_echo)
{
	char err[128], buf[256];
	pid_t pid;
	int fd, st;

	setenv("SHELL", "/bin/sh", 1);
	/* The proxy talks over its stdin/stdout: an upper-casing cat. */
	fd = proxycmd_spawn("tr a-z A-Z", &pid, err, sizeof(err));
	ck_assert_int_ge(fd, 0);
	ck_assert(fcntl(fd, F_GETFD) & FD_CLOEXEC);
	ck_assert_int_eq(write(fd, "hello proxy\n", 12), 12);
	shutdown(fd, SHUT_WR);
	read_all(fd, buf, sizeof(buf));
	ck_assert_str_eq(buf, "HELLO PROXY\n");
	close(fd);
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	ck_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0);
}
END_TEST

START_TEST(spawn_exec_replaces_shell)
{
	char err[128], buf[64];
	pid_t pid;
	int fd, st;

	/* "exec" is prepended as ssh does: the command keeps the child's pid. */
	unsetenv("SHELL");
	fd = proxycmd_spawn("sh -c 'echo $$'", &pid, err, sizeof(err));
	ck_assert_int_ge(fd, 0);
	shutdown(fd, SHUT_WR);
	read_all(fd, buf, sizeof(buf));
	ck_assert_int_eq(atoi(buf), pid);
	close(fd);
	waitpid(pid, &st, 0);
}
END_TEST

START_TEST(spawn_failing_command)
{
	char err[128], buf[64];
	pid_t pid;
	int fd, st;

	setenv("SHELL", "/bin/sh", 1);
	/* "exec " is prepended, so the command must be a program, as in ssh. */
	fd = proxycmd_spawn("sh -c 'exit 7'", &pid, err, sizeof(err));
	ck_assert_int_ge(fd, 0);
	read_all(fd, buf, sizeof(buf));
	ck_assert_str_eq(buf, "");	/* EOF, like a dead proxy */
	close(fd);
	waitpid(pid, &st, 0);
	ck_assert_int_eq(WEXITSTATUS(st), 7);
}
END_TEST

/* A deep pipe asked for (out_pipe): the proxy writes 768 KiB and exits
 * while nobody reads, which the system's 64 KiB pipe, the relay's buffer
 * and the socket's would not hold; then every byte still arrives. */
START_TEST(spawn_deep_pipe)
{
	struct proxycmd_how how = { .out_pipe = 1u << 20 };
	char err[128], buf[65536];
	size_t total = 0;
	ssize_t r;
	pid_t pid;
	int fd, st = 0, i;

	setenv("SHELL", "/bin/sh", 1);
	fd = proxycmd_spawn_metered("head -c 786432 /dev/zero", &pid, NULL, &how, err,
	    sizeof(err));
	ck_assert_int_ge(fd, 0);
	for (i = 0; i < 1000 && waitpid(pid, &st, WNOHANG) == 0; i++)
		usleep(10000);
	ck_assert_msg(i < 1000, "the proxy could not write 768 KiB into its pipe");
	ck_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	while ((r = read(fd, buf, sizeof(buf))) > 0)
		total += (size_t)r;
	ck_assert_uint_eq(total, 786432);
	close(fd);
}
END_TEST

/* ---- the held stderr ------------------------------------------------------- */

static bool
says_throttled(const char *text, size_t len)
{
	return memmem(text, len, "Throttl", 7) != NULL;
}

/* Whether what cmd writes on stderr says "Throttl", looked for once
 * its stdout has ended, with a minute to wait. */
static bool
hold_after_end(const char *cmd)
{
	struct proxycmd_hold *hold = NULL;
	struct proxycmd_how how = { .gather = true };
	char err[128], buf[64];
	pid_t pid;
	int fd, st;
	bool found;

	setenv("SHELL", "/bin/sh", 1);
	fd = proxycmd_spawn_metered(cmd, &pid, &hold, &how, err, sizeof(err));
	ck_assert_int_ge(fd, 0);
	ck_assert_ptr_nonnull(hold);
	read_all(fd, buf, sizeof(buf));
	found = proxycmd_hold_has(hold, says_throttled, 60000);
	close(fd);
	waitpid(pid, &st, 0);
	proxycmd_hold_end(hold, false);
	return found;
}

/* Once a failed proxy's stderr is closed nothing more can come: the look
 * ends there, not after its minute (Check's timeout would fail it). */
START_TEST(hold_ends_with_stderr)
{
	ck_assert(!hold_after_end("sh -c 'echo no route >&2'"));
}
END_TEST

/* Words that came just before the end count. */
START_TEST(hold_finds_last_words)
{
	ck_assert(hold_after_end("sh -c 'echo ThrottlingException >&2'"));
}
END_TEST

/* ---- the relay's pace ------------------------------------------------------ */

/* SSM's trickle: 1 KiB every 1.2 ms.  The first PROXYCMD_STREAK reads
 * pass at once (the first follows no other), then each waits the longest (32 KiB at that rate is 38 ms);
 * the reads behind a wait, bigger and a wait later, keep the streak. */
START_TEST(trickle_ssm)
{
	struct proxycmd_trickle t = { .gather = true };
	double now = 10.0, w;

	ck_assert_double_eq(proxycmd_trickle_wait(&t, 1024, 100, now), 0);
	for (int i = 1; i < PROXYCMD_STREAK; i++) {
		now += 0.0012;
		ck_assert_double_eq(proxycmd_trickle_wait(&t, 1024, 100, now), 0);
	}
	now += 0.0012;
	ck_assert_double_eq(proxycmd_trickle_wait(&t, 1024, 100, now), PROXYCMD_WAIT_S);
	for (int i = 0; i < 5; i++) {
		now += PROXYCMD_WAIT_S + 0.0005;
		w = proxycmd_trickle_wait(&t, 7 * 1024, 100, now);
		ck_assert_double_eq_tol(w, PROXYCMD_WAIT_S, 1e-9);
	}
}
END_TEST

/* What never waits: a handshake's replies a round trip apart, big reads
 * (a fast proxy), nothing read; and a fast small-read stream waits only
 * what 32 KiB takes at its rate. */
START_TEST(trickle_no_wait)
{
	struct proxycmd_trickle t = { .gather = true };
	double now = 10.0, w;

	for (int i = 0; i < 10; i++) {
		now += 0.040;
		ck_assert_double_eq(proxycmd_trickle_wait(&t, 700, 0, now), 0);
	}
	for (int i = 0; i < 10; i++) {
		now += 0.0001;
		ck_assert_double_eq(proxycmd_trickle_wait(&t, 65536, 0, now), 0);
	}
	ck_assert_double_eq(proxycmd_trickle_wait(&t, 0, 0, now), 0);
	/* 4 KiB every 0.1 ms, 40 MB/s: 32 KiB take 0.8 ms. */
	t = (struct proxycmd_trickle){ .gather = true };
	for (int i = 0; i <= PROXYCMD_STREAK; i++) {
		now += 0.0001;
		w = proxycmd_trickle_wait(&t, 4096, 0, now);
	}
	ck_assert_double_eq_tol(w, 0.0008, 1e-6);
	/* A pause ends the streak: the next small read passes at once. */
	now += w + PROXYCMD_WAIT_S + 0.001;
	ck_assert_double_eq(proxycmd_trickle_wait(&t, 4096, 0, now), 0);
	/* An upload: small replies 1 ms apart while libssh sends 64 KiB
	 * between them; the replies never wait. */
	t = (struct proxycmd_trickle){ .gather = true };
	for (int i = 0; i < 3 * PROXYCMD_STREAK; i++) {
		now += 0.001;
		ck_assert_double_eq(proxycmd_trickle_wait(&t, 90, 65536, now), 0);
	}
}
END_TEST

/* Any proxy but SSM's: the same trickle passes at once, read by read (a
 * small read there is a reply that a request waits for: through nc, a
 * ProxyCommand's ssh or a jump host, gathering held every round trip of a
 * near server to the wait). */
START_TEST(trickle_not_ssm)
{
	struct proxycmd_trickle t = { .gather = false };
	double now = 10.0;

	for (int i = 0; i < 4 * PROXYCMD_STREAK; i++) {
		now += 0.0012;
		ck_assert_double_eq(proxycmd_trickle_wait(&t, 1024, 100, now), 0);
	}
}
END_TEST

static Suite *
proxycmd_suite(void)
{
	Suite *s = suite_create("proxycmd");
	TCase *ts = tcase_create("spawn");

	tcase_add_test(ts, shell_choice);
	tcase_add_test(ts, spawn_echo);
	tcase_add_test(ts, spawn_exec_replaces_shell);
	tcase_add_test(ts, spawn_failing_command);
	tcase_add_test(ts, spawn_deep_pipe);
	tcase_add_test(ts, hold_ends_with_stderr);
	tcase_add_test(ts, hold_finds_last_words);
	tcase_add_test(ts, trickle_ssm);
	tcase_add_test(ts, trickle_no_wait);
	tcase_add_test(ts, trickle_not_ssm);
	suite_add_tcase(s, ts);
	return s;
}

int
main(void)
{
	return check_main(proxycmd_suite());
}
