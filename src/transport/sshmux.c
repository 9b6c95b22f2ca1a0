/* SPDX-License-Identifier: ISC
 * Copyright (c) 2026 The fscp authors.  See LICENSE. */
#include "config.h"
#include "transport/sshmux.h"
#include "policy/fscpconf.h"
#include "util/fdio.h"
#include "util/xmalloc.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

/* PROTOCOL.mux's message types and version (OpenSSH mux.c). */
#define MUX_MSG_HELLO		0x00000001u
#define MUX_C_NEW_SESSION	0x10000002u
#define MUX_C_ALIVE_CHECK	0x10000004u
#define MUX_S_PERMISSION_DENIED	0x80000002u
#define MUX_S_FAILURE		0x80000003u
#define MUX_S_EXIT_MESSAGE	0x80000004u
#define MUX_S_ALIVE		0x80000005u
#define MUX_S_SESSION_OPENED	0x80000006u
#define MUX_S_TTY_ALLOC_FAIL	0x80000008u
#define MUX_VERSION		4u
/* ssh's mux client reads no larger message. */
#define MUX_MAX_MSG		(256u * 1024u)
/* "No escape character": ssh sends its EscapeChar, which the master
 * applies to terminal sessions only; these never ask for a terminal. */
#define MUX_NO_ESCAPE		0xffffffffu

struct mux_buf {
	unsigned char *p;
	size_t len, cap, off;	/* off: where reading is */
	bool bad;		/* read past the end */
};

static void
mux_put(struct mux_buf *b, const void *d, size_t n)
{
	if (b->len + n > b->cap) {
		b->cap = (b->len + n) * 2 + 64;
		b->p = xrealloc(b->p, b->cap);
	}
	memcpy(b->p + b->len, d, n);
	b->len += n;
}

static void
mux_put_u32(struct mux_buf *b, uint32_t v)
{
	unsigned char w[4] = { v >> 24, v >> 16, v >> 8, v };

	mux_put(b, w, 4);
}

static void
mux_put_str(struct mux_buf *b, const char *s)
{
	size_t n = strlen(s);

	mux_put_u32(b, (uint32_t)n);
	mux_put(b, s, n);
}

static uint32_t
mux_get_u32(struct mux_buf *b)
{
	const unsigned char *w = b->p + b->off;

	if (b->bad || b->len - b->off < 4) {
		b->bad = true;
		return 0;
	}
	b->off += 4;
	return (uint32_t)w[0] << 24 | (uint32_t)w[1] << 16 | (uint32_t)w[2] << 8 | w[3];
}

/* A string from the master, for a message: copied into out (cut short). */
static void
mux_get_str(struct mux_buf *b, char *out, size_t outlen)
{
	uint32_t n = mux_get_u32(b);

	if (b->bad || b->len - b->off < n) {
		b->bad = true;
		snprintf(out, outlen, "(no message)");
		return;
	}
	snprintf(out, outlen, "%.*s", (int)n, (const char *)b->p + b->off);
	b->off += n;
}

/* Send the body in b as one message. */
static int
mux_send(int fd, const struct mux_buf *b)
{
	unsigned char w[4] = { b->len >> 24, b->len >> 16, b->len >> 8, b->len };

	return fdio_write_all(fd, w, 4) == 0 && fdio_write_all(fd, b->p, b->len) == 0 ? 0 : -1;
}

/* The next message into b (reset); 0, or -1 at EOF or on error. */
static int
mux_recv(int fd, struct mux_buf *b)
{
	unsigned char w[4];
	uint32_t n;

	b->len = b->off = 0;
	b->bad = false;
	if (fdio_read_all(fd, w, 4) != 0)
		return -1;
	n = (uint32_t)w[0] << 24 | (uint32_t)w[1] << 16 | (uint32_t)w[2] << 8 | w[3];
	if (n > MUX_MAX_MSG) {
		errno = EPROTO;
		return -1;
	}
	if (n > b->cap) {
		b->cap = n;
		b->p = xrealloc(b->p, b->cap);
	}
	b->len = n;
	return fdio_read_all(fd, b->p, n);
}

/* One descriptor, with the one byte ssh's mm_send_fd() sends beside it. */
static int
mux_send_fd(int sock, int fd)
{
	char byte = '\0';
	struct iovec iov = { .iov_base = &byte, .iov_len = 1 };
	union {
		struct cmsghdr h;
		char buf[CMSG_SPACE(sizeof(int))];
	} cm;
	struct msghdr msg = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = cm.buf, .msg_controllen = sizeof(cm.buf),
	};
	struct cmsghdr *c;
	ssize_t r;

	memset(&cm, 0, sizeof(cm));
	c = CMSG_FIRSTHDR(&msg);
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(c), &fd, sizeof(int));
	do
		r = sendmsg(sock, &msg, 0);
	while (r < 0 && errno == EINTR);
	return r == 1 ? 0 : -1;
}

