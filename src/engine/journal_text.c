/* SPDX-License-Identifier: ISC
 * Copyright (c) 2026 The fscp authors.  See LICENSE. */
#include "config.h"
#include "engine/journal_text.h"
#include "util/sha256.h"
#include "util/xmalloc.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define JOURNAL_MAGIC "fscp-journal 1\n"

static uint64_t
journal_fnv(const char *p, size_t len)
{
	uint64_t h = 14695981039346656037ULL;

	for (size_t i = 0; i < len; i++) {
		h ^= (unsigned char)p[i];
		h *= 1099511628211ULL;
	}
	return h;
}

/* ---- writing ---------------------------------------------------------------- */

void
journal_buf_free(struct journal_buf *b)
{
	free(b->p);
	memset(b, 0, sizeof(*b));
}

static void
jbuf_put(struct journal_buf *b, const char *s, size_t n)
{
	if (b->len + n + 1 > b->cap) {
		while (b->len + n + 1 > b->cap)
			b->cap = b->cap ? b->cap * 2 : 4096;
		b->p = xrealloc(b->p, b->cap);
	}
	memcpy(b->p + b->len, s, n);
	b->len += n;
	b->p[b->len] = '\0';
}

static void jbuf_printf(struct journal_buf *b, const char *fmt, ...) FSCP_PRINTF(2, 3);

static void
jbuf_printf(struct journal_buf *b, const char *fmt, ...)
{
	char tmp[512];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(tmp, sizeof(tmp), fmt, ap);
	va_end(ap);
	if (n > 0)
		jbuf_put(b, tmp, (size_t)n < sizeof(tmp) ? (size_t)n : sizeof(tmp) - 1);
}

static void
jbuf_hex(struct journal_buf *b, const char *s)
{
	static const char hex[] = "0123456789abcdef";
	char pair[2];

	for (; *s != '\0'; s++) {
		pair[0] = hex[(unsigned char)*s >> 4];
		pair[1] = hex[(unsigned char)*s & 15];
		jbuf_put(b, pair, 2);
	}
}

void
journal_format_begin(struct journal_buf *b)
{
	b->len = 0;
	jbuf_put(b, JOURNAL_MAGIC, strlen(JOURNAL_MAGIC));
}

void
journal_format_rec(struct journal_buf *b, const struct journal_rec *r)
{
	jbuf_printf(b, "file %c %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRId64 " %" PRId64
	    " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRId64 " %" PRId64 " %d %zu ",
	    r->up ? 'u' : 'd', r->src_size, r->src_dev, r->src_ino, r->src_mtime.s,
	    r->src_mtime.ns, r->tgt_size, r->tgt_dev, r->tgt_ino, r->tgt_mtime.s,
	    r->tgt_mtime.ns, r->complete ? 1 : 0, r->done.n);
	jbuf_hex(b, r->local);
	jbuf_put(b, " ", 1);
	jbuf_hex(b, r->remote);
	jbuf_put(b, "\n", 1);
	for (size_t i = 0; i < r->done.n; i++)
		jbuf_printf(b, "%" PRIu64 " %" PRIu64 "\n", r->done.r[i].off, r->done.r[i].end);
}

void
journal_format_end(struct journal_buf *b)
{
	jbuf_printf(b, "sum %016" PRIx64 "\n", journal_fnv(b->p, b->len));
}

/* ---- reading ---------------------------------------------------------------- */

struct jparse {
	const char *p, *end;	/* the rest of the text */
	char *err;
	size_t errlen;
};

static int jfail(struct jparse *ps, const char *fmt, ...) FSCP_PRINTF(2, 3);

static int
jfail(struct jparse *ps, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(ps->err, ps->errlen, fmt, ap);
	va_end(ap);
	return -1;
}

/* The next space-separated word of the current line; the separator after
 * it must be last ? '\n' : ' '. */
