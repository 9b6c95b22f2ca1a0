/* SPDX-License-Identifier: ISC
 * Copyright (c) 2026 The fscp authors.  See LICENSE. */
/* Unit tests for proctree: /proc/PID/stat lines, the CPU of a tree whose
 * work is done by a grandchild (as the aws CLI under `sh -c`), and the
 * walk of this process's own tree. */
#include "config.h"

#include <check.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../check_main.h"
#include "util/clock.h"
#include "util/proctree.h"

START_TEST(parse_lines)
{
	pid_t pid, ppid, sid;
	unsigned long long t;
	char st;

	ck_assert(proctree_parse_stat("4242 (aws) S 4241 4241 4241 0 -1 4194304 100 0 0 0 "
	    "58 10 3 2 20 0 1 0 100 0 0", &pid, &st, &ppid, &sid, &t));
	ck_assert_int_eq(pid, 4242);
	ck_assert_int_eq(ppid, 4241);
	ck_assert_int_eq(sid, 4241);
	ck_assert_uint_eq(t, 73);
	ck_assert_int_eq(st, 'S');
	/* A name with spaces and parentheses: the fields follow the last ')'. */
	ck_assert(proctree_parse_stat("7 (a) b (c) R 1 7 7 0 -1 0 0 0 0 0 5 6 7 8 20", &pid,
	    &st, &ppid, &sid, &t));
	ck_assert_int_eq(pid, 7);
	ck_assert_int_eq(st, 'R');
	ck_assert_int_eq(ppid, 1);
	ck_assert_uint_eq(t, 26);
	ck_assert(!proctree_parse_stat("", &pid, &st, &ppid, &sid, &t));
	ck_assert(!proctree_parse_stat("12 (x) S 1 2", &pid, &st, &ppid, &sid, &t));
}
END_TEST

/* Spin until this process has spent s seconds of CPU. */
static void
burn(double s)
{
	struct timespec ts;

	do
		clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	while (ts.tv_sec + ts.tv_nsec / 1e9 < s);
}

/* The child only waits; its child burns CPU, then sleeps: the tree's CPU
 * is the grandchild's.  A root that is gone reads -1.  As a subreaper (as
 * fscp is) the walk reads this process's tree only; otherwise all of
 * /proc. */
static void
tree_counts(bool reaper)
{
	pid_t root, gone;
	double cpu = -1, due = clock_now() + 20;
	int run = 0, most = 0;

	if (reaper)
		ck_assert_int_eq(prctl(PR_SET_CHILD_SUBREAPER, 1), 0);
	root = fork();
	ck_assert_int_ge(root, 0);
	if (root == 0) {
		pid_t g;

		setpgid(0, 0);
		g = fork();

		if (g == 0) {
			burn(0.3);
			pause();
			_exit(0);
		}
		pause();
		_exit(0);
	}
	setpgid(root, root);
	while (clock_now() < due) {
		ck_assert_int_eq(proctree_cpu(&root, 1, &cpu, &run), 1);
		if (run > most)
			most = run;
		if (cpu >= 0.25)
			break;
		usleep(50000);
	}
	ck_assert(cpu >= 0.25);
	/* Spinning, the grandchild ran (or waited for a CPU); done, it sleeps. */
	ck_assert_int_ge(most, 1);
	while (clock_now() < due && proctree_cpu(&root, 1, &cpu, &run) == 1 && run > 0)
		usleep(50000);
	ck_assert_int_eq(run, 0);
	kill(-root, SIGKILL);
	waitpid(root, NULL, 0);
	gone = root;
	ck_assert_int_eq(proctree_cpu(&gone, 1, &cpu, NULL), 0);
	ck_assert(cpu < 0);
}

START_TEST(tree_counts_descendants)
{
	tree_counts(false);
}
END_TEST

START_TEST(tree_counts_descendants_as_reaper)
{
	tree_counts(true);
}
END_TEST

/* What proctree_each offered: up to 8 pids. */
struct seen {
	pid_t pid[8];
	int n, others;
	pid_t parent;		/* not in our tree: never offered */
};

static bool
see(pid_t pid, const char *line, void *arg)
{
	struct seen *s = arg;

	ck_assert(line[0] >= '1' && line[0] <= '9');
	ck_assert_int_ne(pid, s->parent);
	if (s->n < 8)
		s->pid[s->n++] = pid;
	else
		s->others++;
	return false;
}

static bool
saw(const struct seen *s, pid_t pid)
{
	for (int i = 0; i < s->n; i++)
		if (s->pid[i] == pid)
			return true;
	return false;
}

/* As a subreaper: depth 1 offers children only, depth 0 the grandchild
 * too, and nothing outside the tree (our parent); once the child is gone,
 * its orphan is our child.  Children listed by any of our threads. */
START_TEST(each_walks_own_tree)
{
	int p[2];
	pid_t child, grand;
	struct seen s = { .parent = getppid() };
	bool none = true;

	ck_assert_int_eq(prctl(PR_SET_CHILD_SUBREAPER, 1), 0);
	ck_assert_int_eq(pipe(p), 0);
	child = fork();
	ck_assert_int_ge(child, 0);
	if (child == 0) {
		pid_t g = fork();

		if (g == 0) {
			pause();
			_exit(0);
		}
		(void)write(p[1], &g, sizeof(g));
		pause();
		_exit(0);
	}
	ck_assert_int_eq(read(p[0], &grand, sizeof(grand)), (int)sizeof(grand));
	ck_assert(!proctree_each(1, see, &s, &none));
	ck_assert(!none);
	ck_assert(saw(&s, child));
	ck_assert(!saw(&s, grand));
	s.n = 0;
	ck_assert(!proctree_each(0, see, &s, &none));
	ck_assert(saw(&s, child) && saw(&s, grand));
	ck_assert_int_eq(s.n + s.others, 2);
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	s.n = 0;
	ck_assert(!proctree_each(1, see, &s, &none));
	ck_assert(saw(&s, grand));
	ck_assert(!saw(&s, child));
	kill(grand, SIGKILL);
	waitpid(grand, NULL, 0);
	s.n = 0;
	ck_assert(!proctree_each(0, see, &s, &none));
	ck_assert_int_eq(s.n, 0);
}
END_TEST

static Suite *
proctree_suite(void)
{
	Suite *s = suite_create("proctree");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, parse_lines);
	tcase_add_test(tc, tree_counts_descendants);
	tcase_add_test(tc, tree_counts_descendants_as_reaper);
	tcase_add_test(tc, each_walks_own_tree);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return check_main(proctree_suite());
}
