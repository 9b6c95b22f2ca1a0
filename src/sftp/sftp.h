/* SPDX-License-Identifier: ISC
 * Copyright (c) 2026 The fscp authors.  See LICENSE. */
/* sftp: one SFTP v3 session over a byte stream (pipes to ssh or a libssh
 * channel).  Requests are queued in an output buffer and flushed in one
 * write before the client blocks for a reply, so many requests can be in
 * flight; replies are matched by id by the caller (the engine).  The
 * synchronous helpers at the bottom are for planning, when nothing else is
 * in flight on this session. */
#ifndef FSCP_SFTP_H
#define FSCP_SFTP_H

#include <stdbool.h>
#include <stdint.h>
#include "transport/stream.h"
#include "sftp/sftp_msg.h"
#include "util/log.h"

struct sftp_conn {
	struct fscp_stream stream;
	uint32_t version;
	uint32_t next_id;
	uint32_t max_read;	/* READ length we ask for */
	uint32_t max_write;	/* WRITE payload we send */
	uint64_t max_handles;	/* 0 = unknown */
	bool has_limits;
	bool has_expand_path;
	double rtt_ms;		/* the limits@openssh.com round trip; -1 unknown */
	struct sftp_buf out;	/* queued requests */
	struct sftp_buf in;	/* bytes read, possibly several packets */
	size_t in_pkt;		/* start of the current packet in in */
	bool dead;		/* stream failed; every later call fails */
};

/* What a connection learned of its server that a sibling (another
 * connection of the same copy to the same server) need not ask again. */
struct sftp_limits {
	bool known;
	bool has_limits;
	uint32_t max_read, max_write;
	uint64_t max_handles;
	double rtt_ms;
};

/* Version exchange and limits@openssh.com.  buflen is -X buffer= (0 =
 * the server's maximum, 32768 without the limits extension).  sibling
 * (may be NULL): what another connection of this copy found on the same
 * server; its limits are taken instead of asked again (a round trip less)
 * when this server advertises the extension too.  Returns NULL with a
 * message in err when the server does not speak SFTP: SFTP_CLOSED when
 * the stream ended (scp's fatal()), else scp's error() line for a server
 * that answered INIT with another packet. */
#define SFTP_CLOSED "Connection closed"
struct sftp_conn *sftp_open(struct fscp_stream stream, size_t buflen,
    const struct sftp_limits *sibling, char *err, size_t errlen);
/* What sftp_open found, for a sibling. */
struct sftp_limits sftp_limits_of(const struct sftp_conn *c);
/* Close the stream; returns the stream's close status (ssh's exit status). */
int sftp_close(struct sftp_conn *c);
/* Close without waiting for the server's goodbye (a session nobody used:
 * its exit status is not worth a round trip).  NULL-safe. */
void sftp_discard(struct sftp_conn *c);

uint32_t sftp_new_id(struct sftp_conn *c);
/* Write all queued requests.  0, or -1 when the stream failed. */
int sftp_flush(struct sftp_conn *c);
/* Flush, then block for the next reply.  The reply points into the
 * connection's input buffer and stays valid until the next sftp_recv.
 * 0, or -1 on a dead stream / malformed packet. */
int sftp_recv(struct sftp_conn *c, struct sftp_reply *r);
/* True when a whole reply has been read in already, so that the next
 * sftp_recv returns without waiting (for a client of two connections). */
bool sftp_reply_buffered(const struct sftp_conn *c);

/* Synchronous helpers (nothing else may be in flight).  They return an
 * SSH_FX_* status; -1 when the connection failed.  sftp_realpath and
 * sftp_readdir_all say what went wrong where OpenSSH's sftp-client does
 * (its error() lines, not counted as errors): the caller adds scp's own. */
int sftp_stat(struct sftp_conn *c, const char *path, bool follow, struct sftp_attrs *a);
int sftp_mkdir(struct sftp_conn *c, const char *path, const struct sftp_attrs *a);
int sftp_setstat(struct sftp_conn *c, const char *path, const struct sftp_attrs *a);
int sftp_realpath(struct sftp_conn *c, const char *path, char **out);
/* OpenSSH's get_handle() words a refused OPEN or OPENDIR as "TAG open
 * \"PATH\"" or "remote readdir(\"PATH\")" in a 256-byte buffer: that part
 * of the message, so cut, into buf. */
#define SFTP_HANDLE_ERRMSG 256
const char *sftp_handle_errmsg(char buf[SFTP_HANDLE_ERRMSG], const char *fmt, ...)
    FSCP_PRINTF(2, 3);
/* expand-path@openssh.com (c->has_expand_path): "~user/x" as the server
 * sees it. */
int sftp_expand_path(struct sftp_conn *c, const char *path, char **out);

struct sftp_dirent {
	char *name;
	struct sftp_attrs a;
};
/* Read a whole directory (without "." and "..").  Names containing '/'
 * are skipped ("Server sent suspect path", as OpenSSH's client says), and
 * empty ones refused (status SSH_FX_BAD_MESSAGE), since a server must not
 * steer us outside the tree we asked for. */
int sftp_readdir_all(struct sftp_conn *c, const char *path,
    struct sftp_dirent **out, size_t *count);
void sftp_dirents_free(struct sftp_dirent *d, size_t count);

#endif
