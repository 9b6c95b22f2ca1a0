/* SPDX-License-Identifier: ISC
 * Copyright (c) 2026 The fscp authors.  See LICENSE. */
/* delayrelay: a TCP relay that stands in for a long network path in
 * latency tests and the benchmark.  Every accepted connection is relayed to
 * the target both ways with a fixed one-way delay per direction (bytes read
 * at t are written at t + d, from a queue of timestamped chunks) and an
 * optional per-direction rate cap (token bucket), each connection's own or,
 * with -s, one for all of them as a path's bottleneck is; with -b, CPU time
 * spent per KiB relayed, as a tunnel on the path would.  The connection to
 * the target is opened three one-way delays after the accept, when a real
 * path's handshake would let the server accept (SYN, SYN-ACK, ACK): the
 * server's first bytes come two round trips after the client's connect,
 * as they do over a real path, not one way after it.  Half-close is
 * propagated.  Single-threaded and poll-driven; reads are large so that the
 * relay itself is never the bottleneck.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "util/xmalloc.h"
#include "cpuburn.h"

#define DR_READ_SIZE	(256u << 10)
#define DR_QUEUE_CAP	(64u << 20)	/* per direction: stop reading beyond */
#define DR_READS_PER_TURN 8		/* fairness between connections */
#define DR_SMALL	4096		/* reads below this get an exact-size copy */
#define DR_POOL_MAX	64		/* big chunks kept for reuse (16 MiB) */

struct dr_opts {
	const char *listen;
	const char *target;
	int64_t delay_ns;
	double rate;		/* bytes/s per direction, 0 = unlimited */
	bool shared;		/* -s: the rate is the path's, not each connection's */
	int64_t cpu_ns_per_kib;	/* CPU spent per KiB relayed (-b) */
	const char *portfile;
	int verbose;
};

struct dr_chunk {
	struct dr_chunk *next;
	int64_t due;
	size_t len;		/* 0: EOF marker */
	size_t off;
	unsigned char data[];
};

struct dr_bucket {
	double tokens;		/* rate cap: bytes that may be written now */
	int64_t refill;		/* when tokens were last topped up */
};

struct dr_dir {
	int src, dst;
	bool src_eof, done;
	bool want_in, want_out;	/* waiting for poll readiness */
	struct dr_chunk *head, *tail;
	size_t queued;
	struct dr_bucket own;
	struct dr_bucket *bucket;	/* own, or the state's shared one (-s) */
};

struct dr_conn {
	int fd[2];		/* 0: accepted client, 1: target (-1 until open_at) */
	int64_t open_at;	/* when the path's handshake lets the target accept */
	struct dr_dir dir[2];	/* 0: client->target, 1: target->client */
	bool dead;
};

struct dr_state {
	struct dr_opts opt;
	int lfd;
	struct addrinfo *target;
	struct dr_conn **conns;
	size_t nconns, capconns;
	struct dr_chunk *pool;	/* free big chunks: reuse avoids page faults */
	size_t npool;
	struct cpuburn burn;	/* -b */
	struct dr_bucket shared[2];	/* -s: per direction, for every connection */
	size_t turn;		/* which connection is served first */
};

static int64_t
dr_now(void)
{
	return cpuburn_clock_ns(CLOCK_MONOTONIC);
}

static void
dr_usage(void)
{
	fprintf(stderr,
	    "usage: delayrelay -l host:port -t host:port -d one_way_ms [-r bytes_per_sec [-s]]\n"
	    "                  [-b cpu_ns_per_kib] [-p portfile] [-v]\n"
	    "  listen port 0 picks a free port; it is printed on stdout and written to portfile\n");
	exit(2);
}

