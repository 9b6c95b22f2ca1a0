/* SPDX-License-Identifier: ISC
 * Copyright (c) 2026 The fscp authors.  See LICENSE. */
/* Unit tests for the resume journal: range sets, the text format and its
 * parser on corrupt and hostile input, the key, and the journal's file on
 * disk (lazily written, read back on resume, refused when planted). */
#include "config.h"

#include <check.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../check_main.h"
#include "util/rangeset.h"
#include "engine/journal.h"
#include "engine/journal_text.h"

static void
assert_ranges(const struct rangeset *s, size_t n, const uint64_t *pairs)
{
	ck_assert_uint_eq(s->n, n);
	for (size_t i = 0; i < n; i++) {
		ck_assert_uint_eq(s->r[i].off, pairs[2 * i]);
		ck_assert_uint_eq(s->r[i].end, pairs[2 * i + 1]);
	}
}

START_TEST(rangeset_merges)
{
	struct rangeset s = { 0 };

	rangeset_add(&s, 10, 20);
	rangeset_add(&s, 30, 40);
	rangeset_add(&s, 0, 5);
	rangeset_add(&s, 7, 7);		/* empty: nothing */
	assert_ranges(&s, 3, (uint64_t[]){ 0, 5, 10, 20, 30, 40 });
	rangeset_add(&s, 20, 30);	/* touching both: one range */
	assert_ranges(&s, 2, (uint64_t[]){ 0, 5, 10, 40 });
	rangeset_add(&s, 3, 12);	/* overlapping both */
	assert_ranges(&s, 1, (uint64_t[]){ 0, 40 });
	rangeset_add(&s, 50, 60);
	rangeset_add(&s, 45, 55);
	assert_ranges(&s, 2, (uint64_t[]){ 0, 40, 45, 60 });
	ck_assert_uint_eq(rangeset_bytes(&s), 55);
	ck_assert_uint_eq(rangeset_end(&s), 60);
	/* Many pieces written in any order end as one range. */
	rangeset_clear(&s);
	for (uint64_t i = 0; i < 100; i++)
		rangeset_add(&s, ((i * 37) % 100) * 10, ((i * 37) % 100) * 10 + 10);
	assert_ranges(&s, 1, (uint64_t[]){ 0, 1000 });
	rangeset_free(&s);
}
END_TEST

START_TEST(rangeset_gaps_and_clip)
{
	struct rangeset s = { 0 }, g = { 0 };

	rangeset_gaps(&s, 100, &g);
	assert_ranges(&g, 1, (uint64_t[]){ 0, 100 });
	rangeset_add(&s, 0, 10);
	rangeset_add(&s, 20, 30);
	rangeset_add(&s, 90, 120);
	rangeset_gaps(&s, 100, &g);
	assert_ranges(&g, 2, (uint64_t[]){ 10, 20, 30, 90 });
	rangeset_clip(&s, 25);
	assert_ranges(&s, 2, (uint64_t[]){ 0, 10, 20, 25 });
	rangeset_clip(&s, 20);
	assert_ranges(&s, 1, (uint64_t[]){ 0, 10 });
	rangeset_clip(&s, 0);
	ck_assert_uint_eq(s.n, 0);
	rangeset_free(&s);
	rangeset_free(&g);
}
END_TEST

/* A valid journal of two files. */
static char *
sample_text(size_t *len)
{
	struct journal_doc d = { 0 };
	struct journal_buf b = { 0 };
	struct journal_rec *r = journal_doc_add(&d);

	r->up = true;
	r->local = strdup("dir/a file\nwith newline");
	r->remote = strdup("/srv/x");
	r->src_size = 1000;
	r->src_dev = 5;
	r->src_ino = 77;
	r->src_mtime = (struct journal_time){ 1700000000, 123456789 };
	r->tgt_size = 600;
	rangeset_add(&r->done, 0, 300);
	rangeset_add(&r->done, 400, 600);
	r = journal_doc_add(&d);
	r->local = strdup("b");
	r->remote = strdup("~/b");
	r->src_size = 5;
	r->src_mtime = (struct journal_time){ -3, 0 };
	r->complete = true;
	rangeset_add(&r->done, 0, 5);
	journal_format_begin(&b);
	for (size_t i = 0; i < d.n; i++)
		journal_format_rec(&b, &d.recs[i]);
	journal_format_end(&b);
	journal_doc_free(&d);
	*len = b.len;
	return b.p;
}

