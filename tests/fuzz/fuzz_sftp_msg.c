/* SPDX-License-Identifier: ISC
 * Copyright (c) 2026 The fscp authors.  See LICENSE. */
/* Fuzz the SFTP reply decoder: whatever a server sends after the length
 * word goes through sftp_reply_decode(), then through the walkers sftp.c
 * runs on it (NAME entries, VERSION extension pairs, limits@openssh.com
 * numbers), so every byte a hostile server controls is read as fscp reads
 * it.  The NAME walk is bounded by the packet, never by the claimed count. */
#include "config.h"
#include "fuzz.h"
#include "sftp/sftp_msg.h"

static void
walk_names(struct sftp_reply *r)
{
	for (uint32_t i = 0; i < r->count; i++) {
		char *name = NULL, *longname = NULL;
		struct sftp_attrs a;

		if (sftp_reply_next_name(r, &name, (i & 1) ? &longname : NULL, &a) != 0)
			break;
		/* The decoder promises a NUL-free name: check it. */
		if (strlen(name) > r->names.len)
			abort();
		free(name);
		free(longname);
	}
}

static void
walk_pairs(struct sftp_reply *r)
{
	while (r->names.off < r->names.len && !r->names.error) {
		uint32_t n1, n2;
		const uint8_t *p1 = sftp_buf_get_string(&r->names, &n1);
		const uint8_t *p2 = sftp_buf_get_string(&r->names, &n2);

		if (p1 == NULL || p2 == NULL)
			break;
		/* A string must lie inside the packet. */
		if (p1 + n1 > r->names.data + r->names.len ||
		    p2 + n2 > r->names.data + r->names.len)
			abort();
	}
}

/* Attributes survive encode -> decode unchanged (EXTENDED is dropped). */
static void
attrs_roundtrip(const struct sftp_attrs *a)
{
	struct sftp_buf b = { 0 };
	struct sftp_attrs back;
	struct sftp_attrs want = *a;

	want.flags &= SSH_FILEXFER_ATTR_SIZE | SSH_FILEXFER_ATTR_UIDGID |
	    SSH_FILEXFER_ATTR_PERMISSIONS | SSH_FILEXFER_ATTR_ACMODTIME;
	sftp_buf_put_attrs(&b, a);
	sftp_buf_get_attrs(&b, &back);
	if (b.error || b.off != b.len || back.flags != want.flags ||
	    back.size != want.size || back.uid != want.uid ||
	    back.gid != want.gid || back.perm != want.perm ||
	    back.atime != want.atime || back.mtime != want.mtime)
		abort();
	sftp_buf_free(&b);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* A private copy, exactly as long as the packet, so ASan sees any read
	 * past its end. */
	uint8_t *pkt = malloc(size ? size : 1);
	struct sftp_reply r;

	if (pkt == NULL)
		abort();
	if (size > 0)
		memcpy(pkt, data, size);
	if (sftp_reply_decode(pkt, size, &r) == 0) {
		(void)sftp_status_text(r.status);
		if (r.type == SSH_FXP_NAME)
			walk_names(&r);
		else if (r.type == SSH_FXP_VERSION)
			walk_pairs(&r);
		else if (r.type == SSH_FXP_EXTENDED_REPLY) {
			for (int i = 0; i < 4; i++)
				(void)sftp_buf_get_u64(&r.names);
		} else if (r.type == SSH_FXP_ATTRS)
			attrs_roundtrip(&r.attrs);
		if (r.type == SSH_FXP_HANDLE && (r.handle_len == 0 || r.handle_len > 256))
			abort();
	}
	free(pkt);
	return 0;
}
