/* SPDX-License-Identifier: ISC AND SSH-short AND BSD-2-Clause AND BSD-3-Clause
 * Copyright (c) 2026 The fscp authors.  See LICENSE. */
/* args: scp's command-line grammar (OpenSSH 9.2 scp.c main()), pure; then
 * fscp's own settings: the FSCP_* variables and the route setting files
 * (args_read_env, args_read_config), each bad value an error for main.
 *
 * The option scanner is not glibc's: glibc getopt permutes arguments and
 * words its diagnostics differently, while scp uses OpenBSD's getopt, which
 * stops at the first operand and prints "unknown option -- c"; args_next()
 * follows that one.
 *
 * args_next() is derived from the short-option path of getopt_internal()
 * in OpenBSD's getopt_long.c, as OpenSSH carries it in openbsd-compat (the
 * same scanning state and checks in the same order), and args_parse() and
 * args_sftp_option() from the option switch of main() in OpenSSH's scp.c
 * (its getopt string, limits and -X parsing).  Their notices, as their
 * licences require:
 *
 * getopt_long.c:
 * Copyright (c) 2002 Todd C. Miller <Todd.Miller@courtesan.com>
 *
 * Permission to use, copy, modify, and distribute this software for any
 * purpose with or without fee is hereby granted, provided that the above
 * copyright notice and this permission notice appear in all copies.
 *
 * THE SOFTWARE IS PROVIDED "AS IS" AND THE AUTHOR DISCLAIMS ALL WARRANTIES
 * WITH REGARD TO THIS SOFTWARE INCLUDING ALL IMPLIED WARRANTIES OF
 * MERCHANTABILITY AND FITNESS. IN NO EVENT SHALL THE AUTHOR BE LIABLE FOR
 * ANY SPECIAL, DIRECT, INDIRECT, OR CONSEQUENTIAL DAMAGES OR ANY DAMAGES
 * WHATSOEVER RESULTING FROM LOSS OF USE, DATA OR PROFITS, WHETHER IN AN
 * ACTION OF CONTRACT, NEGLIGENCE OR OTHER TORTIOUS ACTION, ARISING OUT OF
 * OR IN CONNECTION WITH THE USE OR PERFORMANCE OF THIS SOFTWARE.
 *
 * Sponsored in part by the Defense Advanced Research Projects
 * Agency (DARPA) and Air Force Research Laboratory, Air Force
 * Materiel Command, USAF, under agreement number F39502-99-1-0512.
 *
 * Copyright (c) 2000 The NetBSD Foundation, Inc.
 * All rights reserved.
 *
 * This code is derived from software contributed to The NetBSD Foundation
 * by Dieter Baron and Thomas Klausner.
 *
 * Redistribution and use in source and binary forms, with or without
 * modification, are permitted provided that the following conditions
 * are met:
 * 1. Redistributions of source code must retain the above copyright
 *    notice, this list of conditions and the following disclaimer.
 * 2. Redistributions in binary form must reproduce the above copyright
 *    notice, this list of conditions and the following disclaimer in the
 *    documentation and/or other materials provided with the distribution.
 *
 * THIS SOFTWARE IS PROVIDED BY THE NETBSD FOUNDATION, INC. AND CONTRIBUTORS
 * ``AS IS'' AND ANY EXPRESS OR IMPLIED WARRANTIES, INCLUDING, BUT NOT LIMITED
 * TO, THE IMPLIED WARRANTIES OF MERCHANTABILITY AND FITNESS FOR A PARTICULAR
 * PURPOSE ARE DISCLAIMED.  IN NO EVENT SHALL THE FOUNDATION OR CONTRIBUTORS
 * BE LIABLE FOR ANY DIRECT, INDIRECT, INCIDENTAL, SPECIAL, EXEMPLARY, OR
 * CONSEQUENTIAL DAMAGES (INCLUDING, BUT NOT LIMITED TO, PROCUREMENT OF
 * SUBSTITUTE GOODS OR SERVICES; LOSS OF USE, DATA, OR PROFITS; OR BUSINESS
 * INTERRUPTION) HOWEVER CAUSED AND ON ANY THEORY OF LIABILITY, WHETHER IN
 * CONTRACT, STRICT LIABILITY, OR TORT (INCLUDING NEGLIGENCE OR OTHERWISE)
 * ARISING IN ANY WAY OUT OF THE USE OF THIS SOFTWARE, EVEN IF ADVISED OF THE
 * POSSIBILITY OF SUCH DAMAGE.
 *
 * scp.c:
 * 1995 Timo Rinne <tri@iki.fi>, Tatu Ylonen <ylo@cs.hut.fi>
 *
 * As far as I am concerned, the code I have written for this software
 * can be used freely for any purpose.  Any derived versions of this
 * software must be clearly marked as such, and if the derived work is
 * incompatible with the protocol description in the RFC file, it must be
 * called by a name other than "ssh" or "Secure Shell".
 *
 * Copyright (c) 1999 Theo de Raadt.  All rights reserved.
 * Copyright (c) 1999 Aaron Campbell.  All rights reserved.
 *
 * Redistribution and use in source and binary forms, with or without
 * modification, are permitted provided that the following conditions
 * are met:
 * 1. Redistributions of source code must retain the above copyright
 *    notice, this list of conditions and the following disclaimer.
 * 2. Redistributions in binary form must reproduce the above copyright
 *    notice, this list of conditions and the following disclaimer in the
 *    documentation and/or other materials provided with the distribution.
 *
 * THIS SOFTWARE IS PROVIDED BY THE AUTHOR ``AS IS'' AND ANY EXPRESS OR
 * IMPLIED WARRANTIES, INCLUDING, BUT NOT LIMITED TO, THE IMPLIED WARRANTIES
 * OF MERCHANTABILITY AND FITNESS FOR A PARTICULAR PURPOSE ARE DISCLAIMED.
 * IN NO EVENT SHALL THE AUTHOR BE LIABLE FOR ANY DIRECT, INDIRECT,
 * INCIDENTAL, SPECIAL, EXEMPLARY, OR CONSEQUENTIAL DAMAGES (INCLUDING, BUT
 * NOT LIMITED TO, PROCUREMENT OF SUBSTITUTE GOODS OR SERVICES; LOSS OF USE,
 * DATA, OR PROFITS; OR BUSINESS INTERRUPTION) HOWEVER CAUSED AND ON ANY
 * THEORY OF LIABILITY, WHETHER IN CONTRACT, STRICT LIABILITY, OR TORT
 * (INCLUDING NEGLIGENCE OR OTHERWISE) ARISING IN ANY WAY OUT OF THE USE OF
 * THIS SOFTWARE, EVEN IF ADVISED OF THE POSSIBILITY OF SUCH DAMAGE.
 *
 * Parts from:
 *
 * Copyright (c) 1983, 1990, 1992, 1993, 1995
 *	The Regents of the University of California.  All rights reserved.
 *
 * Redistribution and use in source and binary forms, with or without
 * modification, are permitted provided that the following conditions
 * are met:
 * 1. Redistributions of source code must retain the above copyright
 *    notice, this list of conditions and the following disclaimer.
 * 2. Redistributions in binary form must reproduce the above copyright
 *    notice, this list of conditions and the following disclaimer in the
 *    documentation and/or other materials provided with the distribution.
 * 3. Neither the name of the University nor the names of its contributors
 *    may be used to endorse or promote products derived from this software
 *    without specific prior written permission.
 *
 * THIS SOFTWARE IS PROVIDED BY THE REGENTS AND CONTRIBUTORS ``AS IS'' AND
 * ANY EXPRESS OR IMPLIED WARRANTIES, INCLUDING, BUT NOT LIMITED TO, THE
 * IMPLIED WARRANTIES OF MERCHANTABILITY AND FITNESS FOR A PARTICULAR PURPOSE
 * ARE DISCLAIMED.  IN NO EVENT SHALL THE REGENTS OR CONTRIBUTORS BE LIABLE
 * FOR ANY DIRECT, INDIRECT, INCIDENTAL, SPECIAL, EXEMPLARY, OR CONSEQUENTIAL
 * DAMAGES (INCLUDING, BUT NOT LIMITED TO, PROCUREMENT OF SUBSTITUTE GOODS
 * OR SERVICES; LOSS OF USE, DATA, OR PROFITS; OR BUSINESS INTERRUPTION)
 * HOWEVER CAUSED AND ON ANY THEORY OF LIABILITY, WHETHER IN CONTRACT, STRICT
 * LIABILITY, OR TORT (INCLUDING NEGLIGENCE OR OTHERWISE) ARISING IN ANY WAY
 * OUT OF THE USE OF THIS SOFTWARE, EVEN IF ADVISED OF THE POSSIBILITY OF
 * SUCH DAMAGE.
 */
