/* SPDX-License-Identifier: ISC
 * Copyright (c) 2026 The fscp authors.  See LICENSE. */
/* xfer's insides, shared by its files and nothing else: the queue
 * (xfer_queue.c), the requests and their replies (xfer_pipe.c), a worker's
 * loop (xfer_worker.c), finishing files (xfer_finish.c) and the run
 * (xfer.c).  Includes the public xfer.h. */
#ifndef FSCP_XFER_IMPL_H
#define FSCP_XFER_IMPL_H

#include "engine/xfer.h"
#include "sftp/sftp.h"
#include "sftp/sftp_track.h"

#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>


/* Requests in flight per connection.  Data requests are held to
 * max_inflight_bytes; the count matters for the small OPEN/WRITE/CLOSE
 * trains of many small files.  -X nrequests= sets it as in scp. */
#define XFER_DEFAULT_NREQUESTS 1024
/* Payload in flight per connection: a 50 ms round trip at ~300 MB/s. */
#define XFER_DEFAULT_INFLIGHT_BYTES (16u << 20)
/* Each connection gets several pieces of a big file, so all finish together. */
#define XFER_PIECES_PER_CONN 4
/* Files open at once per connection: enough to hide the round trips of
 * OPEN and CLOSE behind each other when copying many small files. */
#define XFER_MAX_ACTIVE 256
/* The least a download's probe past its listed size asks for (xfer_pipe.c). */
#define XFER_PROBE_MIN (32u << 10)
/* The most requests in flight per connection, whatever -X nrequests= says. */
#define XFER_MAX_REQUESTS 2048
/* Flush what is queued once it holds this much: below one WRITE, so each
 * WRITE goes to the channel as soon as it is read.  A buffer that held
 * several WRITEs was fresh memory on every channel, and reading the file
 * into it faulted its pages in: a large part of an upload's CPU where
 * page faults are dear (a VM).  Small requests (a download's READs)
 * still go out together. */
#define XFER_FLUSH_BYTES (64 * 1024)

/* What one piece of a file has written, for the truncation at the end:
 * each byte of a piece is asked for once, so written == end - off means it
 * is all there; high is the end of the run written in order from off. */
struct xfer_piece {
	uint64_t off, end;
	uint64_t written, high;
};

/* A file's size: atomic (see xfer_file.size), or, built for
 * tests/unit/engine/size-race.sh with FSCP_TEST_PLAIN_SIZE, the plain field
 * it once was. */
#ifndef FSCP_TEST_PLAIN_SIZE
typedef atomic_uint_fast64_t xfer_size_t;
#else
typedef uint64_t xfer_size_t;
#endif

struct xfer_file {
	enum xfer_dir dir;
	char *local;
	char *remote;
	char *name;		/* base name, for the progress meter */
	/* Written by the worker whose piece finds the file grown or cut
	 * (upload_grew, piece_grew, send_write) while the meter reads it on
	 * another thread; other state orders the workers' own reads, so
	 * relaxed access is enough.  Only xfer_file_size and
	 * xfer_file_set_size touch it. */
	xfer_size_t size;
	uint32_t perm;		/* source mode bits */
	uint32_t atime, mtime;
	int fd;			/* local file, shared by its chunks */
	atomic_int chunks_left;		/* pieces not yet finished */
	atomic_int data_left;		/* upload pieces whose data is not all acknowledged */
	atomic_bool failed;
	atomic_uint_fast64_t done;	/* bytes moved */
	atomic_bool complete;
	bool progress_started;
	bool no_meter;		/* scp shows no meter for an empty download */
	char *fail_msg;		/* scp's line after a failed file, or NULL */
	struct xfer_group *grp;	/* the source operand it belongs to, or NULL */
	struct xfer_task *rest;	/* chunks 1..n-1, queued once chunk 0 opened */
	struct xfer_piece *pieces;	/* one per chunk; each written by its owner */
	size_t npieces;
	uint64_t size_sent;	/* a lone upload's size FSETSTAT, sent before its replies */
	struct journal_file *jf;	/* its resume journal record, or NULL */
};

/* One uploaded source directory: scp says "failed to upload directory"
 * once when anything in it failed. */
struct xfer_group {
	char *msg;
	atomic_bool failed;	/* set by workers */
	bool said;
	struct xfer_group *next;
};

/* A task's life.  Every change goes through one of the named transitions
 * below (task_opening ... task_renew), which refuse a move the table in
 * xfer_queue.c (xfer_task_may) does not list. */
enum task_state {
	T_NEW,		/* queued or just taken: no handle */
	T_OPENING,	/* its OPEN is sent */
	T_DATA,		/* open: asks for its bytes (or writes them) */
	T_CLOSING,	/* its CLOSE (or the SETSTAT by name) is sent: replies due */
	T_DONE,		/* counted off its file; its worker frees it */
};

/* What a task knows of where its file ends, beyond the planned size. */
enum task_end {
	TE_PLANNED,	/* nothing yet: the planned end */
	TE_PROBING,	/* a download's last piece asked one READ past it */
	TE_PROBED,	/* ... and has the answer */
	TE_SHORT,	/* the source ended before the piece did (EOF, a short read) */
};

