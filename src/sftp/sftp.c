/* SPDX-License-Identifier: ISC
 * Copyright (c) 2026 The fscp authors.  See LICENSE. */
#include "config.h"
#include "sftp/sftp.h"
#include "sftp/sftp_conn.h"
#include "util/clock.h"
#include "util/log.h"
#include "util/xmalloc.h"

#include <errno.h>
#include <stdarg.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Sizes when the server has no limits@openssh.com (OpenSSH <= 8.4). */
#define SFTP_DEFAULT_BUFLEN 32768
#define SFTP_READ_CHUNK (256 * 1024)

static int
sftp_fail(struct sftp_conn *c)
{
	c->dead = true;
	return -1;
}

uint32_t
sftp_new_id(struct sftp_conn *c)
{
	return c->next_id++;
}

int
sftp_flush(struct sftp_conn *c)
{
	if (c->dead)
		return -1;
	if (c->out.len > 0) {
		if (c->stream.ops->write(c->stream.ctx, c->out.data, c->out.len) < 0)
			return sftp_fail(c);
		sftp_buf_reset(&c->out);
	}
	return 0;
}

bool
sftp_dead(const struct sftp_conn *c)
{
	return c->dead;
}

void
sftp_give_up(struct sftp_conn *c)
{
	c->dead = true;
}

uint32_t
sftp_max_read(const struct sftp_conn *c)
{
	return c->max_read;
}

uint32_t
sftp_max_write(const struct sftp_conn *c)
{
	return c->max_write;
}

uint64_t
sftp_max_handles(const struct sftp_conn *c)
{
	return c->max_handles;
}

double
sftp_rtt_ms(const struct sftp_conn *c)
{
	return c->rtt_ms;
}

void
sftp_note_rtt(struct sftp_conn *c, double ms)
{
	if (ms >= 0 && (c->rtt_ms < 0 || ms < c->rtt_ms))
		c->rtt_ms = ms;
}

bool
sftp_has_expand_path(const struct sftp_conn *c)
{
	return c->has_expand_path;
}

void
sftp_queue_open(struct sftp_conn *c, uint32_t id, const char *path, uint32_t pflags,
    const struct sftp_attrs *a)
{
	sftp_msg_open(&c->out, id, path, pflags, a);
}

void
sftp_queue_read(struct sftp_conn *c, uint32_t id, const void *h, size_t hlen,
    uint64_t off, uint32_t len)
{
	sftp_msg_read(&c->out, id, h, hlen, off, len);
}

void
sftp_queue_close(struct sftp_conn *c, uint32_t id, const void *h, size_t hlen)
{
	sftp_msg_handle(&c->out, SSH_FXP_CLOSE, id, h, hlen);
}

void
sftp_queue_fsetstat(struct sftp_conn *c, uint32_t id, const void *h, size_t hlen,
    const struct sftp_attrs *a)
{
	sftp_msg_fsetstat(&c->out, id, h, hlen, a);
}

void
sftp_queue_setstat(struct sftp_conn *c, uint32_t id, const char *path,
    const struct sftp_attrs *a)
{
	sftp_msg_setstat(&c->out, id, path, a);
}

uint8_t *
sftp_queue_write(struct sftp_conn *c, uint32_t id, const void *h, size_t hlen,
    uint64_t off, uint32_t len)
{
	c->wstart = sftp_msg_write_begin(&c->out, id, h, hlen, off, len);
	c->wid = id;
	c->woff = off;
	c->wh = h;
	c->whlen = hlen;
	return sftp_buf_reserve(&c->out, len);
}

void
sftp_queue_write_done(struct sftp_conn *c, uint32_t got)
{
	c->out.len = c->wstart;
	if (got == 0)
		return;
	/* The header is as long with the shorter length, so the payload is
	 * where it was and only its tail is dropped. */
	(void)sftp_msg_write_begin(&c->out, c->wid, c->wh, c->whlen, c->woff, got);
	(void)sftp_buf_reserve(&c->out, got);
	sftp_msg_end(&c->out, c->wstart);
}