START_TEST(parse_round_trip)
{
	size_t len;
	char *text = sample_text(&len), err[128];
	struct journal_doc d;

	ck_assert_int_eq(journal_parse(text, len, &d, err, sizeof(err)), 0);
	ck_assert_uint_eq(d.n, 2);
	ck_assert(d.recs[0].up);
	ck_assert_str_eq(d.recs[0].local, "dir/a file\nwith newline");
	ck_assert_str_eq(d.recs[0].remote, "/srv/x");
	ck_assert_uint_eq(d.recs[0].src_ino, 77);
	ck_assert_int_eq(d.recs[0].src_mtime.ns, 123456789);
	assert_ranges(&d.recs[0].done, 2, (uint64_t[]){ 0, 300, 400, 600 });
	ck_assert(!d.recs[1].up);
	ck_assert(d.recs[1].complete);
	ck_assert_int_eq(d.recs[1].src_mtime.s, -3);
	journal_doc_free(&d);
	free(text);
}
END_TEST

/* Every truncation and every changed byte of a valid journal is refused:
 * the checksum, or the grammar before it, catches it. */
START_TEST(parse_refuses_damage)
{
	size_t len;
	char *text = sample_text(&len), err[128];
	struct journal_doc d;

	for (size_t cut = 0; cut < len; cut++)
		ck_assert_msg(journal_parse(text, cut, &d, err, sizeof(err)) != 0,
		    "truncated at %zu parsed", cut);
	for (size_t i = 0; i < len; i++) {
		char *copy = malloc(len);

		memcpy(copy, text, len);
		copy[i] ^= 0x01;
		ck_assert_msg(journal_parse(copy, len, &d, err, sizeof(err)) != 0,
		    "byte %zu flipped parsed", i);
		free(copy);
	}
	free(text);
}
END_TEST

/* Text with a right checksum that still is not something fscp writes. */
static int
parse_signed(const char *body)
{
	struct journal_buf b = { 0 };
	struct journal_doc d;
	char err[128];
	int rc;

	journal_format_begin(&b);
	b.len = 0;
	for (const char *p = body; *p != '\0'; p++) {
		if (b.len + 2 > b.cap) {
			b.cap = b.cap ? b.cap * 2 : 256;
			b.p = realloc(b.p, b.cap);
		}
		b.p[b.len++] = *p;
		b.p[b.len] = '\0';
	}
	journal_format_end(&b);
	rc = journal_parse(b.p, b.len, &d, err, sizeof(err));
	journal_doc_free(&d);
	journal_buf_free(&b);
	return rc;
}

