/* SPDX-License-Identifier: ISC
 * Copyright (c) 2026 The fscp authors.  See LICENSE. */
/* sshconn's channels as streams: one thread's, or several threads'
 * channels on one shared session (every libssh call under its lock, one
 * thread at a time polling the socket). */
#include "config.h"
#include "transport/sshconn_impl.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "util/clock.h"
#include "util/log.h"
#include "util/xmalloc.h"

/* ---- channels as streams -------------------------------------------- */

/* A command's stderr goes to ours, as ssh passes it on. */
static void
chan_forward_stderr(struct sshconn_chan *k)
{
	char buf[4096];
	int r;

	while ((r = ssh_channel_read_nonblocking(k->ch, buf, sizeof(buf), 1)) > 0) {
		if (write(STDERR_FILENO, buf, (size_t)r) < 0)
			break;
	}
}

/* Wait for stdout data or the end, showing stderr meanwhile (a blocking
 * read of stdout alone would hold the remote's messages back). */
static int
chan_wait_stdout(struct sshconn_chan *k)
{
	for (;;) {
		chan_forward_stderr(k);
		int r = ssh_channel_poll_timeout(k->ch, 100, 0);

		if (r == SSH_ERROR)
			return -1;
		if (r != 0) {
			chan_forward_stderr(k);
			return 0;
		}
	}
}

/* ---- a shared session: locking and waiting ------------------------------ */

static void
shared_lock(struct sshconn *c)
{
	if (c->shared)
		pthread_mutex_lock(&c->lock);
}

/* Under c->lock, after libssh may have read the socket: wake the threads
 * whose channels it filed something for (all when the connection died),
 * and, when nobody polls, one other to take the socket over; the poller
 * is told through the pipe when its channel was filled meanwhile. */
static void
shared_wake(struct sshconn *c)
{
	bool dead = (ssh_get_status(c->s) & SSH_CLOSED_ERROR) != 0;
	struct sshconn_chan *next_poller = NULL;

	for (struct sshconn_chan *k = c->chans; k != NULL; k = k->next) {
		if (!k->waiting)
			continue;
		if (k->ready || dead)
			pthread_cond_signal(&k->cond);
		else if (next_poller == NULL)
			next_poller = k;
	}
	if (c->poller == NULL && next_poller != NULL)
		pthread_cond_signal(&next_poller->cond);
	if (c->poller != NULL && (c->poller->ready || dead)) {
		char b = 0;

		(void)!write(c->wake[1], &b, 1);
	}
}

static void
shared_unlock(struct sshconn *c)
{
	if (!c->shared)
		return;
	shared_wake(c);
	pthread_mutex_unlock(&c->lock);
}

/* Under c->lock, with k found empty: let time pass until the socket may
 * have something for k (or others read it), the lock released meanwhile.
 * The caller then asks libssh again. */
static void
shared_wait(struct sshconn *c, struct sshconn_chan *k)
{
	/* What libssh could not write yet (an EOF, a window adjust) must go
	 * out before anyone sleeps: the server may be waiting for it. */
	if (ssh_get_status(c->s) & SSH_WRITE_PENDING)
		(void)ssh_blocking_flush(c->s, 100);
	if (k->ready)
		return;
	if (c->poller == NULL) {
		struct pollfd pf[2] = {
			{ .fd = c->fd, .events = POLLIN },
			{ .fd = c->wake[0], .events = POLLIN },
		};
		char drain[64];

		c->poller = k;
		shared_wake(c);
		pthread_mutex_unlock(&c->lock);
		if (poll(pf, 2, SSHCONN_SHARED_POLL_MS) > 0 && (pf[1].revents & POLLIN))
			while (read(c->wake[0], drain, sizeof(drain)) > 0)
				;
		pthread_mutex_lock(&c->lock);
		c->poller = NULL;
	} else {
		struct timespec ts = clock_deadline(SSHCONN_SHARED_POLL_MS / 1000.0);

		shared_wake(c);
		k->waiting = true;
		(void)pthread_cond_timedwait(&k->cond, &c->lock, &ts);
		k->waiting = false;
	}
}

/* libssh's word that it filed something for the channel: kept in its
 * buffer (nothing consumed here) for the channel's thread to read. */
