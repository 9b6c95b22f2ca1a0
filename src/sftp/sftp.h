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

/* One session; what it holds is sftp/'s own (sftp_conn.h): the rest of
 * fscp asks through the functions below. */
struct sftp_conn;

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
/* A session's first bytes, for a transport that sends them with its
 * subsystem request: INIT, and with ask_limits the limits@openssh.com
 * request too, without waiting for VERSION to say whether the server
 * knows it (one that does not answers a status): a round trip saved.  len
 * 0: none. */
struct sftp_hello {
	uint8_t bytes[64];
	size_t len;
	bool limits;		/* the limits request is in */
};
void sftp_hello_make(struct sftp_hello *h, bool ask_limits);
/* sftp_open on a stream that sent *sent already (len 0: nothing went,
 * and INIT goes now, as sftp_open sends it). */
struct sftp_conn *sftp_open_sent(struct fscp_stream stream, size_t buflen,
    const struct sftp_limits *sibling, const struct sftp_hello *sent, char *err,
    size_t errlen);
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

/* What the session found out, and whether it still works. */
bool sftp_dead(const struct sftp_conn *c);
/* Give the session up: every later call fails, and closing it does not
 * wait for the server. */
void sftp_give_up(struct sftp_conn *c);
uint32_t sftp_max_read(const struct sftp_conn *c);	/* READ length we ask for */
uint32_t sftp_max_write(const struct sftp_conn *c);	/* WRITE payload we send */
uint64_t sftp_max_handles(const struct sftp_conn *c);	/* 0: unknown */
/* The limits round trip, or a shorter one noted; -1 unknown. */
double sftp_rtt_ms(const struct sftp_conn *c);
/* Another plain round trip measured on the same path (the transport's
 * keepalive): the session's round trip is the shorter. */
void sftp_note_rtt(struct sftp_conn *c, double ms);
bool sftp_has_expand_path(const struct sftp_conn *c);

/* Requests queued for the next flush, with an id from sftp_new_id (or an
 * sftp_tracker); the caller matches the replies. */
void sftp_queue_open(struct sftp_conn *c, uint32_t id, const char *path, uint32_t pflags,
    const struct sftp_attrs *a);
void sftp_queue_read(struct sftp_conn *c, uint32_t id, const void *h, size_t hlen,
    uint64_t off, uint32_t len);
void sftp_queue_close(struct sftp_conn *c, uint32_t id, const void *h, size_t hlen);
void sftp_queue_fsetstat(struct sftp_conn *c, uint32_t id, const void *h, size_t hlen,
    const struct sftp_attrs *a);
void sftp_queue_setstat(struct sftp_conn *c, uint32_t id, const char *path,
    const struct sftp_attrs *a);
/* A WRITE of len bytes: returns where its payload goes, to be filled
 * before sftp_queue_write_done(c, got) says how much of it is there (got <
 * len sends only that prefix; 0 drops the WRITE).  Nothing else may be
 * queued between the two. */
uint8_t *sftp_queue_write(struct sftp_conn *c, uint32_t id, const void *h, size_t hlen,
    uint64_t off, uint32_t len);
void sftp_queue_write_done(struct sftp_conn *c, uint32_t got);
/* Bytes queued and not yet flushed. */
size_t sftp_queued(const struct sftp_conn *c);

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