/* Split "host:port" / "[v6]:port" and resolve it. */
static struct addrinfo *
dr_resolve(const char *spec, bool passive)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM }, *res;
	char *s = xstrdup(spec), *h = s, *port = strrchr(s, ':');
	int rc;

	if (port == NULL) {
		fprintf(stderr, "delayrelay: want host:port, got %s\n", spec);
		exit(2);
	}
	*port++ = '\0';
	if (*h == '[' && port - s >= 3 && port[-2] == ']') {
		h++;
		port[-2] = '\0';
	}
	if (passive)
		hints.ai_flags = AI_PASSIVE;
	rc = getaddrinfo(*h ? h : NULL, port, &hints, &res);
	if (rc != 0) {
		fprintf(stderr, "delayrelay: %s: %s\n", spec, gai_strerror(rc));
		exit(2);
	}
	free(s);
	return res;
}

static void
dr_parse(int argc, char **argv, struct dr_opts *o)
{
	char *end;
	double v;
	int c;

	o->delay_ns = -1;
	while ((c = getopt(argc, argv, "l:t:d:r:sb:p:v")) != -1) {
		switch (c) {
		case 'l': o->listen = optarg; break;
		case 't': o->target = optarg; break;
		case 'd':
			v = strtod(optarg, &end);
			if (*end != '\0' || !(v >= 0 && v < 3600e3))
				dr_usage();
			o->delay_ns = (int64_t)(v * 1e6 + 0.5);
			break;
		case 'r':
			v = strtod(optarg, &end);
			if (*end != '\0' || !(v >= 0))
				dr_usage();
			o->rate = v;
			break;
		case 's': o->shared = true; break;
		case 'b':
			v = strtod(optarg, &end);
			if (*end != '\0' || !(v >= 0 && v <= 1e9))
				dr_usage();
			o->cpu_ns_per_kib = (int64_t)v;
			break;
		case 'p': o->portfile = optarg; break;
		case 'v': o->verbose++; break;
		default: dr_usage();
		}
	}
	if (optind != argc || o->listen == NULL || o->target == NULL || o->delay_ns < 0 ||
	    (o->shared && o->rate <= 0))
		dr_usage();
}

static void
dr_nonblock(int fd)
{
	int one = 1;

	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
	/* The relay must not add Nagle delays of its own to small writes. */
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
}

static int
dr_listen(struct dr_state *st)
{
	struct addrinfo *res = dr_resolve(st->opt.listen, true), *ai;
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);
	char host[NI_MAXHOST], serv[NI_MAXSERV];
	int fd = -1, one = 1;

	for (ai = res; ai != NULL; ai = ai->ai_next) {
		fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol);
		if (fd < 0)
			continue;
		setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
		if (bind(fd, ai->ai_addr, ai->ai_addrlen) == 0 && listen(fd, 128) == 0)
			break;
		close(fd);
		fd = -1;
	}
	freeaddrinfo(res);
	if (fd < 0) {
		fprintf(stderr, "delayrelay: listen %s: %s\n", st->opt.listen, strerror(errno));
		exit(1);
	}
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
	getsockname(fd, (struct sockaddr *)&ss, &sl);
	getnameinfo((struct sockaddr *)&ss, sl, host, sizeof(host), serv, sizeof(serv),
	    NI_NUMERICHOST | NI_NUMERICSERV);
	if (st->opt.portfile != NULL) {
		/* Written whole then renamed, so a poller never sees half a number. */
		char *tmp = xasprintf("%s.tmp%ld", st->opt.portfile, (long)getpid());
		FILE *f = fopen(tmp, "w");

		if (f == NULL || fprintf(f, "%s\n", serv) < 0 || fclose(f) != 0 ||
		    rename(tmp, st->opt.portfile) != 0) {
			fprintf(stderr, "delayrelay: %s: %s\n", st->opt.portfile, strerror(errno));
			exit(1);
		}
		free(tmp);
	}
	printf("%s\n", serv);
	fflush(stdout);
	if (st->opt.verbose)
		fprintf(stderr, "delayrelay: listening on %s port %s\n", host, serv);
	return fd;
}

