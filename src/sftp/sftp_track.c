/* SPDX-License-Identifier: ISC
 * Copyright (c) 2026 The fscp authors.  See LICENSE. */
#include "config.h"
#include "sftp/sftp_track.h"
#include "sftp/sftp.h"
#include "util/xmalloc.h"

#include <stdlib.h>

/* Slots to start with: a worker's usual pipe fits without growing. */
#define SFTP_TRACK_SLOTS 64

struct sftp_slot {
	struct sftp_req r;
	uint32_t id;
	bool used;
};

struct sftp_tracker {
	struct sftp_conn *c;
	struct sftp_slot *slots;
	uint32_t mask;		/* slots - 1 */
	unsigned n;
	uint64_t bytes;
};

struct sftp_tracker *
sftp_tracker_new(struct sftp_conn *c)
{
	struct sftp_tracker *t = xcalloc(1, sizeof(*t));

	t->c = c;
	t->slots = xcalloc(SFTP_TRACK_SLOTS, sizeof(*t->slots));
	t->mask = SFTP_TRACK_SLOTS - 1;
	return t;
}

void
sftp_tracker_free(struct sftp_tracker *t)
{
	if (t == NULL)
		return;
	free(t->slots);
	free(t);
}

/* Twice the slots.  Ids that differ in their low bits still differ in
 * more of them, so the outstanding ones never collide in the new table. */
static void
sftp_track_grow(struct sftp_tracker *t)
{
	uint32_t mask = t->mask * 2 + 1;
	struct sftp_slot *s = xcalloc((size_t)mask + 1, sizeof(*s));

	for (uint32_t i = 0; i <= t->mask; i++)
		if (t->slots[i].used)
			s[t->slots[i].id & mask] = t->slots[i];
	free(t->slots);
	t->slots = s;
	t->mask = mask;
}

uint32_t
sftp_track_id(struct sftp_tracker *t)
{
	uint32_t id;

	if (t->n + 1 > (t->mask + 1) / 2)
		sftp_track_grow(t);
	do
		id = sftp_new_id(t->c);
	while (t->slots[id & t->mask].used);
	return id;
}

void
sftp_track(struct sftp_tracker *t, uint32_t id, const struct sftp_req *r)
{
	struct sftp_slot *s = &t->slots[id & t->mask];

	s->r = *r;
	s->id = id;
	s->used = true;
	t->n++;
	t->bytes += r->len;
}

bool
sftp_untrack(struct sftp_tracker *t, uint32_t id, struct sftp_req *out)
{
	struct sftp_slot *s = &t->slots[id & t->mask];

	if (!s->used || s->id != id)
		return false;
	*out = s->r;
	s->used = false;
	t->n--;
	t->bytes -= s->r.len;
	return true;
}

unsigned
sftp_tracked(const struct sftp_tracker *t)
{
	return t->n;
}

uint64_t
sftp_tracked_bytes(const struct sftp_tracker *t)
{
	return t->bytes;
}
