/* SPDX-License-Identifier: ISC
 * Copyright (c) 2026 The fscp authors.  See LICENSE. */
/* cpuidle: idle CPU between two samples (see cpuidle.h).
 *
 * /proc/stat counts the whole machine: a process held to some CPUs counts
 * only theirs.  A cgroup quota (cgroup v1 cpu.cfs_quota_us, v2 cpu.max)
 * caps the process below what the CPUs leave idle; its cpu.stat counts the
 * periods in which the quota ran out, so the share of periods that did
 * not is the share of the quota that was free. */
#include "config.h"
#include "util/cpuidle.h"
#include "util/proc.h"

#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void
cpuidle_parse_stat(const char *text, bool (*allowed)(int cpu, void *arg), void *arg,
    struct cpuidle_sample *s)
{
	const char *line = text;

	s->idle = s->total = 0;
	s->cpus = 0;
	for (; line != NULL && *line != '\0'; line = strchr(line, '\n'), line = line ? line + 1 : NULL) {
		unsigned long long v[8] = { 0 };
		int cpu;

		if (strncmp(line, "cpu", 3) != 0 || line[3] < '0' || line[3] > '9')
			continue;
		if (sscanf(line + 3, "%d %llu %llu %llu %llu %llu %llu %llu %llu", &cpu, &v[0],
		    &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7]) < 5)
			continue;
		if (allowed != NULL && !allowed(cpu, arg))
			continue;
		/* user nice system idle iowait irq softirq steal */
		s->idle += v[3] + v[4];
		for (int i = 0; i < 8; i++)
			s->total += v[i];
		s->cpus++;
	}
	s->ok = s->cpus > 0;
}

void
cpuidle_parse_cgstat(const char *text, struct cpuidle_sample *s)
{
	const char *p;

	s->periods = s->throttled = 0;
	if ((p = strstr(text, "nr_periods ")) != NULL)
		s->periods = strtoull(p + 11, NULL, 10);
	if ((p = strstr(text, "nr_throttled ")) != NULL)
		s->throttled = strtoull(p + 13, NULL, 10);
}

static bool
cpuidle_in_mask(int cpu, void *arg)
{
	const cpu_set_t *set = arg;

	return cpu >= 0 && cpu < CPU_SETSIZE && CPU_ISSET(cpu, set);
}

/* This process's cgroup directory of the cpu controller (v2, or v1's cpu
 * hierarchy) into dir, and whether it is v2; false when none has a
 * cpu.stat. */
static bool
cpuidle_cgroup_dir(char *dir, size_t len, bool *v2)
{
	static const char *const roots_v2[] = { "/sys/fs/cgroup", "/sys/fs/cgroup/unified" };
	static const char *const roots_v1[] = { "/sys/fs/cgroup/cpu", "/sys/fs/cgroup/cpu,cpuacct" };
	char text[2048], probe[1200];
	bool found = false;

	if (!proc_read_text("/proc/self/cgroup", text, sizeof(text)))
		return false;
	for (char *line = strtok(text, "\n"); line != NULL && !found; line = strtok(NULL, "\n")) {
		char *ctl = strchr(line, ':'), *cg = ctl ? strchr(ctl + 1, ':') : NULL;
		const char *const *roots;

		if (cg == NULL)
			continue;
		*cg++ = '\0';
		if (strcmp(cg, "/") == 0)
			cg = (char *)"";
		if (ctl[1] == '\0')
			roots = roots_v2, *v2 = true;
		else if (strstr(ctl + 1, "cpu") != NULL && strstr(ctl + 1, "cpuset") == NULL &&
		    strcmp(ctl + 1, "cpuacct") != 0)
			roots = roots_v1, *v2 = false;
		else
			continue;
		for (size_t i = 0; i < 2 && !found; i++) {
			FILE *f;

			snprintf(probe, sizeof(probe), "%s%s/cpu.stat", roots[i], cg);
			if ((f = fopen(probe, "re")) == NULL)
				continue;
			fclose(f);
			snprintf(dir, len, "%s%s", roots[i], cg);
			found = true;
		}
	}
	return found;
}

/* The cgroup's quota in cores (0: none) and its cpu.stat counters. */
static void
cpuidle_sample_cgroup(struct cpuidle_sample *s)
{
	char dir[1024], path[1200], val[256];
	long long quota = -1, period = 0;
	bool v2 = false;

	if (!cpuidle_cgroup_dir(dir, sizeof(dir), &v2))
		return;
	if (v2) {
		snprintf(path, sizeof(path), "%s/cpu.max", dir);
		if (!proc_read_text(path, val, sizeof(val)) ||
		    sscanf(val, "%lld %lld", &quota, &period) != 2)
			quota = -1;
	} else {
		snprintf(path, sizeof(path), "%s/cpu.cfs_quota_us", dir);
		if (proc_read_text(path, val, sizeof(val)))
			quota = strtoll(val, NULL, 10);
		snprintf(path, sizeof(path), "%s/cpu.cfs_period_us", dir);
		if (proc_read_text(path, val, sizeof(val)))
			period = strtoll(val, NULL, 10);
	}
	if (quota <= 0 || period <= 0)
		return;
	s->quota_cores = (double)quota / (double)period;
	snprintf(path, sizeof(path), "%s/cpu.stat", dir);
	if (proc_read_text(path, val, sizeof(val)))
		cpuidle_parse_cgstat(val, s);
}

void
cpuidle_sample(struct cpuidle_sample *s)
{
	char text[16384];
	cpu_set_t set;
	bool mask = sched_getaffinity(0, sizeof(set), &set) == 0;

	memset(s, 0, sizeof(*s));
	if (proc_read_text("/proc/stat", text, sizeof(text)))
		cpuidle_parse_stat(text, mask ? cpuidle_in_mask : NULL, &set, s);
	cpuidle_sample_cgroup(s);
}

double
cpuidle_cores(const struct cpuidle_sample *a, const struct cpuidle_sample *b)
{
	double idle;

	if (!a->ok || !b->ok || a->cpus != b->cpus || b->total <= a->total || b->idle < a->idle)
		return -1;
	idle = (double)(b->idle - a->idle) / (double)(b->total - a->total) * b->cpus;
	/* Under a quota: what it left free, by the share of periods in which
	 * it did not run out. */
	if (b->quota_cores > 0 && b->periods > a->periods && b->throttled >= a->throttled) {
		double f = (double)(b->throttled - a->throttled) / (double)(b->periods - a->periods);
		double left = b->quota_cores * (1.0 - (f > 1 ? 1 : f));

		if (left < idle)
			idle = left;
	}
	return idle;
}
