/* SPDX-License-Identifier: ISC
 * Copyright (c) 2026 The fscp authors.  See LICENSE. */
/* cpuburn: see cpuburn.h. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <openssl/evp.h>

#include "cpuburn.h"

int64_t
cpuburn_clock_ns(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void
cpuburn_round(struct cpuburn *b)
{
	unsigned int n;

	if (EVP_DigestInit_ex(b->ctx, EVP_sha256(), NULL) != 1 ||
	    EVP_DigestUpdate(b->ctx, b->buf, sizeof(b->buf)) != 1 ||
	    EVP_DigestFinal_ex(b->ctx, b->buf, &n) != 1) {
		fprintf(stderr, "cpuburn: SHA-256 failed\n");
		exit(1);
	}
}

/* The fastest of three timed batches: a batch that was preempted or
 * migrated reads slow. */
void
cpuburn_init(struct cpuburn *b)
{
	enum { BATCH = 256 };
	int64_t best = INT64_MAX;

	memset(b, 0, sizeof(*b));
	b->ctx = EVP_MD_CTX_new();
	if (b->ctx == NULL) {
		fprintf(stderr, "cpuburn: out of memory\n");
		exit(1);
	}
	memset(b->buf, 0x5a, sizeof(b->buf));
	for (int r = 0; r < 3; r++) {
		int64_t t0 = cpuburn_clock_ns(CLOCK_PROCESS_CPUTIME_ID), dt;

		for (int i = 0; i < BATCH; i++)
			cpuburn_round(b);
		dt = cpuburn_clock_ns(CLOCK_PROCESS_CPUTIME_ID) - t0;
		if (dt < best)
			best = dt;
	}
	b->round_ns = best / BATCH > 0 ? best / BATCH : 1;
}

void
cpuburn_spend(struct cpuburn *b, const void *data, size_t len, int64_t ns)
{
	int64_t rounds;

	if (ns <= 0 || b->ctx == NULL)
		return;
	memcpy(b->buf, data, len < sizeof(b->buf) ? len : sizeof(b->buf));
	b->owed_ns += ns;
	rounds = b->owed_ns / b->round_ns;
	b->owed_ns -= rounds * b->round_ns;
	while (rounds-- > 0)
		cpuburn_round(b);
}

void
cpuburn_free(struct cpuburn *b)
{
	EVP_MD_CTX_free(b->ctx);
	b->ctx = NULL;
}