static void
dr_accept(struct dr_state *st)
{
	for (;;) {
		struct dr_conn *c;
		int cfd = accept4(st->lfd, NULL, NULL, SOCK_CLOEXEC);

		if (cfd < 0) {
			if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR &&
			    errno != ECONNABORTED)
				fprintf(stderr, "delayrelay: accept: %s\n", strerror(errno));
			return;
		}
		dr_nonblock(cfd);
		c = xcalloc(1, sizeof(*c));
		c->fd[0] = cfd;
		c->fd[1] = -1;
		c->open_at = dr_now() + 3 * st->opt.delay_ns;
		for (int i = 0; i < 2; i++) {
			c->dir[i].src = c->fd[i];
			c->dir[i].dst = c->fd[1 - i];
			c->dir[i].own.refill = dr_now();
			c->dir[i].bucket = st->opt.shared ? &st->shared[i] : &c->dir[i].own;
		}
		if (st->nconns == st->capconns) {
			st->capconns = st->capconns ? 2 * st->capconns : 8;
			st->conns = xrealloc(st->conns, st->capconns * sizeof(*st->conns));
		}
		st->conns[st->nconns++] = c;
		if (st->opt.verbose)
			fprintf(stderr, "delayrelay: connection %d accepted\n", cfd);
	}
}

/* The path's handshake is done: connect to the target.  A blocking
 * connect is fine, targets are on loopback.  Returns -1 when it fails. */
static int
dr_open(struct dr_state *st, struct dr_conn *c)
{
	int tfd = -1;

	for (struct addrinfo *ai = st->target; ai != NULL; ai = ai->ai_next) {
		tfd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol);
		if (tfd < 0)
			continue;
		if (connect(tfd, ai->ai_addr, ai->ai_addrlen) == 0)
			break;
		close(tfd);
		tfd = -1;
	}
	if (tfd < 0) {
		fprintf(stderr, "delayrelay: connect %s: %s\n", st->opt.target, strerror(errno));
		return -1;
	}
	dr_nonblock(tfd);
	c->fd[1] = c->dir[0].dst = c->dir[1].src = tfd;
	if (st->opt.verbose)
		fprintf(stderr, "delayrelay: connection %d <-> %d\n", c->fd[0], tfd);
	return 0;
}

static struct dr_chunk *
dr_chunk_get(struct dr_state *st)
{
	struct dr_chunk *ch = st->pool;

	if (ch != NULL) {
		st->pool = ch->next;
		st->npool--;
	} else {
		ch = xmalloc(sizeof(*ch) + DR_READ_SIZE);
	}
	ch->next = NULL;
	ch->off = 0;
	return ch;
}

static void
dr_chunk_put(struct dr_state *st, struct dr_chunk *ch)
{
	if (ch->len >= DR_SMALL && st->npool < DR_POOL_MAX) {
		ch->next = st->pool;
		st->pool = ch;
		st->npool++;
	} else {
		free(ch);
	}
}

/* Read what is available into timestamped chunks.  Returns -1 on error. */
static int
dr_read(struct dr_state *st, struct dr_dir *d, int64_t now)
{
	for (int turn = 0; turn < DR_READS_PER_TURN; turn++) {
		struct dr_chunk *ch;
		ssize_t n;

		if (d->src_eof || d->want_in || d->queued >= DR_QUEUE_CAP)
			return 0;
		ch = dr_chunk_get(st);
		n = read(d->src, ch->data, DR_READ_SIZE);
		if (n < 0) {
			ch->len = DR_READ_SIZE;
			dr_chunk_put(st, ch);
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN || errno == EWOULDBLOCK) {
				d->want_in = true;
				return 0;
			}
			return -1;
		}
		if (n < DR_SMALL) {
			/* Keep small messages (pings, EOF) from pinning 256 KiB. */
			struct dr_chunk *sm = xmalloc(sizeof(*sm) + (size_t)n);

			memcpy(sm->data, ch->data, (size_t)n);
			sm->next = NULL;
			sm->off = 0;
			ch->len = DR_READ_SIZE;
			dr_chunk_put(st, ch);
			ch = sm;
		}
		/* A path that costs CPU per byte (a tunnel, a VPN), spent
		 * for real before the data goes on. */
		cpuburn_spend(&st->burn, ch->data, (size_t)n, st->opt.cpu_ns_per_kib * n / 1024);
		ch->due = now + st->opt.delay_ns;
		ch->len = (size_t)n;
		if (d->tail != NULL)
			d->tail->next = ch;
		else
			d->head = ch;
		d->tail = ch;
		d->queued += (size_t)n;
		if (n == 0) {
			d->src_eof = true;
			return 0;
		}
	}
	return 0;
}

