/* SPDX-License-Identifier: ISC AND SSH-short AND BSD-2-Clause AND BSD-3-Clause
 * Copyright (c) 2026 The fscp authors.  See LICENSE. */
/* scp_sink: scp's sink() over an scp_wire.
 *
 * Derived from sink() and verifydir() in OpenSSH's scp.c.  Its notice, as
 * its licence requires:
 *
 * 1995 Timo Rinne <tri@iki.fi>, Tatu Ylonen <ylo@cs.hut.fi>
 *
 * As far as I am concerned, the code I have written for this software
 * can be used freely for any purpose.  Any derived versions of this
 * software must be clearly marked as such, and if the derived work is
 * incompatible with the protocol description in the RFC file, it must be
 * called by a name other than "ssh" or "Secure Shell".
 *
 * Copyright (c) 1999 Theo de Raadt.  All rights reserved.
 * Copyright (c) 1999 Aaron Campbell.  All rights reserved.
 *
 * Redistribution and use in source and binary forms, with or without
 * modification, are permitted provided that the following conditions
 * are met:
 * 1. Redistributions of source code must retain the above copyright
 *    notice, this list of conditions and the following disclaimer.
 * 2. Redistributions in binary form must reproduce the above copyright
 *    notice, this list of conditions and the following disclaimer in the
 *    documentation and/or other materials provided with the distribution.
 *
 * THIS SOFTWARE IS PROVIDED BY THE AUTHOR ``AS IS'' AND ANY EXPRESS OR
 * IMPLIED WARRANTIES, INCLUDING, BUT NOT LIMITED TO, THE IMPLIED WARRANTIES
 * OF MERCHANTABILITY AND FITNESS FOR A PARTICULAR PURPOSE ARE DISCLAIMED.
 * IN NO EVENT SHALL THE AUTHOR BE LIABLE FOR ANY DIRECT, INDIRECT,
 * INCIDENTAL, SPECIAL, EXEMPLARY, OR CONSEQUENTIAL DAMAGES (INCLUDING, BUT
 * NOT LIMITED TO, PROCUREMENT OF SUBSTITUTE GOODS OR SERVICES; LOSS OF USE,
 * DATA, OR PROFITS; OR BUSINESS INTERRUPTION) HOWEVER CAUSED AND ON ANY
 * THEORY OF LIABILITY, WHETHER IN CONTRACT, STRICT LIABILITY, OR TORT
 * (INCLUDING NEGLIGENCE OR OTHERWISE) ARISING IN ANY WAY OUT OF THE USE OF
 * THIS SOFTWARE, EVEN IF ADVISED OF THE POSSIBILITY OF SUCH DAMAGE.
 *
 * Parts from:
 *
 * Copyright (c) 1983, 1990, 1992, 1993, 1995
 *	The Regents of the University of California.  All rights reserved.
 *
 * Redistribution and use in source and binary forms, with or without
 * modification, are permitted provided that the following conditions
 * are met:
 * 1. Redistributions of source code must retain the above copyright
 *    notice, this list of conditions and the following disclaimer.
 * 2. Redistributions in binary form must reproduce the above copyright
 *    notice, this list of conditions and the following disclaimer in the
 *    documentation and/or other materials provided with the distribution.
 * 3. Neither the name of the University nor the names of its contributors
 *    may be used to endorse or promote products derived from this software
 *    without specific prior written permission.
 *
 * THIS SOFTWARE IS PROVIDED BY THE REGENTS AND CONTRIBUTORS ``AS IS'' AND
 * ANY EXPRESS OR IMPLIED WARRANTIES, INCLUDING, BUT NOT LIMITED TO, THE
 * IMPLIED WARRANTIES OF MERCHANTABILITY AND FITNESS FOR A PARTICULAR PURPOSE
 * ARE DISCLAIMED.  IN NO EVENT SHALL THE REGENTS OR CONTRIBUTORS BE LIABLE
 * FOR ANY DIRECT, INDIRECT, INCIDENTAL, SPECIAL, EXEMPLARY, OR CONSEQUENTIAL
 * DAMAGES (INCLUDING, BUT NOT LIMITED TO, PROCUREMENT OF SUBSTITUTE GOODS
 * OR SERVICES; LOSS OF USE, DATA, OR PROFITS; OR BUSINESS INTERRUPTION)
 * HOWEVER CAUSED AND ON ANY THEORY OF LIABILITY, WHETHER IN CONTRACT, STRICT
 * LIABILITY, OR TORT (INCLUDING NEGLIGENCE OR OTHERWISE) ARISING IN ANY WAY
 * OUT OF THE USE OF THIS SOFTWARE, EVEN IF ADVISED OF THE POSSIBILITY OF
 * SUCH DAMAGE.
 */