#include "config.h"
#include "cli/args.h"
#include "util/log.h"
#include "util/number.h"
#include "policy/route.h"
#include "policy/fscpconf.h"
#include "util/xmalloc.h"

#include <errno.h>
#include <limits.h>
#include <netdb.h>
#include <netinet/in.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The Makefile passes the configured sysconfdir; a build without it (the
 * fuzz harnesses) reads /etc. */
#ifndef FSCP_SYSCONFDIR
#define FSCP_SYSCONFDIR "/etc"
#endif

/* scp 9.2's getopt string, kept verbatim so the scanner agrees with scp on
 * which letters take an argument (M: is accepted but then rejected). */
static const char args_optstring[] = "12346ABCTdfOpqRrstvD:F:J:M:P:S:c:i:l:o:X:";

#define ARGS_LIMIT_MAX_KBIT	(100LL * 1024 * 1024)
#define ARGS_BUFLEN_MAX		(256LL * 1024)
#define ARGS_NREQUESTS_MAX	(256LL * 1024)

/* BSD getopt state: the index of the word being scanned and the position
 * inside a cluster of flags ("" when a new word must be started). */
struct args_scan {
	int ind;
	const char *place;
	const char *optarg;
};

/* Next option letter, -1 when options end, '?' on error (diag filled). */
static int
args_next(int argc, char **argv, struct args_scan *st, char *diag, size_t dlen)
{
	const char *spec;
	int c;

	st->optarg = NULL;
	if (*st->place == '\0') {
		if (st->ind >= argc)
			return -1;
		st->place = argv[st->ind];
		/* an operand, or a lone "-", ends the options */
		if (st->place[0] != '-' || st->place[1] == '\0') {
			st->place = "";
			return -1;
		}
		st->place++;
		if (strcmp(st->place, "-") == 0) {
			st->ind++;
			st->place = "";
			return -1;
		}
	}
	c = (unsigned char)*st->place++;
	spec = c == ':' || c == '-' ? NULL : strchr(args_optstring, c);
	if (spec == NULL) {
		/* BSD quirk: a '-' ending a cluster ("-r-") ends the options
		 * and leaves that whole word as the first operand. */
		if (c == '-' && *st->place == '\0')
			return -1;
		if (*st->place == '\0')
			st->ind++;
		snprintf(diag, dlen, "unknown option -- %c", c);
		return '?';
	}
	if (spec[1] != ':') {
		if (*st->place == '\0')
			st->ind++;
		return c;
	}
	if (*st->place != '\0') {
		st->optarg = st->place;
	} else if (++st->ind >= argc) {
		st->place = "";
		snprintf(diag, dlen, "option requires an argument -- %c", c);
		return '?';
	} else {
		st->optarg = argv[st->ind];
	}
	st->place = "";
	st->ind++;
	return c;
}

