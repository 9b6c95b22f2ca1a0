/* SPDX-License-Identifier: ISC
 * Copyright (c) 2026 The fscp authors.  See LICENSE. */
/* cpuburn: spend a given amount of CPU time for real, by hashing data with
 * SHA-256 again and again, a number of rounds calibrated once.  A slow or
 * throttled CPU stretches it as it would stretch the work it stands for (a
 * clock-watching spin would not).  Used by the test tools for the CPU that a
 * relay's real counterpart spends per message or per byte. */
#ifndef FSCP_TOOLS_CPUBURN_H
#define FSCP_TOOLS_CPUBURN_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

#define CPUBURN_BLOCK	1024	/* what one round hashes */

struct cpuburn {
	void *ctx;		/* EVP_MD_CTX */
	int64_t round_ns;	/* CPU time of one round; 0: not calibrated */
	int64_t owed_ns;	/* burn owed below one round, carried over */
	unsigned char buf[CPUBURN_BLOCK];
};

/* A clock's reading in nanoseconds (CLOCK_MONOTONIC, the process's CPU
 * time, ...): the tools' one clock helper. */
int64_t cpuburn_clock_ns(clockid_t clk);
/* Calibrate (about 1 ms of CPU).  Exits on allocation failure. */
void cpuburn_init(struct cpuburn *b);
/* Spend about ns of CPU time hashing data (its first CPUBURN_BLOCK bytes
 * seed the rounds); a fraction of a round is carried to the next call. */
void cpuburn_spend(struct cpuburn *b, const void *data, size_t len, int64_t ns);
void cpuburn_free(struct cpuburn *b);

#endif
