/* SPDX-License-Identifier: ISC
 * Copyright (c) 2026 The fscp authors.  See LICENSE. */
/* shwords: a shell-like command line split into words, as far as fscp
 * needs to read a ProxyCommand (policy/ssmcmd). */
#ifndef FSCP_SHWORDS_H
#define FSCP_SHWORDS_H

#include <stdbool.h>

/* Split a shell-like command line into words (quotes and backslashes
 * removed, no expansion).  Shell operators ; & | && || ( ) become words of
 * their own.  Returns a NULL-terminated malloc'd vector or NULL on
 * unbalanced quotes. */
char **shwords_split(const char *s);
void shwords_free(char **w);
/* Whether word w is one of the operators shwords_split() makes words of. */
bool shwords_is_op(const char *w);
/* Whether word w is a VAR=value assignment, as a shell takes it before a
 * command's name. */
bool shwords_is_assignment(const char *w);
/* A command word's program name without its directory. */
const char *shwords_base_name(const char *w);

#endif
