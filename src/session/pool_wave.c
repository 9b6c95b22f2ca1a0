/* SPDX-License-Identifier: ISC
 * Copyright (c) 2026 The fscp authors.  See LICENSE. */
/* pool_wave: the pacer of an SSM pool, which measures and starts the
 * later waves of sessions as route_plan_ssm_wave says.
 *
 * Every POOL_WAVE_TICK_S it measures: the CPU of each started session's
 * proxy tree (`sh -c` and the aws CLI and plugin under it, proctree), the
 * CPU idle within what this process may use (/proc/stat, less what fscp
 * and its proxies burn beyond the cgroup's share), and the bytes every
 * proxy relayed (the pool's goodput), and how far the copy is (the
 * engine's count, pool_progress).  What a session's start cost is its
 * proxy's CPU when it came up, and the wall time past that.  Before the
 * size is known (a download before its listing), it waits for pool_trim. */
#include "config.h"
#include "session/pool.h"
#include "session/pool_int.h"

#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "util/clock.h"
#include "util/cpuidle.h"
#include "util/log.h"
#include "util/proc.h"
#include "util/proctree.h"
#include "util/xmalloc.h"
#include "policy/route_plan.h"
#include "transport/proxycmd.h"

/* How often the pacer measures: long enough for the CPU clock's ticks
 * (USER_HZ) to tell a CLI at work from one waiting, short enough that the
 * cores a finished wave frees do not wait long for the next: the first
 * wave's end is seen only by a measurement after it (no earlier wave tells
 * its cost), and half a tick is lost on average. */
#define POOL_WAVE_TICK_S	0.1
/* The goodput is measured over this much at least. */
#define POOL_WAVE_RATE_S	0.6
/* The goodput's history: a wave's span may reach this far back (ticks). */
#define POOL_WAVE_SAMPLES	256

struct wave_sample {
	double t;
	unsigned long long bytes;	/* the proxies relayed */
	unsigned long long moved;	/* the copy moved (pool_progress) */
};

/* The pacer's own memory, between two measurements. */
struct wave_meter {
	int conns;
	pid_t *pid;		/* each started session's proxy (0: none) */
	int *run;		/* its tree's processes runnable now */
	double *cpu, *prev;	/* its tree's CPU now, and at the last tick */
	struct cpuidle_sample cpu0;
	double own0, t0;	/* fscp's own CPU, and when, at the last tick */
	struct wave_sample s[POOL_WAVE_SAMPLES];
	int ns;
	/* The goodput of the latest wave all up: before its first session
	 * came up, and after its last did until the next wave's first did. */
	int meas;		/* that wave (0: none yet) */
	double meas_up;		/* when its last came up */
	double before, after;	/* B/s; after < 0: not measured yet */
};

static double
wave_own_cpu(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_SELF, &ru) != 0)
		return -1;
	return ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 + ru.ru_stime.tv_sec +
	    ru.ru_stime.tv_usec / 1e6;
}

/* The latest sample at or before time t (NULL: none). */
static const struct wave_sample *
wave_sample_at(const struct wave_meter *m, double t)
{
	const struct wave_sample *at = NULL;

	for (int i = 0; i < m->ns; i++)
		if (m->s[i].t <= t)
			at = &m->s[i];
	return at;
}

/* Goodput between a and b (B/s), of what the proxies relayed or of what
 * the copy moved; -1 when the span is too short. */
static double
wave_rate(const struct wave_meter *m, double a, double b, bool moved)
{
	const struct wave_sample *sa = wave_sample_at(m, a), *sb = wave_sample_at(m, b);
	unsigned long long from = 0, to = 0;

	if (b - a < POOL_WAVE_RATE_S * 0.99 || m->ns == 0)
		return -1;
	if (sa != NULL)
		from = moved ? sa->moved : sa->bytes;
	if (sb != NULL)
		to = moved ? sb->moved : sb->bytes;
	return to > from ? (double)(to - from) / (b - a) : 0;
}

static void
wave_sample_add(struct wave_meter *m, double t, unsigned long long bytes,
    unsigned long long moved)
{
	if (m->ns == POOL_WAVE_SAMPLES) {
		memmove(m->s, m->s + 1, sizeof(m->s[0]) * (POOL_WAVE_SAMPLES - 1));
		m->ns--;
	}
	m->s[m->ns++] = (struct wave_sample){ t, bytes, moved };
}

/* Under b->lock: the first and last time a session of wave w came up;
 * false while one of them is still coming up (or none came). */
static bool
wave_span(const struct pool *b, int w, double *first, double *last)
{
	bool any = false;

	*first = 1e30;
	*last = -1;
	for (int c = 0; c < b->started; c++) {
		const struct pool_job *j = &b->jobs[c * b->per];

		if (j->wave_no != w)
			continue;
		if (!j->done)
			return false;
		if (j->rc != SSHCONN_OK)
			continue;
		any = true;
		if (j->ready_s < *first)
			*first = j->ready_s;
		if (j->ready_s > *last)
			*last = j->ready_s;
	}
	return any;
}

