/* SPDX-License-Identifier: ISC
 * Copyright (c) 2026 The fscp authors.  See LICENSE. */
/* operand: what one scp operand names (misc.c colon(), parse_user_host_path(),
 * parse_uri("scp", ...), okname()); pure. */
#ifndef FSCP_OPERAND_H
#define FSCP_OPERAND_H

#include <stdbool.h>

struct fscp_operand {
	bool remote;
	bool is_uri;	/* came from scp://... */
	char *user;	/* NULL when none (or empty) */
	char *host;	/* brackets stripped; NULL for local */
	int port;	/* from a URI; -1 otherwise */
	char *path;	/* local path, or remote path ("." when empty) */
};

enum operand_status {
	OPERAND_OK = 0,
	OPERAND_INVALID_URI = -1,	/* scp prints "<arg>: invalid uri" */
};

/* scp's colon(): pointer to the colon that makes s remote, or NULL. */
const char *operand_colon(const char *s);
/* Parse one operand.  On error op is left zeroed (nothing to free). */
enum operand_status operand_parse(const char *arg, struct fscp_operand *op);
void operand_free(struct fscp_operand *op);
/* scp's okname(): false for a user name scp refuses ("invalid user name"). */
bool operand_okname(const char *user);
/* The last path component, as scp's basename use and progress meter see it
 * ("a/b/" -> "b"; "/" -> "/"; "" -> ""). Returns a newly allocated string:
 * free() it. */
char *operand_basename(const char *path);

#endif