size_t
sftp_queued(const struct sftp_conn *c)
{
	return c->out.len;
}

/* Make sure in holds n bytes from in_pkt on, reading more as needed.  The
 * buffer stays near twice the largest message: what is left of consumed
 * messages moves to the front before the buffer grows (a download keeps
 * one such buffer per channel, and 24 channels of 1 MiB were a third of
 * a far download's peak memory). */
static int
sftp_fill(struct sftp_conn *c, size_t n)
{
	while (c->in.len - c->in_pkt < n) {
		size_t avail = c->in.len - c->in_pkt, need = n - avail, want;
		ssize_t got;
		uint8_t *p;

		if (c->in_pkt > 0 && (avail == 0 || c->in.cap - c->in.len < need ||
		    c->in.cap - c->in.len < SFTP_READ_CHUNK / 4)) {
			memmove(c->in.data, c->in.data + c->in_pkt, avail);
			c->in.len = avail;
			c->in_pkt = 0;
		}
		/* Whatever room there is, at least what the message lacks. */
		want = c->in.cap - c->in.len;
		if (want < need)
			want = c->in.cap ? need : SFTP_READ_CHUNK;
		p = sftp_buf_reserve(&c->in, want);
		got = c->stream.ops->read(c->stream.ctx, p, want);
		c->in.len -= want - (got > 0 ? (size_t)got : 0);
		if (got <= 0)
			return sftp_fail(c);
	}
	return 0;
}