START_TEST(parse_refuses_hostile)
{
	const char *hdr = "fscp-journal 1\n";
	char buf[512];

	snprintf(buf, sizeof(buf), "%s", hdr);
	ck_assert_int_eq(parse_signed(buf), 0);	/* no files: fine */
	const char *bad[] = {
		/* range past the source's size */
		"file d 10 0 0 0 0 0 0 0 0 0 0 1 61 62\n0 11\n",
		/* ranges out of order, overlapping, touching, empty */
		"file d 10 0 0 0 0 0 0 0 0 0 0 2 61 62\n5 8\n0 3\n",
		"file d 10 0 0 0 0 0 0 0 0 0 0 2 61 62\n0 5\n4 8\n",
		"file d 10 0 0 0 0 0 0 0 0 0 0 2 61 62\n0 5\n5 8\n",
		"file d 10 0 0 0 0 0 0 0 0 0 0 1 61 62\n3 3\n",
		/* more ranges promised than there are lines */
		"file d 10 0 0 0 0 0 0 0 0 0 0 99999999999 61 62\n0 1\n",
		/* a NUL in a path, odd hex, upper case, empty path */
		"file d 10 0 0 0 0 0 0 0 0 0 0 0 6100 62\n",
		"file d 10 0 0 0 0 0 0 0 0 0 0 0 616 62\n",
		"file d 10 0 0 0 0 0 0 0 0 0 0 0 6A 62\n",
		"file d 10 0 0 0 0 0 0 0 0 0 0 0  62\n",
		/* numbers: overflow, leading zero, sign, junk */
		"file d 18446744073709551616 0 0 0 0 0 0 0 0 0 0 0 61 62\n",
		"file d 010 0 0 0 0 0 0 0 0 0 0 0 61 62\n",
		"file d +10 0 0 0 0 0 0 0 0 0 0 0 61 62\n",
		"file d 1x 0 0 0 0 0 0 0 0 0 0 0 61 62\n",
		/* nanoseconds out of range, bad flag, bad direction */
		"file d 10 0 0 0 1000000000 0 0 0 0 0 0 0 61 62\n",
		"file d 10 0 0 0 -1 0 0 0 0 0 0 0 61 62\n",
		"file d 10 0 0 0 0 0 0 0 0 0 2 0 61 62\n",
		"file x 10 0 0 0 0 0 0 0 0 0 0 0 61 62\n",
		/* a missing field, an extra one, an unknown line */
		"file d 10 0 0 0 0 0 0 0 0 0 0 61 62\n",
		"file d 10 0 0 0 0 0 0 0 0 0 0 0 61 62 63\n",
		"dir d 61\n",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(buf, sizeof(buf), "%s%s", hdr, bad[i]);
		ck_assert_msg(parse_signed(buf) != 0, "hostile %zu parsed", i);
	}
	snprintf(buf, sizeof(buf), "%sfile d 10 0 0 0 0 0 0 0 0 0 0 1 61 62\n0 9\n", hdr);
	ck_assert_int_eq(parse_signed(buf), 0);
	/* Another version's header. */
	ck_assert(parse_signed("fscp-journal 2\n") != 0);
}
END_TEST

START_TEST(key_is_unambiguous)
{
	char k1[65], k2[65], k3[65];

	journal_key((const char *[]){ "ab", "c" }, 2, k1);
	journal_key((const char *[]){ "a", "bc" }, 2, k2);
	journal_key((const char *[]){ "ab", "c" }, 2, k3);
	ck_assert_str_ne(k1, k2);
	ck_assert_str_eq(k1, k3);
	/* The name a journal of an earlier fscp has, so that --resume finds
	 * it: printf 'fscp-journal-key 1\n2:ab\n1:c' | sha256sum */
	ck_assert_str_eq(k1, "e310e9f421bbf38193b7841c83df1c6fbb5dcd675844c19d615fd19f78ee24d9");
	journal_key((const char *[]){ "ab", "c", "" }, 3, k2);
	ck_assert_str_ne(k1, k2);
}
END_TEST

/* A scratch directory with a private journal directory in it. */
static char scratch[64];

