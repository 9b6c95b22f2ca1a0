/* SPDX-License-Identifier: ISC
 * Copyright (c) 2026 The fscp authors.  See LICENSE. */
/* scp_proto: the legacy SCP/RCP protocol's records and names, pure.
 *
 * What OpenSSH 9.2 scp.c sink() accepts, and source() writes, one line at a
 * time: C (file), D (directory), E (end of directory), T (times), and the
 * reply lines "\1msg\n" (error) and "\2msg\n" (fatal).  No I/O here: the
 * drivers (scp_sink.c, scp_source.c) read and write the bytes, this module
 * says what a line means and what scp would complain about.  Every parser
 * takes arbitrary bytes (NUL-terminated), so a fuzzer can call it directly.
 */
#ifndef FSCP_SCP_PROTO_H
#define FSCP_SCP_PROTO_H

#include <stdbool.h>
#include <stddef.h>

/* scp reads a record line into a 2048-byte buffer (2047 bytes + NUL). */
#define SCPP_LINE_MAX 2047

enum scpp_kind {
	SCPP_BAD = 0,		/* a C/D/T line that does not parse: why says how */
	SCPP_FILE,		/* C%04o %lld name */
	SCPP_DIR,		/* D%04o 0 name */
	SCPP_END,		/* E (anything after the E is ignored, as in scp) */
	SCPP_TIME,		/* T%llu %ld %llu %ld */
	SCPP_WARN,		/* \1msg: an error, the copy goes on */
	SCPP_FATAL,		/* \2msg: the peer gave up */
	SCPP_OTHER,		/* not a record (e.g. a shell's "No match.") */
};

struct scpp_record {
	enum scpp_kind kind;
	unsigned mode;			/* C/D: the four octal digits (<= 07777) */
	long long size;			/* C/D: checked to fit off_t */
	const char *name;		/* C/D: points into the parsed line */
	const char *text;		/* WARN/FATAL: the message after the byte */
	long long mtime, atime;		/* T: seconds */
	long mtime_usec, atime_usec;	/* T: 0..999999 */
	bool times_fit;			/* T: both fit time_t (scp skips utimes if not) */
};

/* Parse one line: the bytes scp read, without the '\n', NUL-terminated
 * (an embedded NUL ends the line, as scp's C strings do).  For SCPP_BAD,
 * *why is scp's "protocol error: %s" reason ("bad mode", "size not
 * delimited", "mtime.sec not present", ...).  The name of a C/D record is
 * not checked here: see scpp_name_ok() and scpp_match(). */
enum scpp_kind scpp_parse(const char *line, struct scpp_record *r, const char **why);

/* sink()'s first name check: false for "", ".", ".." and any name with a
 * '/' (scp: "error: unexpected filename: %s", exit 1). */
bool scpp_name_ok(const char *name);

/* The patterns sink() accepts names against without -r and -T: the last
 * path component of each brace expansion of the requested source.
 * 0 on success (free with scpp_patterns_free), -1 for an invalid brace
 * pattern (scp: fatal "brace_expand: invalid brace pattern \"%s\""; *bad
 * then points to a copy of the offending pattern, free()d by the caller). */
struct scpp_patterns {
	char **v;
	size_t n;
};
int scpp_patterns_new(const char *src, struct scpp_patterns *p, char **bad);
void scpp_patterns_free(struct scpp_patterns *p);
/* True when name equals one of the patterns or fnmatch()es it. */
bool scpp_match(const struct scpp_patterns *p, const char *name);

/* Record writers, as source() writes them; each returns the length written
 * to buf (always < len; the line is cut to fit, as snprintf does). */
size_t scpp_format_file(char *buf, size_t len, unsigned mode, long long size,
    const char *name);
size_t scpp_format_dir(char *buf, size_t len, unsigned mode, const char *name);
size_t scpp_format_time(char *buf, size_t len, long long mtime, long long atime);

/* scp's strnvis(VIS_NL) of a local name with a newline in it, which
 * source() then uses for everything (records, messages, even opening a
 * directory): '\n' becomes "\^J", '\\' is doubled, other bytes that are
 * not printable ASCII become "\^X", "\M-x", "\M^X" or (0xa0) "\240".
 * Returns a malloc()ed string. */
char *scpp_vis_nl(const char *name);

/* The remote command scp runs: "scp[ -v][ -r][ -p][ -d] -t|-f [-- ]path",
 * the path not quoted (the remote shell expands it, as with scp 9.2).
 * dir is 't' or 'f'.  Returns a malloc()ed string. */
struct scpp_cmd {
	bool verbose, recursive, preserve, target_dir;
};
char *scpp_command(const struct scpp_cmd *c, char dir, const char *path);
/* The same prefix without -t/-f: "scp[ -v][ -r][ -p][ -d]" (scp -R's). */
char *scpp_command_prefix(const struct scpp_cmd *c);

#endif
