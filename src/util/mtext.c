/* mtext: OpenSSH's way of showing untrusted text (utf8.c). */
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

char *
mtext_vis(const char *src)
{
	char *out = xmalloc(strlen(src) * 4 + 1), *d = out;
	mbstate_t mbs;

	memset(&mbs, 0, sizeof(mbs));
	while (*src != '\0') {
		wchar_t wc;
		size_t len = mbrtowc(&wc, src, MB_CUR_MAX, &mbs);
		bool ok = len != (size_t)-1 && len != (size_t)-2 &&
		    (wc == L'\n' || wc == L'\r' || wc == L'\t' || wcwidth(wc) >= 0);

		if (!ok) {
			memset(&mbs, 0, sizeof(mbs));
			if (!mtext_locale_is_safe())
				break;
			if (len == (size_t)-1 || len == (size_t)-2)
				len = 1;
			for (; len > 0; len--)
				d += sprintf(d, "\\%03o", (unsigned char)*src++);
			continue;
		}
		memcpy(d, src, len);
		d += len;
		src += len;
	}
	*d = '\0';
	return out;
}
