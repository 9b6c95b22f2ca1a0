/* SPDX-License-Identifier: ISC
 * Copyright (c) 2026 The fscp authors.  See LICENSE. */
/* ssmcmd: whether a ProxyCommand starts an AWS SSM session, and with what
 * target, document, profile, region and port. */
#ifndef FSCP_SSMCMD_H
#define FSCP_SSMCMD_H

#include <stdbool.h>

struct ssmcmd {
	char *target;		/* --target value, tokens unexpanded (often "%h") */
	char *document;		/* --document-name */
	char *profile;		/* --profile, or AWS_PROFILE=..., or NULL */
	char *region;		/* --region, or AWS_REGION/AWS_DEFAULT_REGION=... */
	char *port_param;	/* portNumber value from --parameters, or NULL */
	bool plugin;		/* session-manager-plugin run directly */
};

/* True when proxycommand starts an AWS SSM SSH session (aws ssm
 * start-session --document-name AWS-StartSSHSession, or
 * session-manager-plugin), also wrapped in sh/bash -c, env, exec, VAR=val
 * assignments or aws-vault exec.  info may be NULL; when given it is filled
 * (free with ssmcmd_free) only on true. */
bool ssmcmd_match(const char *proxycommand, struct ssmcmd *info);
void ssmcmd_free(struct ssmcmd *info);

#endif