#include "config.h"
#include "scp/scp_sink.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

#include "util/fdio.h"
#include "util/xmalloc.h"
#include "engine/bwlimit.h"
#include "engine/progress.h"
#include "scp/scp_proto.h"

/* scp's data blocks: the file's st_blksize rounded up to COPY_BUFLEN. */
#define SINK_BLOCK_MIN (16u * 1024)

struct sink {
	struct scp_wire *w;
	struct scpp_patterns pats;	/* empty: no name check */
	mode_t mask;			/* the umask (0 with -p, as scp sets it) */
	struct timeval tv[2];		/* atime, mtime from the last T */
	bool setimes;
};

/* scp's run_err(), then its exit with 1: the wire ends, and every caller returns
 * as soon as it sees that. */
static void FSCP_PRINTF(2, 3)
sink_die(struct sink *k, const char *fmt, ...)
{
	va_list ap;
	char *msg;

	va_start(ap, fmt);
	msg = xvasprintf(fmt, ap);
	va_end(ap);
	scp_wire_run_err(k->w, "%s", msg);
	scp_wire_end(k->w, 1, NULL);
	free(msg);
}

static void
screwup(struct sink *k, const char *why)
{
	sink_die(k, "protocol error: %s", why);
}

/* scp's verifydir() on the sink's target (-d); false when it ended the
 * copy. */
static bool
verify_dir(struct sink *k, const char *targ)
{
	struct stat st;

	if (stat(targ, &st) == 0) {
		if (S_ISDIR(st.st_mode))
			return true;
		errno = ENOTDIR;
	}
	sink_die(k, "%s: %s", targ, strerror(errno));
	return false;
}

/* One record line into buf (NUL-terminated, without its '\n').  false at
 * the peer's EOF before the line started, and when the copy ended. */
static bool
read_line(struct sink *k, char *buf, size_t cap, size_t *lenp, bool *had_nl)
{
	int c = scp_wire_getc(k->w);
	size_t n = 0;

	if (c < 0)
		return false;
	if (c == '\n') {
		screwup(k, "unexpected <newline>");
		return false;
	}
	buf[n++] = (char)c;
	do {
		c = scp_wire_getc(k->w);
		if (c < 0) {
			screwup(k, "lost connection");
			return false;
		}
		buf[n++] = (char)c;
	} while (n < cap - 1 && c != '\n');
	buf[n] = '\0';
	*had_nl = c == '\n';
	*lenp = n;
	return true;
}

static void
bad_target(struct sink *k, const char *np)
{
	scp_wire_run_err(k->w, "%s: %s", np, strerror(errno));
}

static void sink_dir_body(struct sink *k, const char *targ);

static void
recv_dir(struct sink *k, const char *np, mode_t mode)
{
	struct stat st;
	bool exists = stat(np, &st) == 0;
	bool set_mode = k->w->o.preserve;

	if (!k->w->o.recursive) {
		screwup(k, "received directory without -r");
		return;
	}
	if (exists) {
		if (!S_ISDIR(st.st_mode)) {
			errno = ENOTDIR;
			bad_target(k, np);
			return;
		}
		if (k->w->o.preserve)
			(void)chmod(np, mode);
	} else {
		/* Made writable for its contents; the real mode comes after. */
		set_mode = true;
		if (mkdir(np, mode | S_IRWXU) < 0) {
			bad_target(k, np);
			return;
		}
	}
	/* The times are each level's own, as sink()'s locals are in scp:
	 * the contents' T records must not replace this directory's. */
	struct timeval tv[2] = { k->tv[0], k->tv[1] };
	bool setimes = k->setimes;

	k->setimes = false;
	sink_dir_body(k, np);
	if (scp_wire_ended(k->w))
		return;
	k->tv[0] = tv[0];
	k->tv[1] = tv[1];
	k->setimes = false;
	if (setimes)
		(void)utimes(np, tv);
	if (set_mode)
		(void)chmod(np, mode);
}

