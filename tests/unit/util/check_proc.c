/* SPDX-License-Identifier: ISC
 * Copyright (c) 2026 The fscp authors.  See LICENSE. */
/* Unit tests for proc: spawn, reap, capture with a timeout. */
#include "config.h"

#include <check.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "../check_main.h"
#include "util/clock.h"
#include "util/proc.h"

/* Is a process of group g alive (not a zombie)? */
static bool
group_alive(pid_t g)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "ps -eo pgid=,stat= | awk '$1 == %d && $2 !~ /^Z/' | grep -q .",
	    (int)g);
	return system(cmd) == 0;
}

static struct proc_spec
sh_spec(char **argv)
{
	struct proc_spec ps = {
		.argv = argv, .search_path = true, .in = PROC_NULL,
		.out = PROC_KEEP, .err = PROC_KEEP, .msg = PROC_MSG_PERROR,
		.exec_status = 127,
	};

	return ps;
}

/* A group of its own is ended whole: the shell and what it started
 * (as `sh -c "aws ..."` and the CLI under it), even a member that ignores
 * the hang-up; and a leader that exits on its own takes what it left. */
START_TEST(group_ended_whole)
{
	char *argv[] = { "sh", "-c", "sleep 60 & (trap '' HUP; sleep 60) & wait", NULL };
	struct proc_spec ps = sh_spec(argv);
	pid_t pid;
	double t0;

	ps.group = true;
	pid = proc_spawn(&ps, NULL, 0);
	ck_assert_int_gt(pid, 0);
	usleep(200 * 1000);
	ck_assert(group_alive(pid));
	t0 = clock_now();
	ck_assert_int_eq(proc_end(pid, SIGHUP), 255);
	ck_assert(!group_alive(pid));
	ck_assert(clock_now() - t0 < 5);
	/* Not ours any more. */
	ck_assert_int_eq(proc_end(pid, SIGHUP), 255);

	argv[2] = "sleep 60 & exit 3";
	pid = proc_spawn(&ps, NULL, 0);
	ck_assert_int_gt(pid, 0);
	ck_assert_int_eq(proc_wait(pid), 3);
	ck_assert(!group_alive(pid));
}
END_TEST

/* A group child leads a session of its own, without a terminal: what it
 * would read from the terminal fails at once instead of stopping it as a
 * background group for good. */
START_TEST(group_leads_session)
{
	char *argv[] = { "sleep", "60", NULL };
	struct proc_spec ps = sh_spec(argv);
	pid_t pid;
	long sid = 0, tty = -1;
	double due;

	ps.group = true;
	pid = proc_spawn(&ps, NULL, 0);
	ck_assert_int_gt(pid, 0);
	for (due = clock_now() + 5; clock_now() < due; usleep(10 * 1000)) {
		char path[64], buf[512], *rp;
		FILE *f;

		snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
		if ((f = fopen(path, "r")) == NULL)
			continue;
		rp = fgets(buf, sizeof(buf), f) != NULL ? strrchr(buf, ')') : NULL;
		fclose(f);
		/* "pid (comm) state ppid pgrp session tty_nr ..." */
		if (rp != NULL && sscanf(rp + 1, " %*c %*d %*d %ld %ld", &sid, &tty) == 2 &&
		    sid == pid)
			break;
	}
	ck_assert_int_eq(sid, pid);
	ck_assert_int_eq(tty, 0);
	ck_assert_int_eq(proc_end(pid, SIGHUP), 255);
}
END_TEST

/* Every child still running is ended by proc_end_all, and none starts
 * after it. */
START_TEST(end_all)
{
	char *argv[] = { "sh", "-c", "sleep 60", NULL };
	struct proc_spec ps = sh_spec(argv);
	pid_t a, b;
	char err[128] = "";
	sigset_t set;

	/* As fscp runs (proc_own_children): a child ended before its exec
	 * must not run this process's handlers (check's own). */
	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	sigaddset(&set, SIGINT);
	sigprocmask(SIG_BLOCK, &set, NULL);
	a = proc_spawn(&ps, NULL, 0);
	ps.group = true;
	argv[2] = "sleep 60 & wait";
	b = proc_spawn(&ps, NULL, 0);
	ck_assert_int_gt(a, 0);
	ck_assert_int_gt(b, 0);
	proc_end_all(0);
	ck_assert_int_eq(kill(a, 0), -1);
	ck_assert(!group_alive(b));
	ck_assert_int_eq(proc_spawn(&ps, err, sizeof(err)), -1);
	ck_assert_str_eq(err, "fork: fscp is ending");
}
END_TEST

START_TEST(exit_status)
{
	char *argv[] = { "sh", "-c", "exit 42", NULL };
	struct proc_spec ps = sh_spec(argv);
	char err[128] = "";

	ck_assert_int_eq(proc_run(&ps, err, sizeof(err)), 42);
	argv[2] = "true";
	ck_assert_int_eq(proc_run(&ps, err, sizeof(err)), 0);
}
END_TEST

START_TEST(signal_is_255)
{
	char *argv[] = { "sh", "-c", "kill -TERM $$", NULL };
	struct proc_spec ps = sh_spec(argv);

	ck_assert_int_eq(proc_run(&ps, NULL, 0), 255);
}
END_TEST

START_TEST(capture_out_and_err)
{
	char *argv[] = { "sh", "-c", "echo out; echo err >&2; read x; echo \"[$x]\"; exit 3", NULL };
	struct proc_spec ps = sh_spec(argv);
	struct proc_output po;

	ck_assert_int_eq(proc_capture(&ps, true, 10000, &po, NULL, 0), 0);
	ck_assert_str_eq(po.out, "out\n[]\n");	/* stdin was /dev/null */
	ck_assert_uint_eq(po.out_len, 7);
	ck_assert_str_eq(po.err, "err\n");
	ck_assert_int_eq(po.status, 3);
	ck_assert(!po.timed_out);
	proc_output_free(&po);
}
END_TEST

