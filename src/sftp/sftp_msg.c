/* SPDX-License-Identifier: ISC
 * Copyright (c) 2026 The fscp authors.  See LICENSE. */
#include "config.h"
#include "sftp/sftp_msg.h"
#include "util/xmalloc.h"

#include <stdlib.h>
#include <string.h>

void
sftp_buf_free(struct sftp_buf *b)
{
	free(b->data);
	memset(b, 0, sizeof(*b));
}

void
sftp_buf_reset(struct sftp_buf *b)
{
	b->len = b->off = 0;
	b->error = false;
}

uint8_t *
sftp_buf_reserve(struct sftp_buf *b, size_t n)
{
	if (b->len + n > b->cap) {
		size_t cap = b->cap ? b->cap : 256;

		while (cap < b->len + n)
			cap *= 2;
		b->data = xrealloc(b->data, cap);
		b->cap = cap;
	}
	b->len += n;
	return b->data + b->len - n;
}

void
sftp_buf_put_u8(struct sftp_buf *b, uint8_t v)
{
	*sftp_buf_reserve(b, 1) = v;
}

void
sftp_buf_put_u32(struct sftp_buf *b, uint32_t v)
{
	uint8_t *p = sftp_buf_reserve(b, 4);

	p[0] = v >> 24;
	p[1] = v >> 16;
	p[2] = v >> 8;
	p[3] = v;
}

void
sftp_buf_put_u64(struct sftp_buf *b, uint64_t v)
{
	sftp_buf_put_u32(b, (uint32_t)(v >> 32));
	sftp_buf_put_u32(b, (uint32_t)v);
}

void
sftp_buf_put_string(struct sftp_buf *b, const void *s, size_t n)
{
	sftp_buf_put_u32(b, (uint32_t)n);
	if (n > 0)
		memcpy(sftp_buf_reserve(b, n), s, n);
}

void
sftp_buf_put_cstring(struct sftp_buf *b, const char *s)
{
	sftp_buf_put_string(b, s, strlen(s));
}

void
sftp_buf_put_attrs(struct sftp_buf *b, const struct sftp_attrs *a)
{
	/* Only the flags of fields written below: attrs decoded from a server
	 * may carry bits fscp does not know (or EXTENDED), and echoing them
	 * would announce fields this packet does not contain. */
	uint32_t flags = a->flags & (SSH_FILEXFER_ATTR_SIZE | SSH_FILEXFER_ATTR_UIDGID |
	    SSH_FILEXFER_ATTR_PERMISSIONS | SSH_FILEXFER_ATTR_ACMODTIME);

	sftp_buf_put_u32(b, flags);
	if (flags & SSH_FILEXFER_ATTR_SIZE)
		sftp_buf_put_u64(b, a->size);
	if (flags & SSH_FILEXFER_ATTR_UIDGID) {
		sftp_buf_put_u32(b, a->uid);
		sftp_buf_put_u32(b, a->gid);
	}
	if (flags & SSH_FILEXFER_ATTR_PERMISSIONS)
		sftp_buf_put_u32(b, a->perm);
	if (flags & SSH_FILEXFER_ATTR_ACMODTIME) {
		sftp_buf_put_u32(b, a->atime);
		sftp_buf_put_u32(b, a->mtime);
	}
}

static bool
sftp_buf_need(struct sftp_buf *b, size_t n)
{
	if (b->error || b->len - b->off < n) {
		b->error = true;
		return false;
	}
	return true;
}

uint8_t
sftp_buf_get_u8(struct sftp_buf *b)
{
	if (!sftp_buf_need(b, 1))
		return 0;
	return b->data[b->off++];
}