static enum args_status args_fail(struct fscp_opts *o, enum args_status st,
    const char *fmt, ...) FSCP_PRINTF(3, 4);

static enum args_status
args_fail(struct fscp_opts *o, enum args_status st, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(o->diag, sizeof(o->diag), fmt, ap);
	va_end(ap);
	return st;
}

/* args_fail for a bad FSCP_* value: -1, the message in diag. */
#define args_env_bad(o, ...) (args_fail((o), ARGS_USAGE, __VA_ARGS__), -1)

static enum args_status
args_sftp_option(struct fscp_opts *o, const char *arg)
{
	const char *val, *err;
	long long v;
	int e = 0;

	if (strncmp(arg, "buffer=", 7) == 0) {
		val = arg + 7;
		if (number_scan_scaled(val, &v, &e) == 0 &&
		    (v <= 0 || v > ARGS_BUFLEN_MAX))
			e = EINVAL;
		if (e != 0)
			return args_fail(o, ARGS_FATAL, "Invalid buffer size \"%s\": %s",
			    val, e == ERANGE ? "Numerical result out of range" :
			    "Invalid argument");
		o->sftp_buflen = (size_t)v;
	} else if (strncmp(arg, "nrequests=", 10) == 0) {
		val = arg + 10;
		v = number_strtonum(val, 1, ARGS_NREQUESTS_MAX, &err);
		if (err != NULL)
			return args_fail(o, ARGS_FATAL,
			    "Invalid number of requests \"%s\": %s", val, err);
		o->sftp_nrequests = (unsigned)v;
	} else {
		return args_fail(o, ARGS_FATAL, "Invalid -X option");
	}
	return ARGS_OK;
}

