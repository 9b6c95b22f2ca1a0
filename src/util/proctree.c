/* SPDX-License-Identifier: ISC
 * Copyright (c) 2026 The fscp authors.  See LICENSE. */
/* proctree: CPU time of process trees from /proc (proctree.h). */
#include "config.h"
#include "util/proctree.h"
#include "util/xmalloc.h"

#include <ctype.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

bool
proctree_parse_stat(const char *line, pid_t *pid, char *state, pid_t *ppid,
    pid_t *sid, unsigned long long *ticks)
{
	/* "pid (comm) state ppid pgrp session tty tpgid flags minflt cminflt
	 * majflt cmajflt utime stime cutime cstime ...": comm may hold spaces
	 * and parentheses, so the fields are counted from its last ')'. */
	const char *p = strrchr(line, ')');
	long long id, pp, sess;
	unsigned long long v[4];
	char st;

	if (p == NULL || sscanf(line, "%lld", &id) != 1)
		return false;
	if (sscanf(p + 1, " %c %lld %*d %lld %*d %*d %*u %*u %*u %*u %*u %llu %llu %llu %llu",
	    &st, &pp, &sess, &v[0], &v[1], &v[2], &v[3]) != 7)
		return false;
	*pid = (pid_t)id;
	*state = st;
	*ppid = (pid_t)pp;
	*sid = (pid_t)sess;
	*ticks = v[0] + v[1] + v[2] + v[3];
	return true;
}

struct proctree_ent {
	pid_t pid, ppid, sid;
	char state;
	unsigned long long ticks;
};

static int
ent_cmp(const void *a, const void *b)
{
	pid_t x = ((const struct proctree_ent *)a)->pid, y = ((const struct proctree_ent *)b)->pid;

	return x < y ? -1 : x > y;
}

static const struct proctree_ent *
ent_find(const struct proctree_ent *e, size_t n, pid_t pid)
{
	struct proctree_ent key = { .pid = pid };

	return bsearch(&key, e, n, sizeof(*e), ent_cmp);
}

/* Every process's entry, sorted by pid; NULL when /proc is not there. */
static struct proctree_ent *
proctree_read(size_t *n)
{
	DIR *d = opendir("/proc");
	struct dirent *de;
	struct proctree_ent *e = NULL;
	size_t cap = 0;

	*n = 0;
	if (d == NULL)
		return NULL;
	while ((de = readdir(d)) != NULL) {
		char path[300], line[1024];
		FILE *f;
		struct proctree_ent x;

		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		snprintf(path, sizeof(path), "/proc/%s/stat", de->d_name);
		if ((f = fopen(path, "re")) == NULL)
			continue;	/* gone meanwhile */
		if (fgets(line, sizeof(line), f) != NULL &&
		    proctree_parse_stat(line, &x.pid, &x.state, &x.ppid, &x.sid, &x.ticks)) {
			if (*n == cap) {
				cap = cap ? cap * 2 : 256;
				e = xrealloc(e, cap * sizeof(*e));
			}
			e[(*n)++] = x;
		}
		fclose(f);
	}
	closedir(d);
	if (e == NULL)
		e = xcalloc(1, sizeof(*e));
	qsort(e, *n, sizeof(*e), ent_cmp);
	return e;
}

/* Is x in root's tree: in the session root leads, or descended from it
 * (a parent chain is short; the depth cap stops a cycle read mid-change). */
static bool
in_tree(const struct proctree_ent *e, size_t n, const struct proctree_ent *x, pid_t root)
{
	if (x->sid == root)
		return true;
	for (int depth = 0; x != NULL && depth < 64; depth++) {
		if (x->pid == root)
			return true;
		if (x->ppid <= 1)
			return false;
		x = ent_find(e, n, x->ppid);
	}
	return false;
}

int
proctree_cpu(const pid_t *roots, int n, double *cpu_s, int *runnable)
{
	size_t ne;
	struct proctree_ent *e = proctree_read(&ne);
	long hz = sysconf(_SC_CLK_TCK);
	int found = 0;

	for (int i = 0; i < n; i++) {
		cpu_s[i] = -1;
		if (runnable != NULL)
			runnable[i] = 0;
	}
	if (e == NULL)
		return -1;
	if (hz <= 0)
		hz = 100;
	for (int i = 0; i < n; i++) {
		unsigned long long t = 0;

		if (roots[i] <= 0 || ent_find(e, ne, roots[i]) == NULL)
			continue;
		for (size_t k = 0; k < ne; k++)
			if (in_tree(e, ne, &e[k], roots[i])) {
				t += e[k].ticks;
				if (runnable != NULL && e[k].state == 'R')
					runnable[i]++;
			}
		cpu_s[i] = (double)t / (double)hz;
		found++;
	}
	free(e);
	return found;
}
