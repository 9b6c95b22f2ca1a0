/* SPDX-License-Identifier: ISC
 * Copyright (c) 2026 The fscp authors.  See LICENSE. */
/* hostkey-try: what fscp's bypass decides about a host's key, for the
 * differential test against ssh (tests/integration/hostkey-diff.sh).
 *
 *   hostkey-try [scp options...] HOST
 *
 * Reads HOST's effective config with ssh -G exactly as fscp does (the scp
 * options, e.g. -F FILE -o X=Y -P PORT, mapped as scp maps them), connects
 * as the bypass routes do, verifies the host key (no login) and prints one
 * word: "accept" (also when the key was added: compare known_hosts),
 * "refuse", "defer" (ssh must decide) or "error" (no verdict: connect
 * failed).  Exit 0 with a verdict, 1 otherwise. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/log.h"
#include "util/strv.h"
#include "policy/sshcfg.h"
#include "transport/sshconn.h"
#include "cli/args.h"

int
main(int argc, char **argv)
{
	struct fscp_opts o;
	struct sshcfg cfg;
	struct sshconn_params p = { .cfg = &cfg, .proxy_fd = -1, .probe_only = true };
	struct sshconn *c = NULL;
	struct strv av = { 0 };
	char err[4096];
	const char *word;
	int rc = 1;

	if (argc < 2) {
		fprintf(stderr, "usage: hostkey-try [scp options] HOST\n");
		return 1;
	}
	log_init("hostkey-try", 0);
	/* scp's grammar turns the options into ssh's, as for a real copy. */
	strv_push(&av, "scp");
	for (int i = 1; i < argc - 1; i++)
		strv_push(&av, argv[i]);
	strv_pushf(&av, "%s:x", argv[argc - 1]);
	strv_push(&av, ".");
	if (args_parse((int)av.n, av.v, &o) != ARGS_OK) {
		fprintf(stderr, "hostkey-try: bad options: %s\n", o.diag);
		goto out;
	}
	if (sshcfg_load(&o, NULL, argv[argc - 1], o.port, &cfg, err, sizeof(err)) != 0) {
		fprintf(stderr, "hostkey-try: ssh -G: %s\n", err);
		goto out;
	}
	switch (sshconn_open(&p, &c, err, sizeof(err))) {
	case SSHCONN_OK:
		word = "accept";
		break;
	case SSHCONN_ERR_HOSTKEY:
		word = "refuse";
		break;
	case SSHCONN_ERR_HOSTKEY_DEFER:
		word = "defer";
		break;
	default:
		word = "error";
		break;
	}
	if (strcmp(word, "accept") != 0)
		fprintf(stderr, "hostkey-try: %s\n", err);
	printf("%s\n", word);
	rc = strcmp(word, "error") == 0;
	sshconn_close(c);
	sshcfg_free(&cfg);
out:
	args_free(&o);
	strv_free(&av);
	return rc;
}