/* The file's data, size bytes, into ofd in scp's blocks.  Write errors are
 * noted and the data still read, so the stream stays in step; the end of
 * the stream ends the copy (1) as in scp.  Returns true when every write
 * worked. */
static bool
recv_data(struct sink *k, int ofd, const char *np, off_t size)
{
	struct stat st;
	size_t block = SINK_BLOCK_MIN;
	bool ok = true;

	if (fstat(ofd, &st) == 0 && st.st_blksize > 0)
		block = ((size_t)st.st_blksize + SINK_BLOCK_MIN - 1) / SINK_BLOCK_MIN * SINK_BLOCK_MIN;
	char *buf = xmalloc(block);

	for (off_t done = 0; done < size;) {
		size_t amt = size - done < (off_t)block ? (size_t)(size - done) : block;

		for (size_t got = 0; got < amt;) {
			ssize_t r = scp_wire_read(k->w, buf + got, amt - got);

			if (r <= 0) {
				/* scp's atomicio() calls EOF EPIPE. */
				sink_die(k, "%s", strerror(r == 0 ? EPIPE : errno));
				free(buf);
				return false;
			}
			got += (size_t)r;
			done += r;
			progress_update(k->w->o.pm, done);
			bwlimit_account(k->w->o.bw, (size_t)r);
		}
		if (ok && fdio_write_all(ofd, buf, amt) != 0) {
			scp_wire_note_err(k->w, "%s: %s", np, strerror(errno));
			ok = false;
		}
	}
	free(buf);
	return ok;
}

static void
recv_file(struct sink *k, const char *np, const char *name, mode_t mode, off_t size)
{
	struct stat st;
	bool exists = stat(np, &st) == 0;
	mode_t omode = mode;
	int ofd;

	mode |= S_IWUSR;
	/* No O_TRUNC: written in place, then cut to size (scp 9.2). */
	ofd = open(np, O_WRONLY | O_CREAT, mode);
	if (ofd < 0) {
		bad_target(k, np);
		return;
	}
	scp_wire_ack(k->w);
	if (scp_wire_ended(k->w)) {
		close(ofd);
		return;
	}
	progress_start(k->w->o.pm, name, size);
	bool ok = recv_data(k, ofd, np, size);

	if (scp_wire_ended(k->w)) {
		close(ofd);
		return;
	}
	scp_wire_debug_unblock(k->w, STDIN_FILENO);

	if (ok && (!exists || S_ISREG(st.st_mode)) && ftruncate(ofd, size) != 0)
		scp_wire_note_err(k->w, "%s: truncate: %s", np, strerror(errno));
	/* -p: the sender's mode; otherwise a new file gets it under the
	 * umask and an existing one keeps its own. */
	if (k->w->o.preserve) {
		if ((exists || omode != mode) && fchmod(ofd, omode) != 0)
			scp_wire_note_err(k->w, "%s: set mode: %s", np, strerror(errno));
	} else if (!exists && omode != mode && fchmod(ofd, omode & ~k->mask) != 0) {
		scp_wire_note_err(k->w, "%s: set mode: %s", np, strerror(errno));
	}
	if (close(ofd) != 0)
		scp_wire_note_err(k->w, "%s: close: %s", np, strerror(errno));
	(void)scp_wire_response(k->w);
	if (scp_wire_ended(k->w))
		return;
	progress_finish(k->w->o.pm);
	/* As in scp, a failed write leaves the times for the next file. */
	if (k->setimes && ok) {
		k->setimes = false;
		if (utimes(np, k->tv) != 0)
			scp_wire_note_err(k->w, "%s: set times: %s", np, strerror(errno));
	}
	if (scp_wire_flush_noted(k->w) == 0)
		scp_wire_ack(k->w);
}

