/* SPDX-License-Identifier: ISC
 * Copyright (c) 2026 The fscp authors.  See LICENSE. */
/* What one SFTP session holds: sftp/'s own, and its unit tests'.  The
 * rest of fscp sees struct sftp_conn only through sftp.h. */
#ifndef FSCP_SFTP_CONN_H
#define FSCP_SFTP_CONN_H

#include "sftp/sftp.h"

struct sftp_conn {
	struct fscp_stream stream;
	uint32_t version;
	uint32_t next_id;
	uint32_t max_read;	/* READ length we ask for */
	uint32_t max_write;	/* WRITE payload we send */
	uint64_t max_handles;	/* 0 = unknown */
	bool has_limits;
	bool has_expand_path;
	double rtt_ms;		/* the limits@openssh.com round trip; -1 unknown */
	struct sftp_buf out;	/* queued requests */
	struct sftp_buf in;	/* bytes read, possibly several packets */
	size_t in_pkt;		/* start of the current packet in in */
	bool dead;		/* stream failed; every later call fails */
	size_t wstart;		/* the WRITE being filled: where it starts in out */
	uint32_t wid;		/* ... its id, offset and handle */
	uint64_t woff;
	const void *wh;
	size_t whlen;
};

#endif
