/* SPDX-License-Identifier: ISC
 * Copyright (c) 2026 The fscp authors.  See LICENSE. */
/* awsmsg: what fscp recognises in the aws CLI's words (an SSM proxy's
 * stderr), one function per meaning.  Every text of aws that fscp acts on
 * is matched here and nowhere else. */
#ifndef FSCP_AWSMSG_H
#define FSCP_AWSMSG_H

#include <stdbool.h>
#include <stddef.h>

/* aws refused a StartSession call because calls came too fast (its
 * ThrottlingException): the same call may work a little later.  text: len
 * bytes, not NUL-terminated (a stream held so far). */
bool awsmsg_is_throttled(const char *text, size_t len);

#endif
