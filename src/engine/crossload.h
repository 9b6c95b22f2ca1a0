/* SPDX-License-Identifier: ISC
 * Copyright (c) 2026 The fscp authors.  See LICENSE. */
/* crossload: remote to remote through this host, over SFTP (scp 9.2's
 * default and -3: throughlocal_sftp() in scp.c, do_crossload() and
 * crossload_dir() in sftp-client.c).
 *
 * One source operand is planned first (glob, stats, target rules, the
 * destination directories, with scp's messages), so its size is known
 * before any data moves and each side's session may grow into its bypass
 * route; then the files are copied, several at once over one connection
 * per side (one thread: a connection is only ever used by one), with many
 * READs in flight on the source and WRITEs on the destination, written in
 * place (no TRUNC; the size is set at the end) and -p applied after the
 * data.  Directory modes and times are set after their contents. */
#ifndef FSCP_CROSSLOAD_H
#define FSCP_CROSSLOAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "engine/plan.h"	/* enum plan_status */

struct sftp_conn;
struct bwlimit;
struct progress;

struct crossload_params {
	bool preserve;		/* -p */
	bool recursive;		/* -r */
	bool target_should_be_dir;	/* several sources, or -d */
	unsigned nrequests;	/* -X nrequests=, 0 = default */
	struct bwlimit *bw;	/* -l, or NULL */
	struct progress *progress;	/* NULL when no meter */
};

struct crossload_plan;

/* Plan src (the path part of a source operand; globs allowed) on from
 * towards targ (the target's path) on to; *out is set either way (free it
 * with crossload_plan_free).  Errors are reported and counted
 * (log_errors()); the plan may then be empty.  PLAN_LOST: a connection died
 * under a request, nothing more was said, and the caller ends as scp's
 * fatal("Connection closed") does (nothing planned is moved); else PLAN_OK. */
enum plan_status crossload_plan(struct sftp_conn *from, struct sftp_conn *to,
    const char *src, const char *targ, const struct crossload_params *p,
    struct crossload_plan **out);
/* Bytes of the regular files planned (links count when copied). */
long long crossload_plan_bytes(const struct crossload_plan *pl);
/* Copy what was planned, over these connections (the same hosts as the
 * plan's; possibly other connections to them), with at most read_inflight
 * bytes of READs and write_inflight bytes of WRITEs outstanding (0: 8 MiB;
 * the sessions know what their round trips need).  Failures are counted.
 * Returns -1 with scp's fatal() message in fatal (a dead connection, a
 * broken reply) for the caller to say and exit 255 on; else 0. */
int crossload_run(struct crossload_plan *pl, struct sftp_conn *from, struct sftp_conn *to,
    uint64_t read_inflight, uint64_t write_inflight, char *fatal, size_t fatallen);
void crossload_plan_free(struct crossload_plan *pl);

#endif
