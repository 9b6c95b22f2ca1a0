/* SPDX-License-Identifier: ISC
 * Copyright (c) 2026 The fscp authors.  See LICENSE. */
/* ssm-sim: stand-in for one AWS SSM session's data channel (see
 * /work/shared/ssm-model.md), run where session-manager-plugin would run as
 * an ssh ProxyCommand.  It relays stdin/stdout to a TCP target and shapes the
 * traffic as SSM does:
 *   - a start-up delay before the session opens;
 *   - per direction, one message of at most PAYLOAD bytes per CYCLE, the
 *     sender reading the source at most PAYLOAD bytes per message (so the
 *     kernel buffers of the source provide back-pressure, as with the real
 *     plugin/agent loops), paced against absolute deadlines so that wake-up
 *     overshoot does not lower the rate;
 *   - a fixed one-way delay per direction (a timestamped queue), no window;
 *   - no loss, no reordering, half-close on EOF.
 * Single-threaded: ppoll() with nanosecond timeouts drives both directions.
 * -C burns CPU time first, as the aws CLI does before it reaches AWS (-X:
 * only that, no session: the fake CLI's other commands use it).  -m spends
 * CPU on every message, as the session-manager-plugin does (TLS, a SHA-256
 * digest and an acknowledgement per message).
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
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "util/xmalloc.h"
#include "cpuburn.h"

#define SIM_QUEUE_CAP	(64u << 20)	/* stop reading past this much in flight */
#define SIM_CATCHUP	4		/* cycles a late sender may make up */
#define SIM_MAX_PAYLOAD	(1u << 20)
#define SIM_STAGE	(64u << 10)	/* read-ahead block */
#define SIM_MSG_CPU_US	60		/* default -m: see tests/tools/README */

struct sim_opts {
	long setup_ms;
	long cycle_us;
	long delay_ms;
	long payload;
	long start_cpu_ms;	/* CPU time to burn before the setup delay */
	long msg_cpu_us;	/* CPU time to spend on every message */
	bool burn_only;		/* -X: burn start_cpu_ms and exit, no target */
	const char *logfile;
	const char *target;	/* host:port */
	int verbose;
};

/* One stream_data message (or the EOF marker when len == 0) in flight. */
struct sim_msg {
	struct sim_msg *next;
	int64_t due;		/* CLOCK_MONOTONIC ns at which it is delivered */
	size_t len;
	size_t off;		/* bytes of it already written to the sink */
	unsigned char data[];
};

/* One direction: src -> pacer -> delay queue -> dst. */
struct sim_dir {
	const char *name;
	int src, dst;
	bool dst_is_sock;	/* half-close by shutdown() rather than close() */
	bool src_eof;		/* EOF read from src */
	bool eof_queued;	/* ... and its marker put in flight */
	bool done;		/* EOF delivered to dst */
	bool want_in;		/* last read said EAGAIN */
	bool want_out;		/* last write said EAGAIN */
	int64_t next_send;	/* pacing deadline */
	struct sim_msg *head, *tail;
	size_t queued;
	unsigned char *stage;	/* read-ahead from src, not yet sent */
	size_t stage_size, stage_off, stage_len;
	uint64_t bytes, msgs;
};


static int64_t
sim_now(void)
{
	return cpuburn_clock_ns(CLOCK_MONOTONIC);
}

static void
sim_sleep_until(int64_t t)
{
	struct timespec ts = { .tv_sec = t / 1000000000, .tv_nsec = t % 1000000000 };

	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

static long
sim_env_long(const char *name, long def, long lo, long hi)
{
	const char *s = getenv(name);
	char *end;
	long v;

	if (s == NULL || *s == '\0')
		return def;
	errno = 0;
	v = strtol(s, &end, 10);
	if (errno != 0 || *end != '\0' || v < lo || v > hi) {
		fprintf(stderr, "ssm-sim: bad %s=%s\n", name, s);
		exit(2);
	}
	return v;
}

static long
sim_arg_long(const char *opt, const char *s, long lo, long hi)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno != 0 || *end != '\0' || v < lo || v > hi) {
		fprintf(stderr, "ssm-sim: bad value for %s: %s\n", opt, s);
		exit(2);
	}
	return v;
}