/* Under b->lock: the goodput the latest wave all up brought: over the
 * span before its first session came up, and over the span after its
 * last did until the next wave's first did (or now). */
static void
wave_goodput(const struct pool *b, struct wave_meter *m, double now,
    struct route_ssm_wave_in *in)
{
	double first, last, end = now;

	for (int w = b->waves; w > m->meas; w--) {
		if (!wave_span(b, w, &first, &last))
			continue;
		m->meas = w;
		m->meas_up = last;
		m->before = wave_rate(m, first - POOL_WAVE_RATE_S, first, false);
		if (m->before < 0)
			m->before = 0;
		m->after = -1;
		break;
	}
	if (m->meas > 0) {
		/* A later wave's first session ends the span. */
		for (int c = 0; c < b->started; c++) {
			const struct pool_job *j = &b->jobs[c * b->per];

			if (j->wave_no > m->meas && j->done && j->rc == SSHCONN_OK &&
			    j->ready_s < end)
				end = j->ready_s;
		}
		double r = wave_rate(m, m->meas_up, end, false);

		if (r >= 0)
			m->after = r;
	}
	in->measured_wave = m->meas;
	in->goodput_before = m->meas > 0 ? m->before : -1;
	in->goodput_after = m->meas > 0 ? m->after : -1;
}

/* Under b->lock: what the last wave and the sessions up measured, into
 * in.  The lock is let go while /proc is read. */
static void
wave_measure(struct pool *b, struct wave_meter *m, struct route_ssm_wave_in *in)
{
	int started = b->started, wave = b->waves, starting = 0, nup = 0, ncli = 0;
	double now, dt, own, busy = 0, rate = 0, wave_cpu = 0, sum_cpu = 0, sum_setup = 0;
	double sum_cli = 0, up_s = 0, last_up = -1;
	unsigned long long moved = b->moved, total = b->total;
	struct cpuidle_sample cpu1;

	for (int c = 0; c < started; c++)
		m->pid[c] = b->jobs[c * b->per].pid;
	pthread_mutex_unlock(&b->lock);
	memcpy(m->prev, m->cpu, sizeof(double) * (size_t)m->conns);
	(void)proctree_cpu(m->pid, started, m->cpu, m->run);
	cpuidle_sample(&cpu1);
	own = wave_own_cpu();
	now = clock_now() - b->t0;
	wave_sample_add(m, now, proxycmd_meter_bytes(b->meter), moved);
	pthread_mutex_lock(&b->lock);
	dt = now - m->t0;
	memset(in, 0, sizeof(*in));
	in->bytes = b->bytes;
	in->cores = proc_cores();
	in->started = b->started;
	in->limit = b->limit;
	in->fixed = b->fixed;
	in->override_cpu_s = b->start_cpu_s;
	for (int c = 0; c < started; c++) {
		struct pool_job *j = &b->jobs[c * b->per];
		bool up = j->done && j->rc == SSHCONN_OK;

		if (m->cpu[c] >= 0 && m->prev[c] >= 0 && dt > 0)
			busy += (m->cpu[c] - m->prev[c]) / dt;
		if (up && j->up_cpu_s < 0 && m->cpu[c] >= 0)
			j->up_cpu_s = m->cpu[c];
		if (up) {
			double part = (now - j->ready_s) / POOL_WAVE_RATE_S;

			in->up_weight += part < 0 ? 0 : part > 1 ? 1 : part;
		}
		if (up && j->ready_s > last_up) {
			last_up = j->ready_s;
			up_s = j->ready_s - j->start_s;
		}
		if (up && j->up_cpu_s >= 0) {
			double setup = j->ready_s - j->start_s - j->up_cpu_s;

			sum_cpu += j->up_cpu_s;
			sum_setup += setup > 0 ? setup : 0;
			nup++;
		}
		/* An earlier wave's CLI: what its start-up took (once up, until
		 * then; before, all it burnt, its waves being done or nearly). */
		if (j->wave_no < wave && (!j->done || j->rc == SSHCONN_OK)) {
			double cli = j->up_cpu_s >= 0 ? j->up_cpu_s : m->cpu[c];

			if (cli > 0) {
				sum_cli += cli;
				ncli++;
			}
		}
		if (j->wave_no != wave)
			continue;
		if (m->cpu[c] >= 0)
			wave_cpu += m->cpu[c];
		if (!j->done) {
			starting++;
			if (m->cpu[c] >= 0)
				in->starting_cpu_s += m->cpu[c];
			in->starting_runnable += m->run[c];
			if (m->cpu[c] < 0 || m->prev[c] < 0 || dt <= 0)
				rate = -1;
			else if (rate >= 0)
				rate += (m->cpu[c] - m->prev[c]) / dt;
		}
	}
	in->starting = starting;
	in->starting_cpu = starting > 0 ? rate : 0;
	in->wave_cpu_s = wave_cpu;
	in->cli_cpu_s = ncli > 0 ? sum_cli / ncli : -1;
	in->tick_s = POOL_WAVE_TICK_S;
	in->start_cpu_s = nup > 0 ? sum_cpu / nup : -1;
	in->setup_s = nup > 0 ? sum_setup / nup : -1;
	/* Idle within this process's share: the machine's idle CPU, but no
	 * more than a CPU quota leaves beside what fscp and its proxies burn. */
	in->idle_cores = cpuidle_cores(&m->cpu0, &cpu1);
	if (in->idle_cores >= 0 && own >= 0 && m->own0 >= 0 && dt > 0) {
		double share = in->cores - (own - m->own0) / dt - busy;

		if (share < in->idle_cores)
			in->idle_cores = share > 0 ? share : 0;
	}
	m->cpu0 = cpu1;
	m->own0 = own;
	m->t0 = now;
	wave_goodput(b, m, now, in);
	/* How far the copy is, as the engine counts it (the proxies' bytes
	 * count the handshakes, and data still in their buffers, too). */
	in->left_bytes = total > 0 ? (moved < total ? (double)(total - moved) : 0) : -1;
	in->moved_Bps = total > 0 ? wave_rate(m, now - POOL_WAVE_RATE_S, now, true) : 0;
	if (in->moved_Bps < 0)
		in->moved_Bps = 0;
	in->up_s = up_s > 0 ? up_s : 0;
	in->up = b->ok;
	for (int c = 0; c < started && in->coming < ROUTE_MAX_CONNS; c++) {
		const struct pool_job *j = &b->jobs[c * b->per];
		double due = j->start_s + in->up_s - now;

		if (j->done)
			continue;
		in->coming_in_s[in->coming++] = due > 0 ? due : 0;
	}
}

