/* SPDX-License-Identifier: ISC
 * Copyright (c) 2026 The fscp authors.  See LICENSE. */
/* journal: what a copy has written and made durable, kept so that
 * `fscp --resume` (FSCP_RESUME=1) can move only what is missing.
 *
 * One journal per command line, named by journal_key() of it, in
 * $XDG_CACHE_HOME/fscp/ (~/.cache/fscp/).  It is written lazily: nothing
 * touches the disk before the copy has run for a few seconds, so short
 * copies never write one; after that a thread of its own syncs the local
 * files written, records their ranges, and replaces the journal file
 * (written aside, synced, renamed) every second or so, or sooner after
 * much data.  A download range is recorded only after an fdatasync of the
 * local file; an upload range once the server answered its WRITE with OK
 * (the server wrote it to its file: it survives a killed sshd, not a
 * crash of the server's machine).  The journal is removed when the command
 * succeeds.
 *
 * On resume, a file's record is used only when the source still has the
 * recorded size and mtime (and device and inode when local), and the
 * target is still the file the ranges were written to; anything else, or
 * a journal that is not a regular 0600 file of this user in a 0700
 * directory of this user, or does not parse, means the whole copy, with
 * a warning (-v for a single file that changed).
 *
 * The engine calls the hooks below; each takes a NULL journal or file
 * and then does nothing. */
#ifndef FSCP_JOURNAL_H
#define FSCP_JOURNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "util/rangeset.h"

struct sftp_conn;
struct journal;
struct journal_file;

struct journal_params {
	/* journal_key() of the command, or (key NULL) the parts to work it
	 * out from once a journal is read, written or removed. */
	const char *key;
	const char *const *key_parts;
	size_t nkey_parts;
	bool resume;		/* read the journal a previous run left */
	bool preserve;		/* -p: a finished file has the source's times */
	/* The directory; NULL: $XDG_CACHE_HOME/fscp or ~/.cache/fscp. */
	const char *dir;
	/* Seconds before the first write; < 0: the default. */
	double delay_s;
};

/* NULL when there is no place for a journal (said under -v). */
struct journal *journal_open(const struct journal_params *p);
/* The command is over: ok removes the journal, else the last ranges are
 * synced and recorded.  Frees j. */
void journal_end(struct journal *j, bool ok);

/* A file the engine is about to queue. */
struct journal_item {
	bool up;
	const char *local, *remote;
	uint64_t size;		/* as planned */
	uint32_t mtime;		/* the source's, as planned */
};

enum journal_plan { JOURNAL_COPY, JOURNAL_SKIP };

/* Hook "file planned": the ranges still to move into todo (all of
 * [0, size) unless a journal record says more), and the file's handle.
 * c (may be NULL) is an idle connection to look at a remote target.
 * JOURNAL_SKIP: the file was finished by the run before; nothing to do. */
enum journal_plan journal_file_plan(struct journal *j, const struct journal_item *it,
    struct sftp_conn *c, struct journal_file **jf, struct rangeset *todo);
/* Hook "local file open": fd is the download's target (duplicated). */
void journal_file_fd(struct journal_file *jf, int fd);
/* Hook "bytes written": [off, off+len) is in the target (a download: not
 * yet synced; an upload: acknowledged by the server). */
void journal_wrote(struct journal_file *jf, uint64_t off, uint64_t len);
/* Hook "file done": finished (ok) or failed. */
void journal_file_done(struct journal_file *jf, bool ok);

#endif