/* Write due chunks within the rate budget.  *wake gets the next time this
 * direction needs attention.  Returns -1 when the sink is gone. */
static int
dr_write(struct dr_state *st, struct dr_dir *d, int64_t now, int64_t *wake)
{
	double rate = st->opt.rate;
	struct dr_bucket *b = d->bucket;

	if (rate > 0) {
		double burst = rate / 100 > 65536 ? rate / 100 : 65536;

		b->tokens += (double)(now - b->refill) * rate / 1e9;
		if (b->tokens > burst)
			b->tokens = burst;
		b->refill = now;
	}
	while (!d->want_out && d->head != NULL && d->head->due <= now) {
		struct dr_chunk *ch = d->head;
		size_t want = ch->len - ch->off;
		ssize_t n;

		if (ch->len == 0) {
			shutdown(d->dst, SHUT_WR);
			d->done = true;
		} else {
			if (rate > 0) {
				if (b->tokens < 1) {
					double need = want < rate / 1000 ? (double)want : rate / 1000;
					int64_t t = now + (int64_t)((need - b->tokens) * 1e9 / rate) + 1;

					if (need < 1)
						t = now + (int64_t)(1e9 / rate) + 1;
					if (t < *wake)
						*wake = t;
					return 0;
				}
				if ((double)want > b->tokens)
					want = (size_t)b->tokens;
			}
			n = write(d->dst, ch->data + ch->off, want);
			if (n < 0) {
				if (errno == EINTR)
					continue;
				if (errno == EAGAIN || errno == EWOULDBLOCK) {
					d->want_out = true;
					return 0;
				}
				return -1;
			}
			ch->off += (size_t)n;
			if (rate > 0)
				b->tokens -= (double)n;
			if (ch->off < ch->len)
				continue;
			d->queued -= ch->len;
		}
		d->head = ch->next;
		if (d->head == NULL)
			d->tail = NULL;
		dr_chunk_put(st, ch);
	}
	if (!d->want_out && d->head != NULL && d->head->due < *wake)
		*wake = d->head->due;
	return 0;
}

static void
dr_conn_free(struct dr_state *st, struct dr_conn *c)
{
	for (int i = 0; i < 2; i++) {
		struct dr_dir *d = &c->dir[i];

		while (d->head != NULL) {
			struct dr_chunk *ch = d->head;

			d->head = ch->next;
			dr_chunk_put(st, ch);
		}
		if (c->fd[i] >= 0)
			close(c->fd[i]);
	}
	free(c);
}

