/* SPDX-License-Identifier: ISC
 * Copyright (c) 2026 The fscp authors.  See LICENSE. */
/* proctree: the CPU time a process and its descendants have spent, read
 * from /proc/PID/stat.  What an SSM session's start costs is the CPU of
 * its ProxyCommand's tree (`sh -c` and the aws CLI and plugin under it),
 * measured instead of assumed. */
#ifndef FSCP_PROCTREE_H
#define FSCP_PROCTREE_H

#include <stdbool.h>
#include <sys/types.h>

/* One /proc/PID/stat line: its state ('R' running or waiting for a CPU,
 * 'S' asleep ...), its parent, its session and its CPU ticks (utime +
 * stime, and cutime + cstime: the children it has reaped, which are gone
 * from /proc).  false when the line is not one. */
bool proctree_parse_stat(const char *line, pid_t *pid, char *state, pid_t *ppid,
    pid_t *sid, unsigned long long *ticks);

/* The CPU seconds of each of the n roots' trees (the root, the processes
 * descended from it or in the session it leads, and what they reaped)
 * into cpu_s[i]; -1 for a root that is gone.  runnable (NULL: not
 * wanted): how many of each tree's processes are running or waiting for a
 * CPU now (a CLI starved of CPU burns little, yet is not done).  One pass
 * over /proc.  Returns the roots found, -1 when /proc cannot be read. */
int proctree_cpu(const pid_t *roots, int n, double *cpu_s, int *runnable);

/* Call f(pid, line, arg) on the /proc/PID/stat line of each process
 * descended from this one, down to depth levels (1: its children only; 0:
 * all), until f returns true (then true).  They are found through the
 * kernel's lists of each task's children, so the cost is that of this
 * process's tree, not of every process on the machine.  Where those lists
 * are missing, or this process is no subreaper (an orphan of its tree
 * would have gone to init), every process is offered instead: f filters
 * by what the line says.  *none is set when /proc cannot be read. */
bool proctree_each(int depth, bool (*f)(pid_t pid, const char *line, void *arg), void *arg,
    bool *none);

#endif
