/* SPDX-License-Identifier: ISC
 * Copyright (c) 2026 The fscp authors.  See LICENSE. */
/* xfer: the copy engine.
 *
 * Planning (plan.h: walks, stats, mkdirs, target rules) runs synchronously
 * on the first connection, exactly in scp's order and with scp's messages,
 * and adds the files it finds here.  The run queues one task per file (or
 * per chunk of a big file when there are several connections) and drains
 * the queue with one worker per connection, each keeping many files open
 * and many READ/WRITE requests in flight, so neither big files nor many
 * small files wait a round trip per request. */
#ifndef FSCP_XFER_H
#define FSCP_XFER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct sftp_conn;
struct sftp_attrs;
struct bwlimit;
struct progress;
struct journal;

struct xfer_params {
	bool preserve;		/* -p */
	unsigned nrequests;	/* requests in flight per connection; 0 = default */
	uint64_t chunk_size;	/* smallest piece of a file split across connections; 0 = never split */
	uint64_t chunk_max;	/* largest piece; 0: a file is cut into pieces enough for
				   every connection to take a few */
	uint64_t inflight_bytes;	/* READ bytes in flight per connection; 0 = default */
	uint64_t upload_inflight_bytes;	/* WRITE bytes in flight per connection; 0 = default */
	struct bwlimit *bw;	/* -l, or NULL */
	struct progress *progress;	/* NULL when no meter */
	struct journal *journal;	/* resume journal (journal.h), or NULL */
};

struct xfer;

/* conns[0] is left to planning until the run; all are used for transfers
 * (conns[0] also sets directory attributes after it).  The engine does not
 * own the connections. */
struct xfer *xfer_new(const struct xfer_params *p, struct sftp_conn **conns, int nconns);
void xfer_free(struct xfer *x);

enum xfer_dir { XFER_UP, XFER_DOWN };

/* One file to move, as planning found it (strings are copied). */
struct xfer_item {
	enum xfer_dir dir;
	const char *local, *remote;
	uint64_t size;
	uint32_t perm;		/* source mode bits */
	uint32_t atime, mtime;
	bool no_meter;		/* scp shows no meter for an empty download */
};

/* Where a planned file comes from, for scp's lines after a failure:
 * fail_msg is said right after the message that says why the file failed,
 * once; a group (an uploaded directory) says its line once after the run
 * when any of its files failed.  Either may be NULL, or o itself. */
struct xfer_group;
struct xfer_origin {
	const char *fail_msg;
	struct xfer_group *group;
};
void xfer_add(struct xfer *x, const struct xfer_item *it, const struct xfer_origin *o);
/* A new group whose line is msg (copied). */
struct xfer_group *xfer_group_new(struct xfer *x, const char *msg);
/* Planning said the group's line already: the run does not repeat it. */
void xfer_group_said(struct xfer_group *g);
/* A directory's mode and times (remote: SETSTAT attributes; local: the
 * times), set after the run, after its contents, in the order added. */
void xfer_add_dirfix(struct xfer *x, bool remote, const char *path, const struct sftp_attrs *a);
/* Move everything queued, then apply directory modes/times (after their
 * contents, as scp does).  A connection that dies gives its unfinished
 * pieces back to the others (-v says which and to whom).  Returns -1 when
 * every connection died (and the reconnect, if any, too): then no file
 * left unfinished is reported copied, and a local one keeps only what was
 * written in order from its start. */
int xfer_run(struct xfer *x);
/* Connections that come up while a run is under way: next() blocks until
 * one is ready (NULL: no more), stop() makes it return NULL from then on;
 * at most max of them.  Each one that arrives while work is left gets a
 * worker; the caller keeps owning them. */
struct xfer_joiner {
	struct sftp_conn *(*next)(void *ctx);
	void (*stop)(void *ctx);
	/* Every connection died with work left: one fresh connection to go
	 * on with, asked for once (NULL: none; may be unset). */
	struct sftp_conn *(*reconnect)(void *ctx);
	/* Every tick_s seconds while work is left (NULL: never), on the
	 * thread that runs the copy: moved of total bytes are done.  Back: a
	 * clock_now() time, from which the connections that joined take no
	 * more work; < 0: none. */
	double (*tick)(void *ctx, uint64_t moved, uint64_t total);
	double tick_s;
	void *ctx;
	int max;
	/* Of max, those planned to come: files are cut into pieces for
	 * these (the rest, a climb's room, may never come, and pieces cut
	 * for it too would be small: each costs a round trip). */
	int planned;
};
void xfer_set_joiner(struct xfer *x, const struct xfer_joiner *j);

/* After a lost run: scp's fatal() message when the last connection to go
 * was given up for a broken reply (scp then exits 255), else NULL (a
 * connection that died: scp's "lost connection"). */
const char *xfer_fatal(const struct xfer *x);
/* Bytes of the files planned and not yet run. */
uint64_t xfer_planned_bytes(const struct xfer *x);
/* Use these connections from the next run on (a route that grew), with
 * p's piece sizes and bytes in flight (its other fields are ignored). */
void xfer_set_conns(struct xfer *x, struct sftp_conn **conns, int nconns,
    const struct xfer_params *p);

#endif
