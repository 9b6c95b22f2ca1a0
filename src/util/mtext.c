/* SPDX-License-Identifier: ISC
 * Copyright (c) 2026 The fscp authors.  See LICENSE. */
/* mtext: OpenSSH's way of showing untrusted text (utf8.c).
 *
 * Derived from OpenSSH's utf8.c: mtext_locale_init() is its msetlocale(),
 * mtext_locale_is_safe() the negation of its dangerous_locale(), and
 * mtext_nvis() the escaping loop of its vasnmprintf() (the same width and
 * size limits, \ooo for each byte that cannot be printed).  Its notice, as
 * its licence requires:
 *
 * Copyright (c) 2016 Ingo Schwarze <schwarze@openbsd.org>
 *
 * Permission to use, copy, modify, and distribute this software for any
 * purpose with or without fee is hereby granted, provided that the above
 * copyright notice and this permission notice appear in all copies.
 *
 * THE SOFTWARE IS PROVIDED "AS IS" AND THE AUTHOR DISCLAIMS ALL WARRANTIES
 * WITH REGARD TO THIS SOFTWARE INCLUDING ALL IMPLIED WARRANTIES OF
 * MERCHANTABILITY AND FITNESS. IN NO EVENT SHALL THE AUTHOR BE LIABLE FOR
 * ANY SPECIAL, DIRECT, INDIRECT, OR CONSEQUENTIAL DAMAGES OR ANY DAMAGES
 * WHATSOEVER RESULTING FROM LOSS OF USE, DATA OR PROFITS, WHETHER IN AN
 * ACTION OF CONTRACT, NEGLIGENCE OR OTHER TORTIOUS ACTION, ARISING OUT OF
 * OR IN CONNECTION WITH THE USE OR PERFORMANCE OF THIS SOFTWARE.
 */
#include "config.h"
#include "util/mtext.h"
#include "util/xmalloc.h"

#include <langinfo.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <wchar.h>

void
mtext_locale_init(void)
{
	static const char *const vars[] = { "LC_ALL", "LC_CTYPE", "LANG" };
	const char *v;

	/* The first variable set decides; Turkish locales fall back to C (or
	 * C.UTF-8), anything else is used as is. */
	for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); i++) {
		if ((v = getenv(vars[i])) == NULL)
			continue;
		if (strncasecmp(v, "TR", 2) != 0)
			break;
		if ((strcasestr(v, "UTF-8") != NULL ||
		    strcasestr(v, "UTF8") != NULL) &&
		    (setlocale(LC_CTYPE, "C.UTF-8") != NULL ||
		    setlocale(LC_CTYPE, "POSIX.UTF-8") != NULL))
			return;
		setlocale(LC_CTYPE, "C");
		return;
	}
	setlocale(LC_CTYPE, "");
}

bool
mtext_locale_is_safe(void)
{
	const char *cs = nl_langinfo(CODESET);
	static const char *const ok[] = { "UTF-8", "US-ASCII",
	    "ANSI_X3.4-1968", "ISO8859-1", "646", "" };

	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++)
		if (strcmp(cs, ok[i]) == 0)
			return true;
	return false;
}

size_t
mtext_nvis(char *dst, size_t maxsz, const int *wp, const char *src)
{
	const char *sp = src;
	size_t dl = 0;
	int total = 0, max_w = wp != NULL ? *wp : 0;
	bool print = true;
	mbstate_t mbs;

	memset(&mbs, 0, sizeof(mbs));
	while (*sp != '\0') {
		wchar_t wc;
		size_t len = mbrtowc(&wc, sp, MB_CUR_MAX, &mbs);
		int w;

		if (len == (size_t)-1 || len == (size_t)-2) {
			memset(&mbs, 0, sizeof(mbs));
			if (!mtext_locale_is_safe())
				break;
			len = 1;
			w = -1;
		} else if (wp == NULL && (wc == L'\n' || wc == L'\r' || wc == L'\t')) {
			w = 0;
		} else if ((w = wcwidth(wc)) == -1 && !mtext_locale_is_safe()) {
			break;
		}
		if (w >= 0) {
			if (print && (dl + len >= maxsz || (wp != NULL && total > max_w - w)))
				print = false;
			if (print) {
				memcpy(dst + dl, sp, len);
				dl += len;
				total += w;
			}
			sp += len;
			continue;
		}
		for (; len > 0; len--, sp++) {
			unsigned char c = (unsigned char)*sp;

			if (print && (dl + 4 >= maxsz || (wp != NULL && total > max_w - 4)))
				print = false;
			if (print) {
				dst[dl++] = '\\';
				dst[dl++] = (char)('0' + ((c >> 6) & 7));
				dst[dl++] = (char)('0' + ((c >> 3) & 7));
				dst[dl++] = (char)('0' + (c & 7));
				total += 4;
			}
		}
	}
	dst[dl] = '\0';
	return dl;
}

char *
mtext_vis(const char *src)
{
	size_t cap = strlen(src) * 4 + 1;	/* every byte escaped, and the NUL */
	char *out = xmalloc(cap);

	(void)mtext_nvis(out, cap, NULL, src);
	return out;
}
