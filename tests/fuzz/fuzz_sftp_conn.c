/* SPDX-License-Identifier: ISC
 * Copyright (c) 2026 The fscp authors.  See LICENSE. */
/* Fuzz the SFTP client over a whole conversation: the input is everything a
 * server sends (length words included), fed to sftp.c through a stream that
 * hands it out in uneven pieces; what fscp writes is thrown away.  After the
 * version exchange (and limits@openssh.com when offered) the client runs the
 * synchronous requests planning uses: REALPATH, STAT, a whole READDIR
 * (OPENDIR, READDIR until EOF, CLOSE) and MKDIR.  Request ids start at 1.
 * The same input runs again as the answers to a hello that asked for the
 * limits with INIT (their answer, id 1, right after VERSION; then ids
 * from 2). */
#include "config.h"
#include "fuzz.h"
#include "sftp/sftp.h"
#include "sftp/sftp_conn.h"

#include <stdio.h>

struct fuzz_feed {
	const uint8_t *data;
	size_t len, pos;
};

static ssize_t
feed_read(void *ctx, void *buf, size_t n)
{
	struct fuzz_feed *f = ctx;
	/* Uneven pieces, so packets straddle reads as they do on a pipe. */
	size_t piece = 1 + (f->pos * 31) % 509;

	if (f->pos >= f->len)
		return 0;
	if (piece > n)
		piece = n;
	if (piece > f->len - f->pos)
		piece = f->len - f->pos;
	memcpy(buf, f->data + f->pos, piece);
	f->pos += piece;
	return (ssize_t)piece;
}

static ssize_t
feed_write(void *ctx, const void *buf, size_t n)
{
	(void)ctx;
	(void)buf;
	return (ssize_t)n;
}

static int
feed_close(void *ctx)
{
	(void)ctx;
	return 0;
}

static const struct fscp_stream_ops feed_ops = {
	.read = feed_read, .write = feed_write, .close = feed_close, .abort = NULL,
};

static void
converse(struct sftp_conn *c)
{
	struct sftp_attrs a = { 0 };
	struct sftp_dirent *ents;
	size_t n;
	char *path = NULL;

	if (sftp_realpath(c, ".", &path) < 0)
		return;
	free(path);
	if (sftp_stat(c, "/a", true, &a) < 0)
		return;
	if (sftp_readdir_all(c, "/d", &ents, &n) < 0)
		return;
	for (size_t i = 0; i < n; i++)
		if (ents[i].name[0] == '\0' || strchr(ents[i].name, '/') != NULL ||
		    strcmp(ents[i].name, "..") == 0 || strcmp(ents[i].name, ".") == 0)
			abort();	/* a name that could leave the target */
	sftp_dirents_free(ents, n);
	(void)sftp_mkdir(c, "/d/new", &a);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sftp_hello hello;

	sftp_hello_make(&hello, true);
	/* The same bytes as a server's answers twice: after an INIT alone,
	 * and after a hello that asked for the limits with it. */
	for (int sent = 0; sent < 2; sent++) {
		struct fuzz_feed feed = { data, size, 0 };
		struct fscp_stream st = { &feed_ops, &feed, "fuzz" };
		char err[128];
		struct sftp_conn *c = sent ? sftp_open_sent(st, 0, NULL, &hello, err, sizeof(err)) :
		    sftp_open(st, 0, NULL, err, sizeof(err));

		if (c == NULL)
			continue;
		if (c->max_read == 0 || c->max_read > SFTP_MAX_MSG_LENGTH ||
		    c->max_write == 0 || c->max_write > SFTP_MAX_MSG_LENGTH)
			abort();
		converse(c);
		sftp_close(c);
	}
	return 0;
}