static void
scratch_make(void)
{
	snprintf(scratch, sizeof(scratch), "/tmp/check_journal.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(scratch));
}

static void
scratch_remove(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", scratch);
	ck_assert_int_eq(system(cmd), 0);
}

/* A download of 1000 bytes, 400 of them written, from a run that fails:
 * the journal records them, and a resume moves only the rest. */
static void
write_partial(const char *jdir, const char *target)
{
	struct journal_params p = { .key = "k", .dir = jdir, .delay_s = 0 };
	struct journal *j = journal_open(&p);
	struct journal_item it = { .up = false, .local = target, .remote = "r", .size = 1000,
		.mtime = 42 };
	struct journal_file *jf;
	struct rangeset todo = { 0 };
	int fd = open(target, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	char buf[400];

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(journal_file_plan(j, &it, NULL, &jf, &todo), JOURNAL_COPY);
	assert_ranges(&todo, 1, (uint64_t[]){ 0, 1000 });
	journal_file_fd(jf, fd);
	memset(buf, 'x', sizeof(buf));
	ck_assert_int_eq(pwrite(fd, buf, sizeof(buf), 0), 400);
	journal_wrote(jf, 0, 400);
	close(fd);
	journal_end(j, false);
	rangeset_free(&todo);
}

static enum journal_plan
resume_plan(const char *jdir, const char *target, struct rangeset *todo, bool end_ok)
{
	struct journal_params p = { .key = "k", .dir = jdir, .resume = true, .delay_s = 60 };
	struct journal *j = journal_open(&p);
	struct journal_item it = { .up = false, .local = target, .remote = "r", .size = 1000,
		.mtime = 42 };
	struct journal_file *jf;
	enum journal_plan rc = journal_file_plan(j, &it, NULL, &jf, todo);

	journal_end(j, end_ok);
	return rc;
}

START_TEST(disk_round_trip)
{
	char jdir[128], target[128], jpath[160];
	struct rangeset todo = { 0 };
	struct stat st;

	scratch_make();
	snprintf(jdir, sizeof(jdir), "%s/cache/fscp", scratch);
	snprintf(target, sizeof(target), "%s/t", scratch);
	snprintf(jpath, sizeof(jpath), "%s/k.journal", jdir);
	write_partial(jdir, target);
	ck_assert_int_eq(stat(jdir, &st), 0);
	ck_assert_uint_eq(st.st_mode & 0777, 0700);
	ck_assert_int_eq(stat(jpath, &st), 0);
	ck_assert_uint_eq(st.st_mode & 0777, 0600);
	/* The last byte always moves (the piece that ends the file). */
	ck_assert_int_eq(resume_plan(jdir, target, &todo, false), JOURNAL_COPY);
	assert_ranges(&todo, 1, (uint64_t[]){ 400, 1000 });
	/* A target cut below the ranges: the whole file. */
	ck_assert_int_eq(truncate(target, 100), 0);
	ck_assert_int_eq(resume_plan(jdir, target, &todo, false), JOURNAL_COPY);
	assert_ranges(&todo, 1, (uint64_t[]){ 0, 1000 });
	/* Success removes the journal. */
	write_partial(jdir, target);
	ck_assert_int_eq(resume_plan(jdir, target, &todo, true), JOURNAL_COPY);
	ck_assert_int_ne(stat(jpath, &st), 0);
	rangeset_free(&todo);
	scratch_remove();
}
END_TEST

START_TEST(disk_refuses_planted)
{
	char jdir[128], target[128], jpath[160], other[160];
	struct rangeset todo = { 0 };

	scratch_make();
	snprintf(jdir, sizeof(jdir), "%s/cache/fscp", scratch);
	snprintf(target, sizeof(target), "%s/t", scratch);
	snprintf(jpath, sizeof(jpath), "%s/k.journal", jdir);
	snprintf(other, sizeof(other), "%s/planted", scratch);
	/* A symbolic link to a valid journal. */
	write_partial(jdir, target);
	ck_assert_int_eq(rename(jpath, other), 0);
	ck_assert_int_eq(symlink(other, jpath), 0);
	ck_assert_int_eq(resume_plan(jdir, target, &todo, false), JOURNAL_COPY);
	assert_ranges(&todo, 1, (uint64_t[]){ 0, 1000 });
	/* A journal others can read or write. */
	ck_assert_int_eq(unlink(jpath), 0);
	ck_assert_int_eq(rename(other, jpath), 0);
	ck_assert_int_eq(chmod(jpath, 0644), 0);
	ck_assert_int_eq(resume_plan(jdir, target, &todo, false), JOURNAL_COPY);
	assert_ranges(&todo, 1, (uint64_t[]){ 0, 1000 });
	ck_assert_int_eq(chmod(jpath, 0600), 0);
	ck_assert_int_eq(resume_plan(jdir, target, &todo, false), JOURNAL_COPY);
	assert_ranges(&todo, 1, (uint64_t[]){ 400, 1000 });
	/* A directory others can enter. */
	ck_assert_int_eq(chmod(jdir, 0755), 0);
	ck_assert_int_eq(resume_plan(jdir, target, &todo, false), JOURNAL_COPY);
	assert_ranges(&todo, 1, (uint64_t[]){ 0, 1000 });
	rangeset_free(&todo);
	scratch_remove();
}
END_TEST

/* Nothing is written before the delay: a short copy leaves no trace. */
START_TEST(lazy)
{
	char jdir[128], cache[128];
	struct journal_params p = { .key = "k", .delay_s = 60 };
	struct journal *j;
	struct stat st;

	scratch_make();
	snprintf(cache, sizeof(cache), "%s/cache", scratch);
	snprintf(jdir, sizeof(jdir), "%s/cache/fscp", scratch);
	p.dir = jdir;
	j = journal_open(&p);
	journal_end(j, false);
	ck_assert_int_ne(stat(cache, &st), 0);
	scratch_remove();
}
END_TEST

/* A journal named from its command's parts, when first needed: a
 * successful copy removes the one a failed run of the same command left,
 * and leaves any other alone. */
START_TEST(named_from_parts)
{
	const char *parts[] = { "ab", "c" };
	char jdir[128], target[128], ours[256], other[160];
	struct journal_params p = { .key_parts = parts, .nkey_parts = 2, .delay_s = 60 };
	struct journal *j;
	struct stat st;
	/* Each test runs in a process of its own (unless CK_FORK=no). */
	bool fresh = dlopen(FSCP_LIBCRYPTO_SONAME, RTLD_NOW | RTLD_NOLOAD) == NULL;

	scratch_make();
	snprintf(jdir, sizeof(jdir), "%s/cache/fscp", scratch);
	snprintf(target, sizeof(target), "%s/t", scratch);
	snprintf(ours, sizeof(ours),
	    "%s/e310e9f421bbf38193b7841c83df1c6fbb5dcd675844c19d615fd19f78ee24d9.journal", jdir);
	snprintf(other, sizeof(other), "%s/k.journal", jdir);
	/* Nothing there: a success touches nothing. */
	p.dir = jdir;
	j = journal_open(&p);
	journal_end(j, true);
	ck_assert_int_ne(stat(jdir, &st), 0);
	/* ... and needs no name. */
	/* A journal of another command, and one of ours. */
	write_partial(jdir, target);
	ck_assert_int_eq(link(other, ours), 0);
	j = journal_open(&p);
	journal_end(j, true);
	ck_assert_int_ne(stat(ours, &st), 0);
	ck_assert_int_eq(stat(other, &st), 0);
	/* Naming it loads no libcrypto (util/sha256). */
	if (fresh)
		ck_assert_ptr_null(dlopen(FSCP_LIBCRYPTO_SONAME, RTLD_NOW | RTLD_NOLOAD));
	scratch_remove();
}
END_TEST

static Suite *
journal_suite(void)
{
	Suite *s = suite_create("journal");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, rangeset_merges);
	tcase_add_test(tc, rangeset_gaps_and_clip);
	tcase_add_test(tc, parse_round_trip);
	tcase_add_test(tc, parse_refuses_damage);
	tcase_add_test(tc, parse_refuses_hostile);
	tcase_add_test(tc, key_is_unambiguous);
	tcase_add_test(tc, disk_round_trip);
	tcase_add_test(tc, disk_refuses_planted);
	tcase_add_test(tc, lazy);
	tcase_add_test(tc, named_from_parts);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return check_main(journal_suite());
}
