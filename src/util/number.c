/* SPDX-License-Identifier: ISC AND BSD-3-Clause
 * Copyright (c) 2026 The fscp authors.  See LICENSE. */
/* number: numbers and ports read as OpenSSH reads them (OpenBSD
 * strtonum() and scan_scaled(), misc.c a2port()), so that fscp accepts and
 * refuses the same option values as scp, with the same words.
 *
 * number_strtonum() is derived from OpenBSD's strtonum.c (the same checks
 * in the same order), number_scan_scaled() from scan_scaled() in OpenBSD's
 * fmt_scaled.c (the same digit limits, overflow checks and fraction
 * scaling, as OpenSSH 9.2 carries it), and number_a2port() from a2port()
 * in OpenSSH's misc.c.  Their notices, as their licences require:
 *
 * strtonum.c:
 * Copyright (c) 2004 Ted Unangst and Todd Miller
 * All rights reserved.
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
 *
 * fmt_scaled.c:
 * Copyright (c) 2001, 2002, 2003 Ian F. Darwin.  All rights reserved.
 *
 * Redistribution and use in source and binary forms, with or without
 * modification, are permitted provided that the following conditions
 * are met:
 * 1. Redistributions of source code must retain the above copyright
 *    notice, this list of conditions and the following disclaimer.
 * 2. Redistributions in binary form must reproduce the above copyright
 *    notice, this list of conditions and the following disclaimer in the
 *    documentation and/or other materials provided with the distribution.
 * 3. The name of the author may not be used to endorse or promote products
 *    derived from this software without specific prior written permission.
 *
 * THIS SOFTWARE IS PROVIDED BY THE AUTHOR ``AS IS'' AND ANY EXPRESS OR
 * IMPLIED WARRANTIES, INCLUDING, BUT NOT LIMITED TO, THE IMPLIED WARRANTIES
 * OF MERCHANTABILITY AND FITNESS FOR A PARTICULAR PURPOSE ARE DISCLAIMED.
 * IN NO EVENT SHALL THE AUTHOR BE LIABLE FOR ANY DIRECT, INDIRECT,
 * INCIDENTAL, SPECIAL, EXEMPLARY, OR CONSEQUENTIAL DAMAGES (INCLUDING, BUT
 * NOT LIMITED TO, PROCUREMENT OF SUBSTITUTE GOODS OR SERVICES; LOSS OF USE,
 * DATA, OR PROFITS; OR BUSINESS INTERRUPTION) HOWEVER CAUSED AND ON ANY
 * THEORY OF LIABILITY, WHETHER IN CONTRACT, STRICT LIABILITY, OR TORT
 * (INCLUDING NEGLIGENCE OR OTHERWISE) ARISING IN ANY WAY OUT OF THE USE OF
 * THIS SOFTWARE, EVEN IF ADVISED OF THE POSSIBILITY OF SUCH DAMAGE.
 *
 * misc.c:
 * Copyright (c) 2000 Markus Friedl.  All rights reserved.
 * Copyright (c) 2005-2020 Damien Miller.  All rights reserved.
 * Copyright (c) 2004 Henning Brauer <henning@openbsd.org>
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
#include "util/number.h"

#include <errno.h>
#include <limits.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

long long
number_strtonum(const char *s, long long lo, long long hi, const char **errstr)
{
	char *end;
	long long v;
	int saved = errno;

	*errstr = NULL;
	if (lo > hi) {
		*errstr = "invalid";
		return 0;
	}
	errno = 0;
	v = strtoll(s, &end, 10);
	if (end == s || *end != '\0')
		*errstr = "invalid";
	else if ((v == LLONG_MIN && errno == ERANGE) || v < lo)
		*errstr = "too small";
	else if ((v == LLONG_MAX && errno == ERANGE) || v > hi)
		*errstr = "too large";
	errno = saved;
	return *errstr != NULL ? 0 : v;
}

int
number_a2port(const char *s)
{
	const char *err;
	long long v;
	struct servent *se;

	v = number_strtonum(s, 0, 65535, &err);
	if (err == NULL)
		return (int)v;
	if ((se = getservbyname(s, "tcp")) != NULL)
		return ntohs((unsigned short)se->s_port);
	return -1;
}

/* Multiply-add with overflow check; false on overflow. */
static bool
number_mul_add(long long *acc, long long mul, long long add)
{
	if (*acc > (LLONG_MAX - add) / mul)
		return false;
	*acc = *acc * mul + add;
	return true;
}

int
number_scan_scaled(const char *s, long long *result, int *err)
{
	static const char units[] = "BKMGTPE";
	const char *p = s, *u;
	int sign = 0, ndigits = 0, nfrac = 0;
	bool seen_dot = false;
	long long whole = 0, frac = 0, scale = 1;

	while ((unsigned char)*p < 0x80 && (*p == ' ' || (*p >= '\t' && *p <= '\r')))
		p++;
	/* one sign at most ("--1" and "+-1" are errors) */
	if (*p == '-' || *p == '+') {
		sign = *p == '-' ? -1 : 1;
		p++;
		if (*p == '-' || *p == '+')
			goto einval;
	}
	for (; (*p >= '0' && *p <= '9') || *p == '.'; p++) {
		if (*p == '.') {
			if (seen_dot)
				goto einval;
			seen_dot = true;
			continue;
		}
		if (seen_dot) {
			/* Fractional digits beyond the precision scp keeps
			 * (19 of them) are ignored. */
			if (nfrac >= 19)
				continue;
			nfrac++;
			if (!number_mul_add(&frac, 10, *p - '0'))
				goto erange;
		} else {
			if (++ndigits >= 21 || !number_mul_add(&whole, 10, *p - '0'))
				goto erange;
		}
	}
	if (sign < 0)
		whole = -whole;
	if (*p == '\0') {
		/* no unit: the fraction is dropped */
		*result = whole;
		return 0;
	}
	if ((unsigned char)*p >= 0x80 ||
	    (u = strchr(units, *p >= 'a' && *p <= 'z' ? *p - 'a' + 'A' : *p)) == NULL)
		goto einval;
	/* a unit must end the number ("64KB" is rejected, "1K!" is not) */
	if ((p[1] >= '0' && p[1] <= '9') || (p[1] >= 'a' && p[1] <= 'z') ||
	    (p[1] >= 'A' && p[1] <= 'Z'))
		goto einval;
	for (long i = 0; i < u - units; i++)
		scale *= 1024;
	if (whole > LLONG_MAX / scale || whole < LLONG_MIN / scale)
		goto erange;
	whole *= scale;
	while (frac >= LLONG_MAX / scale) {
		frac /= 10;
		nfrac--;
	}
	frac *= scale;
	for (int i = 0; i < nfrac; i++)
		frac /= 10;
	/* "-8.5E" scales to LLONG_MIN before its fraction: out of range
	 * (scp 9.2 overflows here and aborts). */
	if (sign < 0 ? whole < LLONG_MIN + frac : whole > LLONG_MAX - frac)
		goto erange;
	*result = sign < 0 ? whole - frac : whole + frac;
	return 0;
einval:
	*err = EINVAL;
	return -1;
erange:
	*err = ERANGE;
	return -1;
}