uint32_t
sftp_buf_get_u32(struct sftp_buf *b)
{
	const uint8_t *p;

	if (!sftp_buf_need(b, 4))
		return 0;
	p = b->data + b->off;
	b->off += 4;
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

uint64_t
sftp_buf_get_u64(struct sftp_buf *b)
{
	uint64_t hi = sftp_buf_get_u32(b);
	uint64_t lo = sftp_buf_get_u32(b);

	return b->error ? 0 : hi << 32 | lo;
}

const uint8_t *
sftp_buf_get_string(struct sftp_buf *b, uint32_t *len)
{
	uint32_t n = sftp_buf_get_u32(b);
	const uint8_t *p;

	*len = 0;
	if (!sftp_buf_need(b, n))
		return NULL;
	p = b->data + b->off;
	b->off += n;
	*len = n;
	return p;
}

void
sftp_buf_get_attrs(struct sftp_buf *b, struct sftp_attrs *a)
{
	memset(a, 0, sizeof(*a));
	a->flags = sftp_buf_get_u32(b);
	if (a->flags & SSH_FILEXFER_ATTR_SIZE)
		a->size = sftp_buf_get_u64(b);
	if (a->flags & SSH_FILEXFER_ATTR_UIDGID) {
		a->uid = sftp_buf_get_u32(b);
		a->gid = sftp_buf_get_u32(b);
	}
	if (a->flags & SSH_FILEXFER_ATTR_PERMISSIONS)
		a->perm = sftp_buf_get_u32(b);
	if (a->flags & SSH_FILEXFER_ATTR_ACMODTIME) {
		a->atime = sftp_buf_get_u32(b);
		a->mtime = sftp_buf_get_u32(b);
	}
	if (a->flags & SSH_FILEXFER_ATTR_EXTENDED) {
		uint32_t n = sftp_buf_get_u32(b), len;

		/* Extended pairs carry nothing fscp uses: skip them. */
		for (uint32_t i = 0; i < n && !b->error; i++) {
			(void)sftp_buf_get_string(b, &len);
			(void)sftp_buf_get_string(b, &len);
		}
	}
}

static size_t
sftp_msg_begin(struct sftp_buf *b, uint8_t type, uint32_t id)
{
	size_t start = b->len;

	sftp_buf_put_u32(b, 0);
	sftp_buf_put_u8(b, type);
	if (type != SSH_FXP_INIT)
		sftp_buf_put_u32(b, id);
	return start;
}

void
sftp_msg_end(struct sftp_buf *b, size_t start)
{
	uint32_t n = (uint32_t)(b->len - start - 4);
	uint8_t *p = b->data + start;

	p[0] = n >> 24;
	p[1] = n >> 16;
	p[2] = n >> 8;
	p[3] = n;
}

void
sftp_msg_init(struct sftp_buf *b, uint32_t version)
{
	size_t s = sftp_msg_begin(b, SSH_FXP_INIT, 0);

	sftp_buf_put_u32(b, version);
	sftp_msg_end(b, s);
}

void
sftp_msg_path(struct sftp_buf *b, uint8_t type, uint32_t id, const char *path)
{
	size_t s = sftp_msg_begin(b, type, id);

	sftp_buf_put_cstring(b, path);
	sftp_msg_end(b, s);
}

void
sftp_msg_handle(struct sftp_buf *b, uint8_t type, uint32_t id, const void *h, size_t hlen)
{
	size_t s = sftp_msg_begin(b, type, id);

	sftp_buf_put_string(b, h, hlen);
	sftp_msg_end(b, s);
}

void
sftp_msg_open(struct sftp_buf *b, uint32_t id, const char *path, uint32_t pflags,
    const struct sftp_attrs *a)
{
	size_t s = sftp_msg_begin(b, SSH_FXP_OPEN, id);
	struct sftp_attrs none = { 0 };

	sftp_buf_put_cstring(b, path);
	sftp_buf_put_u32(b, pflags);
	sftp_buf_put_attrs(b, a ? a : &none);
	sftp_msg_end(b, s);
}

void
sftp_msg_read(struct sftp_buf *b, uint32_t id, const void *h, size_t hlen,
    uint64_t off, uint32_t len)
{
	size_t s = sftp_msg_begin(b, SSH_FXP_READ, id);

	sftp_buf_put_string(b, h, hlen);
	sftp_buf_put_u64(b, off);
	sftp_buf_put_u32(b, len);
	sftp_msg_end(b, s);
}

size_t
sftp_msg_write_begin(struct sftp_buf *b, uint32_t id, const void *h, size_t hlen,
    uint64_t off, uint32_t len)
{
	size_t s = sftp_msg_begin(b, SSH_FXP_WRITE, id);

	sftp_buf_put_string(b, h, hlen);
	sftp_buf_put_u64(b, off);
	sftp_buf_put_u32(b, len);
	return s;
}

void
sftp_msg_setstat(struct sftp_buf *b, uint32_t id, const char *path, const struct sftp_attrs *a)
{
	size_t s = sftp_msg_begin(b, SSH_FXP_SETSTAT, id);

	sftp_buf_put_cstring(b, path);
	sftp_buf_put_attrs(b, a);
	sftp_msg_end(b, s);
}

void
sftp_msg_fsetstat(struct sftp_buf *b, uint32_t id, const void *h, size_t hlen,
    const struct sftp_attrs *a)
{
	size_t s = sftp_msg_begin(b, SSH_FXP_FSETSTAT, id);

	sftp_buf_put_string(b, h, hlen);
	sftp_buf_put_attrs(b, a);
	sftp_msg_end(b, s);
}

void
sftp_msg_mkdir(struct sftp_buf *b, uint32_t id, const char *path, const struct sftp_attrs *a)
{
	size_t s = sftp_msg_begin(b, SSH_FXP_MKDIR, id);

	sftp_buf_put_cstring(b, path);
	sftp_buf_put_attrs(b, a);
	sftp_msg_end(b, s);
}

void
sftp_msg_extended(struct sftp_buf *b, uint32_t id, const char *name)
{
	size_t s = sftp_msg_begin(b, SSH_FXP_EXTENDED, id);

	sftp_buf_put_cstring(b, name);
	sftp_msg_end(b, s);
}

void
sftp_msg_extended_path(struct sftp_buf *b, uint32_t id, const char *name, const char *path)
{
	size_t s = sftp_msg_begin(b, SSH_FXP_EXTENDED, id);

	sftp_buf_put_cstring(b, name);
	sftp_buf_put_cstring(b, path);
	sftp_msg_end(b, s);
}

int
sftp_reply_decode(const uint8_t *pkt, size_t len, struct sftp_reply *r)
{
	struct sftp_buf b = { .data = (uint8_t *)pkt, .len = len, .cap = len };

	memset(r, 0, sizeof(*r));
	r->type = sftp_buf_get_u8(&b);
	if (r->type != SSH_FXP_VERSION)
		r->id = sftp_buf_get_u32(&b);
	switch (r->type) {
	case SSH_FXP_VERSION:
		r->status = sftp_buf_get_u32(&b);	/* the version */
		r->names = b;				/* extension pairs follow */
		break;
	case SSH_FXP_STATUS:
		r->status = sftp_buf_get_u32(&b);
		/* v3 servers may omit the message; it is optional for us. */
		if (b.off < b.len)
			r->msg = sftp_buf_get_string(&b, &r->msg_len);
		break;
	case SSH_FXP_HANDLE:
		r->handle = sftp_buf_get_string(&b, &r->handle_len);
		if (r->handle_len == 0 || r->handle_len > 256)
			return -1;
		break;
	case SSH_FXP_DATA:
		r->data = sftp_buf_get_string(&b, &r->data_len);
		break;
	case SSH_FXP_ATTRS:
		sftp_buf_get_attrs(&b, &r->attrs);
		break;
	case SSH_FXP_NAME:
		r->count = sftp_buf_get_u32(&b);
		r->names = b;
		break;
	case SSH_FXP_EXTENDED_REPLY:
		r->names = b;
		break;
	default:
		return -1;
	}
	return b.error ? -1 : 0;
}

static char *
dup_bytes(const uint8_t *p, uint32_t n)
{
	char *s = xmalloc((size_t)n + 1);

	if (n > 0)
		memcpy(s, p, n);
	s[n] = '\0';
	return s;
}

int
sftp_reply_next_name(struct sftp_reply *r, char **name, char **longname,
    struct sftp_attrs *a)
{
	uint32_t n1, n2;
	const uint8_t *p1 = sftp_buf_get_string(&r->names, &n1);
	const uint8_t *p2 = sftp_buf_get_string(&r->names, &n2);

	sftp_buf_get_attrs(&r->names, a);
	if (r->names.error || p1 == NULL)
		return -1;
	/* A name with a NUL inside could hide a '/' check: refuse it. */
	if (memchr(p1, '\0', n1) != NULL)
		return -1;
	*name = dup_bytes(p1, n1);
	if (longname != NULL)
		*longname = dup_bytes(p2 ? p2 : (const uint8_t *)"", p2 ? n2 : 0);
	return 0;
}

const char *
sftp_status_text(uint32_t status)
{
	switch (status) {
	case SSH_FX_OK: return "No error";
	case SSH_FX_EOF: return "End of file";
	case SSH_FX_NO_SUCH_FILE: return "No such file or directory";
	case SSH_FX_PERMISSION_DENIED: return "Permission denied";
	case SSH_FX_FAILURE: return "Failure";
	case SSH_FX_BAD_MESSAGE: return "Bad message";
	case SSH_FX_NO_CONNECTION: return "No connection";
	case SSH_FX_CONNECTION_LOST: return "Connection lost";
	case SSH_FX_OP_UNSUPPORTED: return "Operation unsupported";
	default: return "Unknown status";
	}
}

void
sftp_attrs_from_stat(struct sftp_attrs *a, unsigned mode, long long size,
    long long atime, long long mtime)
{
	memset(a, 0, sizeof(*a));
	a->flags = SSH_FILEXFER_ATTR_SIZE | SSH_FILEXFER_ATTR_PERMISSIONS |
	    SSH_FILEXFER_ATTR_ACMODTIME;
	a->size = (uint64_t)size;
	a->perm = mode;
	a->atime = (uint32_t)atime;
	a->mtime = (uint32_t)mtime;
}