static void
dr_loop(struct dr_state *st)
{
	struct pollfd *pfd = NULL;
	size_t cappfd = 0;
	/* pollfd slot -> (connection, direction, is-output) */
	struct { struct dr_dir *d; bool out; } *slot = NULL;

	for (;;) {
		int64_t now = dr_now(), wake = INT64_MAX;
		struct timespec ts, *tsp = NULL;
		size_t n = 0, j = 0;

		/* Each turn starts at the next connection: with a shared rate
		 * (-s) the first served takes what the bucket holds. */
		for (size_t r = 0; r < st->nconns; r++) {
			struct dr_conn *c = st->conns[(st->turn + r) % st->nconns];

			if (c->fd[1] < 0 && c->open_at <= now && dr_open(st, c) < 0)
				c->dead = true;
			if (c->fd[1] < 0 && !c->dead) {
				/* Still in the handshake: the client's bytes
				 * queue, nothing goes to or comes from the
				 * target. */
				if (dr_read(st, &c->dir[0], now) < 0)
					c->dead = true;
				if (c->open_at < wake)
					wake = c->open_at;
				continue;
			}
			for (int k = 0; k < 2 && !c->dead; k++) {
				struct dr_dir *d = &c->dir[k];

				if (d->done)
					continue;
				if (dr_read(st, d, now) < 0 || dr_write(st, d, now, &wake) < 0)
					c->dead = true;
			}
		}
		st->turn++;
		for (size_t i = 0; i < st->nconns; i++) {
			struct dr_conn *c = st->conns[i];

			if (c->dead || (c->dir[0].done && c->dir[1].done)) {
				if (st->opt.verbose)
					fprintf(stderr, "delayrelay: connection %d closed%s\n",
					    c->fd[0], c->dead ? " (error)" : "");
				dr_conn_free(st, c);
			} else {
				st->conns[j++] = c;
			}
		}
		st->nconns = j;
		if (cappfd < 1 + 4 * st->nconns) {
			cappfd = 1 + 4 * st->capconns;
			pfd = xrealloc(pfd, cappfd * sizeof(*pfd));
			slot = xrealloc(slot, cappfd * sizeof(*slot));
		}
		pfd[n++] = (struct pollfd){ .fd = st->lfd, .events = POLLIN };
		for (size_t i = 0; i < st->nconns; i++) {
			for (int k = 0; k < 2; k++) {
				struct dr_dir *d = &st->conns[i]->dir[k];

				if (d->done || d->src < 0)
					continue;
				if (d->want_in && d->queued < DR_QUEUE_CAP) {
					slot[n].d = d;
					slot[n].out = false;
					pfd[n++] = (struct pollfd){ .fd = d->src, .events = POLLIN };
				} else if (!d->src_eof && !d->want_in && d->queued < DR_QUEUE_CAP) {
					wake = now;	/* read turn was cut short: go again */
				}
				if (d->want_out) {
					slot[n].d = d;
					slot[n].out = true;
					pfd[n++] = (struct pollfd){ .fd = d->dst, .events = POLLOUT };
				}
			}
		}
		if (wake != INT64_MAX) {
			int64_t dt = wake - dr_now();

			if (dt < 0)
				dt = 0;
			ts.tv_sec = dt / 1000000000;
			ts.tv_nsec = dt % 1000000000;
			tsp = &ts;
		}
		if (ppoll(pfd, n, tsp, NULL) < 0) {
			if (errno == EINTR)
				continue;
			fprintf(stderr, "delayrelay: poll: %s\n", strerror(errno));
			exit(1);
		}
		for (size_t i = 1; i < n; i++) {
			if (pfd[i].revents == 0)
				continue;
			if (slot[i].out)
				slot[i].d->want_out = false;
			else
				slot[i].d->want_in = false;
		}
		if (pfd[0].revents & POLLIN)
			dr_accept(st);
	}
}

int
main(int argc, char **argv)
{
	struct dr_state st = { 0 };

	log_init("delayrelay", 0);
	dr_parse(argc, argv, &st.opt);
	st.shared[0].refill = st.shared[1].refill = dr_now();
	if (st.opt.cpu_ns_per_kib > 0)
		cpuburn_init(&st.burn);
	signal(SIGPIPE, SIG_IGN);
	st.target = dr_resolve(st.opt.target, false);
	st.lfd = dr_listen(&st);
	dr_loop(&st);
	return 0;
}