static void
sim_usage(void)
{
	fprintf(stderr,
	    "usage: ssm-sim [-v] [-s setup_ms] [-c cycle_us] [-d delay_ms] [-p payload]\n"
	    "               [-C cpu_ms] [-m msg_cpu_us] [-L logfile] host:port\n"
	    "       ssm-sim -X -C cpu_ms\n"
	    "env: FSCP_SSM_SIM_SETUP_MS FSCP_SSM_SIM_CYCLE_US FSCP_SSM_SIM_DELAY_MS\n"
	    "     FSCP_SSM_SIM_PAYLOAD FSCP_SSM_SIM_MSG_CPU_US FSCP_SSM_SIM_LOG (flags win)\n");
	exit(2);
}

static void
sim_parse(int argc, char **argv, struct sim_opts *o)
{
	int c;

	o->setup_ms = sim_env_long("FSCP_SSM_SIM_SETUP_MS", 1000, 0, 3600000);
	o->cycle_us = sim_env_long("FSCP_SSM_SIM_CYCLE_US", 1200, 0, 10000000);
	o->delay_ms = sim_env_long("FSCP_SSM_SIM_DELAY_MS", 20, 0, 600000);
	o->payload = sim_env_long("FSCP_SSM_SIM_PAYLOAD", 1024, 1, SIM_MAX_PAYLOAD);
	o->msg_cpu_us = sim_env_long("FSCP_SSM_SIM_MSG_CPU_US", SIM_MSG_CPU_US, 0, 1000000);
	o->logfile = getenv("FSCP_SSM_SIM_LOG");
	if (o->logfile != NULL && *o->logfile == '\0')
		o->logfile = NULL;
	while ((c = getopt(argc, argv, "vs:c:d:p:C:m:XL:")) != -1) {
		switch (c) {
		case 'v': o->verbose++; break;
		case 's': o->setup_ms = sim_arg_long("-s", optarg, 0, 3600000); break;
		case 'c': o->cycle_us = sim_arg_long("-c", optarg, 0, 10000000); break;
		case 'd': o->delay_ms = sim_arg_long("-d", optarg, 0, 600000); break;
		case 'p': o->payload = sim_arg_long("-p", optarg, 1, SIM_MAX_PAYLOAD); break;
		case 'C': o->start_cpu_ms = sim_arg_long("-C", optarg, 0, 3600000); break;
		case 'm': o->msg_cpu_us = sim_arg_long("-m", optarg, 0, 1000000); break;
		case 'X': o->burn_only = true; break;
		case 'L': o->logfile = optarg; break;
		default: sim_usage();
		}
	}
	if (o->burn_only) {
		if (optind != argc)
			sim_usage();
		return;
	}
	if (optind + 1 != argc)
		sim_usage();
	o->target = argv[optind];
}

static int64_t
sim_cpu_ns(void)
{
	return cpuburn_clock_ns(CLOCK_PROCESS_CPUTIME_ID);
}

/* The CLI's start-up cost: CPU time, not wall time, so that many starts at
 * once on few cores take as long as they would with the real CLI.  Mostly
 * user time (arithmetic between clock reads), some system time (the reads). */
static void
sim_burn_cpu(long ms)
{
	int64_t end = sim_cpu_ns() + (int64_t)ms * 1000000;
	volatile uint64_t x = 88172645463325252ull;

	if (ms <= 0)
		return;
	while (sim_cpu_ns() < end) {
		for (int i = 0; i < 20000; i++) {
			uint64_t v = x;

			v ^= v << 13;
			v ^= v >> 7;
			v ^= v << 17;
			x = v;
		}
	}
}

