/* SPDX-License-Identifier: ISC
 * Copyright (c) 2026 The fscp authors.  See LICENSE. */
/* Fuzz the `ssh -G` reader: any text, as if ssh (or whatever -S names)
 * printed it, then the follow-up steps sshcfg_load() and the route take on
 * the result. */
#include "config.h"
#include "fuzz.h"
#include "policy/sshcfg.h"
#include "policy/ssmcmd.h"
#include "policy/proxyjump.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_cstring(data, size);
	struct sshcfg cfg;

	(void)sshcfg_parse(text, &cfg);
	sshcfg_expand_tilde(&cfg, "/home/fuzz");
	(void)sshcfg_has_controlpath(&cfg);
	if (cfg.proxycommand != NULL) {
		struct ssmcmd ssm;

		if (ssmcmd_match(cfg.proxycommand, &ssm))
			ssmcmd_free(&ssm);
	}
	if (cfg.proxyjump != NULL) {
		struct proxyjump_hop *hops;
		int n = proxyjump_parse(cfg.proxyjump, &hops);

		if (n > 0)
			proxyjump_free(hops, n);
	}
	sshcfg_free(&cfg);
	free(text);
	return 0;
}
