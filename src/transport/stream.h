/* SPDX-License-Identifier: ISC
 * Copyright (c) 2026 The fscp authors.  See LICENSE. */
/* stream: the one byte-stream interface under the SFTP client.
 *
 * The standard route gives pipes to an ssh child (sshproc), the bypass
 * routes give a libssh subsystem channel (sshconn).  The SFTP client only
 * needs these calls, so both look the same to it.
 */
#ifndef FSCP_STREAM_H
#define FSCP_STREAM_H

#include <sys/types.h>

struct fscp_stream_ops {
	/* Read at most n bytes; 0 at EOF, -1 on error.  Blocks for at least one byte. */
	ssize_t (*read)(void *ctx, void *buf, size_t n);
	/* Write all n bytes or fail with -1. */
	ssize_t (*write)(void *ctx, const void *buf, size_t n);
	/* Tear down; returns 0 when the peer ended cleanly (ssh exit status 0). */
	int (*close)(void *ctx);
	/* Tear down a stream whose peer is gone without waiting for it (a
	 * silent peer would never answer close's goodbye).  Returns as close;
	 * NULL: close is used. */
	int (*abort)(void *ctx);
};

struct fscp_stream {
	const struct fscp_stream_ops *ops;
	void *ctx;
	const char *desc;	/* for messages: "ssh pipes", "libssh channel" */
};

#endif
