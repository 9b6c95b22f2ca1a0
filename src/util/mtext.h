/* SPDX-License-Identifier: ISC
 * Copyright (c) 2026 The fscp authors.  See LICENSE. */
/* mtext: text from elsewhere (a server, a file name) shown on a terminal
 * as OpenSSH's utf8.c shows it: the user's LC_CTYPE chosen as msetlocale()
 * chooses it, and what cannot be printed escaped as \ooo. */
#ifndef FSCP_MTEXT_H
#define FSCP_MTEXT_H

#include <stdbool.h>
#include <stddef.h>

/* Select LC_CTYPE as ssh and scp do (OpenSSH msetlocale()).  For main(). */
void mtext_locale_init(void);
/* True in the encodings where OpenSSH escapes bytes it cannot print as
 * \ooo; in any other it stops printing at the first one. */
bool mtext_locale_is_safe(void);
/* src as OpenSSH's fmprintf() prints it: printable characters, newline,
 * CR and tab as they are, each byte of anything else as \ooo; in an
 * encoding where that is not safe, nothing from the first such byte on.
 * malloc'd. */
char *mtext_vis(const char *src);
/* The same into dst as OpenSSH's snmprintf() makes it: at most maxsz
 * bytes (NUL included) and, unless wp is NULL, *wp display columns, where
 * newline, CR and tab are escaped too.  Returns the bytes written. */
size_t mtext_nvis(char *dst, size_t maxsz, const int *wp, const char *src);

#endif
