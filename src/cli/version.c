/* SPDX-License-Identifier: ISC
 * Copyright (c) 2026 The fscp authors.  See LICENSE. */
/* version: fscp's version and the library versions it runs with. */
#include "config.h"
#include "cli/version.h"
#include "transport/sshlib.h"
#include "util/cryptolib.h"

#include <stdio.h>
#include <string.h>
#include <zlib.h>

const char *
version_text(char *buf, size_t len)
{
	/* libssh's version names its crypto and zlib builds too
	 * ("0.10.6/openssl/zlib"), which the next lines give with their
	 * versions: only its own version here.  Both are loaded for this:
	 * a library that cannot be is said instead. */
	const char *why = NULL, *ssh = sshlib_version(&why), *ssl;
	char sshline[320], sslline[320];

	if (ssh != NULL)
		snprintf(sshline, sizeof(sshline), "libssh %.*s", (int)strcspn(ssh, "/"), ssh);
	else
		snprintf(sshline, sizeof(sshline), "libssh not loaded: %s", why);
	if ((ssl = cryptolib_version(&why)) != NULL)
		snprintf(sslline, sizeof(sslline), "%s", ssl);
	else
		snprintf(sslline, sizeof(sslline), "OpenSSL not loaded: %s", why);
	snprintf(buf, len, "%s %s\n%s\n%s\nzlib %s\n", PACKAGE_NAME, PACKAGE_VERSION, sshline,
	    sslline, zlibVersion());
	return buf;
}