/* What a task is to its file, fixed when it is made. */
enum task_role {
	TR_ONLY,	/* the file's single piece */
	TR_FIRST,	/* piece 0 of several: opens the local file, releases the rest */
	TR_PIECE,	/* a later piece */
	TR_GROW,	/* reads on past the end of a download that grew, until EOF */
};

/* No short READ behind a CLOSE (short_at can be 0: an empty first READ). */
#define TASK_NO_SHORT UINT64_MAX

struct xfer_task {
	struct xfer_file *f;
	uint64_t off, end;	/* this chunk */
	size_t idx;		/* its entry in f->pieces */
	enum task_role role;
	struct xfer_task *next;	/* queue link */
	/* worker-owned from here */
	enum task_state state;
	enum task_end known_end;
	uint8_t handle[256];
	uint32_t hlen;
	uint64_t next_off;
	uint64_t qbytes;	/* what it counted in queued_bytes while queued */
	int outstanding;
	bool took_last;		/* counted itself off data_left: sets the attributes */
	uint64_t short_at;	/* a short READ behind a CLOSE ended here, or TASK_NO_SHORT */
	int from;		/* connection that gave it back (0: none), for -v */
	uint64_t sized_at;	/* an upload's end + 1 when its local size was last read */
};

/* The table of allowed moves (xfer_queue.c). */
bool xfer_task_may(enum task_state from, enum task_state to);

static inline void
task_move(struct xfer_task *t, enum task_state to)
{
	assert(xfer_task_may(t->state, to));
	t->state = to;
}

/* The OPEN went out. */
static inline void task_opening(struct xfer_task *t) { task_move(t, T_OPENING); }
/* It has a handle: its own OPEN's, or one handed over by the piece before. */
static inline void task_opened(struct xfer_task *t) { task_move(t, T_DATA); }
/* The CLOSE (or the SETSTAT by name) went out. */
static inline void task_closing(struct xfer_task *t) { task_move(t, T_CLOSING); }
/* Nothing more to do: counted off, or to be counted off at once. */
static inline void task_finished(struct xfer_task *t) { task_move(t, T_DONE); }
/* Given back by a dead connection: made new for another. */
static inline void task_renew(struct xfer_task *t) { task_move(t, T_NEW); }

static inline bool task_first(const struct xfer_task *t)
{
	return t->role == TR_ONLY || t->role == TR_FIRST;
}
static inline bool task_only(const struct xfer_task *t) { return t->role == TR_ONLY; }
static inline bool task_grows(const struct xfer_task *t) { return t->role == TR_GROW; }
/* The source ended before the piece did. */
static inline bool task_short(const struct xfer_task *t) { return t->known_end == TE_SHORT; }

#ifndef FSCP_TEST_PLAIN_SIZE
static inline uint64_t
xfer_file_size(const struct xfer_file *f)
{
	return atomic_load_explicit(&f->size, memory_order_relaxed);
}

static inline void
xfer_file_set_size(struct xfer_file *f, uint64_t size)
{
	atomic_store_explicit(&f->size, size, memory_order_relaxed);
}
#else
/* The race issue 20 found, put back for tests/unit/engine/size-race.sh
 * only: it shows that a ThreadSanitizer build catches it. */
static inline uint64_t xfer_file_size(const struct xfer_file *f) { return f->size; }
static inline void xfer_file_set_size(struct xfer_file *f, uint64_t size) { f->size = size; }
#endif

struct xfer_dirfix {
	bool remote;
	char *path;
	struct sftp_attrs a;	/* remote: SETSTAT attrs; local: times */
};

/* What a worker last said of its pace, for the others' decisions at the
 * copy's tail (route_plan_pace_take).  Under x->lock; one per worker
 * slot, by id - 1. */
struct xfer_pace {
	bool working;		/* started, not ended nor retired */
	bool known;		/* it has finished a piece: its rate means something */
	bool left_tail;		/* it left the tail to the others (said once, -v) */
	double t0;		/* when it took its first task (0: none yet) */
	double at;		/* when it last said */
	uint64_t moved;		/* payload answered by then */
	uint64_t left;		/* bytes it held and had not had answered then */
};

struct xfer {
	struct xfer_params p;
	struct sftp_conn **conns;
	int nconns;
	int nplanned;		/* nconns and the joiner's: how files are split */
	struct xfer_joiner joiner;	/* max 0: none */
	/* shared queue */
	pthread_mutex_t lock;
	pthread_cond_t cond;
	struct xfer_task *head, *tail;
	uint64_t queued_bytes;	/* what the queued tasks have left to move */
	struct xfer_pace *pace;	/* each worker's (during a run) */
	int npace;
	int unreleased;		/* multi-chunk files whose chunk 0 is not open yet */
	int taken;		/* tasks that workers hold and have not finished */
	int alive;		/* workers running */
	bool joiner_done;	/* no more connections will join */
	struct worker *joined;	/* the workers of joining connections, */
	int njoined;		/* ... started so far (under lock) */
	bool dead;		/* every connection died with work left */
	struct sftp_conn *fix_conn;	/* a live one after the run, for directories */
	char fatal[256];		/* a lost run's last broken reply, in scp's words */
	/* everything planned, for progress order and cleanup */
	struct xfer_file **files;
	size_t nfiles, capfiles;
	size_t progress_idx;
	pthread_mutex_t progress_lock;
	struct xfer_dirfix *dirs;
	size_t ndirs, capdirs;
	struct xfer_group *groups, **groups_tail;
};

