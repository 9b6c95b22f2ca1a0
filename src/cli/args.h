/* SPDX-License-Identifier: ISC
 * Copyright (c) 2026 The fscp authors.  See LICENSE. */
/* args: scp's command-line grammar (OpenSSH 9.2 scp.c main()), pure.
 *
 * args_parse() never prints and never exits: it fills struct fscp_opts and
 * returns what scp would do, with the message scp would print in diag.
 */
#ifndef FSCP_ARGS_H
#define FSCP_ARGS_H

#include <stdbool.h>
#include <stddef.h>
#include "policy/options.h"

enum args_status {
	ARGS_OK = 0,
	ARGS_USAGE = 1,		/* print diag (if any) as "<argv0>: diag\r\n", then usage, exit 1 */
	ARGS_VERSION = 2,	/* "--version" as the whole first argument: print versions, exit 0 */
	ARGS_FATAL = 255,	/* print "<argv0>: diag\r\n", exit 255 */
};

/* Parse argv as OpenSSH 9.2 scp does (BSD getopt, no permutation, "--").
 * The one addition: argv[1] exactly "--version", alone, gives ARGS_VERSION
 * (scp rejects every such command line as "unknown option -- -"); with
 * more words after it, a usage error "--version takes no arguments".
 * argv[0] is the program name.  Operand count is checked too (< 2 without
 * -t/-f is a usage error).  o is reset first; call args_free(o) afterwards
 * whatever the result.  String fields point into argv.  Usage errors with no
 * getopt message leave diag empty. */
enum args_status args_parse(int argc, char **argv, struct fscp_opts *o);
void args_free(struct fscp_opts *o);
/* The FSCP_* variables into o (an empty one counts as unset).  0, or -1
 * with the message for a bad value in o->diag: the caller prints it as
 * "<argv0>: diag\r\n" and exits 1 before anything is copied. */
int args_read_env(struct fscp_opts *o);
/* The per-host route setting files into conf, and o->conf = conf (call
 * after args_read_env): the system file ($FSCP_SYSTEM_CONFIG, else
 * SYSCONFDIR/fscp/config) and the user's ($FSCP_CONFIG, else
 * $XDG_CONFIG_HOME/fscp/config, else ~/.config/fscp/config).  A default
 * path that does not exist is no file; one the variable names must exist.
 * 0, or -1 with the message in o->diag (exit 1, as args_read_env). */
struct fscpconf;
int args_read_config(struct fscp_opts *o, struct fscpconf *conf);

/* scp's usage text with prog in place of "scp" (NULL means "scp"), ending
 * in "\n".  The continuation lines keep scp's fixed 11-space indent, so pass
 * "scp" for byte-identical output: real scp prints "usage: scp" whatever
 * argv[0] is (checked), unlike its getopt diagnostics, which use argv[0]. */
const char *args_usage(const char *prog, char *buf, size_t len);
/* The name the usage text gives: the base name of argv[0], so fscp
 * installed or linked as "scp" prints scp's usage byte for byte; "fscp"
 * when argv[0] is missing or empty.  Points into argv0. */
const char *args_progname(const char *argv0);

#endif