static int
jword(struct jparse *ps, const char **w, size_t *wl, bool last)
{
	const char *s = ps->p;

	while (ps->p < ps->end && *ps->p != ' ' && *ps->p != '\n')
		ps->p++;
	if (ps->p == ps->end || ps->p == s || *ps->p != (last ? '\n' : ' '))
		return jfail(ps, "bad field");
	*w = s;
	*wl = (size_t)(ps->p - s);
	ps->p++;
	return 0;
}

static int
jnum(struct jparse *ps, uint64_t *v, bool last)
{
	const char *w;
	size_t wl;
	uint64_t n = 0;

	if (jword(ps, &w, &wl, last) != 0)
		return -1;
	if (wl > 20 || (wl > 1 && w[0] == '0'))
		return jfail(ps, "bad number");
	for (size_t i = 0; i < wl; i++) {
		if (w[i] < '0' || w[i] > '9')
			return jfail(ps, "bad number");
		unsigned d = (unsigned)(w[i] - '0');

		if (n > (UINT64_MAX - d) / 10)
			return jfail(ps, "number out of range");
		n = n * 10 + d;
	}
	*v = n;
	return 0;
}

/* Signed, within +-2^62 (times). */
static int
jsnum(struct jparse *ps, int64_t *v)
{
	bool neg = ps->p < ps->end && *ps->p == '-';
	uint64_t n;

	if (neg)
		ps->p++;
	if (jnum(ps, &n, false) != 0)
		return -1;
	if (n > (UINT64_C(1) << 62) || (neg && n == 0))
		return jfail(ps, "time out of range");
	*v = neg ? -(int64_t)n : (int64_t)n;
	return 0;
}

static int
jtime(struct jparse *ps, struct journal_time *t)
{
	if (jsnum(ps, &t->s) != 0 || jsnum(ps, &t->ns) != 0)
		return -1;
	if (t->ns < 0 || t->ns >= 1000000000)
		return jfail(ps, "bad nanoseconds");
	return 0;
}

static int
jhexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

static int
jpath(struct jparse *ps, char **out, bool last)
{
	const char *w;
	size_t wl;

	if (jword(ps, &w, &wl, last) != 0)
		return -1;
	if (wl % 2 != 0 || wl / 2 > JOURNAL_TEXT_MAX_PATH)
		return jfail(ps, "bad path");
	char *s = xmalloc(wl / 2 + 1);

	for (size_t i = 0; i < wl / 2; i++) {
		int hi = jhexval(w[2 * i]), lo = jhexval(w[2 * i + 1]);

		if (hi < 0 || lo < 0 || (hi == 0 && lo == 0)) {
			free(s);
			return jfail(ps, "bad path");
		}
		s[i] = (char)(hi << 4 | lo);
	}
	s[wl / 2] = '\0';
	*out = s;
	return 0;
}

static bool
jis(struct jparse *ps, const char *word)
{
	size_t n = strlen(word);

	if ((size_t)(ps->end - ps->p) < n || memcmp(ps->p, word, n) != 0)
		return false;
	ps->p += n;
	return true;
}

static int
jrec(struct jparse *ps, struct journal_rec *r)
{
	const char *w;
	size_t wl;
	uint64_t complete, nr;

	if (jword(ps, &w, &wl, false) != 0)
		return -1;
	if (wl != 1 || (w[0] != 'u' && w[0] != 'd'))
		return jfail(ps, "bad direction");
	r->up = w[0] == 'u';
	if (jnum(ps, &r->src_size, false) != 0 || jnum(ps, &r->src_dev, false) != 0 ||
	    jnum(ps, &r->src_ino, false) != 0 || jtime(ps, &r->src_mtime) != 0 ||
	    jnum(ps, &r->tgt_size, false) != 0 || jnum(ps, &r->tgt_dev, false) != 0 ||
	    jnum(ps, &r->tgt_ino, false) != 0 || jtime(ps, &r->tgt_mtime) != 0 ||
	    jnum(ps, &complete, false) != 0 || jnum(ps, &nr, false) != 0)
		return -1;
	if (complete > 1)
		return jfail(ps, "bad flag");
	r->complete = complete == 1;
	if (jpath(ps, &r->local, false) != 0 || jpath(ps, &r->remote, true) != 0)
		return -1;
	/* Each range line takes at least 4 bytes: a count beyond that is a lie. */
	if (nr > (uint64_t)(ps->end - ps->p) / 4)
		return jfail(ps, "bad range count");
	uint64_t prev_end = 0;

	for (uint64_t i = 0; i < nr; i++) {
		uint64_t off, end;

		if (jnum(ps, &off, false) != 0 || jnum(ps, &end, true) != 0)
			return -1;
		/* Written sorted, apart and inside the source: anything else
		 * is not ours. */
		if (off >= end || end > r->src_size || (i > 0 && off <= prev_end))
			return jfail(ps, "bad range");
		rangeset_add(&r->done, off, end);
		prev_end = end;
	}
	return 0;
}