/* Connect to "host:port" or "[v6]:port"; returns the socket or -1. */
static int
sim_connect(const char *target)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM }, *res, *ai;
	char *host = xstrdup(target), *port, *h = host;
	int fd = -1, one = 1, rc;

	port = strrchr(host, ':');
	if (port == NULL) {
		fprintf(stderr, "ssm-sim: target must be host:port: %s\n", target);
		free(host);
		return -1;
	}
	*port++ = '\0';
	if (*h == '[' && port - host >= 3 && port[-2] == ']') {
		h++;
		port[-2] = '\0';
	}
	rc = getaddrinfo(h, port, &hints, &res);
	if (rc != 0) {
		fprintf(stderr, "ssm-sim: %s: %s\n", target, gai_strerror(rc));
		free(host);
		return -1;
	}
	for (ai = res; ai != NULL; ai = ai->ai_next) {
		fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol);
		if (fd < 0)
			continue;
		if (connect(fd, ai->ai_addr, ai->ai_addrlen) == 0)
			break;
		rc = errno;
		close(fd);
		fd = -1;
		errno = rc;
	}
	if (fd < 0)
		fprintf(stderr, "ssm-sim: connect %s: %s\n", target, strerror(errno));
	else
		/* Go's net package (the agent) sets TCP_NODELAY by default. */
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	freeaddrinfo(res);
	free(host);
	return fd;
}

/* One line per session, written with a single O_APPEND write so that
 * concurrent simulators do not interleave. */
static void
sim_log_session(const struct sim_opts *o)
{
	struct timespec ts;
	char *line;
	int fd;

	if (o->logfile == NULL)
		return;
	clock_gettime(CLOCK_REALTIME, &ts);
	line = xasprintf("%ld %s %lld.%03ld\n", (long)getpid(), o->target,
	    (long long)ts.tv_sec, ts.tv_nsec / 1000000);
	fd = open(o->logfile, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
	if (fd >= 0) {
		if (write(fd, line, strlen(line)) < 0)
			fprintf(stderr, "ssm-sim: %s: %s\n", o->logfile, strerror(errno));
		close(fd);
	} else {
		fprintf(stderr, "ssm-sim: %s: %s\n", o->logfile, strerror(errno));
	}
	free(line);
}

/* Non-blocking I/O on stdin/stdout only when they are pipes or sockets made
 * for us (ssh gives its ProxyCommand its own); files never block anyway and
 * a shared tty must not be switched to non-blocking under other readers. */
static void
sim_set_nonblock(int fd, int *saved)
{
	struct stat st;
	int fl;

	*saved = -1;
	if (fstat(fd, &st) != 0 || !(S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode)))
		return;
	fl = fcntl(fd, F_GETFL);
	if (fl < 0 || (fl & O_NONBLOCK))
		return;
	if (fcntl(fd, F_SETFL, fl | O_NONBLOCK) == 0)
		*saved = fl;
}

static void
sim_enqueue(struct sim_dir *d, const unsigned char *buf, size_t len, int64_t due)
{
	struct sim_msg *m = xmalloc(sizeof(*m) + len);

	m->next = NULL;
	m->due = due;
	m->len = len;
	m->off = 0;
	if (len > 0)
		memcpy(m->data, buf, len);
	if (d->tail != NULL)
		d->tail->next = m;
	else
		d->head = m;
	d->tail = m;
	d->queued += len;
}

/* The sender's loop: while a message is due, take up to payload bytes from
 * the source and put them in flight.  Returns -1 on a read error. */