/* A C or D record: check the name, then receive into targ (or targ/name). */
static void
recv_entry(struct sink *k, const char *targ, bool targisdir, const struct scpp_record *r)
{
	mode_t mode = (mode_t)r->mode;

	if (!k->w->o.preserve)
		mode &= ~k->mask;
	if (!scpp_name_ok(r->name)) {
		sink_die(k, "error: unexpected filename: %s", r->name);
		return;
	}
	if (k->pats.n > 0 && !scpp_match(&k->pats, r->name)) {
		screwup(k, "filename does not match request");
		return;
	}
	char *np = targisdir ? xasprintf("%s%s%s", targ, strcmp(targ, "/") ? "/" : "", r->name)
			     : xstrdup(targ);

	if (r->kind == SCPP_DIR)
		recv_dir(k, np, mode);
	else
		recv_file(k, np, r->name, mode, (off_t)r->size);
	free(np);
}

static void
set_times(struct sink *k, const struct scpp_record *r)
{
	k->setimes = r->times_fit;
	k->tv[0].tv_sec = (time_t)r->atime;
	k->tv[0].tv_usec = r->atime_usec;
	k->tv[1].tv_sec = (time_t)r->mtime;
	k->tv[1].tv_usec = r->mtime_usec;
	scp_wire_ack(k->w);
}

/* One level of sink(): the initial ack, then records until E or EOF. */
static void
sink_dir_body(struct sink *k, const char *targ)
{
	char buf[SCPP_LINE_MAX + 1];
	struct stat st;
	bool targisdir, nl;
	size_t len;

	if (k->w->o.target_dir && !verify_dir(k, targ))
		return;
	scp_wire_ack(k->w);
	targisdir = stat(targ, &st) == 0 && S_ISDIR(st.st_mode);
	for (bool first = true; read_line(k, buf, sizeof(buf), &len, &nl); first = false) {
		struct scpp_record r;
		const char *why;

		scp_wire_verbose(k->w, "Sink: %s", buf);
		if (buf[0] == '\1' || buf[0] == '\2') {
			scp_wire_say(k->w, "%s", buf + 1);
			if (buf[0] == '\2') {
				scp_wire_end(k->w, 1, NULL);
				return;
			}
			log_count_error();
			continue;
		}
		if (buf[0] == 'E') {
			scp_wire_ack(k->w);
			return;
		}
		if (nl)
			buf[len - 1] = '\0';
		switch (scpp_parse(buf, &r, &why)) {
		case SCPP_TIME:
			set_times(k, &r);
			break;
		case SCPP_FILE:
		case SCPP_DIR:
			recv_entry(k, targ, targisdir, &r);
			break;
		case SCPP_OTHER:
			/* A shell's "No match." before scp even ran. */
			if (first)
				sink_die(k, "%s", buf);
			else
				screwup(k, "expected control record");
			return;
		default:
			screwup(k, why);
			return;
		}
		if (scp_wire_ended(k->w))
			return;
	}
}

void
scp_sink_run(struct scp_wire *w, const char *targ, const char *src)
{
	struct sink k = { .w = w };
	char *bad;

	/* With -p the modes are the sender's, whatever our umask. */
	k.mask = umask(0);
	if (!w->o.preserve)
		(void)umask(k.mask);
	if (src != NULL && !w->o.recursive && !w->o.no_strict &&
	    scpp_patterns_new(src, &k.pats, &bad) != 0) {
		/* scp checks the target and acks first, then finds the
		 * pattern invalid. */
		if (!w->o.target_dir || verify_dir(&k, targ)) {
			char *msg = xasprintf("brace_expand: invalid brace pattern \"%s\"", bad);

			scp_wire_ack(w);
			scp_wire_end(w, 255, msg);
			free(msg);
		}
		free(bad);
		return;
	}
	sink_dir_body(&k, targ);
	scpp_patterns_free(&k.pats);
}
