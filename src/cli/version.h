/* SPDX-License-Identifier: ISC
 * Copyright (c) 2026 The fscp authors.  See LICENSE. */
/* version: what `fscp --version` prints.
 *
 * fscp's own version, then the libssh, OpenSSL and zlib versions asked of
 * the libraries at run time: a shared library can be newer (or older) than
 * the headers fscp was built with, and the one that runs is what matters
 * when a connection misbehaves. */
#ifndef FSCP_VERSION_H
#define FSCP_VERSION_H

#include <stddef.h>

/* Four lines, each ending in "\n", written into buf (cut to len). */
const char *version_text(char *buf, size_t len);

#endif
