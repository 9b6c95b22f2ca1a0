/* SPDX-License-Identifier: ISC
 * Copyright (c) 2026 The fscp authors.  See LICENSE. */
/* Fuzz the route setting files' parser: any text as a user's or system's
 * fscp/config, then the per-host lookup over what it kept. */
#include "config.h"
#include "fuzz.h"
#include "policy/fscpconf.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const hosts[] = { "", "db-1", "a.b.example.com", "::1", "*", "!x" };
	char *text = fuzz_cstring(data, size), err[512], why[256];
	struct fscpconf conf;
	bool from_file;

	memset(&conf, 0, sizeof(conf));
	if (fscpconf_parse("fuzz", text, &conf.sys, err, sizeof(err)) == 0 &&
	    fscpconf_parse("fuzz", text, &conf.user, err, sizeof(err)) == 0)
		for (size_t i = 0; i < sizeof(hosts) / sizeof(hosts[0]); i++)
			(void)fscpconf_route(&conf, hosts[i], i % 2 == 0, ROUTE_FORCE_BYPASS, why,
			    sizeof(why), &from_file);
	fscpconf_free(&conf);
	free(text);
	return 0;
}
