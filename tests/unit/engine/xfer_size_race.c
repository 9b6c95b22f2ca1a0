/* SPDX-License-Identifier: ISC
 * Copyright (c) 2026 The fscp authors.  See LICENSE. */
/* A worker that finds a file grown (xfer_file_resize, as upload_grew,
 * piece_grew and send_write do) beside a reader of the size on another
 * thread (xfer_planned_bytes; the progress meter reads it the same way),
 * through the real accessors.  Built as it ships it has no race; built
 * with FSCP_TEST_PLAIN_SIZE (xfer_size_race_plain) it has the one issue 20
 * found, which a ThreadSanitizer build must report: size-race.sh runs
 * both.  Exit 0 when the threads ran. */
#include "config.h"
#include "engine/xfer_impl.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define ROUNDS 200000

static void *
writer(void *arg)
{
	struct xfer_task *t = arg;

	for (uint64_t i = 1; i <= ROUNDS; i++)
		xfer_file_resize(t->f, t, i);
	return NULL;
}

static void *
reader(void *arg)
{
	struct xfer *x = arg;
	uint64_t last = 0;

	for (int i = 0; i < ROUNDS; i++) {
		uint64_t now = xfer_planned_bytes(x);

		if (now > ROUNDS || now < last) {
			fprintf(stderr, "size %llu after %llu\n", (unsigned long long)now,
			    (unsigned long long)last);
			exit(1);
		}
		last = now;
	}
	return NULL;
}

int
main(void)
{
	struct xfer_params p = { 0 };
	struct xfer *x = xfer_new(&p, NULL, 0);
	struct xfer_item it = { .dir = XFER_UP, .local = "a", .remote = "b", .size = 0 };
	struct xfer_task *t;
	pthread_t w, r;

	xfer_add(x, &it, NULL);
	xfer_queue_file(x, x->files[0]);
	t = xfer_pop(x, NULL, false);
	if (t == NULL || pthread_create(&r, NULL, reader, x) != 0 ||
	    pthread_create(&w, NULL, writer, t) != 0) {
		fprintf(stderr, "cannot set up the threads\n");
		return 99;
	}
	pthread_join(w, NULL);
	pthread_join(r, NULL);
	if (xfer_planned_bytes(x) != ROUNDS) {
		fprintf(stderr, "size %llu, want %d\n", (unsigned long long)xfer_planned_bytes(x),
		    ROUNDS);
		return 1;
	}
	xfer_untake(x, NULL);
	free(t);
	xfer_free(x);
	return 0;
}