static int
sim_pump_send(struct sim_dir *d, const struct sim_opts *o, struct cpuburn *b, int64_t now)
{
	int64_t cycle = (int64_t)o->cycle_us * 1000;
	int64_t delay = (int64_t)o->delay_ms * 1000000;
	/* Delivery lands on a later send tick of the same loop, so one wake-up
	 * serves both; this rounds the delay up to whole cycles (< 1 cycle). */
	int64_t delay_q = cycle > 0 ? (delay + cycle - 1) / cycle * cycle : delay;

	while (!d->want_in && !d->eof_queued && now >= d->next_send && d->queued < SIM_QUEUE_CAP) {
		int64_t nominal, due;
		size_t k;

		if (d->stage_len == 0 && !d->src_eof) {
			/* Read ahead in big blocks to save system calls; this
			 * holds back at most SIM_STAGE bytes more than SSM's
			 * read-per-message loop would. */
			ssize_t n = read(d->src, d->stage, d->stage_size);

			if (n < 0) {
				if (errno == EINTR)
					continue;
				if (errno == EAGAIN || errno == EWOULDBLOCK) {
					d->want_in = true;
					return 0;
				}
				if (errno != ECONNRESET) {
					fprintf(stderr, "ssm-sim: read %s: %s\n", d->name,
					    strerror(errno));
					return -1;
				}
				n = 0;	/* a reset just ends the session */
			}
			if (n == 0)
				d->src_eof = true;
			d->stage_off = 0;
			d->stage_len = (size_t)n;
		}
		/* Absolute deadlines keep the average exact despite wake-up
		 * overshoot; after an idle spell (or a long stall) the schedule
		 * restarts near now, so at most SIM_CATCHUP messages go back to
		 * back and the average is never exceeded. */
		if (d->next_send < now - SIM_CATCHUP * cycle)
			d->next_send = now - SIM_CATCHUP * cycle;
		nominal = d->next_send;
		due = nominal + delay_q;
		if (due < now + delay)
			due = now + delay;
		if (d->stage_len == 0) {
			sim_enqueue(d, NULL, 0, due);
			d->eof_queued = true;
			return 0;
		}
		k = d->stage_len < (size_t)o->payload ? d->stage_len : (size_t)o->payload;
		sim_enqueue(d, d->stage + d->stage_off, k, due);
		/* The plugin's own work on the message (TLS, the digest, the
		 * acknowledgement), spent for real. */
		cpuburn_spend(b, d->stage + d->stage_off, k, (int64_t)o->msg_cpu_us * 1000);
		d->stage_off += k;
		d->stage_len -= k;
		d->bytes += k;
		d->msgs++;
		d->next_send += cycle;
	}
	return 0;
}

/* The receiver: write every message that is due.  Returns 1 when the peer
 * has gone (the session just ends), -1 on other write errors, 0 otherwise. */
static int
sim_pump_deliver(struct sim_dir *d, int64_t now)
{
	while (!d->want_out && d->head != NULL && d->head->due <= now) {
		struct sim_msg *m = d->head;

		if (m->len == 0) {
			/* EOF marker: half-close the far side. */
			if (d->dst_is_sock)
				shutdown(d->dst, SHUT_WR);
			else
				close(d->dst);
			d->done = true;
		} else {
			while (m->off < m->len) {
				ssize_t n = write(d->dst, m->data + m->off, m->len - m->off);

				if (n < 0) {
					if (errno == EINTR)
						continue;
					if (errno == EAGAIN || errno == EWOULDBLOCK) {
						d->want_out = true;
						return 0;
					}
					if (errno == EPIPE || errno == ECONNRESET)
						return 1;
					fprintf(stderr, "ssm-sim: write %s: %s\n",
					    d->name, strerror(errno));
					return -1;
				}
				m->off += (size_t)n;
			}
			d->queued -= m->len;
		}
		d->head = m->next;
		if (d->head == NULL)
			d->tail = NULL;
		free(m);
	}
	return 0;
}

static void
sim_free_queue(struct sim_dir *d)
{
	while (d->head != NULL) {
		struct sim_msg *m = d->head;

		d->head = m->next;
		free(m);
	}
	d->tail = NULL;
}

