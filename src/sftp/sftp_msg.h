/* SPDX-License-Identifier: ISC
 * Copyright (c) 2026 The fscp authors.  See LICENSE. */
/* sftp_msg: SFTP version 3 wire format (draft-ietf-secsh-filexfer-02), pure.
 *
 * A growable byte buffer with big-endian put/get, plus encoders for every
 * request fscp sends and a decoder for every reply it reads.  No I/O here:
 * sftp.c moves the bytes, this file only shapes them. */
#ifndef FSCP_SFTP_MSG_H
#define FSCP_SFTP_MSG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum {
	SSH_FXP_INIT = 1, SSH_FXP_VERSION = 2, SSH_FXP_OPEN = 3, SSH_FXP_CLOSE = 4,
	SSH_FXP_READ = 5, SSH_FXP_WRITE = 6, SSH_FXP_LSTAT = 7, SSH_FXP_FSTAT = 8,
	SSH_FXP_SETSTAT = 9, SSH_FXP_FSETSTAT = 10, SSH_FXP_OPENDIR = 11,
	SSH_FXP_READDIR = 12, SSH_FXP_REMOVE = 13, SSH_FXP_MKDIR = 14,
	SSH_FXP_RMDIR = 15, SSH_FXP_REALPATH = 16, SSH_FXP_STAT = 17,
	SSH_FXP_RENAME = 18, SSH_FXP_READLINK = 19, SSH_FXP_SYMLINK = 20,
	SSH_FXP_STATUS = 101, SSH_FXP_HANDLE = 102, SSH_FXP_DATA = 103,
	SSH_FXP_NAME = 104, SSH_FXP_ATTRS = 105,
	SSH_FXP_EXTENDED = 200, SSH_FXP_EXTENDED_REPLY = 201,
};

enum {
	SSH_FX_OK = 0, SSH_FX_EOF = 1, SSH_FX_NO_SUCH_FILE = 2,
	SSH_FX_PERMISSION_DENIED = 3, SSH_FX_FAILURE = 4, SSH_FX_BAD_MESSAGE = 5,
	SSH_FX_NO_CONNECTION = 6, SSH_FX_CONNECTION_LOST = 7,
	SSH_FX_OP_UNSUPPORTED = 8,
};

enum {
	SSH_FILEXFER_ATTR_SIZE = 0x1, SSH_FILEXFER_ATTR_UIDGID = 0x2,
	SSH_FILEXFER_ATTR_PERMISSIONS = 0x4, SSH_FILEXFER_ATTR_ACMODTIME = 0x8,
	SSH_FILEXFER_ATTR_EXTENDED = 0x80000000u,
};

enum {
	SSH_FXF_READ = 0x1, SSH_FXF_WRITE = 0x2, SSH_FXF_APPEND = 0x4,
	SSH_FXF_CREAT = 0x8, SSH_FXF_TRUNC = 0x10, SSH_FXF_EXCL = 0x20,
};

/* Largest packet we accept from a server: OpenSSH's own bound. */
#define SFTP_MAX_MSG_LENGTH (256 * 1024)

struct sftp_attrs {
	uint32_t flags;
	uint64_t size;
	uint32_t uid, gid;
	uint32_t perm;
	uint32_t atime, mtime;
};

struct sftp_buf {
	uint8_t *data;
	size_t len;	/* bytes in use */
	size_t cap;
	size_t off;	/* read position (decoding) */
	bool error;	/* a get ran past the end */
};

void sftp_buf_free(struct sftp_buf *b);
void sftp_buf_reset(struct sftp_buf *b);
/* Reserve n bytes at the end and return them (for data read straight in). */
uint8_t *sftp_buf_reserve(struct sftp_buf *b, size_t n);
void sftp_buf_put_u8(struct sftp_buf *b, uint8_t v);
void sftp_buf_put_u32(struct sftp_buf *b, uint32_t v);
void sftp_buf_put_u64(struct sftp_buf *b, uint64_t v);
void sftp_buf_put_string(struct sftp_buf *b, const void *s, size_t n);
void sftp_buf_put_cstring(struct sftp_buf *b, const char *s);
void sftp_buf_put_attrs(struct sftp_buf *b, const struct sftp_attrs *a);