static int
chan_on_data(ssh_session s, ssh_channel ch, void *data, uint32_t len, int is_stderr,
    void *arg)
{
	(void)s;
	(void)ch;
	(void)data;
	(void)len;
	(void)is_stderr;
	((struct sshconn_chan *)arg)->ready = true;
	return 0;
}

static void
chan_on_end(ssh_session s, ssh_channel ch, void *arg)
{
	(void)s;
	(void)ch;
	((struct sshconn_chan *)arg)->ready = true;
}

/* A shared channel's read: libssh is asked without blocking; while there
 * is nothing, shared_wait. */
static int
chan_fill_shared(struct sshconn_chan *k)
{
	struct sshconn *c = k->c;
	int r;

	pthread_mutex_lock(&c->lock);
	for (;;) {
		k->ready = false;
		r = ssh_channel_poll(k->ch, 0);
		if (r == SSH_ERROR || ssh_get_status(c->s) & SSH_CLOSED_ERROR) {
			r = -1;
			break;
		}
		if (r > 0) {
			/* Data is there: the blocking read returns at once, and
			 * asking for cap grows the window to about cap. */
			r = ssh_channel_read(k->ch, k->buf, (uint32_t)k->cap, 0);
			/* ... and the window adjust must not wait in libssh's
			 * buffer while everybody sleeps in poll(). */
			if (r >= 0 && ssh_blocking_flush(c->s, 10000) == SSH_ERROR)
				r = -1;
			break;
		}
		if (r == SSH_EOF || ssh_channel_is_closed(k->ch)) {
			r = 0;
			break;
		}
		shared_wait(c, k);
	}
	shared_unlock(c);
	return r;
}

static ssize_t
chan_read(void *ctx, void *buf, size_t n)
{
	struct sshconn_chan *k = ctx;
	size_t m;

	if (n == 0)
		return 0;
	while (k->off == k->len) {
		int r;

		if (k->c->shared) {
			r = chan_fill_shared(k);
			if (r <= 0)
				return r < 0 ? -1 : 0;
			k->off = 0;
			k->len = (size_t)r;
			break;
		}
		if (k->exec && chan_wait_stdout(k) < 0)
			return -1;
		if (ssh_channel_is_eof(k->ch) && ssh_channel_poll(k->ch, 0) <= 0)
			return 0;
		/* Asking for cap bytes grows the window to about cap; libssh
		 * returns once at least one byte is there. */
		r = ssh_channel_read(k->ch, k->buf, (uint32_t)k->cap, 0);
		if (r == SSH_ERROR)
			return -1;
		if (r == 0) {
			if (ssh_channel_is_eof(k->ch) || ssh_channel_is_closed(k->ch))
				return 0;
			continue;
		}
		k->off = 0;
		k->len = (size_t)r;
	}
	m = k->len - k->off;
	if (m > n)
		m = n;
	memcpy(buf, k->buf + k->off, m);
	k->off += m;
	return (ssize_t)m;
}

/* Blocking writes, also on a shared session: the engine keeps less in
 * flight than a channel's window, so a write never waits long for the
 * window while holding the lock (libssh meanwhile files what comes for
 * the other channels). */
static ssize_t
chan_write(void *ctx, const void *buf, size_t n)
{
	struct sshconn_chan *k = ctx;
	const unsigned char *b = buf;
	size_t done = 0;
	ssize_t rc = (ssize_t)n;

	shared_lock(k->c);
	while (done < n) {
		size_t step = n - done > (1u << 30) ? (1u << 30) : n - done;
		int r = ssh_channel_write(k->ch, b + done, (uint32_t)step);
		if (r == SSH_ERROR || r < 0) {
			rc = -1;
			break;
		}
		done += (size_t)r;
	}
	shared_unlock(k->c);
	return rc;
}