START_TEST(capture_big_output)
{
	/* More than a pipe holds: both pipes are read while the child runs. */
	char *argv[] = { "sh", "-c", "head -c 300000 /dev/zero; head -c 200000 /dev/zero >&2", NULL };
	struct proc_spec ps = sh_spec(argv);
	struct proc_output po;

	ck_assert_int_eq(proc_capture(&ps, true, 10000, &po, NULL, 0), 0);
	ck_assert_uint_eq(po.out_len, 300000);
	ck_assert_uint_eq(po.err_len, 200000);
	ck_assert_int_eq(po.status, 0);
	proc_output_free(&po);
}
END_TEST

START_TEST(capture_timeout_kills)
{
	char *argv[] = { "sleep", "30", NULL };
	struct proc_spec ps = sh_spec(argv);
	struct proc_output po;
	double t0 = clock_now();

	ck_assert_int_eq(proc_capture(&ps, false, 300, &po, NULL, 0), 0);
	ck_assert(po.timed_out);
	ck_assert_int_eq(po.status, 255);	/* SIGKILL */
	ck_assert_str_eq(po.out, "");
	ck_assert_ptr_null(po.err);
	ck_assert_msg(clock_now() - t0 < 10, "the child was not killed");
	proc_output_free(&po);
}
END_TEST

START_TEST(missing_program)
{
	char *argv[] = { "/nonexistent/prog", NULL };
	struct proc_spec ps = sh_spec(argv);
	struct proc_output po;

	ck_assert_int_eq(proc_capture(&ps, true, 10000, &po, NULL, 0), 0);
	ck_assert_int_eq(po.status, 127);
	ck_assert_str_eq(po.err, "/nonexistent/prog: No such file or directory\n");
	proc_output_free(&po);

	ps.msg = PROC_MSG_NONE;
	ps.exec_status = 1;
	ps.file = "/nonexistent/other";	/* file wins over argv[0] */
	ck_assert_int_eq(proc_capture(&ps, true, 10000, &po, NULL, 0), 0);
	ck_assert_int_eq(po.status, 1);
	ck_assert_str_eq(po.err, "");
	proc_output_free(&po);
}
END_TEST

START_TEST(no_path_search)
{
	char *argv[] = { "sh", "-c", "exit 0", NULL };
	struct proc_spec ps = sh_spec(argv);

	ps.search_path = false;	/* execv: "sh" relative to the cwd */
	ps.err = PROC_NULL;
	if (access("sh", X_OK) == 0)
		return;
	ck_assert_int_eq(proc_run(&ps, NULL, 0), 127);
}
END_TEST

START_TEST(socket_as_stdin_and_stdout)
{
	/* One end of a socketpair as both stdin and stdout, as ssh gets it;
	 * close-on-exec on the parent's copy must not reach the child's 0/1. */
	char *argv[] = { "tr", "a-z", "A-Z", NULL };
	struct proc_spec ps = sh_spec(argv);
	char buf[64];
	ssize_t n, got = 0;
	int sv[2];
	pid_t pid;

	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
	ps.in = ps.out = sv[1];
	pid = proc_spawn(&ps, NULL, 0);
	ck_assert_int_gt(pid, 0);
	close(sv[1]);
	ck_assert_int_eq(write(sv[0], "hello\n", 6), 6);
	shutdown(sv[0], SHUT_WR);
	while ((n = read(sv[0], buf + got, sizeof(buf) - 1 - (size_t)got)) > 0)
		got += n;
	buf[got] = '\0';
	ck_assert_str_eq(buf, "HELLO\n");
	close(sv[0]);
	ck_assert_int_eq(proc_wait(pid), 0);
}
END_TEST

START_TEST(low_fds_swapped)
{
	/* Descriptors below 3 given for other slots are not clobbered. */
	char *argv[] = { "sh", "-c", "echo to-err >&2", NULL };
	struct proc_spec ps = sh_spec(argv);
	int p[2], saved1 = dup(1);
	char buf[32] = "";
	pid_t pid;

	ck_assert_int_eq(pipe(p), 0);
	dup2(p[1], 1);		/* our stdout is the pipe ... */
	close(p[1]);
	ps.err = 1;		/* ... and becomes the child's stderr */
	ps.out = PROC_NULL;
	pid = proc_spawn(&ps, NULL, 0);
	dup2(saved1, 1);
	close(saved1);
	ck_assert_int_gt(pid, 0);
	ck_assert_int_eq(proc_wait(pid), 0);
	ck_assert_int_gt(read(p[0], buf, sizeof(buf) - 1), 0);
	ck_assert_str_eq(buf, "to-err\n");
	close(p[0]);
}
END_TEST

static Suite *
proc_suite(void)
{
	Suite *s = suite_create("proc");
	TCase *tc = tcase_create("proc");

	tcase_add_test(tc, exit_status);
	tcase_add_test(tc, signal_is_255);
	tcase_add_test(tc, capture_out_and_err);
	tcase_add_test(tc, capture_big_output);
	tcase_add_test(tc, capture_timeout_kills);
	tcase_add_test(tc, missing_program);
	tcase_add_test(tc, no_path_search);
	tcase_add_test(tc, socket_as_stdin_and_stdout);
	tcase_add_test(tc, low_fds_swapped);
	tcase_add_test(tc, group_ended_whole);
	tcase_add_test(tc, group_leads_session);
	tcase_add_test(tc, end_all);
	tcase_set_timeout(tc, 60);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return check_main(proc_suite());
}
