/* SPDX-License-Identifier: ISC
 * Copyright (c) 2026 The fscp authors.  See LICENSE. */
/* Fuzz scp's command-line grammar: the input is an argv, words separated by
 * NUL bytes, after argv[0] "scp".  Every operand args_parse() accepts then
 * goes through the operand parser as main() would hand it on. */
#include "config.h"
#include "fuzz.h"
#include "policy/operand.h"
#include "cli/args.h"

#define FUZZ_MAX_WORDS 64

static void
check_operands(const struct fscp_opts *o)
{
	for (int i = 0; i < o->noperands; i++) {
		struct fscp_operand op;
		char *base;

		if (operand_parse(o->operands[i], &op) != OPERAND_OK)
			continue;
		if (op.remote && op.host == NULL)
			abort();
		if (op.user != NULL)
			(void)operand_okname(op.user);
		base = operand_basename(op.path);
		free(base);
		operand_free(&op);
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf = fuzz_cstring(data, size);
	char *argv[FUZZ_MAX_WORDS + 2];
	int argc = 1;
	struct fscp_opts o;
	char usage[512];

	argv[0] = "scp";
	/* Words are NUL-separated; the final one ends at the appended NUL. */
	for (size_t i = 0; argc <= FUZZ_MAX_WORDS; ) {
		argv[argc++] = buf + i;
		i += strlen(buf + i) + 1;
		if (i > size)
			break;
	}
	argv[argc] = NULL;
	switch (args_parse(argc, argv, &o)) {
	case ARGS_OK:
		if (o.noperands < 2 && !o.server_to && !o.server_from)
			abort();
		if (o.ssh_args.n > 0 && o.ssh_args.v[o.ssh_args.n] != NULL)
			abort();
		/* The ranges scp enforces (-P, -l, -X buffer=). */
		if ((o.port != -1 && (o.port < 1 || o.port > 65535)) ||
		    o.limit_bps < 0 || o.sftp_buflen > 256 * 1024)
			abort();
		check_operands(&o);
		break;
	case ARGS_VERSION:	/* "--version" first: nothing else parsed */
		break;
	case ARGS_USAGE:
	case ARGS_FATAL:
		if (memchr(o.diag, '\0', sizeof(o.diag)) == NULL)
			abort();
		break;
	default:
		abort();
	}
	(void)args_usage(argv[0], usage, sizeof(usage));
	args_free(&o);
	free(buf);
	return 0;
}
