/* SPDX-License-Identifier: ISC
 * Copyright (c) 2026 The fscp authors.  See LICENSE. */
/* proxycmd: a ProxyCommand spawned (its stderr held if asked) and its
 * bytes relayed to libssh. */
#include "config.h"
#include "transport/proxycmd.h"
#include "util/clock.h"
#include "util/proc.h"
#include "util/strv.h"
#include "util/xmalloc.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <stdbool.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <unistd.h>

/* ---- spawning ----------------------------------------------------------- */

const char *
proxycmd_shell(const char *shell_env)
{
	return shell_env != NULL && *shell_env != '\0' ? shell_env : "/bin/sh";
}

/* ssh gives its ProxyCommand pipes, not a socket, and that matters: bash
 * started with a socket on stdin (and SHLVL unset) takes itself to be run by
 * sshd and reads ~/.bashrc, which may put another `aws` first on PATH.
 * libssh wants one socket, so a small relay joins the two. */
struct proxy_relay {
	int sock;	/* our end of the socketpair libssh talks to */
	int to_child;	/* the child's stdin */
	int from_child;	/* the child's stdout */
	int err_child;	/* the child's stderr when held, else -1 */
	struct proxycmd_hold *hold;
	struct proxycmd_meter *meter;	/* NULL: not counted */
	struct proxycmd_trickle pace;	/* the child's output's (gather: SSM's) */
};

struct proxycmd_meter {
	atomic_ullong bytes;
	atomic_int refs;
};

struct proxycmd_meter *
proxycmd_meter_new(void)
{
	struct proxycmd_meter *m = xcalloc(1, sizeof(*m));

	atomic_init(&m->bytes, 0);
	atomic_init(&m->refs, 1);
	return m;
}

unsigned long long
proxycmd_meter_bytes(struct proxycmd_meter *m)
{
	return m != NULL ? atomic_load_explicit(&m->bytes, memory_order_relaxed) : 0;
}

void
proxycmd_meter_unref(struct proxycmd_meter *m)
{
	if (m != NULL && atomic_fetch_sub(&m->refs, 1) == 1)
		free(m);
}

static void
relay_count(struct proxy_relay *r, size_t n)
{
	if (r->meter != NULL && n > 0)
		atomic_fetch_add_explicit(&r->meter->bytes, n, memory_order_relaxed);
}

/* The proxy's stderr while its connection is being tried: a connection
 * that fails is followed by ssh's own try, whose proxy says the same again,
 * so what a failed try printed is dropped; one that comes up shows it. */
enum hold_mode { HOLD_KEEP, HOLD_SHOW, HOLD_DROP };
struct proxycmd_hold {
	pthread_mutex_t lock;
	enum hold_mode mode;
	char *buf;
	size_t len;
	bool over;		/* the child's stderr is closed: nothing more comes */
	int refs;		/* the relay and the owner */
};

#define PROXY_HOLD_MAX (64 * 1024)

static void
hold_unref(struct proxycmd_hold *h)
{
	bool last;

	pthread_mutex_lock(&h->lock);
	last = --h->refs == 0;
	pthread_mutex_unlock(&h->lock);
	if (last) {
		pthread_mutex_destroy(&h->lock);
		free(h->buf);
		free(h);
	}
}

void
proxycmd_hold_end(struct proxycmd_hold *h, bool show)
{
	if (h == NULL)
		return;
	pthread_mutex_lock(&h->lock);
	h->mode = show ? HOLD_SHOW : HOLD_DROP;
	if (show && h->len > 0)
		(void)!write(STDERR_FILENO, h->buf, h->len);
	free(h->buf);
	h->buf = NULL;
	h->len = 0;
	pthread_mutex_unlock(&h->lock);
	hold_unref(h);
}

bool
proxycmd_hold_has(struct proxycmd_hold *h, bool (*says)(const char *text, size_t len),
    int wait_ms)
{
	bool found = false;

	if (h == NULL)
		return false;
	for (int waited = 0;; waited += 10) {
		bool over;

		pthread_mutex_lock(&h->lock);
		found = h->buf != NULL && says(h->buf, h->len);
		over = h->over;
		pthread_mutex_unlock(&h->lock);
		if (found || over || waited >= wait_ms)
			return found;
		struct timespec ts = { 0, 10 * 1000000L };

		nanosleep(&ts, NULL);
	}
}

/* What the child wrote on stderr: kept, shown or dropped as the hold
 * says.  False once the pipe is over. */