static void
chan_free(struct sshconn_chan *k)
{
	struct sshconn *c = k->c;

	shared_lock(c);
	for (struct sshconn_chan **p = &c->chans; *p != NULL; p = &(*p)->next)
		if (*p == k) {
			*p = k->next;
			break;
		}
	/* libssh keeps a channel the server has not closed yet until its
	 * close comes, and would tell k of it: k is gone by then. */
	(void)ssh_remove_channel_callbacks(k->ch, &k->cb);
	ssh_channel_free(k->ch);
	shared_unlock(c);
	pthread_cond_destroy(&k->cond);
	free(k->buf);
	free(k);
	(void)sshconn_unref(c);
}

/* Under c->lock, with the server's EOF in: libssh's channel poll reads
 * the socket no more, so what follows the EOF is read by asking for the
 * exit status in one pass that does not block (else the socket stays
 * readable, unread, and every wait returns at once). The status once
 * there, else -1. */
static int
chan_status_after_eof(struct sshconn *c, struct sshconn_chan *k)
{
	int status;

	ssh_set_blocking(c->s, 0);
	status = ssh_channel_get_exit_status(k->ch);
	ssh_set_blocking(c->s, 1);
	return status;
}

/* A shared channel's goodbye: EOF, then wait (lock released) for the
 * server's exit status or close, at most until deadline; the status or
 * -1. */
static int
chan_close_shared(struct sshconn_chan *k)
{
	struct sshconn *c = k->c;
	double deadline = clock_now() + SSHCONN_CLOSE_TIMEOUT;
	int status = -1;

	pthread_mutex_lock(&c->lock);
	if (ssh_channel_is_open(k->ch) && !ssh_channel_is_closed(k->ch)) {
		ssh_channel_send_eof(k->ch);
		(void)ssh_blocking_flush(c->s, SSHCONN_CLOSE_TIMEOUT * 1000);
	}
	for (;;) {
		unsigned char junk[4096];
		int r;

		k->ready = false;
		r = ssh_channel_poll(k->ch, 0);

		if (r > 0) {
			(void)ssh_channel_read_nonblocking(k->ch, junk, sizeof(junk), 0);
			continue;
		}
		if (r == SSH_EOF && !ssh_channel_is_closed(k->ch) &&
		    (status = chan_status_after_eof(c, k)) >= 0)
			break;
		if (r == SSH_ERROR || ssh_channel_is_closed(k->ch))
			break;
		if (clock_now() > deadline) {
			log_debug(1, "sshconn: the server did not end a channel within "
			    "%d s of fscp's EOF (no exit status, no close)", SSHCONN_CLOSE_TIMEOUT);
			break;
		}
		shared_wait(c, k);
	}
	/* Closed by the server: the status (if any came) is there already. */
	if (status < 0 && ssh_channel_is_closed(k->ch) &&
	    !(ssh_get_status(c->s) & SSH_CLOSED_ERROR))
		status = ssh_channel_get_exit_status(k->ch);
	if (ssh_channel_is_open(k->ch))
		ssh_channel_close(k->ch);
	shared_unlock(c);
	return status;
}

static int
chan_close(void *ctx)
{
	struct sshconn_chan *k = ctx;
	int status = -1;

	if (k->c->shared) {
		status = chan_close_shared(k);
		chan_free(k);
		return status <= 0 ? 0 : 1;
	}
	/* A server that went silent (its sshd half dead) never answers the
	 * goodbye: bound the wait, the transfer's "no timeout" ends here. */
	long bound = SSHCONN_CLOSE_TIMEOUT;

	ssh_options_set(ssh_channel_get_session(k->ch), SSH_OPTIONS_TIMEOUT, &bound);
	if (ssh_channel_is_open(k->ch) && !ssh_channel_is_closed(k->ch))
		ssh_channel_send_eof(k->ch);
	/* Waits for the server's exit-status or the channel's close; when the
	 * server closed already it returns what it got. */
	status = ssh_channel_get_exit_status(k->ch);
	if (k->exec)
		chan_forward_stderr(k);
	if (ssh_channel_is_open(k->ch))
		ssh_channel_close(k->ch);
	chan_free(k);
	return status <= 0 ? 0 : 1;
}

/* The connection died: no EOF, no wait for an exit status that will not
 * come; libssh frees the channel and the session goes next. */
static int
chan_abort(void *ctx)
{
	chan_free(ctx);
	return 0;	/* not an ssh that failed: the copy went on without it */
}