/* ---- what the request carries ---------------------------------------- */

/* ssh's env_permitted(): the name before '=' (shorter than 1024) matches
 * a SendEnv pattern. */
static bool
mux_env_sent(const char *entry, const struct strv *sendenv)
{
	const char *eq = strchr(entry, '=');
	char name[1024];

	if (eq == NULL || eq == entry || (size_t)(eq - entry) >= sizeof(name))
		return false;
	memcpy(name, entry, (size_t)(eq - entry));
	name[eq - entry] = '\0';
	for (size_t i = 0; i < sendenv->n; i++)
		if (fscpconf_glob(name, sendenv->v[i]))
			return true;
	return false;
}

void
sshmux_env(char *const *env, const struct strv *sendenv, const struct strv *setenv,
    struct strv *out)
{
	if (sendenv->n > 0 && env != NULL)
		for (size_t i = 0; env[i] != NULL; i++)
			if (mux_env_sent(env[i], sendenv))
				strv_push(out, env[i]);
	for (size_t i = 0; i < setenv->n; i++)
		strv_push(out, setenv->v[i]);
}

/* ssh's lookup_env_in_list("TERM", SetEnv) first, then the environment's;
 * an empty one counts as none. */
const char *
sshmux_term(char *const *env, const struct strv *setenv)
{
	const char *t = NULL;

	for (size_t i = setenv->n; i-- > 0 && t == NULL;)
		if (strncmp(setenv->v[i], "TERM=", 5) == 0)
			t = setenv->v[i] + 5;
	if (t == NULL || *t == '\0') {
		t = NULL;
		for (size_t i = 0; env != NULL && env[i] != NULL && t == NULL; i++)
			if (strncmp(env[i], "TERM=", 5) == 0)
				t = env[i] + 5;
	}
	return t != NULL ? t : "";
}

/* ---- the stream ------------------------------------------------------- */

struct sshmux {
	int fd;			/* our end of the session's stdin/stdout */
	int sock;		/* the control connection: the session lives while it does */
	uint32_t sid;		/* the master's session id */
};

static ssize_t
sshmux_read(void *ctx, void *buf, size_t n)
{
	return fdio_read(((struct sshmux *)ctx)->fd, buf, n);
}

static ssize_t
sshmux_write(void *ctx, const void *buf, size_t n)
{
	return fdio_write_all(((struct sshmux *)ctx)->fd, buf, n) == 0 ? (ssize_t)n : -1;
}

/* EOF on the session's stdin ends it; then the exit status comes as ssh's
 * mux client waits for it: the master's message, 255 when it closed
 * without one. */
static int
sshmux_close(void *ctx)
{
	struct sshmux *m = ctx;
	struct mux_buf b = { 0 };
	int status = 255;

	close(m->fd);
	while (mux_recv(m->sock, &b) == 0) {
		uint32_t type = mux_get_u32(&b), sid = mux_get_u32(&b);

		if (b.bad || sid != m->sid)
			break;
		if (type == MUX_S_EXIT_MESSAGE) {
			uint32_t v = mux_get_u32(&b);

			if (!b.bad)
				status = (int)(v & 0xff);
		} else if (type != MUX_S_TTY_ALLOC_FAIL) {
			break;
		}
	}
	free(b.p);
	close(m->sock);
	free(m);
	return status;
}

/* The connection died: closing the control connection ends the session,
 * as a signalled mux client does when it exits. */
static int
sshmux_abort(void *ctx)
{
	struct sshmux *m = ctx;

	close(m->fd);
	close(m->sock);
	free(m);
	return 1;
}

static const struct fscp_stream_ops sshmux_ops = {
	.read = sshmux_read,
	.write = sshmux_write,
	.close = sshmux_close,
	.abort = sshmux_abort,
};

/* ---- opening ---------------------------------------------------------- */

static int
mux_connect(const char *path, char *err, size_t errlen)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd;

	if (strlen(path) >= sizeof(sa.sun_path)) {
		snprintf(err, errlen, "ControlPath too long");
		return -1;
	}
	strcpy(sa.sun_path, path);
	if ((fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) < 0) {
		snprintf(err, errlen, "socket: %s", strerror(errno));
		return -1;
	}
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0) {
		snprintf(err, errlen, "connect %s: %s", path, strerror(errno));
		close(fd);
		return -1;
	}
	return fd;
}

