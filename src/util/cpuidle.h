/* SPDX-License-Identifier: ISC
 * Copyright (c) 2026 The fscp authors.  See LICENSE. */
/* cpuidle: how much CPU this process could still have, measured between
 * two samples: the idle time of the CPUs it may run on (/proc/stat), and
 * under a cgroup CPU quota, how often the quota ran out meanwhile (a
 * machine with idle CPUs is still busy for a process its quota holds).
 * What the route's growth reads as "the machine has idle CPU". */
#ifndef FSCP_CPUIDLE_H
#define FSCP_CPUIDLE_H

#include <stdbool.h>

struct cpuidle_sample {
	unsigned long long idle, total;	/* jiffies of the allowed CPUs */
	int cpus;
	bool ok;			/* /proc/stat was read */
	/* The cgroup's CPU quota (cpu.stat): periods, and those in which the
	 * quota ran out; quota_cores 0: no quota (or not readable). */
	unsigned long long periods, throttled;
	double quota_cores;
};

/* Now, from /proc/stat and this process's cgroup. */
void cpuidle_sample(struct cpuidle_sample *s);
/* Cores idle on average between a and b (b later), never more than the
 * quota left free; -1 when not known. */
double cpuidle_cores(const struct cpuidle_sample *a, const struct cpuidle_sample *b);

/* The parts cpuidle_sample reads, for tests: /proc/stat's text, counting
 * only the CPUs allowed says (allowed NULL, or allowed(cpu, arg) true);
 * a cgroup cpu.stat's text. */
void cpuidle_parse_stat(const char *text, bool (*allowed)(int cpu, void *arg), void *arg,
    struct cpuidle_sample *s);
void cpuidle_parse_cgstat(const char *text, struct cpuidle_sample *s);

#endif