static bool
hold_pump(struct proxy_relay *r, char *buf, size_t len)
{
	struct proxycmd_hold *h = r->hold;
	ssize_t n = read(r->err_child, buf, len);

	if (n < 0 && errno == EINTR)
		return true;
	if (n <= 0)
		return false;
	pthread_mutex_lock(&h->lock);
	if (h->mode == HOLD_SHOW) {
		(void)!write(STDERR_FILENO, buf, (size_t)n);
	} else if (h->mode == HOLD_KEEP && h->len + (size_t)n <= PROXY_HOLD_MAX) {
		h->buf = xrealloc(h->buf, h->len + (size_t)n);
		memcpy(h->buf + h->len, buf, (size_t)n);
		h->len += (size_t)n;
	}
	pthread_mutex_unlock(&h->lock);
	return true;
}

static bool
relay_write_all(int fd, const char *buf, size_t n)
{
	while (n > 0) {
		ssize_t w = write(fd, buf, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return false;
		buf += w;
		n -= (size_t)w;
	}
	return true;
}

/* Move what one side has to the other.  Returns false once that
 * direction is over (EOF, or either side gone); EINTR is not the end.
 * *got: what was read (0 for nothing). */
static bool
relay_pump(int from, int to, char *buf, size_t len, size_t *got)
{
	ssize_t n = read(from, buf, len);

	*got = 0;
	if (n < 0 && errno == EINTR)
		return true;
	if (n <= 0)
		return false;
	*got = (size_t)n;
	return relay_write_all(to, buf, (size_t)n);
}

/* Seconds to let the child's output gather after a read of n bytes at
 * now (proxycmd.h). */
double
proxycmd_trickle_wait(struct proxycmd_trickle *t, size_t n, size_t up, double now)
{
	double gap, w;
	bool trickle;

	if (n == 0 || !t->gather)	/* EINTR, or not SSM's output */
		return 0;
	gap = now - t->last;
	t->last = now;
	/* Small, soon (within PROXYCMD_WAIT_S of the end of the last wait),
	 * and libssh quiet meanwhile. */
	trickle = n < PROXYCMD_BATCH && gap - t->waited < PROXYCMD_WAIT_S &&
	    up <= PROXYCMD_UP_QUIET;
	t->waited = 0;
	if (!trickle) {
		t->streak = 0;
		return 0;
	}
	if (++t->streak < PROXYCMD_STREAK)
		return 0;
	w = (double)PROXYCMD_BATCH * gap / (double)n;
	return t->waited = w < PROXYCMD_WAIT_S ? w : PROXYCMD_WAIT_S;
}

static void *
relay_run(void *arg)
{
	struct proxy_relay *r = arg;
	char buf[65536];
	bool up = true, down = true;	/* sock->child, child->sock */
	bool errs = r->err_child >= 0;	/* the child's stderr, held */
	double hold_until = 0;	/* the child's output gathers until then */
	size_t got, up_since = 0;	/* bytes to the child since its last read */

	while (up || down || errs) {
		struct timespec ts, *tp = NULL;
		bool held = false;

		if (hold_until > 0) {
			double left = hold_until - clock_now();

			if (left > 0) {
				held = true;
				ts.tv_sec = 0;
				ts.tv_nsec = (long)(left * 1e9);
				tp = &ts;
			} else {
				hold_until = 0;
			}
		}
		struct pollfd pf[3] = {
			{ .fd = up ? r->sock : -1, .events = POLLIN },
			{ .fd = down && !held ? r->from_child : -1, .events = POLLIN },
			{ .fd = errs ? r->err_child : -1, .events = POLLIN },
		};

		if (ppoll(pf, 3, tp, NULL) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (up && (pf[0].revents & (POLLIN | POLLHUP | POLLERR))) {
			if (relay_pump(r->sock, r->to_child, buf, sizeof(buf), &got)) {
				up_since += got;
				relay_count(r, got);
			} else {
				up = false;
				close(r->to_child);	/* EOF for the child */
				r->to_child = -1;
			}
		}
		if (down && !held && (pf[1].revents & (POLLIN | POLLHUP | POLLERR))) {
			if (relay_pump(r->from_child, r->sock, buf, sizeof(buf), &got)) {
				double now = clock_now(), w;

				relay_count(r, got);
				w = proxycmd_trickle_wait(&r->pace, got, up_since, now);
				up_since = 0;
				if (w > 0)
					hold_until = now + w;
			} else {
				down = false;
				shutdown(r->sock, SHUT_WR);	/* EOF for libssh */
			}
		}
		if (errs && (pf[2].revents & (POLLIN | POLLHUP | POLLERR)) &&
		    !hold_pump(r, buf, sizeof(buf))) {
			errs = false;
			pthread_mutex_lock(&r->hold->lock);
			r->hold->over = true;
			pthread_mutex_unlock(&r->hold->lock);
		}
	}
	if (r->to_child >= 0)
		close(r->to_child);
	close(r->from_child);
	close(r->sock);
	if (r->hold != NULL) {
		close(r->err_child);
		hold_unref(r->hold);
	}
	proxycmd_meter_unref(r->meter);
	free(r);
	return NULL;
}

/* Close whichever of the n descriptors are open. */
static void
close_open(int *fds, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (fds[i] >= 0)
			close(fds[i]);
}

int
proxycmd_spawn(const char *expanded, pid_t *pid, char *err, size_t errlen)
{
	return proxycmd_spawn_held(expanded, pid, NULL, err, errlen);
}

int
proxycmd_spawn_held(const char *expanded, pid_t *pid, struct proxycmd_hold **hold,
    char *err, size_t errlen)
{
	return proxycmd_spawn_metered(expanded, pid, hold, NULL, err, errlen);
}

int
proxycmd_spawn_metered(const char *expanded, pid_t *pid, struct proxycmd_hold **hold,
    const struct proxycmd_how *how, char *err, size_t errlen)
{
	static const struct proxycmd_how plain;
	/* sp: libssh's socket and the relay's; pin/pout/perr: the child's
	 * stdin, stdout and (held) stderr.  Kept in one array so that every
	 * failure closes all. */
	int fds[8] = { -1, -1, -1, -1, -1, -1, -1, -1 };
	int *sp = fds, *pin = fds + 2, *pout = fds + 4, *perr = fds + 6;
	const char *shell = proxycmd_shell(getenv("SHELL"));
	char *cmd, *argv[4];
	struct proc_spec ps = {
		.err = PROC_KEEP, .msg = PROC_MSG_PERROR, .exec_status = 1,
		.group = true,
	};
	pid_t p;
	pthread_t tid;
	struct proxy_relay *r;

	if (how == NULL)
		how = &plain;
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sp) == -1) {
		snprintf(err, errlen, "socketpair: %s", strerror(errno));
		return -1;
	}
	if (pipe2(pin, O_CLOEXEC) == -1 || pipe2(pout, O_CLOEXEC) == -1 ||
	    (hold != NULL && pipe2(perr, O_CLOEXEC) == -1)) {
		snprintf(err, errlen, "pipe: %s", strerror(errno));
		close_open(fds, 8);
		return -1;
	}
	cmd = xasprintf("exec %s", expanded);
	argv[0] = (char *)shell;
	argv[1] = (char *)"-c";
	argv[2] = cmd;
	argv[3] = NULL;
	/* stderr stays the user's: SSM and aws errors must be seen.  A
	 * process group of its own: `sh -c "aws ssm start-session ..."` and
	 * the CLI and plugin under it are ended together (proc_end). */
	ps.argv = argv;
	ps.in = pin[0];
	ps.out = pout[1];
	if (hold != NULL)
		ps.err = perr[1];
	p = proc_spawn(&ps, err, errlen);
	if (p == -1) {
		close_open(fds, 8);
		free(cmd);
		return -1;
	}
	free(cmd);
	*pid = p;
	close(pin[0]);
	close(pout[1]);
	if (perr[1] >= 0)
		close(perr[1]);
	pin[0] = pout[1] = perr[1] = -1;
	/* A bigger pipe lets the child write more per call: ssh -W writes
	 * once per turn of its loop, and each turn costs it more than the
	 * bytes do.  Not asked for everything: behind nc a near download was
	 * slower with it (proxycmd's callers say when). */
#ifdef F_SETPIPE_SZ
	if (how->out_pipe > 0 && how->out_pipe <= INT_MAX)
		(void)fcntl(pout[0], F_SETPIPE_SZ, (int)how->out_pipe);
#endif
	r = xcalloc(1, sizeof(*r));
	r->sock = sp[1];
	r->to_child = pin[1];
	r->from_child = pout[0];
	r->err_child = perr[0];
	r->pace.gather = how->gather;
	if (how->meter != NULL) {
		atomic_fetch_add(&how->meter->refs, 1);
		r->meter = how->meter;
	}
	if (hold != NULL) {
		struct proxycmd_hold *h = xcalloc(1, sizeof(*h));

		pthread_mutex_init(&h->lock, NULL);
		h->refs = 2;
		r->hold = *hold = h;
	}
	if (pthread_create(&tid, NULL, relay_run, r) != 0) {
		snprintf(err, errlen, "cannot start the proxy relay");
		if (r->hold != NULL) {
			free(r->hold);
			*hold = NULL;
		}
		proxycmd_meter_unref(r->meter);
		free(r);
		close_open(fds, 8);
		(void)proc_end(p, SIGHUP);
		return -1;
	}
	/* The relay is nobody's to join: it ends once its proxy's output has
	 * ended (the proxy's owner ends it, proc_end) and libssh's side is
	 * closed (sshconn_close). */
	pthread_detach(tid);
	return sp[0];
}