/* xfer's own kind of request (the tracker's tag). */
#define XFER_TAG_CUT 1		/* the FSETSTAT that sets an upload's size */

struct worker {
	struct xfer *x;
	struct sftp_conn *c;
	struct sftp_tracker *tr;	/* requests in flight, and their payload */
	uint32_t max_inflight;
	uint64_t moved;			/* payload answered, for -vv */
	unsigned tasks;			/* tasks taken, for -vv */
	unsigned opens;			/* ... and the OPENs they sent */
	unsigned finished;		/* pieces finished */
	uint64_t max_inflight_bytes;
	struct xfer_task **active;
	size_t nactive;
	size_t max_active;
	int id;				/* 1.. for -v */
	double joined_t;		/* when it joined the copy (clock_now) */
	atomic_bool retire;		/* take no more work (the main thread's) */
	bool failed;			/* its connection died */
	bool broken;			/* ... because the server broke the protocol */
	char why[256];			/* why it failed, for -v */
};

/* ---- xfer_queue.c: planned files and the shared task queue ---------------- */

/* Queue a file as one task, or as pieces when several connections can
 * share it. */
void xfer_queue_file(struct xfer *x, struct xfer_file *f);
/* Chunk 0 is open (or failed): let the other chunks go, or drop them. */
void xfer_release_rest(struct xfer *x, struct xfer_file *f, bool ok);
/* Under x->lock: tasks wait, may be released, or are held by a worker. */
bool xfer_work_left(const struct xfer *x);
/* The next task; with wait, block while others may still produce one.
 * A worker (w, else NULL) leaves the copy's tail to faster ones. */
struct xfer_task *xfer_pop(struct xfer *x, struct worker *w, bool wait);
/* A new task at the end of the queue (a file that grew). */
void xfer_push(struct xfer *x, struct xfer_task *t);
/* The queue's head when it is a fresh piece of f that w would take (popped
 * with take). */
struct xfer_task *xfer_next_piece(struct xfer *x, struct worker *w, const struct xfer_file *f,
    bool take);
/* A task taken from the queue is finished (back NULL) or given back. */
void xfer_untake(struct xfer *x, struct xfer_task *back);
/* Nothing is left to hand out: a connection arriving now has no work. */
bool xfer_drained(struct xfer *x);
/* Free the planned files, directories and groups (after a run). */
void xfer_forget_files(struct xfer *x);

/* ---- xfer_finish.c: progress, failures, finishing files ------------------- */

void xfer_progress(struct xfer *x);
void xfer_file_error(struct xfer_file *f);
void xfer_file_fail(struct xfer_file *f, const char *fmt, ...) FSCP_PRINTF(2, 3);
void xfer_file_resize(struct xfer_file *f, struct xfer_task *t, uint64_t end);
void piece_wrote(struct xfer_file *f, const struct xfer_task *t, uint64_t off, uint64_t len);
uint64_t xfer_file_extent(const struct xfer_file *f);
void xfer_file_finish(struct xfer *x, struct xfer_file *f);
/* Directory modes and times after the run; 0, or -1 when the connection died. */
int xfer_fix_dirs(struct xfer *x);
/* The copy is lost: nothing unfinished counts as copied. */
void xfer_abandon(struct xfer *x);

/* ---- xfer_pipe.c: requests and replies ------------------------------------ */

/* The piece that reaches the end of the file. */
bool piece_is_last(const struct xfer_task *t);
/* The worker owns t from now on. */
void task_claim(struct worker *w, struct xfer_task *t);
/* Issue what t can send now; true when it sent something. */
bool task_step(struct worker *w, struct xfer_task *t);
/* Pass a finished piece's handle to the file's next queued piece. */
struct xfer_task *task_hand_over(struct worker *w, struct xfer_task *t, size_t slot);
/* t is finished: count it off its file (which may finish) and the queue. */
void xfer_task_done(struct worker *w, struct xfer_task *t);
/* 0, or -1 when the server broke the protocol (w->why says how). */
int worker_dispatch(struct worker *w, const struct sftp_reply *rep);

/* ---- xfer_worker.c: one connection's loop --------------------------------- */

void worker_init(struct worker *w, struct xfer *x, struct sftp_conn *c, bool up, int id);
void worker_free(struct worker *w);
/* Bytes its tasks hold that have not been answered (its own thread). */
uint64_t worker_left(const struct worker *w);
/* Count the worker alive and start its thread; false when it did not start. */
bool worker_start(struct worker *w, pthread_t *tid);

#endif
