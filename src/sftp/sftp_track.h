/* SPDX-License-Identifier: ISC
 * Copyright (c) 2026 The fscp authors.  See LICENSE. */
/* sftp_track: the requests outstanding on one connection, by id, for a
 * client that keeps many in flight (the engine's workers and crossload):
 * each reply is matched to what it answers.  Ids come from the connection;
 * the table is a slot per id modulo a power of two, kept at most half full
 * (ids still waiting are skipped), so adding and matching cost the same
 * however many are in flight. */
#ifndef FSCP_SFTP_TRACK_H
#define FSCP_SFTP_TRACK_H

#include <stdbool.h>
#include <stdint.h>

struct sftp_conn;

/* One request, as its sender described it. */
struct sftp_req {
	void *owner;		/* the sender's: the task or file it is for */
	uint64_t off;		/* READ or WRITE offset */
	uint32_t len;		/* payload asked for (READ) or sent (WRITE) */
	uint8_t type;		/* SSH_FXP_* sent */
	uint8_t tag;		/* the sender's own kind of request */
};

struct sftp_tracker;

struct sftp_tracker *sftp_tracker_new(struct sftp_conn *c);
void sftp_tracker_free(struct sftp_tracker *t);
/* The id for the next request on the connection: one no reply is due for. */
uint32_t sftp_track_id(struct sftp_tracker *t);
/* Request id (from sftp_track_id, queued since) is outstanding. */
void sftp_track(struct sftp_tracker *t, uint32_t id, const struct sftp_req *r);
/* The request a reply to id answers, taken off (*out): false when none is
 * outstanding with that id (a reply to nothing sent). */
bool sftp_untrack(struct sftp_tracker *t, uint32_t id, struct sftp_req *out);
/* Requests outstanding, and their payload bytes. */
unsigned sftp_tracked(const struct sftp_tracker *t);
uint64_t sftp_tracked_bytes(const struct sftp_tracker *t);

#endif
