/* SPDX-License-Identifier: ISC
 * Copyright (c) 2026 The fscp authors.  See LICENSE. */
/* options: what the user asked for, as scp's command line and fscp's
 * FSCP_* variables said it (cli/args fills it in).  Every layer below
 * reads it; nothing below the command line writes it. */
#ifndef FSCP_OPTIONS_H
#define FSCP_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>

#include "util/strv.h"

struct fscpconf;

struct fscp_opts {
	/* Options handed to ssh, in command-line order, exactly as scp appends
	 * them to its ssh argv: -4 -6 -A -C -v -q, "-c" x, "-i" x, "-F" x,
	 * "-J" x, "-o" x, "-oBatchmode=yes" for -B.  Not the fixed leading
	 * options (-x -oPermitLocalCommand=no ...) nor -oForwardAgent=no, nor -p/-l. */
	struct strv ssh_args;

	const char *ssh_program;	/* -S; FSCP_SSH_PROGRAM (configure) by default */
	const char *sftp_direct;	/* -D; NULL unless given */
	const char *ssh_config;		/* last -F, or NULL */
	const char *identity;		/* last -i, or NULL */
	const char *jump;		/* last -J, or NULL */
	const char *cipher;		/* last -c, or NULL */
	int family;			/* 0, 4 or 6 (last of -4/-6) */
	int port;			/* -P as a number; -1 when not given */

	bool forward_agent;		/* -A */
	bool batchmode;			/* -B */
	bool compress;			/* -C */
	bool legacy;			/* -O (legacy scp protocol); -s clears it */
	bool preserve;			/* -p */
	bool quiet;			/* -q */
	bool recursive;			/* -r */
	bool throughlocal;		/* true by default and with -3; -R clears it */
	bool no_strict_names;		/* -T */
	bool server_to;			/* -t (server sink mode) */
	bool server_from;		/* -f (server source mode) */
	bool target_dir;		/* -d */
	int verbose;			/* count of -v */
	bool resume;			/* --resume or FSCP_RESUME=1 */

	long long limit_bps;		/* -l Kbit/s * 1024, in bit/s; 0 = none */
	size_t sftp_buflen;		/* -X buffer=N; 0 = default (server maximum) */
	unsigned sftp_nrequests;	/* -X nrequests=N; 0 = default */

	/* fscp's own knobs, read from the environment once (args_read_env):
	 * FSCP_ROUTE, FSCP_CONNECTIONS, FSCP_SSM_DIRECT, FSCP_SSM_START_CPU,
	 * FSCP_VERBOSE, FSCP_RESUME. */
	int route_force;		/* enum route_force */
	bool route_force_set;		/* FSCP_ROUTE was given (not empty) */
	bool verbose_route;		/* FSCP_VERBOSE=route: route lines without -v */
	/* The per-host route setting files (args_read_config); NULL: none read. */
	const struct fscpconf *conf;
	int connections;		/* 1..ROUTE_MAX_CONNS; 0: fscp chooses */
	const char *ssm_direct;		/* "off", an address, or NULL (auto) */
	double ssm_start_cpu_s;		/* CPU one aws CLI start burns; 0: default */

	char **operands;		/* points into argv */
	int noperands;

	char diag[512];			/* message for ARGS_USAGE / ARGS_FATAL */
};

#endif