enum args_status
args_parse(int argc, char **argv, struct fscp_opts *o)
{
	struct args_scan st = { 1, "", NULL };
	const char *err;
	enum args_status rc;
	long long v;
	int c;

	memset(o, 0, sizeof(*o));
	o->ssh_program = FSCP_SSH_PROGRAM;
	o->port = -1;
	o->throughlocal = true;
	/* Only the whole first word: scp's getopt takes any "--x" for the
	 * unknown option "-", so no scp command line that works changes
	 * meaning, and "-- --version" or "a --version" stay operands.  No -V:
	 * a letter could cluster ("-rV a b" would exit 0 having copied
	 * nothing) and is OpenSSH's to assign some day. */
	if (argc > 1 && strcmp(argv[1], "--version") == 0) {
		if (argc > 2)
			return args_fail(o, ARGS_USAGE, "--version takes no arguments");
		return ARGS_VERSION;
	}
	/* --resume the same way: only as the first word, so it never meets
	 * scp's own options or operands. */
	if (argc > 1 && strcmp(argv[1], "--resume") == 0) {
		o->resume = true;
		st.ind = 2;
	}

	while ((c = args_next(argc, argv, &st, o->diag, sizeof(o->diag))) != -1) {
		switch (c) {
		case '1':
			return args_fail(o, ARGS_FATAL,
			    "SSH protocol v.1 is no longer supported");
		case '2':
			break;
		case '3':
			o->throughlocal = true;
			break;
		case 'R':
			o->throughlocal = false;
			break;
		case '4':
		case '6':
			o->family = c - '0';
			strv_pushf(&o->ssh_args, "-%c", c);
			break;
		case 'A':
			o->forward_agent = true;
			strv_push(&o->ssh_args, "-A");
			break;
		case 'C':
			o->compress = true;
			strv_push(&o->ssh_args, "-C");
			break;
		case 'B':
			o->batchmode = true;
			/* spelled this way by scp itself */
			strv_push(&o->ssh_args, "-oBatchmode=yes");
			break;
		case 'c':
		case 'i':
		case 'F':
		case 'J':
		case 'o':
			if (c == 'c')
				o->cipher = st.optarg;
			else if (c == 'i')
				o->identity = st.optarg;
			else if (c == 'F')
				o->ssh_config = st.optarg;
			else if (c == 'J')
				o->jump = st.optarg;
			strv_pushf(&o->ssh_args, "-%c", c);
			strv_push(&o->ssh_args, st.optarg);
			break;
		case 'D':
			o->sftp_direct = st.optarg;
			break;
		case 'O':
			o->legacy = true;
			break;
		case 's':
			o->legacy = false;
			break;
		case 'P':
			o->port = number_a2port(st.optarg);
			if (o->port <= 0)
				/* scp's message really has a newline before its CR LF */
				return args_fail(o, ARGS_FATAL, "bad port \"%s\"\n",
				    st.optarg);
			break;
		case 'l':
			v = number_strtonum(st.optarg, 1, ARGS_LIMIT_MAX_KBIT, &err);
			if (err != NULL)
				return args_fail(o, ARGS_USAGE, "%s", "");
			o->limit_bps = v * 1024;
			break;
		case 'p':
			o->preserve = true;
			break;
		case 'r':
			o->recursive = true;
			break;
		case 'S':
			o->ssh_program = st.optarg;
			break;
		case 'v':
			o->verbose++;
			strv_push(&o->ssh_args, "-v");
			break;
		case 'q':
			o->quiet = true;
			strv_push(&o->ssh_args, "-q");
			break;
		case 'X':
			if ((rc = args_sftp_option(o, st.optarg)) != ARGS_OK)
				return rc;
			break;
		case 'd':
			o->target_dir = true;
			break;
		case 'f':
			o->server_from = true;
			break;
		case 't':
			o->server_to = true;
			break;
		case 'T':
			o->no_strict_names = true;
			break;
		case '?':
			return ARGS_USAGE;	/* diag already set by the scanner */
		default:
			/* -M: in scp's getopt string, but main() has no case */
			return args_fail(o, ARGS_USAGE, "%s", "");
		}
	}
	o->operands = argv + st.ind;
	o->noperands = argc - st.ind;
	if (o->noperands < 2 && !o->server_to && !o->server_from)
		return args_fail(o, ARGS_USAGE, "%s", "");
	return ARGS_OK;
}