/* Say why a reply is not the one asked for. */
static void
mux_unexpected(struct mux_buf *b, uint32_t type, const char *what, char *err, size_t errlen)
{
	char msg[200];

	if (type == MUX_S_PERMISSION_DENIED || type == MUX_S_FAILURE) {
		(void)mux_get_u32(b);	/* the request id */
		mux_get_str(b, msg, sizeof(msg));
		snprintf(err, errlen, "the master %s the %s: %s",
		    type == MUX_S_PERMISSION_DENIED ? "refused" : "failed", what, msg);
	} else {
		snprintf(err, errlen, "the master answered the %s with message 0x%08x",
		    what, (unsigned)type);
	}
}

/* Hello both ways (no extensions), then the alive check ssh's client makes
 * before a session; 0 or -1. */
static int
mux_hello(int sock, struct mux_buf *b, uint32_t *rid, char *err, size_t errlen)
{
	uint32_t type, v;

	b->len = 0;
	mux_put_u32(b, MUX_MSG_HELLO);
	mux_put_u32(b, MUX_VERSION);
	if (mux_send(sock, b) != 0 || mux_recv(sock, b) != 0) {
		snprintf(err, errlen, "no hello from the master: %s",
		    errno ? strerror(errno) : "it closed the connection");
		return -1;
	}
	type = mux_get_u32(b);
	v = mux_get_u32(b);
	if (b->bad || type != MUX_MSG_HELLO || v != MUX_VERSION) {
		snprintf(err, errlen, "the master speaks another protocol (version %u)",
		    (unsigned)v);
		return -1;
	}
	b->len = 0;
	mux_put_u32(b, MUX_C_ALIVE_CHECK);
	mux_put_u32(b, *rid);
	if (mux_send(sock, b) != 0 || mux_recv(sock, b) != 0) {
		snprintf(err, errlen, "the master's alive check failed");
		return -1;
	}
	type = mux_get_u32(b);
	if (type != MUX_S_ALIVE || mux_get_u32(b) != *rid || b->bad) {
		mux_unexpected(b, type, "alive check", err, errlen);
		return -1;
	}
	(*rid)++;
	return 0;
}

int
sshmux_open(const struct sshmux_request *rq, struct fscp_stream *out, char *err,
    size_t errlen)
{
	extern char **environ;
	struct mux_buf b = { 0 };
	struct strv env = { 0 };
	struct sshmux *m;
	uint32_t rid = 0, type;
	int sock, sv[2] = { -1, -1 };

	if ((sock = mux_connect(rq->path, err, errlen)) < 0)
		return -1;
	if (mux_hello(sock, &b, &rid, err, errlen) != 0)
		goto fail;
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0) {
		snprintf(err, errlen, "socketpair: %s", strerror(errno));
		goto fail;
	}
	b.len = 0;
	mux_put_u32(&b, MUX_C_NEW_SESSION);
	mux_put_u32(&b, rid);
	mux_put_str(&b, "");			/* reserved */
	mux_put_u32(&b, 0);			/* tty: scp's -oRequestTTY=no */
	mux_put_u32(&b, 0);			/* X11: scp's -x */
	mux_put_u32(&b, 0);			/* agent: scp's -oForwardAgent=no */
	mux_put_u32(&b, rq->subsystem);
	mux_put_u32(&b, MUX_NO_ESCAPE);
	mux_put_str(&b, sshmux_term(environ, rq->setenv));
	mux_put_str(&b, rq->cmd);
	sshmux_env(environ, rq->sendenv, rq->setenv, &env);
	for (size_t i = 0; i < env.n; i++)
		mux_put_str(&b, env.v[i]);
	strv_free(&env);
	/* stdin and stdout are our socketpair's end, as for scp's ssh;
	 * stderr is ours, where the server's stderr goes. */
	if (mux_send(sock, &b) != 0 || mux_send_fd(sock, sv[1]) != 0 ||
	    mux_send_fd(sock, sv[1]) != 0 || mux_send_fd(sock, STDERR_FILENO) != 0) {
		snprintf(err, errlen, "sending the session request: %s", strerror(errno));
		goto fail;
	}
	close(sv[1]);
	sv[1] = -1;
	if (mux_recv(sock, &b) != 0) {
		snprintf(err, errlen, "the master closed the connection");
		goto fail;
	}
	type = mux_get_u32(&b);
	if (type != MUX_S_SESSION_OPENED || mux_get_u32(&b) != rid) {
		mux_unexpected(&b, type, "session", err, errlen);
		goto fail;
	}
	m = xmalloc(sizeof(*m));
	m->sid = mux_get_u32(&b);
	if (b.bad) {
		free(m);
		snprintf(err, errlen, "the master's session reply is short");
		goto fail;
	}
	m->fd = sv[0];
	m->sock = sock;
	free(b.p);
	out->ops = &sshmux_ops;
	out->ctx = m;
	out->desc = "master's socket";
	return 0;
fail:
	free(b.p);
	if (sv[0] >= 0)
		close(sv[0]);
	if (sv[1] >= 0)
		close(sv[1]);
	close(sock);
	return -2;
}