/* Getters over a received packet; on underrun they return 0/NULL and set b->error. */
uint8_t sftp_buf_get_u8(struct sftp_buf *b);
uint32_t sftp_buf_get_u32(struct sftp_buf *b);
uint64_t sftp_buf_get_u64(struct sftp_buf *b);
/* Pointer into the buffer (not NUL-terminated) and its length. */
const uint8_t *sftp_buf_get_string(struct sftp_buf *b, uint32_t *len);
void sftp_buf_get_attrs(struct sftp_buf *b, struct sftp_attrs *a);

/* Packet framing: a packet begun by a writer below (which puts a length
 * placeholder first) gets its length filled in by end. */
void sftp_msg_end(struct sftp_buf *b, size_t start);

/* Request encoders: append one complete packet to b. */
void sftp_msg_init(struct sftp_buf *b, uint32_t version);
void sftp_msg_path(struct sftp_buf *b, uint8_t type, uint32_t id, const char *path);
void sftp_msg_handle(struct sftp_buf *b, uint8_t type, uint32_t id, const void *h, size_t hlen);
void sftp_msg_open(struct sftp_buf *b, uint32_t id, const char *path, uint32_t pflags,
    const struct sftp_attrs *a);
void sftp_msg_read(struct sftp_buf *b, uint32_t id, const void *h, size_t hlen,
    uint64_t off, uint32_t len);
/* WRITE header only: the caller appends exactly len data bytes, then calls sftp_msg_end. */
size_t sftp_msg_write_begin(struct sftp_buf *b, uint32_t id, const void *h, size_t hlen,
    uint64_t off, uint32_t len);
void sftp_msg_setstat(struct sftp_buf *b, uint32_t id, const char *path, const struct sftp_attrs *a);
void sftp_msg_fsetstat(struct sftp_buf *b, uint32_t id, const void *h, size_t hlen,
    const struct sftp_attrs *a);
void sftp_msg_mkdir(struct sftp_buf *b, uint32_t id, const char *path, const struct sftp_attrs *a);
void sftp_msg_extended(struct sftp_buf *b, uint32_t id, const char *name);
/* An extended request whose one argument is a path. */
void sftp_msg_extended_path(struct sftp_buf *b, uint32_t id, const char *name,
    const char *path);

/* A decoded reply.  Pointers refer into the packet buffer. */
struct sftp_reply {
	uint8_t type;
	uint32_t id;
	uint32_t status;		/* STATUS */
	const uint8_t *msg;		/* STATUS message, may be NULL */
	uint32_t msg_len;
	const uint8_t *handle;		/* HANDLE */
	uint32_t handle_len;
	const uint8_t *data;		/* DATA */
	uint32_t data_len;
	struct sftp_attrs attrs;	/* ATTRS */
	uint32_t count;			/* NAME: entries follow at names */
	struct sftp_buf names;		/* NAME: a view of the remaining bytes */
};

/* Decode the body of one packet (type byte onward, without the length).
 * Returns 0, or -1 when malformed. */
int sftp_reply_decode(const uint8_t *pkt, size_t len, struct sftp_reply *r);
/* Next NAME entry; returns 0, or -1 when malformed.  Strings are copied. */
int sftp_reply_next_name(struct sftp_reply *r, char **name, char **longname,
    struct sftp_attrs *a);

/* OpenSSH's fx2txt(): "No such file", "Permission denied", ... */
const char *sftp_status_text(uint32_t status);
/* Mode bits <-> attrs helpers. */
void sftp_attrs_from_stat(struct sftp_attrs *a, unsigned mode, long long size,
    long long atime, long long mtime);

#endif