double
pool_wave_tick_s(void)
{
	return POOL_WAVE_TICK_S;
}

/* The later waves of SSM sessions, up to the limit; before the size is
 * known the limit may still rise (pool_trim) and the pacer waits for it.
 * A copy that is done before stops the rest. */
void *
pool_pacer(void *arg)
{
	struct pool *b = arg;
	int conns = b->n / b->per, last_why = -1, last_wave = -1;
	struct wave_meter m = { .conns = conns, .own0 = -1, .after = -1 };

	m.pid = xcalloc((size_t)conns, sizeof(*m.pid));
	m.run = xcalloc((size_t)conns, sizeof(*m.run));
	m.cpu = xcalloc((size_t)conns, sizeof(*m.cpu));
	m.prev = xcalloc((size_t)conns, sizeof(*m.prev));
	for (int c = 0; c < conns; c++)
		m.cpu[c] = -1;
	cpuidle_sample(&m.cpu0);
	m.own0 = wave_own_cpu();
	pthread_mutex_lock(&b->lock);
	while (b->started < conns && !b->stop) {
		struct route_ssm_wave_in in;
		struct route_ssm_wave w;
		struct timespec ts;

		if (b->started >= b->limit) {
			if (b->sized)
				break;
			pthread_cond_wait(&b->cond, &b->lock);
			continue;
		}
		if (b->wave <= 0) {	/* no waves: all once the size is known */
			pool_start_upto(b, b->limit);
			continue;
		}
		ts = clock_deadline(POOL_WAVE_TICK_S);
		(void)pthread_cond_timedwait(&b->cond, &b->lock, &ts);
		if (b->stop || clock_now() < b->t0 + m.t0 + POOL_WAVE_TICK_S * 0.9)
			continue;
		wave_measure(b, &m, &in);
		if (b->stop)
			break;
		route_plan_ssm_wave(&in, &w);
		if (w.total > 0 && b->sized) {
			int lim = w.total < b->started ? b->started : w.total > conns ? conns :
			    w.total;

			if (lim != b->limit)
				log_route("ssm sessions: a start measured %.2f s of CPU and %.2f s "
				    "more until up: %d in all", in.start_cpu_s, in.setup_s, lim);
			b->limit = lim;
		}
		if (w.act != ROUTE_WAVE_START && w.why == last_why && b->waves == last_wave)
			continue;
		last_why = w.why;
		last_wave = b->waves;
		if (w.act == ROUTE_WAVE_WAIT) {
			log_verbose("ssm wave %d: waits: %s", b->waves, w.reason);
			continue;
		}
		if (w.act == ROUTE_WAVE_STOP) {
			log_route("ssm sessions: %d of %d started, no more: %s", b->started,
			    conns, w.reason);
			break;
		}
		pool_start_upto(b, b->started + w.start);
		log_route("ssm wave %d: %d more, %d of %d started: %s", b->waves, w.start,
		    b->started, conns, w.reason);
	}
	if (b->started < conns)
		pool_give_up(b);
	pthread_mutex_unlock(&b->lock);
	free(m.pid);
	free(m.run);
	free(m.cpu);
	free(m.prev);
	return NULL;
}
