/* args: scp's command-line grammar (OpenSSH 9.2 scp.c main()), pure.
 *
 * args_parse() never prints and never exits: it fills struct fscp_opts and
 * returns what scp would do, with the message scp would print in diag.
 */
#ifndef FSCP_ARGS_H
#define FSCP_ARGS_H

#include <stdbool.h>
#include <stddef.h>
#include "util/strv.h"

enum args_status {
	ARGS_OK = 0,
	ARGS_USAGE = 1,		/* print diag (if any) as "<argv0>: diag\r\n", then usage, exit 1 */
	ARGS_VERSION = 2,	/* "--version" as the whole first argument: print versions, exit 0 */
	ARGS_FATAL = 255,	/* print "<argv0>: diag\r\n", exit 255 */
};

struct fscp_opts {
	/* Options handed to ssh, in command-line order, exactly as scp appends
	 * them to its ssh argv: -4 -6 -A -C -v -q, "-c" x, "-i" x, "-F" x,
	 * "-J" x, "-o" x, "-oBatchmode=yes" for -B.  Not the fixed leading
	 * options (-x -oPermitLocalCommand=no ...) nor -oForwardAgent=no, nor -p/-l. */
	struct strv ssh_args;

	const char *ssh_program;	/* -S; "ssh" by default */
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

	long long limit_bps;		/* -l Kbit/s * 1024, in bit/s; 0 = none */
	size_t sftp_buflen;		/* -X buffer=N; 0 = default (server maximum) */
	unsigned sftp_nrequests;	/* -X nrequests=N; 0 = default */

	/* fscp's own knobs, read from the environment once (args_read_env):
	 * FSCP_ROUTE, FSCP_CONNECTIONS, FSCP_SSM_DIRECT, FSCP_SSM_START_CPU. */
	int route_force;		/* enum route_force */
	int connections;		/* 1..ROUTE_MAX_CONNS; 0: fscp chooses */
	const char *ssm_direct;		/* "off", an address, or NULL (auto) */
	double ssm_start_cpu_s;		/* CPU one aws CLI start burns; 0: default */

	char **operands;		/* points into argv */
	int noperands;

	char diag[512];			/* message for ARGS_USAGE / ARGS_FATAL */
};

/* Parse argv as OpenSSH 9.2 scp does (BSD getopt, no permutation, "--").
 * The one addition: argv[1] exactly "--version" gives ARGS_VERSION (scp
 * rejects every such command line as "unknown option -- -").
 * argv[0] is the program name.  Operand count is checked too (< 2 without
 * -t/-f is a usage error).  o is reset first; call args_free(o) afterwards
 * whatever the result.  String fields point into argv.  Usage errors with no
 * getopt message leave diag empty. */
enum args_status args_parse(int argc, char **argv, struct fscp_opts *o);
void args_free(struct fscp_opts *o);
/* The FSCP_* variables into o; what is not understood is said under -v
 * (call after the log level is set) and left at its default. */
void args_read_env(struct fscp_opts *o);

/* scp's usage text with prog in place of "scp" (NULL means "scp"), ending
 * in "\n".  The continuation lines keep scp's fixed 11-space indent, so pass
 * "scp" for byte-identical output: real scp prints "usage: scp" whatever
 * argv[0] is (checked), unlike its getopt diagnostics, which use argv[0]. */
const char *args_usage(const char *prog, char *buf, size_t len);
/* The name the usage text gives: the base name of argv[0], so fscp
 * installed or linked as "scp" prints scp's usage byte for byte; "fscp"
 * when argv[0] is missing or empty.  Points into argv0. */
const char *args_progname(const char *argv0);

/* Helpers with OpenSSH's semantics, shared with operand.c. */
/* OpenBSD strtonum(): base 10, whole string; *errstr is NULL or one of
 * "invalid", "too small", "too large" (scp prints these words). */
long long args_strtonum(const char *s, long long lo, long long hi,
    const char **errstr);
/* misc.c a2port(): 0..65535 or a tcp service name; -1 when neither. */
int args_a2port(const char *s);
/* OpenBSD scan_scaled(): "64K", "1.5M", ...; 0 on success, else -1 with
 * *err set to EINVAL or ERANGE. */
int args_scan_scaled(const char *s, long long *result, int *err);

#endif
