/* SPDX-License-Identifier: ISC
 * Copyright (c) 2026 The fscp authors.  See LICENSE. */
#include "config.h"
#include "policy/awsmsg.h"

#include <string.h>

/* "An error occurred (ThrottlingException) when calling the StartSession
 * operation (reached max retries: 2): Rate exceeded": the exception's name
 * is what stays the same across aws CLI versions. */
bool
awsmsg_is_throttled(const char *text, size_t len)
{
	static const char name[] = "ThrottlingException";

	return text != NULL && memmem(text, len, name, sizeof(name) - 1) != NULL;
}
