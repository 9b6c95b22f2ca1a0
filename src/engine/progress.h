/* SPDX-License-Identifier: ISC
 * Copyright (c) 2026 The fscp authors.  See LICENSE. */
/* progress: scp's progress meter (OpenSSH 9.2 progressmeter.c), byte for byte.
 *
 * progress_format() is pure and unit-tested.  The meter calls it at most once
 * a second from progress_update() (the engine polls; no SIGALRM, since the
 * engine runs threads) and once more at the end. */
#ifndef FSCP_PROGRESS_H
#define FSCP_PROGRESS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct progress_state {
	off_t total;		/* file size */
	off_t cur;		/* bytes done */
	double elapsed;		/* seconds since start */
	double bytes_per_sec;	/* exponential average, as scp keeps it */
	double stalled;		/* seconds since cur last grew */
	bool done;		/* final redraw */
};

/* Write one redraw: "\r" + fields, exactly win_size-1 bytes (win_size is
 * the terminal's columns + 1, as scp computes it; 81 when unknown).
 * Returns the number of bytes written to buf (bufsz must be > win_size).
 * As in scp: below 36 columns there is no "\r" and no name; at 35 columns
 * the last byte is the NUL ending the 34-byte text (scp writes it too).
 * Fields depend on total-cur (not on `done`); bytes_per_sec and stalled are
 * used as scp's int/long values; elapsed is shown once cur >= total. */
size_t progress_format(char *buf, size_t bufsz, int win_size, const char *name,
    const struct progress_state *st);

/* scp's bookkeeping at one redraw: st is the state as of the previous
 * redraw (st->cur the position then, st->total set); cur the new position,
 * since_start / since_last the seconds since the start and since the
 * previous redraw.  Updates cur, bytes_per_sec (0.9/0.1 exponential average
 * of the per-redraw speed; the overall average once cur >= total), stalled,
 * elapsed and done, exactly as refresh_progress_meter() does. */
void progress_advance(struct progress_state *st, off_t cur, double since_start,
    double since_last);


struct progress;

/* A meter that writes to fd; NULL when scp would show none: quiet, fd not a
 * tty, or not in the terminal's foreground process group. */
struct progress *progress_new(int fd, bool quiet);
void progress_start(struct progress *p, const char *name, off_t total);
/* Record bytes done; redraws when a second has passed since the last one. */
void progress_update(struct progress *p, off_t cur);
/* Final redraw (if not already at the end) and "\n". */
void progress_finish(struct progress *p);
void progress_free(struct progress *p);

#endif
