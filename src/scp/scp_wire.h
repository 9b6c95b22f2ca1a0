/* SPDX-License-Identifier: ISC
 * Copyright (c) 2026 The fscp authors.  See LICENSE. */
/* scp_wire: one legacy SCP conversation over a byte stream.
 *
 * What scp.c's source() and sink() share: buffered reads from the peer,
 * writes that end the copy on a lost connection, response() (the peer's
 * \0 / \1msg / \2msg replies), run_err() (an error sent to the peer as
 * "\1scp: msg\n" and, unless we are the remote side, printed as "msg\n"),
 * note_err() (a sink error held back until the file's data has been read).
 * Errors are counted with log_count_error(); scp exits errs != 0.
 *
 * Where scp exits in the middle of a conversation (a lost connection, a
 * \2 reply, a protocol error), the wire ends instead: scp_wire_end()
 * keeps scp's exit status (and fatal()'s message, if any), every later
 * read, write and message is a no-op, and the callers return at once when
 * scp_wire_ended() says so.  main() exits with the status.
 *
 * The stream is an ssh child's socket (sshproc), a libssh exec channel
 * (sshconn) or, in server mode, stdin and stdout. */
#ifndef FSCP_SCP_WIRE_H
#define FSCP_SCP_WIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "util/log.h"
#include "transport/stream.h"

struct bwlimit;
struct progress;

struct scp_wire_opts {
	bool remote;		/* server mode (-t/-f): messages only to the peer */
	bool preserve;		/* -p */
	bool recursive;		/* -r */
	bool no_strict;		/* -T: no name check against the request */
	bool target_dir;	/* -d: the sink's target must be a directory */
	bool verbose;		/* -v: scp's "Sink: ...", "Sending file modes: ..." */
	struct progress *pm;	/* NULL: no meter */
	struct bwlimit *bw;	/* NULL: no -l */
};

struct scp_wire {
	struct fscp_stream *st;
	struct scp_wire_opts o;
	char *noted;		/* note_err()'s first message, or NULL */
	unsigned char *buf;	/* bytes read ahead from the peer */
	size_t pos, len;
	int end;		/* scp's exit status once the copy ended, else 0 */
	char *fatal;		/* fatal()'s message for main to say, or NULL */
};

#define SCP_WIRE_BUF (64u * 1024)

void scp_wire_init(struct scp_wire *w, struct fscp_stream *st, const struct scp_wire_opts *o);
void scp_wire_free(struct scp_wire *w);

/* Up to n bytes from the peer (0 at EOF, -1 on error). */
ssize_t scp_wire_read(struct scp_wire *w, void *buf, size_t n);
/* One byte, or -1 at EOF / error. */
int scp_wire_getc(struct scp_wire *w);
/* All n bytes to the peer; a failure is a lost connection (ends, 1). */
void scp_wire_write(struct scp_wire *w, const void *buf, size_t n);
void scp_wire_ack(struct scp_wire *w);

/* scp's response(): 0 on \0; -1 after printing an \1 message; -1 and the
 * wire ended (status 1) on \2 or any other byte, and on EOF ("lost
 * connection").  -1 at once on an ended wire. */
int scp_wire_response(struct scp_wire *w);
/* "lost connection" (not in server mode); the wire ends with status 1. */
void scp_wire_lostconn(struct scp_wire *w);
/* The copy ends as scp's exit with status (fatal NULL) or fatal() (255,
 * the message said by main once everything is closed) would end it.  The
 * first end counts. */
void scp_wire_end(struct scp_wire *w, int status, const char *fatal);
/* The exit status the conversation ended with, or 0 while it goes on. */
int scp_wire_ended(const struct scp_wire *w);

void scp_wire_run_err(struct scp_wire *w, const char *fmt, ...) FSCP_PRINTF(2, 3);
/* Count an error and keep the first message for scp_wire_flush_noted(). */
void scp_wire_note_err(struct scp_wire *w, const char *fmt, ...) FSCP_PRINTF(2, 3);
/* note_err(NULL): 0 when nothing was noted, else run_err() it and -1. */
int scp_wire_flush_noted(struct scp_wire *w);

/* Print msg to stderr unless in server mode, escaped as scp's
 * fmprintf(stderr, ...) escapes it. */
void scp_wire_say(struct scp_wire *w, const char *fmt, ...) FSCP_PRINTF(2, 3);
/* scp's -v debug line for an fd it takes out of non-blocking mode (it
 * does for each source file, and for its end of the stream around each
 * file's data).  Only in server mode: there the fds are scp's own (0, 1,
 * the file), so the lines match; a client prints fscp's own -v lines. */
void scp_wire_debug_unblock(struct scp_wire *w, int fd);
/* The same with -v, in server mode too (scp's "Sink: ..." lines). */
void scp_wire_verbose(struct scp_wire *w, const char *fmt, ...) FSCP_PRINTF(2, 3);

/* A stream over two descriptors (server mode: stdin and stdout).  close
 * does not close them. */
void scp_wire_fd_stream(int in, int out, struct fscp_stream *st);
void scp_wire_fd_stream_free(struct fscp_stream *st);

#endif
