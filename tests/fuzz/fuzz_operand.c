/* SPDX-License-Identifier: ISC
 * Copyright (c) 2026 The fscp authors.  See LICENSE. */
/* Fuzz one scp operand (colon(), [user@]host:path, scp:// URIs) and the
 * number parsers operands and options share (strtonum, scan_scaled). */
#include "config.h"
#include "fuzz.h"
#include "util/number.h"
#include "policy/operand.h"

#include <errno.h>

static void
check_operand(const char *s)
{
	struct fscp_operand op;
	const char *colon = operand_colon(s);
	char *base;

	if (colon != NULL && (colon < s || colon >= s + strlen(s) || *colon != ':'))
		abort();
	if (operand_parse(s, &op) != OPERAND_OK) {
		/* On error nothing is left to free. */
		if (op.user != NULL || op.host != NULL || op.path != NULL)
			abort();
		return;
	}
	if (op.path == NULL || (op.remote && op.host == NULL) ||
	    (!op.remote && strcmp(op.path, s) != 0) ||
	    (op.port != -1 && (op.port < 1 || op.port > 65535)))
		abort();
	if (op.user != NULL)
		(void)operand_okname(op.user);
	base = operand_basename(op.path);
	if (strlen(base) > strlen(op.path))
		abort();
	free(base);
	operand_free(&op);
}

static void
check_numbers(const char *s)
{
	long long v = 0;
	int err = 0;
	const char *errstr;

	if (number_scan_scaled(s, &v, &err) != 0 && err != EINVAL && err != ERANGE)
		abort();
	v = number_strtonum(s, 1, 100LL * 1024 * 1024, &errstr);
	if (errstr == NULL && (v < 1 || v > 100LL * 1024 * 1024))
		abort();
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = fuzz_cstring(data, size);

	check_operand(s);
	check_numbers(s);
	free(s);
	return 0;
}
