/* SPDX-License-Identifier: ISC
 * Copyright (c) 2026 The fscp authors.  See LICENSE. */
/* pool: connections to one host opened side by side, handed out as they
 * come up.
 *
 * Each connection is a thread (pool_job.c): its proxy (if any), the
 * libssh handshake and login, then up to per SFTP channels, each with a
 * thread of its own for its SFTP handshake.  A probing pool starts one connection, whose
 * banner or measured round trip says how many more start; an SSM pool
 * starts its sessions in waves (one per core at a time, each aws CLI
 * burns its CPU first), so that a copy can start on the first, and one
 * of unknown size starts no more than its limit until the listing has
 * told the size (pool_trim).  Stopping a pool hangs up on the proxies
 * and shuts the sockets of what is still connecting: its threads end at
 * once, and pool_end joins them and ends every proxy (proc_end) before
 * the copy returns.
 *
 * Threads: each connection's (pool_connect_one), each extra channel's
 * (pool_channel_one) and the pacer's are the pool's; pool_end joins them.
 * A proxy's relay thread (proxycmd) ends when its proxy and its socket
 * are closed. */
#include "config.h"
#include "session/pool.h"
#include "session/pool_int.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "util/clock.h"
#include "util/log.h"
#include "util/proc.h"
#include "util/xmalloc.h"
#include "policy/route.h"
#include "transport/proxycmd.h"

/* Under b->lock: start the connections up to (not including) upto. */
void
pool_start_upto(struct pool *b, int upto)
{
	if (upto > b->limit)
		upto = b->limit;
	if (upto > b->started)
		b->waves++;
	for (int c = b->started; c < upto && c < b->n / b->per; c++) {
		struct pool_job *j = &b->jobs[c * b->per];

		j->start_s = clock_now() - b->t0;
		j->wave_no = b->waves;
		if (pthread_create(&b->tids[c * b->per], NULL, pool_connect_one, j) == 0) {
			b->has_tid[c * b->per] = true;
			continue;
		}
		for (int k = 0; k < b->per; k++) {
			j[k].rc = SSHCONN_ERR_CONNECT;
			j[k].unused = j[k].taken = j[k].done = true;
		}
	}
	if (upto > b->started)
		b->started = upto < b->n / b->per ? upto : b->n / b->per;
	pthread_cond_broadcast(&b->cond);
}

/* Under b->lock: the connections not started are not wanted. */
void
pool_give_up(struct pool *b)
{
	int upto = b->n / b->per - b->held;

	for (int i = b->started * b->per; i < upto * b->per; i++) {
		b->jobs[i].rc = SSHCONN_ERR_CONNECT;
		b->jobs[i].unused = b->jobs[i].taken = b->jobs[i].done = true;
	}
	if (b->started < upto)
		b->started = upto;
	pthread_cond_broadcast(&b->cond);
}

/* Under b->lock: a probing pool now has total connections (the first
 * included); the others' slots are given up. */
void
pool_expand(struct pool *b, int total)
{
	if (b->expanded)
		return;
	b->expanded = true;
	if (total < b->planned)
		b->dropped = b->planned - (total > 0 ? total : 1);
	if (!b->stop)
		pool_start_upto(b, total);
	pool_give_up(b);
}

/* Under b->lock: the connections that run, the plan's (less those a
 * probe gave up) and the climb's so far. */
int
pool_running(const struct pool *b)
{
	return b->planned - b->dropped + b->climbed;
}

/* A channel nobody took: no goodbye waited for on it (a far speculative
 * connection cut short would otherwise cost a round trip per channel).
 * The job's fields are cleared under b->lock (the SSM pacer reads the
 * pids under it), the undo itself done outside it. */
static void
pool_job_undo(struct pool_job *j)
{
	struct pool *b = j->pool;
	struct pool_conn c;

	pthread_mutex_lock(&b->lock);
	c = (struct pool_conn){ .sftp = j->sftp, .ssh = j->ssh, .pid = j->pid };
	j->sftp = NULL;
	j->ssh = NULL;
	j->pid = 0;
	pthread_mutex_unlock(&b->lock);
	b->dial->undo(c.sftp, c.ssh, c.pid);
}

