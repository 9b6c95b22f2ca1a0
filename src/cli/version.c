/* SPDX-License-Identifier: ISC
 * Copyright (c) 2026 The fscp authors.  See LICENSE. */
/* version: fscp's version and the library versions it runs with. */
#include "config.h"
#include "cli/version.h"

#include <stdio.h>
#include <string.h>
#include <libssh/libssh.h>
#include <openssl/crypto.h>
#include <zlib.h>

const char *
version_text(char *buf, size_t len)
{
	/* ssh_version(0) never fails; it names libssh's crypto and zlib
	 * builds too ("0.10.6/openssl/zlib"), which the next lines give with
	 * their versions: only its own version here. */
	const char *ssh = ssh_version(0);

	snprintf(buf, len, "%s %s\nlibssh %.*s\n%s\nzlib %s\n",
	    PACKAGE_NAME, PACKAGE_VERSION, (int)strcspn(ssh, "/"), ssh,
	    OpenSSL_version(OPENSSL_VERSION), zlibVersion());
	return buf;
}