static int
sim_run(const struct sim_opts *o, int sock)
{
	struct sim_dir dirs[2] = {
		/* upload: the session-manager-plugin's loop */
		{ .name = "stdin->target", .src = STDIN_FILENO, .dst = sock, .dst_is_sock = true },
		/* download: the agent's port-plugin loop */
		{ .name = "target->stdout", .src = sock, .dst = STDOUT_FILENO },
	};
	int64_t start = sim_now(), cpu0;
	struct cpuburn burn = { 0 };
	int rc = 0;

	if (o->msg_cpu_us > 0)
		cpuburn_init(&burn);
	cpu0 = sim_cpu_ns();

	for (int i = 0; i < 2; i++) {
		dirs[i].next_send = start;
		dirs[i].stage_size = (size_t)o->payload > SIM_STAGE ? (size_t)o->payload : SIM_STAGE;
		dirs[i].stage = xmalloc(dirs[i].stage_size);
	}
	for (;;) {
		struct pollfd pfd[4];
		bool *flag[4];		/* the want_* flag each pollfd clears */
		nfds_t npfd = 0;
		int64_t now = sim_now(), wake = INT64_MAX;
		struct timespec ts, *tsp = NULL;
		bool busy = false;

		for (int i = 0; i < 2; i++) {
			struct sim_dir *d = &dirs[i];

			if (d->done)
				continue;
			if ((rc = sim_pump_deliver(d, now)) != 0 ||
			    (rc = sim_pump_send(d, o, &burn, now)) != 0 ||
			    /* a message sent this round may be due at once (delay 0) */
			    (rc = sim_pump_deliver(d, now)) != 0)
				goto out;
		}
		for (int i = 0; i < 2; i++) {
			struct sim_dir *d = &dirs[i];

			if (d->done)
				continue;
			busy = true;
			if (d->want_in) {
				flag[npfd] = &d->want_in;
				pfd[npfd++] = (struct pollfd){ .fd = d->src, .events = POLLIN };
			}
			else if (!d->eof_queued && d->queued < SIM_QUEUE_CAP && d->next_send < wake)
				wake = d->next_send;
			if (d->want_out) {
				flag[npfd] = &d->want_out;
				pfd[npfd++] = (struct pollfd){ .fd = d->dst, .events = POLLOUT };
			}
			else if (d->head != NULL && d->head->due < wake)
				wake = d->head->due;
		}
		if (!busy)
			break;
		if (wake != INT64_MAX) {
			int64_t dt = wake - sim_now();

			if (dt < 0)
				dt = 0;
			ts.tv_sec = dt / 1000000000;
			ts.tv_nsec = dt % 1000000000;
			tsp = &ts;
		}
		if (ppoll(pfd, npfd, tsp, NULL) < 0 && errno != EINTR) {
			fprintf(stderr, "ssm-sim: poll: %s\n", strerror(errno));
			rc = -1;
			goto out;
		}
		for (nfds_t i = 0; i < npfd; i++)
			if (pfd[i].revents != 0)
				*flag[i] = false;
	}
out:
	if (o->verbose) {
		double secs = (double)(sim_now() - start) / 1e9;

		for (int i = 0; i < 2; i++)
			fprintf(stderr, "ssm-sim: %s: %llu bytes in %llu messages, %.3f s\n",
			    dirs[i].name, (unsigned long long)dirs[i].bytes,
			    (unsigned long long)dirs[i].msgs, secs);
		fprintf(stderr, "ssm-sim: %.3f s CPU in the session (%lld ns per SHA-256 round)\n",
		    (double)(sim_cpu_ns() - cpu0) / 1e9, (long long)burn.round_ns);
	}
	cpuburn_free(&burn);
	for (int i = 0; i < 2; i++) {
		sim_free_queue(&dirs[i]);
		free(dirs[i].stage);
	}
	return rc;
}

int
main(int argc, char **argv)
{
	struct sim_opts o = { 0 };
	int sock, saved_in, saved_out, rc;

	log_init("ssm-sim", 0);
	sim_parse(argc, argv, &o);
	if (o.burn_only) {
		sim_burn_cpu(o.start_cpu_ms);
		return 0;
	}
	/* A closed ssh side must show up as EPIPE, not kill us silently. */
	signal(SIGPIPE, SIG_IGN);
	sim_log_session(&o);
	/* The CLI's own start (Python, botocore) before it calls AWS. */
	sim_burn_cpu(o.start_cpu_ms);
	/* StartSession, websocket handshakes and the agent's worker start. */
	sim_sleep_until(sim_now() + (int64_t)o.setup_ms * 1000000);
	sock = sim_connect(o.target);
	if (sock < 0)
		return 1;
	fcntl(sock, F_SETFL, fcntl(sock, F_GETFL) | O_NONBLOCK);
	sim_set_nonblock(STDIN_FILENO, &saved_in);
	sim_set_nonblock(STDOUT_FILENO, &saved_out);
	rc = sim_run(&o, sock);
	if (saved_in >= 0)
		fcntl(STDIN_FILENO, F_SETFL, saved_in);
	if (saved_out >= 0)
		fcntl(STDOUT_FILENO, F_SETFL, saved_out);	/* fails harmlessly if closed */
	close(sock);
	/* 0 for a clean end, including the peer going away mid-stream. */
	return rc < 0 ? 1 : 0;
}