int
sftp_recv(struct sftp_conn *c, struct sftp_reply *r)
{
	const uint8_t *p;
	uint32_t len;

	if (sftp_flush(c) != 0)
		return -1;
	if (sftp_fill(c, 4) != 0)
		return -1;
	p = c->in.data + c->in_pkt;
	len = (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
	if (len < 5 || len > SFTP_MAX_MSG_LENGTH)
		return sftp_fail(c);
	if (sftp_fill(c, 4 + (size_t)len) != 0)
		return -1;
	p = c->in.data + c->in_pkt;
	c->in_pkt += 4 + (size_t)len;
	if (sftp_reply_decode(p + 4, len, r) != 0)
		return sftp_fail(c);
	return 0;
}

bool
sftp_reply_buffered(const struct sftp_conn *c)
{
	size_t avail = c->in.len - c->in_pkt;
	const uint8_t *p = c->in.data + c->in_pkt;

	if (avail < 4)
		return false;
	return avail >= 4 + ((size_t)p[0] << 24 | (size_t)p[1] << 16 | (size_t)p[2] << 8 | p[3]);
}

static void
sftp_read_extensions(struct sftp_conn *c, struct sftp_reply *r, bool *limits)
{
	while (r->names.off < r->names.len && !r->names.error) {
		uint32_t nlen, dlen;
		const uint8_t *name = sftp_buf_get_string(&r->names, &nlen);

		(void)sftp_buf_get_string(&r->names, &dlen);
		if (name == NULL)
			break;
		if (nlen == 18 && memcmp(name, "limits@openssh.com", 18) == 0)
			*limits = true;
		if (nlen == 23 && memcmp(name, "expand-path@openssh.com", 23) == 0)
			c->has_expand_path = true;
	}
}

struct sftp_limits
sftp_limits_of(const struct sftp_conn *c)
{
	return (struct sftp_limits){ .known = true, .has_limits = c->has_limits,
	    .max_read = c->max_read, .max_write = c->max_write,
	    .max_handles = c->max_handles, .rtt_ms = c->rtt_ms };
}

/* limits@openssh.com's answer into the sizes: false when it is not one. */
static bool
sftp_take_limits(struct sftp_conn *c, struct sftp_reply *r, uint32_t id, uint64_t *max_read,
    uint64_t *max_write)
{
	if (r->type != SSH_FXP_EXTENDED_REPLY || r->id != id)
		return false;
	uint64_t pkt = sftp_buf_get_u64(&r->names);
	uint64_t rd = sftp_buf_get_u64(&r->names);
	uint64_t wr = sftp_buf_get_u64(&r->names);

	c->max_handles = sftp_buf_get_u64(&r->names);
	if (r->names.error)
		return false;
	/* Keep a whole WRITE packet under the packet limit. */
	if (rd > 0)
		*max_read = rd;
	if (wr > 0)
		*max_write = wr;
	if (pkt > 1024 && *max_write > pkt - 1024)
		*max_write = pkt - 1024;
	return true;
}

/* The id of the limits request a hello carries: the session's first. */
#define SFTP_HELLO_LIMITS_ID 1

void
sftp_hello_make(struct sftp_hello *h, bool ask_limits)
{
	struct sftp_buf b = { 0 };

	sftp_msg_init(&b, 3);
	if (ask_limits)
		sftp_msg_extended(&b, SFTP_HELLO_LIMITS_ID, "limits@openssh.com");
	h->len = b.len <= sizeof(h->bytes) ? b.len : 0;
	h->limits = ask_limits && h->len > 0;
	if (h->len > 0)
		memcpy(h->bytes, b.data, b.len);
	sftp_buf_free(&b);
}

static struct sftp_conn *
sftp_open_with(struct fscp_stream stream, size_t buflen, const struct sftp_limits *sibling,
    const struct sftp_hello *sent, char *err, size_t errlen)
{
	struct sftp_conn *c = xcalloc(1, sizeof(*c));
	struct sftp_reply r;
	bool limits = false;
	uint64_t max_read = SFTP_DEFAULT_BUFLEN, max_write = SFTP_DEFAULT_BUFLEN;

	c->stream = stream;
	c->next_id = 1;
	c->rtt_ms = -1;
	if (sent != NULL && sent->len == 0)
		sent = NULL;	/* nothing went: INIT goes now */
	if (sent == NULL)
		sftp_msg_init(&c->out, 3);
	else if (sent->limits)
		c->next_id = SFTP_HELLO_LIMITS_ID + 1;
	if (sftp_recv(c, &r) != 0) {
		snprintf(err, errlen, SFTP_CLOSED);
		goto fail;
	}
	if (r.type != SSH_FXP_VERSION) {
		/* scp's sftp_init() says this as an error(), not a fatal():
		 * its caller decides whether the copy goes on. */
		snprintf(err, errlen, "Invalid packet back from SSH2_FXP_INIT (type %u)", r.type);
		goto fail;
	}
	c->version = r.status;
	sftp_read_extensions(c, &r, &limits);
	if (sent != NULL && sent->limits) {
		/* Asked with INIT: the answer follows VERSION, a status when
		 * the server does not know the extension.  It came without a
		 * round trip of its own, so it measures none. */
		if (sftp_recv(c, &r) != 0) {
			snprintf(err, errlen, SFTP_CLOSED);
			goto fail;
		}
		c->has_limits = limits &&
		    sftp_take_limits(c, &r, SFTP_HELLO_LIMITS_ID, &max_read, &max_write);
	} else if (limits && sibling != NULL && sibling->known && sibling->has_limits) {
		/* A sibling asked this server already (a round trip saved:
		 * 40 ms a connection through SSM); its sizes are capped by
		 * the same buflen. */
		c->has_limits = true;
		c->max_read = sibling->max_read;
		c->max_write = sibling->max_write;
		c->max_handles = sibling->max_handles;
		c->rtt_ms = sibling->rtt_ms;
		return c;
	} else if (limits) {
		uint32_t id = sftp_new_id(c);
		double t0 = clock_now();

		sftp_msg_extended(&c->out, id, "limits@openssh.com");
		if (sftp_recv(c, &r) != 0) {
			snprintf(err, errlen, SFTP_CLOSED);
			goto fail;
		}
		/* The server is running by now (unlike at INIT, which may wait
		 * for a shell to start it): this is one plain round trip. */
		c->rtt_ms = (clock_now() - t0) * 1e3;
		c->has_limits = sftp_take_limits(c, &r, id, &max_read, &max_write);
	}
	if (buflen > 0) {
		/* -X buffer= caps both, as scp's transfer_buflen does. */
		if (max_read > buflen)
			max_read = buflen;
		if (max_write > buflen)
			max_write = buflen;
	}
	if (max_read > SFTP_MAX_MSG_LENGTH - 1024)
		max_read = SFTP_MAX_MSG_LENGTH - 1024;
	if (max_write > SFTP_MAX_MSG_LENGTH - 1024)
		max_write = SFTP_MAX_MSG_LENGTH - 1024;
	c->max_read = (uint32_t)max_read;
	c->max_write = (uint32_t)max_write;
	return c;
fail:
	sftp_close(c);
	return NULL;
}

struct sftp_conn *
sftp_open(struct fscp_stream stream, size_t buflen, const struct sftp_limits *sibling,
    char *err, size_t errlen)
{
	return sftp_open_with(stream, buflen, sibling, NULL, err, errlen);
}

struct sftp_conn *
sftp_open_sent(struct fscp_stream stream, size_t buflen, const struct sftp_limits *sibling,
    const struct sftp_hello *sent, char *err, size_t errlen)
{
	return sftp_open_with(stream, buflen, sibling, sent, err, errlen);
}

void
sftp_discard(struct sftp_conn *c)
{
	if (c == NULL)
		return;
	c->dead = true;
	(void)sftp_close(c);
}

int
sftp_close(struct sftp_conn *c)
{
	int rc;

	if (c == NULL)
		return 0;
	if (c->dead && c->stream.ops->abort != NULL)
		rc = c->stream.ops->abort(c->stream.ctx);
	else
		rc = c->stream.ops->close(c->stream.ctx);
	sftp_buf_free(&c->out);
	sftp_buf_free(&c->in);
	free(c);
	return rc;
}

/* A server's status as the int these helpers return: -1 means a failed
 * connection, so a code past INT_MAX (unknown anyway; a hostile server can
 * send 0xffffffff) becomes INT_MAX, which reads "Unknown status". */
static int
sftp_status_int(uint32_t status)
{
	return status > INT_MAX ? INT_MAX : (int)status;
}

/* The same for a STATUS that answers a request wanting data: OK there
 * is a failure too. */
static int
sftp_error_status(uint32_t status)
{
	return status == SSH_FX_OK ? SSH_FX_FAILURE : sftp_status_int(status);
}

/* Send what is queued and wait for the reply with this id (synchronous use). */
static int
sftp_wait(struct sftp_conn *c, uint32_t id, struct sftp_reply *r)
{
	if (sftp_recv(c, r) != 0)
		return -1;
	if (r->id != id)
		return sftp_fail(c);
	return 0;
}

static int
sftp_status_of(struct sftp_conn *c, uint32_t id)
{
	struct sftp_reply r;

	if (sftp_wait(c, id, &r) != 0)
		return -1;
	if (r.type != SSH_FXP_STATUS)
		return sftp_fail(c);
	return sftp_status_int(r.status);
}

int
sftp_stat(struct sftp_conn *c, const char *path, bool follow, struct sftp_attrs *a)
{
	uint32_t id = sftp_new_id(c);
	struct sftp_reply r;

	sftp_msg_path(&c->out, follow ? SSH_FXP_STAT : SSH_FXP_LSTAT, id, path);
	if (sftp_wait(c, id, &r) != 0)
		return -1;
	if (r.type == SSH_FXP_ATTRS) {
		*a = r.attrs;
		return SSH_FX_OK;
	}
	if (r.type == SSH_FXP_STATUS)
		return sftp_error_status(r.status);
	return sftp_fail(c);
}

int
sftp_mkdir(struct sftp_conn *c, const char *path, const struct sftp_attrs *a)
{
	uint32_t id = sftp_new_id(c);

	sftp_msg_mkdir(&c->out, id, path, a);
	return sftp_status_of(c, id);
}

int
sftp_setstat(struct sftp_conn *c, const char *path, const struct sftp_attrs *a)
{
	uint32_t id = sftp_new_id(c);

	sftp_msg_setstat(&c->out, id, path, a);
	return sftp_status_of(c, id);
}

/* OpenSSH's do_realpath_expand(): REALPATH, or expand-path@openssh.com. */
static int
sftp_realpath_expand(struct sftp_conn *c, const char *path, bool expand, char **out)
{
	uint32_t id = sftp_new_id(c);
	struct sftp_reply r;
	struct sftp_attrs a;
	const char *what = expand ? "expand" : "realpath";

	if (expand)
		sftp_msg_extended_path(&c->out, id, "expand-path@openssh.com", path);
	else
		sftp_msg_path(&c->out, SSH_FXP_REALPATH, id, path);
	if (sftp_wait(c, id, &r) != 0)
		return -1;
	if (r.type == SSH_FXP_STATUS) {
		/* OpenSSH shows the server's own text here. */
		if (r.msg_len > 0)
			log_warn("%s %s: %.*s", what, path, (int)r.msg_len, (const char *)r.msg);
		else
			log_warn("%s %s: %s", what, path, sftp_status_text(r.status));
		return sftp_error_status(r.status);
	}
	if (r.type != SSH_FXP_NAME || r.count != 1 ||
	    sftp_reply_next_name(&r, out, NULL, &a) != 0)
		return sftp_fail(c);
	return SSH_FX_OK;
}

const char *
sftp_handle_errmsg(char buf[SFTP_HANDLE_ERRMSG], const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, SFTP_HANDLE_ERRMSG, fmt, ap);
	va_end(ap);
	return buf;
}