void
args_free(struct fscp_opts *o)
{
	strv_free(&o->ssh_args);
}

const char *
args_progname(const char *argv0)
{
	const char *slash;

	if (argv0 == NULL || *argv0 == '\0')
		return "fscp";
	slash = strrchr(argv0, '/');
	if (slash == NULL)
		return argv0;
	return slash[1] != '\0' ? slash + 1 : "fscp";
}

const char *
args_usage(const char *prog, char *buf, size_t len)
{
	/* scp prints a fixed string; the continuation lines keep their fixed
	 * 11-column indent whatever the program is called. */
	snprintf(buf, len,
	    "usage: %s [-346ABCOpqRrsTv] [-c cipher] [-D sftp_server_path] [-F ssh_config]\n"
	    "           [-i identity_file] [-J destination] [-l limit] [-o ssh_option]\n"
	    "           [-P port] [-S program] [-X sftp_option] source ... target\n",
	    prog != NULL ? prog : "scp");
	return buf;
}

/* A variable's value; NULL when unset or empty (empty means unset). */
static const char *
args_env(const char *name)
{
	const char *v = getenv(name);

	return v != NULL && *v != '\0' ? v : NULL;
}

/* FSCP_SSM_DIRECT: off, auto, or a host name or address to try (IPv6 bare,
 * without brackets): nothing that could read as an option or hold a space. */
static bool
args_hostlike(const char *v)
{
	if (*v == '-' || *v == '.')
		return false;
	for (; *v != '\0'; v++)
		if (strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
		    "0123456789.-_:%", *v) == NULL)
			return false;
	return true;
}