/* Stop what is still connecting (hang up on its proxy, shut its socket
 * down: a handshake is cut short, not waited for).  Returns true when the caller is the one to
 * join the threads.  Every exit of fscp happens in main, after the
 * sessions are closed (which joins these threads): a thread still in its
 * handshake at exit would crash in OpenSSL's freed state. */
static bool
pool_stop_all(struct pool *b)
{
	bool join;

	pthread_mutex_lock(&b->lock);
	b->stop = true;
	for (int i = 0; i < b->n; i++) {
		if (b->jobs[i].done)
			continue;
		if (b->jobs[i].pid > 0)
			proc_hangup(b->jobs[i].pid);
		if (b->jobs[i].abort_fd >= 0)
			shutdown(b->jobs[i].abort_fd, SHUT_RDWR);
	}
	pthread_cond_broadcast(&b->cond);
	join = !b->joined;
	b->joined = true;
	pthread_mutex_unlock(&b->lock);
	return join;
}

static void
pool_join(struct pool *b)
{
	/* The pacer first: it starts threads until it sees the stop.  A
	 * connection's channel threads are started by its own thread, which
	 * is joined before them: once it is, their entries are final. */
	if (b->has_pacer)
		pthread_join(b->pacer, NULL);
	for (int i = 0; i < b->n; i++) {
		pthread_t tid;
		bool has;

		pthread_mutex_lock(&b->lock);
		has = b->has_tid[i];
		tid = b->tids[i];
		pthread_mutex_unlock(&b->lock);
		if (has)
			pthread_join(tid, NULL);
	}
}

/* No more connections are wanted: stop the ones still connecting (their
 * proxies are hung up on, their sockets shut down), wait for every thread,
 * close what nobody took, and free b.  report: say under -v how many came
 * up. */
void
pool_end(struct pool *b, bool report)
{
	if (b == NULL)
		return;
	if (pool_stop_all(b))
		pool_join(b);
	for (int i = 0; i < b->n; i++) {
		if (!b->jobs[i].taken) {
			b->jobs[i].taken = true;
			pool_job_undo(&b->jobs[i]);
		}
	}
	if (report && b->ok > 0 && b->chans > b->ok)
		log_verbose("%d of %d connections ready in %.2f s, with %d SFTP channels",
		    b->ok, pool_running(b), b->last, b->chans);
	else if (report && b->ok > 0)
		log_verbose("%d of %d connections ready in %.2f s", b->ok, pool_running(b),
		    b->last);
	pthread_mutex_destroy(&b->lock);
	pthread_cond_destroy(&b->cond);
	proxycmd_meter_unref(b->meter);
	free(b->proxy);
	free(b->direct);
	free(b->jobs);
	free(b->tids);
	free(b->has_tid);
	free(b);
}

/* Under b->lock: the first finished job nobody has taken (now taken), or
 * -1; *left says whether some are still connecting. */
static int
pool_pick_done(struct pool *b, bool *left)
{
	int upto = b->climbing ? b->n : b->n - b->held * b->per;

	*left = false;
	for (int i = 0; i < upto; i++) {
		if (b->jobs[i].taken)
			continue;
		if (b->jobs[i].done) {
			b->jobs[i].taken = true;
			return i;
		}
		*left = true;
	}
	return -1;
}

/* A taken job: its connection into *out (true), or, failed, said under
 * -v and undone (false). */
static bool
pool_take(struct pool *b, int i, struct pool_conn *out)
{
	struct pool_job *j = &b->jobs[i];

	if (j->rc != SSHCONN_OK) {
		if (j->stopped)
			log_debug(1, "connection %d of %d stopped at the server's first bytes "
			    "or key exchange", i / b->per + 1, b->n / b->per);
		else if (j->chan == 0)
			log_verbose("connection %d of %d failed: %s", i / b->per + 1, b->n / b->per,
			    pool_one_line(j->err));
		else
			log_verbose("connection %d: SFTP channel %d failed: %s", i / b->per + 1,
			    j->chan + 1, pool_one_line(j->err));
		pool_job_undo(j);
		return false;
	}
	*out = (struct pool_conn){ .sftp = j->sftp, .ssh = j->ssh, .pid = j->pid };
	return true;
}