int
sftp_realpath(struct sftp_conn *c, const char *path, char **out)
{
	return sftp_realpath_expand(c, path, false, out);
}

int
sftp_expand_path(struct sftp_conn *c, const char *path, char **out)
{
	return sftp_realpath_expand(c, path, true, out);
}

void
sftp_dirents_free(struct sftp_dirent *d, size_t count)
{
	for (size_t i = 0; i < count; i++)
		free(d[i].name);
	free(d);
}

/* A listing that never ends must not hang fscp (OpenSSH's client would
 * read it until memory runs out).  Two bounds: a batch that starts with the
 * same name as the one before means the server is not moving on, and no
 * directory gets more than this many entries. */
#define SFTP_READDIR_MAX_ENTRIES (1u << 22)

/* True when this NAME batch starts as the previous one did; *prev keeps the
 * first name of the latest batch.  Looks at a copy of the reply's view, so
 * the caller still reads every entry. */
static bool
sftp_batch_repeats(const struct sftp_reply *r, char **prev)
{
	struct sftp_reply peek = *r;
	struct sftp_attrs a;
	char *first;
	bool same;

	if (sftp_reply_next_name(&peek, &first, NULL, &a) != 0)
		return false;
	same = *prev != NULL && strcmp(*prev, first) == 0;
	free(*prev);
	*prev = first;
	return same;
}