static const struct fscp_stream_ops chan_ops = {
	.read = chan_read,
	.write = chan_write,
	.close = chan_close,
	.abort = chan_abort,
};

static void
chan_stream(struct sshconn *c, ssh_channel ch, bool exec, struct fscp_stream *out)
{
	struct sshconn_chan *k = xcalloc(1, sizeof(*k));

	k->c = sshconn_ref(c);
	k->ch = ch;
	k->exec = exec;
	k->cap = c->read_buf;
	k->buf = xmalloc(k->cap);
	pthread_cond_init(&k->cond, NULL);
	/* Registered before the session is shared (the streams are made by
	 * one thread); the list is c->lock's from then on. */
	k->cb.userdata = k;
	k->cb.channel_data_function = chan_on_data;
	k->cb.channel_eof_function = chan_on_end;
	k->cb.channel_close_function = chan_on_end;
	ssh_callbacks_init(&k->cb);
	(void)ssh_set_channel_callbacks(ch, &k->cb);
	k->next = c->chans;
	c->chans = k;
	out->ops = &chan_ops;
	out->ctx = k;
	out->desc = "libssh channel";
}

static enum sshconn_err
chan_open(struct sshconn *c, const char *subsystem, const char *cmd,
    struct fscp_stream *out, char *err, size_t errlen)
{
	ssh_channel ch = ssh_channel_new(c->s);

	if (ch == NULL) {
		sshconn_seterr(err, errlen, "cannot create a channel: %s", ssh_get_error(c->s));
		return SSHCONN_ERR_CHANNEL;
	}
	if (ssh_channel_open_session(ch) != SSH_OK) {
		sshconn_seterr(err, errlen, "channel open failed: %s", ssh_get_error(c->s));
		ssh_channel_free(ch);
		return SSHCONN_ERR_CHANNEL;
	}
	if ((subsystem ? ssh_channel_request_subsystem(ch, subsystem) :
	    ssh_channel_request_exec(ch, cmd)) != SSH_OK) {
		sshconn_seterr(err, errlen, "%s request failed: %s",
		    subsystem ? "subsystem" : "exec", ssh_get_error(c->s));
		ssh_channel_close(ch);
		ssh_channel_free(ch);
		return SSHCONN_ERR_CHANNEL;
	}
	chan_stream(c, ch, subsystem == NULL, out);
	return SSHCONN_OK;
}

enum sshconn_err
sshconn_sftp_stream(struct sshconn *c, struct fscp_stream *out, char *err, size_t errlen)
{
	return chan_open(c, "sftp", NULL, out, err, errlen);
}

/* Where each channel of sshconn_sftp_streams is; UP and FAILED are final.
 * REQUESTING: the subsystem request is out; ANSWERED: the server said yes,
 * and the hello may still be on its way. */
enum sshconn_chan_state { CH_OPENING, CH_REQUESTING, CH_ANSWERED, CH_UP, CH_FAILED };

bool
sshconn_server_openssh(const struct sshconn *c)
{
	return c != NULL && ssh_get_openssh_version(c->s) > 0;
}

/* A shared session's one more channel: opened the blocking way, its hello
 * sent once it is up. */
static int
chan_one_more(struct sshconn *c, const void *hello, size_t hello_len, struct fscp_stream *out,
    char *err, size_t errlen)
{
	if (sshconn_sftp_stream(c, out, err, errlen) != SSHCONN_OK)
		return -1;
	if (hello_len > 0 && out->ops->write(out->ctx, hello, hello_len) < 0) {
		sshconn_seterr(err, errlen, "channel write failed: %s", ssh_get_error(c->s));
		out->ops->abort(out->ctx);
		return -1;
	}
	return 1;
}

/* The channels are asked for all at once, without blocking, so n channels
 * cost about the round trips of one. */
int
sshconn_sftp_streams(struct sshconn *c, int n, const void *hello, size_t hello_len,
    struct fscp_stream *out, char *err, size_t errlen)
{
	ssh_channel *ch;
	enum sshconn_chan_state *state;
	size_t *said;		/* bytes of hello written on each */
	int got = 0, left;	/* left: channels not in a final state */
	double deadline;

