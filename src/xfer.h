/* xfer: the copy engine.
 *
 * Planning (walks, stats, mkdirs, target rules) runs synchronously on the
 * first connection, exactly in scp's order and with scp's messages.  It
 * queues one task per file (or per chunk of a big file when there are
 * several connections); xfer_run then drains the queue with one worker per
 * connection, each keeping many files open and many READ/WRITE requests in
 * flight, so neither big files nor many small files wait a round trip per
 * request. */
#ifndef FSCP_XFER_H
#define FSCP_XFER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct sftp_conn;
struct bwlimit;
struct progress;

struct xfer_params {
	bool preserve;		/* -p */
	bool recursive;		/* -r */
	unsigned nrequests;	/* requests in flight per connection; 0 = default */
	uint64_t chunk_size;	/* smallest piece of a file split across connections; 0 = never split */
	uint64_t inflight_bytes;	/* READ bytes in flight per connection; 0 = default */
	uint64_t upload_inflight_bytes;	/* WRITE bytes in flight per connection; 0 = default */
	struct bwlimit *bw;	/* -l, or NULL */
	struct progress *progress;	/* NULL when no meter */
};

struct xfer;

/* conns[0] is used for planning; all are used for transfers.  The engine
 * does not own the connections. */
struct xfer *xfer_new(const struct xfer_params *p, struct sftp_conn **conns, int nconns);
void xfer_free(struct xfer *x);

/* scp's source_sftp(): one local source to the remote target.  Errors are
 * reported and counted (log_errors()); fatal ones drain what is queued
 * first, then exit 255 as scp does. */
void xfer_upload(struct xfer *x, const char *src, const char *target,
    bool target_should_be_dir);
/* scp's sink_sftp(): one remote source (glob allowed) to the local dst. */
void xfer_download(struct xfer *x, const char *src, const char *dst);
/* Move everything queued, then apply directory modes/times (after their
 * contents, as scp does).  Returns -1 when a connection died. */
int xfer_run(struct xfer *x);
/* Connections that come up while a run is under way: next() blocks until
 * one is ready (NULL: no more), stop() makes it return NULL from then on;
 * at most max of them.  Each one that arrives while work is left gets a
 * worker; the caller keeps owning them. */
struct xfer_joiner {
	struct sftp_conn *(*next)(void *ctx);
	void (*stop)(void *ctx);
	void *ctx;
	int max;
};
void xfer_set_joiner(struct xfer *x, const struct xfer_joiner *j);

/* Bytes of the files planned and not yet run. */
uint64_t xfer_planned_bytes(const struct xfer *x);
/* Use these connections from the next run on (a route that grew). */
void xfer_set_conns(struct xfer *x, struct sftp_conn **conns, int nconns, uint64_t chunk_size,
    uint64_t inflight_bytes, uint64_t upload_inflight_bytes);

/* Bytes moved so far (all files), for -v summaries and the benchmark. */
uint64_t xfer_bytes(const struct xfer *x);

/* scp's planning helpers on any connection, for crossload.c (they move to
 * plan.c with the rest of the planning):
 *  - xfer_path_join: dir + "/" + name (no doubled '/'; "" + name = name);
 *  - xfer_remote_path_prepare: prepare_remote_path() ("~/x" -> "x");
 *  - xfer_remote_is_dir: stat (following links) says directory; exits 255
 *    ("Connection closed") when the connection died;
 *  - xfer_remote_glob: the sorted matches of a pattern with * ? [ (none
 *    pushed when nothing matches or pattern has no glob characters). */
struct strv;
char *xfer_path_join(const char *dir, const char *name);
char *xfer_remote_path_prepare(const char *path);
bool xfer_remote_is_dir(struct sftp_conn *c, const char *path);
void xfer_remote_glob(struct sftp_conn *c, const char *pattern, struct strv *out);

#endif
