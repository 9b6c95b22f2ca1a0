/* SPDX-License-Identifier: ISC
 * Copyright (c) 2026 The fscp authors.  See LICENSE. */
/* replay: run one harness's inputs once, under the normal compiler, for
 * make check.  Reads every file in $srcdir/tests/fuzz/corpus/NAME (the seeds)
 * and $srcdir/tests/fuzz/crashes/NAME (inputs that once crashed and were
 * fixed) and feeds each to LLVMFuzzerTestOneInput; a regression crashes or
 * aborts here as it did under libFuzzer.  Extra arguments are files to run
 * instead (handy for a new crash file).  FUZZ_NAME comes from the build. */
#include "config.h"
#include "fuzz.h"

#include <dirent.h>
#include <stdio.h>

#ifndef FUZZ_NAME
#error "build with -DFUZZ_NAME=\"harness\""
#endif

/* Run one file; 0 when it was read, -1 when it could not be. */
static int
replay_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf = NULL;
	size_t len = 0, cap = 0, got;

	if (f == NULL) {
		perror(path);
		return -1;
	}
	do {
		if (len == cap) {
			cap = cap ? cap * 2 : 4096;
			if ((buf = realloc(buf, cap)) == NULL)
				abort();
		}
		got = fread(buf + len, 1, cap - len, f);
		len += got;
	} while (got > 0);
	fclose(f);
	LLVMFuzzerTestOneInput(buf, len);
	free(buf);
	return 0;
}

/* Every regular file of dir; returns how many ran, -1 on a read error.
 * A missing directory counts as empty (crashes/NAME exists only once a
 * crash was found). */
static int
replay_dir(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	if (d == NULL)
		return 0;
	while ((e = readdir(d)) != NULL) {
		char path[4096];

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		if (replay_file(path) != 0) {
			n = -1;
			break;
		}
		n++;
	}
	closedir(d);
	return n;
}

int
main(int argc, char **argv)
{
	const char *top = getenv("srcdir");
	char dir[4096];
	int seeds, crashes;

	if (argc > 1) {
		for (int i = 1; i < argc; i++)
			if (replay_file(argv[i]) != 0)
				return 99;
		printf("%s: replayed %d inputs\n", FUZZ_NAME, argc - 1);
		return 0;
	}
	if (top == NULL)
		top = ".";
	snprintf(dir, sizeof(dir), "%s/tests/fuzz/corpus/%s", top, FUZZ_NAME);
	seeds = replay_dir(dir);
	snprintf(dir, sizeof(dir), "%s/tests/fuzz/crashes/%s", top, FUZZ_NAME);
	crashes = replay_dir(dir);
	if (seeds < 0 || crashes < 0)
		return 99;
	if (seeds == 0) {
		/* A corpus that vanished would make this test pass on nothing. */
		fprintf(stderr, "%s: no seed inputs in %s/tests/fuzz/corpus/%s\n",
		    FUZZ_NAME, top, FUZZ_NAME);
		return 99;
	}
	printf("%s: replayed %d seeds and %d crash inputs: no crash\n",
	    FUZZ_NAME, seeds, crashes);
	return 0;
}