	if (n < 1)
		n = 1;
	if (c->shared)
		return chan_one_more(c, hello, hello_len, out, err, errlen);
	/* Several channels on one session are shared by threads, woken
	 * through a pipe; without one, one channel. */
	if (n > 1 && pipe2(c->wake, O_CLOEXEC | O_NONBLOCK) != 0) {
		c->wake[0] = c->wake[1] = -1;
		n = 1;
	}
	left = n;
	ch = xcalloc((size_t)n, sizeof(*ch));
	state = xcalloc((size_t)n, sizeof(*state));
	said = xcalloc((size_t)n, sizeof(*said));
	deadline = clock_now() + 30;
	ssh_set_blocking(c->s, 0);
	for (int i = 0; i < n; i++)
		if ((ch[i] = ssh_channel_new(c->s)) == NULL) {
			state[i] = CH_FAILED;
			left--;
		}
	while (left > 0 && clock_now() < deadline) {
		for (int i = 0; i < n; i++) {
			int r;

			if (state[i] == CH_UP || state[i] == CH_FAILED)
				continue;
			if (state[i] == CH_OPENING) {
				r = ssh_channel_open_session(ch[i]);
				if (r == SSH_OK)
					state[i] = CH_REQUESTING;
				else if (r != SSH_AGAIN)
					state[i] = CH_FAILED;
			}
			if (state[i] == CH_REQUESTING) {
				r = ssh_channel_request_subsystem(ch[i], "sftp");
				if (r == SSH_OK)
					state[i] = CH_ANSWERED;
				else if (r != SSH_AGAIN)
					state[i] = CH_FAILED;
			}
			/* The request is out (answered or not): the hello
			 * follows it as soon as the channel's window lets it
			 * (OpenSSH opens the window with its answer). */
			if ((state[i] == CH_REQUESTING || state[i] == CH_ANSWERED) &&
			    said[i] < hello_len) {
				int w = ssh_channel_write(ch[i], (const char *)hello + said[i],
				    (uint32_t)(hello_len - said[i]));

				if (w < 0)
					state[i] = CH_FAILED;
				else
					said[i] += (size_t)w;
			}
			if (state[i] == CH_ANSWERED && said[i] == hello_len)
				state[i] = CH_UP;
			if (state[i] == CH_UP || state[i] == CH_FAILED) {
				if (state[i] == CH_FAILED && i == 0)
					sshconn_seterr(err, errlen, "channel open failed: %s",
					    ssh_get_error(c->s));
				left--;
			}
		}
		if (left > 0) {
			struct pollfd pf = { .fd = c->fd, .events = POLLIN };

			(void)poll(&pf, 1, 100);
		}
	}
	ssh_set_blocking(c->s, 1);
	int up = 0;
	size_t cap = c->read_buf;

	for (int i = 0; i < n; i++)
		up += state[i] == CH_UP;
	/* The connection's receive window is shared out, not multiplied by
	 * the channels: every channel's buffer is memory, and several
	 * channels on one connection carry an upload, whose replies are
	 * small (a download gets one channel, and its window: route_plan). */
	if (up > 2)
		c->read_buf = c->read_buf * 2 / (size_t)up < (1u << 20) ? (1u << 20) :
		    c->read_buf * 2 / (size_t)up;
	for (int i = 0; i < n; i++) {
		if (state[i] == CH_UP) {
			chan_stream(c, ch[i], false, &out[got++]);
			continue;
		}
		/* A server that allows fewer sessions refuses the rest. */
		if (ch[i] != NULL) {
			if (ssh_channel_is_open(ch[i]))
				ssh_channel_close(ch[i]);
			ssh_channel_free(ch[i]);
		}
	}
	c->read_buf = cap;
	free(ch);
	free(state);
	free(said);
	if (got == 0) {
		if (err && errlen && err[0] == '\0')
			sshconn_seterr(err, errlen, "no SFTP channel came up");
		return -1;
	}
	c->shared = got > 1;
	return got;
}

enum sshconn_err
sshconn_exec_stream(struct sshconn *c, const char *cmd, struct fscp_stream *out,
    char *err, size_t errlen)
{
	return chan_open(c, NULL, cmd, out, err, errlen);
}
