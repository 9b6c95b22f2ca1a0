/* SPDX-License-Identifier: ISC AND SSH-short AND BSD-2-Clause AND BSD-3-Clause
 * Copyright (c) 2026 The fscp authors.  See LICENSE. */
/* scp_wire: a legacy SCP conversation's I/O and error conventions.
 *
 * scp_wire_response(), scp_wire_run_err(), scp_wire_note_err() and
 * scp_wire_flush_noted() are derived from response(), run_err() and
 * note_err() in OpenSSH's scp.c.  Its notice, as its licence requires:
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
#include "scp/scp_wire.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/fdio.h"
#include "util/mtext.h"
#include "util/xmalloc.h"

void
scp_wire_init(struct scp_wire *w, struct fscp_stream *st, const struct scp_wire_opts *o)
{
	memset(w, 0, sizeof(*w));
	w->st = st;
	w->o = *o;
	w->buf = xmalloc(SCP_WIRE_BUF);
}

void
scp_wire_free(struct scp_wire *w)
{
	free(w->buf);
	free(w->noted);
	free(w->fatal);
	w->buf = NULL;
	w->noted = NULL;
	w->fatal = NULL;
}

void
scp_wire_end(struct scp_wire *w, int status, const char *fatal)
{
	if (w->end != 0)
		return;
	w->end = status;
	w->fatal = fatal != NULL ? xstrdup(fatal) : NULL;
}

int
scp_wire_ended(const struct scp_wire *w)
{
	return w->end;
}

ssize_t
scp_wire_read(struct scp_wire *w, void *buf, size_t n)
{
	if (w->end != 0)
		return -1;
	if (w->pos == w->len) {
		/* Large reads go straight through; small ones (record lines,
		 * reply bytes) are served from one read ahead. */
		if (n >= SCP_WIRE_BUF)
			return w->st->ops->read(w->st->ctx, buf, n);
		ssize_t r = w->st->ops->read(w->st->ctx, w->buf, SCP_WIRE_BUF);

		if (r <= 0)
			return r;
		w->pos = 0;
		w->len = (size_t)r;
	}
	size_t k = w->len - w->pos < n ? w->len - w->pos : n;

	memcpy(buf, w->buf + w->pos, k);
	w->pos += k;
	return (ssize_t)k;
}

int
scp_wire_getc(struct scp_wire *w)
{
	unsigned char c;

	return scp_wire_read(w, &c, 1) == 1 ? c : -1;
}

void
scp_wire_lostconn(struct scp_wire *w)
{
	if (w->end != 0)
		return;
	if (!w->o.remote)
		(void)!write(STDERR_FILENO, "lost connection\n", 16);
	scp_wire_end(w, 1, NULL);
}

void
scp_wire_write(struct scp_wire *w, const void *buf, size_t n)
{
	/* scp dies of SIGPIPE here (lostconn() as a client). */
	if (w->end == 0 && n > 0 && w->st->ops->write(w->st->ctx, buf, n) != (ssize_t)n)
		scp_wire_lostconn(w);
}

void
scp_wire_ack(struct scp_wire *w)
{
	scp_wire_write(w, "", 1);
}

static void
vsay(const char *fmt, va_list ap)
{
	char *msg = xvasprintf(fmt, ap), *vis;

	vis = mtext_vis(msg);
	fputs(vis, stderr);
	fflush(stderr);
	free(vis);
	free(msg);
}

void
scp_wire_say(struct scp_wire *w, const char *fmt, ...)
{
	va_list ap;

	if (w->o.remote || w->end != 0)
		return;
	va_start(ap, fmt);
	vsay(fmt, ap);
	va_end(ap);
}

void
scp_wire_verbose(struct scp_wire *w, const char *fmt, ...)
{
	va_list ap;

	if (!w->o.verbose || w->end != 0)
		return;
	va_start(ap, fmt);
	vsay(fmt, ap);
	va_end(ap);
}

void
scp_wire_debug_unblock(struct scp_wire *w, int fd)
{
	if (w->o.remote && w->o.verbose) {
		fprintf(stderr, "%s: debug1: fd %d clearing O_NONBLOCK\r\n", log_progname(), fd);
		fflush(stderr);
	}
}

int
scp_wire_response(struct scp_wire *w)
{
	char line[2048];
	size_t n = 0;
	int c;

	if (w->end != 0)
		return -1;
	c = scp_wire_getc(w);
	if (c < 0) {
		scp_wire_lostconn(w);
		return -1;
	}
	if (c == 0)
		return 0;
	/* An unexpected first byte is part of the message (a shell's "No
	 * match."); \1 and \2 are not. */
	if (c != 1 && c != 2)
		line[n++] = (char)c;
	do {
		int ch = scp_wire_getc(w);

		if (ch < 0) {
			scp_wire_lostconn(w);
			return -1;
		}
		line[n++] = (char)ch;
	} while (n < sizeof(line) - 1 && line[n - 1] != '\n');
	/* scp drops the last byte read, newline or not. */
	line[n - 1] = '\0';
	scp_wire_say(w, "%s\n", line);
	log_count_error();
	if (c != 1)
		scp_wire_end(w, 1, NULL);
	return -1;
}

static void
send_err(struct scp_wire *w, const char *msg)
{
	char *line = xasprintf("\1scp: %s\n", msg);

	/* A peer that is gone must not stop the message reaching stderr. */
	(void)w->st->ops->write(w->st->ctx, line, strlen(line));
	free(line);
}

void
scp_wire_run_err(struct scp_wire *w, const char *fmt, ...)
{
	va_list ap;
	char *msg;

	if (w->end != 0)
		return;
	va_start(ap, fmt);
	msg = xvasprintf(fmt, ap);
	va_end(ap);
	log_count_error();
	if (w->st != NULL)
		send_err(w, msg);
	scp_wire_say(w, "%s\n", msg);
	free(msg);
}

void
scp_wire_note_err(struct scp_wire *w, const char *fmt, ...)
{
	va_list ap;

	log_count_error();
	if (w->noted != NULL)
		return;
	va_start(ap, fmt);
	w->noted = xvasprintf(fmt, ap);
	va_end(ap);
}

int
scp_wire_flush_noted(struct scp_wire *w)
{
	if (w->noted == NULL)
		return 0;
	scp_wire_run_err(w, "%s", w->noted);
	free(w->noted);
	w->noted = NULL;
	return -1;
}

/* The server's stream: stdin and stdout, as scp -t/-f use them. */
struct fd_pair {
	int in, out;
};

static ssize_t
fd_pair_read(void *ctx, void *buf, size_t n)
{
	return fdio_read(((struct fd_pair *)ctx)->in, buf, n);
}

static ssize_t
fd_pair_write(void *ctx, const void *buf, size_t n)
{
	struct fd_pair *p = ctx;

	return fdio_write_all(p->out, buf, n) == 0 ? (ssize_t)n : -1;
}

static int
fd_pair_close(void *ctx)
{
	(void)ctx;
	return 0;
}

static const struct fscp_stream_ops fd_pair_ops = {
	.read = fd_pair_read,
	.write = fd_pair_write,
	.close = fd_pair_close,
};

void
scp_wire_fd_stream(int in, int out, struct fscp_stream *st)
{
	struct fd_pair *p = xmalloc(sizeof(*p));

	p->in = in;
	p->out = out;
	st->ops = &fd_pair_ops;
	st->ctx = p;
	st->desc = "stdin/stdout";
}

void
scp_wire_fd_stream_free(struct fscp_stream *st)
{
	free(st->ctx);
	st->ctx = NULL;
}