int
args_read_env(struct fscp_opts *o)
{
	const char *v, *err;
	enum route_force f = ROUTE_FORCE_AUTO;
	char *end;

	o->route_force = ROUTE_FORCE_AUTO;
	o->route_force_set = false;
	if ((v = args_env("FSCP_ROUTE")) != NULL) {
		if (route_force_parse(v, &f) != 0)
			return args_env_bad(o, "FSCP_ROUTE: \"%s\" is not one of auto, "
			    "standard, bypass", v);
		o->route_force = f;
		o->route_force_set = true;
	}
	o->connections = 0;
	if ((v = args_env("FSCP_CONNECTIONS")) != NULL) {
		long long n = number_strtonum(v, 1, ROUTE_MAX_CONNS, &err);

		if (err != NULL)
			return args_env_bad(o, "FSCP_CONNECTIONS: \"%s\" is not a number "
			    "from 1 to %d", v, ROUTE_MAX_CONNS);
		o->connections = (int)n;
	}
	o->ssm_direct = NULL;
	if ((v = args_env("FSCP_SSM_DIRECT")) != NULL && strcmp(v, "auto") != 0) {
		if (!args_hostlike(v))
			return args_env_bad(o, "FSCP_SSM_DIRECT: \"%s\" is not auto, off, "
			    "a host name or an address", v);
		o->ssm_direct = v;
	}
	o->ssm_start_cpu_s = 0;
	if ((v = args_env("FSCP_SSM_START_CPU")) != NULL) {
		double d = strtod(v, &end);

		/* strtod also takes " 1", "inf", "0x1p2": seconds are digits */
		if (strspn(v, "0123456789.") != strlen(v) || *end != '\0' ||
		    !(d >= 0 && d <= 60))
			return args_env_bad(o, "FSCP_SSM_START_CPU: \"%s\" is not a number "
			    "of seconds from 0 to 60", v);
		o->ssm_start_cpu_s = d;
	}
	if ((v = args_env("FSCP_RESUME")) != NULL) {
		if (strcmp(v, "1") != 0 && strcmp(v, "0") != 0)
			return args_env_bad(o, "FSCP_RESUME: \"%s\" is not 0 or 1", v);
		if (strcmp(v, "1") == 0)
			o->resume = true;
	}
	o->verbose_route = false;
	if ((v = args_env("FSCP_VERBOSE")) != NULL) {
		if (strcmp(v, "route") != 0)
			return args_env_bad(o, "FSCP_VERBOSE: \"%s\" is not route", v);
		o->verbose_route = true;
	}
	return 0;
}

/* One setting file: the variable's path (must exist), else the default
 * (var or dflt NULL: none). */
static int
args_config_file(struct fscp_opts *o, const char *var, const char *dflt,
    struct fscpconf_file *f)
{
	const char *path = var != NULL ? args_env(var) : NULL;
	char err[sizeof(o->diag) - 64];
	int rc;

	if (path == NULL && dflt == NULL)
		return 0;
	rc = fscpconf_read(path != NULL ? path : dflt, path != NULL, f, err, sizeof(err));

	if (rc == 0)
		return 0;
	/* A file that cannot be read says which variable named it. */
	if (rc == -2 && path != NULL)
		return args_env_bad(o, "%s: %s", var, err);
	return args_env_bad(o, "%s", err);
}

int
args_read_config(struct fscp_opts *o, struct fscpconf *conf)
{
	const char *xdg = args_env("XDG_CONFIG_HOME"), *home = args_env("HOME");
	struct passwd *pw;
	char *user;
	int rc;

	memset(conf, 0, sizeof(*conf));
	/* The installed system file is always read: FSCP_SYSTEM_CONFIG only
	 * adds one after it, so no environment sets the admin's policy aside. */
	if (args_config_file(o, NULL, FSCP_SYSCONFDIR "/fscp/config", &conf->sys) != 0 ||
	    args_config_file(o, "FSCP_SYSTEM_CONFIG", NULL, &conf->sys2) != 0) {
		fscpconf_free(conf);
		return -1;
	}
	/* The XDG base directory rules: a relative XDG_CONFIG_HOME is ignored. */
	if (xdg != NULL && xdg[0] == '/') {
		user = xasprintf("%s/fscp/config", xdg);
	} else {
		if (home == NULL && (pw = getpwuid(getuid())) != NULL)
			home = pw->pw_dir;
		user = xasprintf("%s/.config/fscp/config", home != NULL ? home : "");
	}
	rc = args_config_file(o, "FSCP_CONFIG", user, &conf->user);
	free(user);
	if (rc != 0) {
		fscpconf_free(conf);
		return -1;
	}
	o->conf = conf;
	return 0;
}
