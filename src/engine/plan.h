/* SPDX-License-Identifier: ISC
 * Copyright (c) 2026 The fscp authors.  See LICENSE. */
/* plan: scp's source and sink planning for SFTP copies (scp.c
 * source_sftp() and sink_sftp(), sftp-client.c upload_dir() and
 * download_dir()): which source goes where, the stats, mkdirs and target
 * rules, with scp's messages in scp's order.  It runs synchronously on one
 * connection and hands each file it finds to the engine (xfer_add), which
 * moves them later.  The remote helpers at the bottom need no engine, so
 * other copy paths (remote to remote) can expand and test remote paths the
 * same way. */
#ifndef FSCP_PLAN_H
#define FSCP_PLAN_H

#include <stdbool.h>

struct plan;
struct sftp_conn;
struct strv;
struct xfer;

/* Plan onto x, asking c (which nothing else uses while planning runs).
 * -r and -p as in scp.  Neither x nor c is owned. */
struct plan *plan_new(struct xfer *x, struct sftp_conn *c, bool recursive, bool preserve);
void plan_free(struct plan *p);

/* How a planning step ended.  Errors are reported and counted
 * (log_errors()) either way; FATAL is scp's fatal() (the caller moves what
 * is planned, then exits 255); LOST: the connection died under a
 * synchronous request (scp's fatal "Connection closed"), and nothing more
 * was said. */
enum plan_status { PLAN_OK, PLAN_FATAL, PLAN_LOST };

/* The fatal error a step ended with, to be said once what was planned
 * before it has moved (scp says it after those files), or NULL. */
const char *plan_fatal_msg(const struct plan *p);
/* scp's source_sftp(): one local source to the remote target. */
enum plan_status plan_upload(struct plan *p, const char *src, const char *target,
    bool target_should_be_dir);
/* scp's sink_sftp(): one remote source (glob allowed) to the local dst. */
enum plan_status plan_download(struct plan *p, const char *src, const char *dst);

/* ---- remote helpers: synchronous on c; on a dead c they find nothing
 * (c->dead tells). */

/* dir + "/" + name, with no doubled '/' ("" + name is name). */
char *plan_path_join(const char *dir, const char *name);
/* scp's prepare_remote_path(): "", "~" and "~/x" are relative to the login
 * directory, where the SFTP server starts; "~user/x" is the server's
 * expand-path@openssh.com.  Returns a new string, or NULL after saying why
 * (c->dead tells whether the connection failed). */
char *plan_remote_path(struct sftp_conn *c, const char *path);
/* path with one '/' at its end, as glob(3)'s GLOB_MARK gives a directory
 * (a new string). */
char *plan_dir_marked(const char *path);
/* Whether path names a directory (symlinks followed). */
bool plan_remote_is_dir(struct sftp_conn *c, const char *path);
/* True when s has glob(3) wildcards. */
bool plan_has_glob(const char *s);
/* Expand a remote glob as glob(3) would, one path component at a time:
 * each component's matches sorted, leading dots only matched explicitly;
 * a path without wildcards matches itself when it exists (lstat).  The
 * matches are appended to out; none when nothing matches (scp then takes
 * the pattern as it is, GLOB_NOCHECK, which is the caller's choice). */
void plan_remote_glob(struct sftp_conn *c, const char *pattern, struct strv *out);

#endif