bool
pool_next(struct pool *b, struct pool_conn *out)
{
	bool got = false;

	if (b == NULL)
		return false;
	pthread_mutex_lock(&b->lock);
	while (!b->stop && !got) {
		bool left;
		int pick = pool_pick_done(b, &left);

		if (pick >= 0) {
			pthread_mutex_unlock(&b->lock);
			got = pool_take(b, pick, out);
			if (got)
				log_debug(1, "connection %d of %d (channel %d) joins the copy "
				    "after %.2f s", pick / b->per + 1, b->n / b->per,
				    b->jobs[pick].chan + 1, b->jobs[pick].ready_s);
			pthread_mutex_lock(&b->lock);
		} else if (!left) {
			break;
		} else {
			pthread_cond_wait(&b->cond, &b->lock);
		}
	}
	pthread_mutex_unlock(&b->lock);
	return got;
}

int
pool_take_done(struct pool *b, struct pool_conn *out)
{
	bool left;
	int got = 0;

	pthread_mutex_lock(&b->lock);
	for (int i; (i = pool_pick_done(b, &left)) >= 0;) {
		pthread_mutex_unlock(&b->lock);
		got += pool_take(b, i, &out[got]);
		pthread_mutex_lock(&b->lock);
	}
	pthread_mutex_unlock(&b->lock);
	return got;
}

void
pool_stop(struct pool *b)
{
	if (b == NULL)
		return;
	pthread_mutex_lock(&b->lock);
	b->stop = true;
	pthread_cond_broadcast(&b->cond);
	pthread_mutex_unlock(&b->lock);
}

int
pool_count(struct pool *b)
{
	int n = 0;

	if (b == NULL)
		return 0;
	pthread_mutex_lock(&b->lock);
	for (int i = 0; i < b->n; i++)
		n += !b->jobs[i].taken;
	pthread_mutex_unlock(&b->lock);
	return n;
}

int
pool_count_planned(struct pool *b)
{
	int n = 0, upto;

	if (b == NULL)
		return 0;
	pthread_mutex_lock(&b->lock);
	/* The room held for the climb comes after the planned jobs.  A
	 * pool of room only (the copy is measured on ssh's connection
	 * first) grows by the climb alone: all of it counts; so does an
	 * adopted speculative one's (began speculative, no longer is),
	 * whose copy a far route decided. */
	upto = (b->planned + b->climbed) * b->per;
	if (upto == 0 || (b->never_add && !b->spec) || upto > b->n)
		upto = b->n;
	for (int i = 0; i < upto; i++)
		n += !b->jobs[i].taken;
	pthread_mutex_unlock(&b->lock);
	return n;
}