/* A directory being read: the entries so far and what to report. */
struct sftp_listing {
	struct sftp_dirent *ents;
	size_t n, cap;
	int status;
};

/* Keep the entries of one NAME batch of path; -1 when it is malformed.
 * "." and ".." are dropped; names that hold a '/' are skipped with
 * OpenSSH's words, as a server must not steer us outside the tree; empty
 * names (which OpenSSH's client tries to copy) are refused (status
 * BAD_MESSAGE). */
static int
sftp_take_batch(struct sftp_reply *r, const char *path, struct sftp_listing *l)
{
	for (uint32_t i = 0; i < r->count; i++) {
		char *name;
		struct sftp_attrs a;

		if (sftp_reply_next_name(r, &name, NULL, &a) != 0)
			return -1;
		if (strcmp(name, ".") == 0 || strcmp(name, "..") == 0) {
			free(name);
			continue;
		}
		if (strchr(name, '/') != NULL) {
			log_warn("Server sent suspect path \"%s\" during readdir of \"%s\"",
			    name, path);
			free(name);
			continue;
		}
		if (name[0] == '\0') {
			free(name);
			l->status = SSH_FX_BAD_MESSAGE;
			continue;
		}
		if (l->n == l->cap) {
			l->cap = l->cap ? l->cap * 2 : 64;
			l->ents = xrealloc(l->ents, l->cap * sizeof(*l->ents));
		}
		l->ents[l->n].name = name;
		l->ents[l->n].a = a;
		l->n++;
	}
	return 0;
}