int
journal_parse(const char *text, size_t len, struct journal_doc *d, char *err, size_t errlen)
{
	struct jparse ps = { .p = text, .end = text + len, .err = err, .errlen = errlen };
	const char *sumline;
	uint64_t sum = 0;

	memset(d, 0, sizeof(*d));
	if (len > JOURNAL_TEXT_MAX_BYTES)
		return jfail(&ps, "too large");
	if (!jis(&ps, JOURNAL_MAGIC))
		return jfail(&ps, "not a journal of this version");
	for (;;) {
		if (jis(&ps, "file ")) {
			if (jrec(&ps, journal_doc_add(d)) != 0)
				goto bad;
			continue;
		}
		sumline = ps.p;
		if (!jis(&ps, "sum ")) {
			jfail(&ps, "bad line");
			goto bad;
		}
		break;
	}
	/* 16 hex digits, a newline, and nothing after it. */
	if (ps.end - ps.p != 17 || ps.p[16] != '\n') {
		jfail(&ps, "bad checksum line");
		goto bad;
	}
	for (int i = 0; i < 16; i++) {
		int v = jhexval(ps.p[i]);

		if (v < 0) {
			jfail(&ps, "bad checksum line");
			goto bad;
		}
		sum = sum << 4 | (uint64_t)v;
	}
	if (sum != journal_fnv(text, (size_t)(sumline - text))) {
		jfail(&ps, "checksum mismatch");
		goto bad;
	}
	return 0;
bad:
	journal_doc_free(d);
	return -1;
}

struct journal_rec *
journal_doc_add(struct journal_doc *d)
{
	if (d->n == d->cap) {
		d->cap = d->cap ? d->cap * 2 : 16;
		d->recs = xrealloc(d->recs, d->cap * sizeof(*d->recs));
	}
	memset(&d->recs[d->n], 0, sizeof(d->recs[0]));
	return &d->recs[d->n++];
}

void
journal_rec_free(struct journal_rec *r)
{
	free(r->local);
	free(r->remote);
	rangeset_free(&r->done);
	memset(r, 0, sizeof(*r));
}

void
journal_doc_free(struct journal_doc *d)
{
	for (size_t i = 0; i < d->n; i++)
		journal_rec_free(&d->recs[i]);
	free(d->recs);
	memset(d, 0, sizeof(*d));
}

/* ---- key ----------------------------------------------------------------------- */

void
journal_key(const char *const *parts, size_t n, char out[65])
{
	static const char hex[] = "0123456789abcdef";
	unsigned char md[32];
	struct journal_buf b = { 0 };

	jbuf_put(&b, "fscp-journal-key 1", 18);
	for (size_t i = 0; i < n; i++) {
		char len[24];
		int l = snprintf(len, sizeof(len), "\n%zu:", strlen(parts[i]));

		jbuf_put(&b, len, (size_t)l);
		jbuf_put(&b, parts[i], strlen(parts[i]));
	}
	sha256(b.p, b.len, md);
	journal_buf_free(&b);
	for (unsigned i = 0; i < 32; i++) {
		out[2 * i] = hex[md[i] >> 4];
		out[2 * i + 1] = hex[md[i] & 15];
	}
	out[64] = '\0';
}