struct pool *
pool_start(const struct fscp_opts *o, const struct sshcfg *cfg, const struct pool_how *h)
{
	struct pool *b = xcalloc(1, sizeof(*b));
	int n = h->n, per = h->per < 1 ? 1 : h->per > ROUTE_MAX_CHANNELS ?
	    ROUTE_MAX_CHANNELS : h->per;
	int room = h->room > 0 && h->wave == 0 ? h->room : 0;
	int all = n + room;

	b->jobs = xcalloc((size_t)(all * per), sizeof(*b->jobs));
	b->tids = xcalloc((size_t)(all * per), sizeof(*b->tids));
	b->has_tid = xcalloc((size_t)(all * per), sizeof(*b->has_tid));
	b->n = all * per;
	b->planned = n;
	b->held = room;
	b->climbing = room > 0;
	b->per = per;
	b->window = h->window;
	b->t0 = clock_now();
	b->rtt_ms = -1;
	b->proxy = h->proxy ? xstrdup(h->proxy) : NULL;
	b->direct = h->direct ? xstrdup(h->direct) : NULL;
	b->dial = h->dial != NULL ? h->dial : &pool_dial_ssh;
	pthread_mutex_init(&b->lock, NULL);
	pthread_cond_init(&b->cond, NULL);
	for (int i = 0; i < b->n; i++)
		b->jobs[i] = (struct pool_job){ .o = o, .cfg = cfg, .proxy = b->proxy,
			.direct = b->direct, .compress = h->compress, .pool = b, .chan = i % per,
			.abort_fd = -1, .up_cpu_s = -1 };
	/* Probing: the first connection starts the others (pool_expand). */
	b->probe = h->probe && n > 1;
	b->upload = h->upload;
	b->spec = b->never_add = h->spec;
	b->far_only = h->spec && h->far_only;
	b->gather = h->gather;
	b->proxy_pipe = h->proxy_pipe;
	b->delay_s = h->delay_s;
	b->limit = !b->probe && h->limit > 0 && h->limit < n ? h->limit : n;
	b->sized = b->limit == n;
	b->wave = !b->probe && h->wave > 0 && h->wave < n ? h->wave : 0;
	b->bytes = h->bytes;
	b->fixed = h->fixed;
	b->start_cpu_s = h->start_cpu_s;
	if (b->wave > 0)
		b->meter = proxycmd_meter_new();
	b->started = b->probe ? 1 : b->wave > 0 ? b->wave : n;
	if (b->started > b->limit)
		b->started = b->limit;
	b->waves = 1;
	/* Read once: the first connection may start the others (its banner
	 * came late, pool_first_byte) and move b->started while this loop
	 * runs, and a job started twice has a thread nobody joins. */
	int upto = b->started;

	for (int i = 0; i < upto * per; i += per) {
		struct pool_job *j = &b->jobs[i];
		bool has;

		j->wave_no = 1;
		has = pthread_create(&b->tids[i], NULL, pool_connect_one, j) == 0;

		pthread_mutex_lock(&b->lock);
		b->has_tid[i] = has;
		pthread_mutex_unlock(&b->lock);
		if (!has) {
			j->rc = SSHCONN_ERR_CONNECT;
			snprintf(j->err, sizeof(j->err), "pthread_create failed");
			pool_channels_start(j, NULL, 0);
			pthread_mutex_lock(&b->lock);
			if (b->probe)
				pool_expand(b, 1);
			pool_job_finish(j);
			pthread_mutex_unlock(&b->lock);
		}
	}
	if (b->wave > 0 || !b->sized)
		b->has_pacer = pthread_create(&b->pacer, NULL, pool_pacer, b) == 0;
	if ((b->wave > 0 || !b->sized) && !b->has_pacer) {
		pthread_mutex_lock(&b->lock);
		b->sized = true;
		pool_start_upto(b, b->limit);
		pool_give_up(b);
		pthread_mutex_unlock(&b->lock);
	}
	return b;
}

/* Under b->lock: every job is over. */
static bool
pool_all_done(const struct pool *b)
{
	for (int i = 0; i < b->n - b->held * b->per; i++)
		if (!b->jobs[i].done)
			return false;
	return true;
}

bool
pool_wait(struct pool *b, bool staged)
{
	bool first_failed = false;

	pthread_mutex_lock(&b->lock);
	for (;;) {
		first_failed = b->jobs[0].done && b->jobs[0].rc != SSHCONN_OK;
		if (pool_all_done(b) || first_failed || (staged && b->ok > 0))
			break;
		pthread_cond_wait(&b->cond, &b->lock);
	}
	pthread_mutex_unlock(&b->lock);
	return first_failed;
}

void
pool_wait_all(struct pool *b)
{
	pthread_mutex_lock(&b->lock);
	while (!pool_all_done(b) && !b->stop)
		pthread_cond_wait(&b->cond, &b->lock);
	pthread_mutex_unlock(&b->lock);
}

int
pool_trim(struct pool *b, int n, long long bytes)
{
	int limit = -1, conns;

	if (b == NULL || !b->has_pacer)
		return -1;
	pthread_mutex_lock(&b->lock);
	b->bytes = bytes;
	conns = b->n / b->per;
	if (n < b->limit || !b->sized) {
		b->limit = n < b->started ? b->started : n > conns ? conns : n;
		b->sized = true;
		limit = b->limit;
		pthread_cond_broadcast(&b->cond);
	}
	pthread_mutex_unlock(&b->lock);
	return limit;
}