/* READDIR until the listing ends; 0, or -1 when the connection failed. */
static int
sftp_read_listing(struct sftp_conn *c, const char *path, const uint8_t *handle,
    uint32_t hlen, struct sftp_listing *l)
{
	struct sftp_reply r;
	char *prev_first = NULL;
	size_t seen = 0;
	int rc = 0;

	for (;;) {
		uint32_t id = sftp_new_id(c);

		sftp_msg_handle(&c->out, SSH_FXP_READDIR, id, handle, hlen);
		if (sftp_wait(c, id, &r) != 0) {
			rc = -1;
			break;
		}
		if (r.type == SSH_FXP_STATUS) {
			if (r.status != SSH_FX_EOF) {
				log_warn("Couldn't read directory: %s", sftp_status_text(r.status));
				l->status = sftp_error_status(r.status);
			}
			break;
		}
		if (r.type != SSH_FXP_NAME) {
			rc = sftp_fail(c);
			break;
		}
		/* An empty batch ends the listing, as in OpenSSH's client
		 * (waiting for EOF after it could wait forever). */
		if (r.count == 0)
			break;
		if (sftp_batch_repeats(&r, &prev_first) ||
		    r.count > SFTP_READDIR_MAX_ENTRIES - seen) {
			/* Endless: give up on this directory, keep nothing. */
			sftp_dirents_free(l->ents, l->n);
			*l = (struct sftp_listing){ .status = SSH_FX_FAILURE };
			break;
		}
		seen += r.count;
		if (sftp_take_batch(&r, path, l) != 0) {
			rc = sftp_fail(c);
			break;
		}
	}
	free(prev_first);
	return rc;
}

int
sftp_readdir_all(struct sftp_conn *c, const char *path,
    struct sftp_dirent **out, size_t *count)
{
	uint32_t id = sftp_new_id(c);
	struct sftp_reply r;
	uint8_t handle[256];
	uint32_t hlen;
	struct sftp_listing l = { .status = SSH_FX_OK };
	int st;

	*out = NULL;
	*count = 0;
	sftp_msg_path(&c->out, SSH_FXP_OPENDIR, id, path);
	if (sftp_wait(c, id, &r) != 0)
		return -1;
	if (r.type == SSH_FXP_STATUS) {
		char what[SFTP_HANDLE_ERRMSG];

		log_warn("%s: %s", sftp_handle_errmsg(what, "remote readdir(\"%s\")", path),
		    sftp_status_text(r.status));
		return sftp_error_status(r.status);
	}
	if (r.type != SSH_FXP_HANDLE)
		return sftp_fail(c);
	hlen = r.handle_len;
	memcpy(handle, r.handle, hlen);

	if (sftp_read_listing(c, path, handle, hlen, &l) != 0) {
		sftp_dirents_free(l.ents, l.n);
		return -1;
	}
	id = sftp_new_id(c);
	sftp_msg_handle(&c->out, SSH_FXP_CLOSE, id, handle, hlen);
	st = sftp_status_of(c, id);
	if (st < 0) {
		sftp_dirents_free(l.ents, l.n);
		return -1;
	}
	/* OpenSSH's do_close() says so; the listing stands. */
	if (st != SSH_FX_OK)
		log_warn("close remote: %s", sftp_status_text((uint32_t)st));
	*out = l.ents;
	*count = l.n;
	return l.status;
}
