/* SPDX-License-Identifier: ISC
 * Copyright (c) 2026 The fscp authors.  See LICENSE. */
/* Fuzz ProxyCommand handling: % token expansion (both token sets), the
 * shell-word splitter, the AWS SSM recogniser and ProxyJump specs.  Pure
 * functions only: nothing is spawned. */
#include "config.h"
#include "fuzz.h"
#include "policy/proxyjump.h"
#include "policy/proxytok.h"
#include "policy/shwords.h"
#include "policy/ssmcmd.h"

static const struct proxytok fuzz_tokens = {
	.host = "host.example", .host_arg = "alias", .keyalias = NULL,
	.remote_user = "user", .port = 2222, .local_user = "me",
	.local_host = "here.local", .short_host = "here", .home = "/home/me",
	.uid = "1000", .jump = "", .conn_hash = "0123456789abcdef0123456789abcdef01234567",
};

static void
check_expand(const char *s, enum proxytok_set set)
{
	char err[128] = "";
	char *out = proxytok_expand(s, &fuzz_tokens, set, err, sizeof(err));

	if (out == NULL && err[0] == '\0')
		abort();		/* a failure always says why */
	free(out);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = fuzz_cstring(data, size);
	struct ssmcmd ssm;
	struct proxyjump_hop *hops;
	char **w;
	int n;

	check_expand(s, PROXYTOK_PROXY);
	check_expand(s, PROXYTOK_ALL);
	if ((w = shwords_split(s)) != NULL)
		shwords_free(w);
	if (ssmcmd_match(s, &ssm))
		ssmcmd_free(&ssm);
	(void)ssmcmd_match(s, NULL);
	(void)proxyjump_via_ssh(s);
	if ((n = proxyjump_parse(s, &hops)) > 0) {
		for (int i = 0; i < n; i++)
			if (hops[i].host == NULL || hops[i].host[0] == '\0' ||
			    (hops[i].port != -1 && (hops[i].port < 1 || hops[i].port > 65535)))
				abort();	/* ssh refuses such a hop */
		proxyjump_free(hops, n);
	} else if (n != -1 || hops != NULL)
		abort();
	free(s);
	return 0;
}