int
pool_climb(struct pool *b, int k)
{
	if (b == NULL || k <= 0)
		return 0;
	pthread_mutex_lock(&b->lock);
	if (b->stop || !b->climbing || (b->probe && !b->expanded))
		k = 0;
	if (k > b->held)
		k = b->held;
	if (k > 0) {
		b->held -= k;
		b->climbed += k;
		b->limit = b->started + k;
		pool_start_upto(b, b->started + k);
	}
	pthread_mutex_unlock(&b->lock);
	return k;
}

int
pool_room(struct pool *b)
{
	int held;

	if (b == NULL)
		return 0;
	pthread_mutex_lock(&b->lock);
	held = b->climbing ? b->held : 0;
	pthread_mutex_unlock(&b->lock);
	return held;
}

void
pool_climb_end(struct pool *b)
{
	if (b == NULL)
		return;
	pthread_mutex_lock(&b->lock);
	if (b->climbing) {
		b->climbing = false;
		b->held = 0;
		pool_give_up(b);
	}
	pthread_mutex_unlock(&b->lock);
}

int
pool_coming(struct pool *b)
{
	int n = 0;

	if (b == NULL)
		return 0;
	pthread_mutex_lock(&b->lock);
	for (int i = 0; i < b->started * b->per; i++)
		n += !b->jobs[i].done;
	if (b->probe && !b->expanded)
		n++;	/* the others wait for the first */
	pthread_mutex_unlock(&b->lock);
	return n;
}

int
pool_dropped(struct pool *b)
{
	int n;

	if (b == NULL)
		return 0;
	pthread_mutex_lock(&b->lock);
	n = b->dropped;
	pthread_mutex_unlock(&b->lock);
	return n;
}

int
pool_size(const struct pool *b)
{
	return b->n;
}

int
pool_up(struct pool *b)
{
	int ok;

	pthread_mutex_lock(&b->lock);
	ok = b->ok;
	pthread_mutex_unlock(&b->lock);
	return ok;
}

bool
pool_speculative(const struct pool *b)
{
	return b != NULL && b->spec;
}

double
pool_connect_ms(struct pool *b, double handshake_s, double max_s)
{
	double due = b->t0 + max_s, ms;

	pthread_mutex_lock(&b->lock);
	while (b->connect_ms == 0 && !b->jobs[0].done) {
		double until = due;

		if (b->connect_began > 0 && b->connect_began + handshake_s < until)
			until = b->connect_began + handshake_s;
		if (clock_now() >= until)
			break;
		struct timespec ts = clock_deadline(until - clock_now());

		(void)pthread_cond_timedwait(&b->cond, &b->lock, &ts);
	}
	ms = b->connect_ms > 0 ? b->connect_ms : -1;
	pthread_mutex_unlock(&b->lock);
	return ms;
}

int
pool_adopt(struct pool *b, int want)
{
	int conns;

	pthread_mutex_lock(&b->lock);
	b->spec = false;
	if (b->stop) {
		/* Cut at the server's first bytes (pool_first_byte): it
		 * cannot grow, and the copy wants new ones. */
		pthread_mutex_unlock(&b->lock);
		return 0;
	}
	if (b->probe && !b->expanded)
		pool_expand(b, want);
	conns = b->probe ? b->started : b->planned;
	pthread_mutex_unlock(&b->lock);
	return conns;
}

const char *
pool_first_error(struct pool *b)
{
	return b->jobs[0].err[0] ? pool_one_line(b->jobs[0].err) : "connection failed";
}

void
pool_progress(struct pool *b, unsigned long long moved, unsigned long long total)
{
	if (b == NULL || !b->has_pacer)
		return;
	pthread_mutex_lock(&b->lock);
	b->moved = moved;
	b->total = total;
	pthread_mutex_unlock(&b->lock);
}

double
pool_progress_tick_s(const struct pool *b)
{
	return b != NULL && b->has_pacer && b->wave > 0 ? pool_wave_tick_s() : 0;
}

double
pool_age(const struct pool *b)
{
	return clock_now() - b->t0;
}

double
pool_ready_s(struct pool *b)
{
	double s;

	if (b == NULL)
		return -1;
	pthread_mutex_lock(&b->lock);
	s = b->ok > 0 ? b->last : -1;
	pthread_mutex_unlock(&b->lock);
	return s;
}
