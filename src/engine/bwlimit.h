/* SPDX-License-Identifier: ISC
 * Copyright (c) 2026 The fscp authors.  See LICENSE. */
/* bwlimit: scp's -l bandwidth limit, shared by all worker threads.
 *
 * scp (misc.c bandwidth_limit) sleeps after its reads so that the average
 * rate stays under the limit.  fscp has several workers moving data at
 * once, so one limiter paces their sum: each call books its bytes on a
 * shared timeline at the limited rate and sleeps the caller until the
 * booked time, so the aggregate never runs ahead of the limit. */
#ifndef FSCP_BWLIMIT_H
#define FSCP_BWLIMIT_H

#include <stddef.h>

struct bwlimit;

/* A limiter for bits_per_sec (scp's -l Kbit/s times 1024, as in
 * fscp_opts.limit_bps); NULL when bits_per_sec <= 0, meaning unlimited. */
struct bwlimit *bwlimit_new(long long bits_per_sec);
/* Account bytes just moved; sleeps the calling thread as needed.
 * Thread-safe; NULL is a no-op. */
void bwlimit_account(struct bwlimit *b, size_t bytes);
void bwlimit_free(struct bwlimit *b);

#endif
