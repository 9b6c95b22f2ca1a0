/* SPDX-License-Identifier: ISC
 * Copyright (c) 2026 The fscp authors.  See LICENSE. */
/* journal_text: the resume journal's file format, pure (no I/O): what it
 * holds per file, its text, a strict parser that refuses anything it did
 * not write, and the key that names a command's journal.
 *
 * The text is line based: a header line, then per file one "file" line
 * (paths in hex, so any byte can be in a name) followed by one line per
 * range, and a last line with an FNV-1a checksum of everything before it,
 * so a torn or edited file reads as corrupt rather than as fewer ranges. */
#ifndef FSCP_JOURNAL_TEXT_H
#define FSCP_JOURNAL_TEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/rangeset.h"

/* A moment as a file system keeps it. */
struct journal_time {
	int64_t s;
	int64_t ns;
};

/* One file's record. */
struct journal_rec {
	bool up;		/* upload: local source, remote target */
	char *local, *remote;
	/* the source as it was: dev/ino 0 where unknown (a remote source) */
	uint64_t src_size, src_dev, src_ino;
	struct journal_time src_mtime;
	/* the target when the ranges were last recorded (a remote target: its
	 * size only, dev/ino/mtime 0) */
	uint64_t tgt_size, tgt_dev, tgt_ino;
	struct journal_time tgt_mtime;
	bool complete;		/* finished, sized, attributes set */
	struct rangeset done;	/* written and durable */
};

struct journal_doc {
	struct journal_rec *recs;
	size_t n, cap;
};

/* A growing text buffer. */
struct journal_buf {
	char *p;
	size_t len, cap;
};

/* Limits on what the parser takes; a larger file is refused. */
#define JOURNAL_TEXT_MAX_BYTES (64u << 20)
#define JOURNAL_TEXT_MAX_PATH 16384

/* 0, or -1 with err set: then d holds nothing. */
int journal_parse(const char *text, size_t len, struct journal_doc *d, char *err, size_t errlen);
void journal_doc_free(struct journal_doc *d);
/* A new empty record at the end of d (fields zero). */
struct journal_rec *journal_doc_add(struct journal_doc *d);
void journal_rec_free(struct journal_rec *r);

void journal_buf_free(struct journal_buf *b);
void journal_format_begin(struct journal_buf *b);
void journal_format_rec(struct journal_buf *b, const struct journal_rec *r);
/* Appends the checksum line: b then holds a whole journal. */
void journal_format_end(struct journal_buf *b);

/* The name of a command's journal: SHA-256 over the parts (each length-
 * prefixed, so no two lists give the same bytes), 64 hex digits. */
void journal_key(const char *const *parts, size_t n, char out[65]);

#endif
