/* SPDX-License-Identifier: ISC AND SSH-short AND BSD-2-Clause AND BSD-3-Clause
 * Copyright (c) 2026 The fscp authors.  See LICENSE. */
/* scp_legacy: scp's legacy-mode drivers (see scp_legacy.h).
 *
 * In part derived from OpenSSH's scp.c: scp_legacy_remote() builds the ssh
 * command line as toremote() builds it for -R, and scp_legacy_server()
 * runs -f and -t as main() does; the rest is fscp's own.  Its notice, as
 * its licence requires:
 *
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
#include "scp/scp_legacy.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/log.h"
#include "util/strv.h"
#include "policy/operand.h"
#include "transport/sshproc.h"
#include "session/session.h"
#include "scp/scp_proto.h"
#include "scp/scp_sink.h"
#include "scp/scp_source.h"

void
scp_legacy_init(struct scp_legacy *l, const struct fscp_opts *o, struct progress *pm,
    struct bwlimit *bw)
{
	memset(l, 0, sizeof(*l));
	l->o = o;
	l->pm = pm;
	l->bw = bw;
}

/* scp's "cmd": the same options for -t and -f, -d with several sources. */
static struct scpp_cmd
remote_cmd(const struct fscp_opts *o)
{
	struct scpp_cmd c = {
		.verbose = o->verbose > 0,
		.recursive = o->recursive,
		.preserve = o->preserve,
		.target_dir = o->noperands > 2 || o->target_dir,
	};

	return c;
}

static struct scp_wire_opts
wire_opts(const struct scp_legacy *l)
{
	struct scp_wire_opts wo = {
		.preserve = l->o->preserve,
		.recursive = l->o->recursive,
		.no_strict = l->o->no_strict_names,
		.target_dir = l->o->noperands > 2 || l->o->target_dir,
		.verbose = l->o->verbose > 0,
		.pm = l->pm,
		.bw = l->bw,
	};

	return wo;
}

/* Let the current ssh child go (scp overwrites do_cmd_pid and never looks
 * at the old one); returns its exit status. */
static int
drop(struct scp_legacy *l)
{
	int rc;

	if (!l->open)
		return 0;
	scp_wire_free(&l->w);
	rc = l->st.ops->close(l->st.ctx);
	l->open = l->upload = l->check = false;
	return rc;
}

/* Run "scp ... -t|-f path" on host: over a libssh exec channel when the
 * route for about bytes says a bypass pays (bytes < -1: never, the caller
 * needs an ssh child), else over a new ssh child. */
static int
start(struct scp_legacy *l, const char *host, const char *user, int port, char dir,
    const char *path, long long bytes)
{
	struct scpp_cmd c = remote_cmd(l->o);
	char *cmd = scpp_command(&c, dir, path);
	struct scp_wire_opts wo = wire_opts(l);
	int rc = -1;

	drop(l);
	if (bytes >= -1)
		rc = session_exec_open(l->o, host, user, port, bytes, cmd, &l->st);
	if (rc < 0)
		rc = sshproc_exec(l->o, host, user, port, cmd, &l->st);
	free(cmd);
	if (rc < 0)
		return -1;
	l->open = l->check = true;
	scp_wire_init(&l->w, &l->st, &wo);
	return 0;
}

/* The conversation's end status, its fatal() message kept for main. */
static int
ended(struct scp_legacy *l)
{
	int st = scp_wire_ended(&l->w);

	if (st != 0 && l->w.fatal != NULL)
		snprintf(l->fatal, sizeof(l->fatal), "%s", l->w.fatal);
	return st;
}

int
scp_legacy_upload(struct scp_legacy *l, const char *host, const char *user, int port,
    const char *targ, const char *src_arg, long long bytes)
{
	char *names[1] = { (char *)src_arg };

	if (!l->open || !l->upload) {
		if (start(l, host, user, port, 't', targ, bytes) < 0)
			return 1;
		l->upload = true;
		/* The sink's first \0; anything else ends the copy. */
		if (scp_wire_response(&l->w) < 0)
			return 1;
	}
	scp_source_run(&l->w, names, 1);
	return ended(l);
}

int
scp_legacy_download(struct scp_legacy *l, const char *host, const char *user, int port,
    const char *src, const char *dst)
{
	if (start(l, host, user, port, 'f', src, -1) < 0) {
		log_count_error();
		return 0;
	}
	scp_sink_run(&l->w, dst, src);
	return ended(l);
}

int
scp_legacy_through_local(struct scp_legacy *l, const struct scp_legacy_end *src,
    const struct scp_legacy_end *targ)
{
	struct scpp_cmd c = remote_cmd(l->o);
	struct strv argv = { 0 };
	char *cmd;

	/* The second ssh needs the first one's socket: no bypass here. */
	if (start(l, src->host, src->user, src->port, 'f', src->path, -2) < 0)
		return 1;
	/* do_cmd2(): the target's scp -t talks straight to the source's
	 * scp -f over the first ssh's socket; we only wait. */
	cmd = scpp_command(&c, 't', targ->path);
	sshproc_exec_argv(l->o, targ->host, targ->user, targ->port, true, cmd, &argv);
	if (l->o->verbose)
		fprintf(stderr, "Executing: 2nd program %s host %s, user %s, command %s\n",
		    l->o->ssh_program, targ->host, targ->user ? targ->user : "(unspecified)", cmd);
	(void)sshproc_run_on(&argv, sshproc_stream_fd(&l->st));
	strv_free(&argv);
	free(cmd);
	return 0;
}

int
scp_legacy_remote(struct scp_legacy *l, const struct scp_legacy_end *src,
    const struct scp_legacy_end *targ)
{
	struct scpp_cmd c = remote_cmd(l->o);
	struct strv argv = { 0 };
	char *pre;

	/* The target user goes into a command line on the source host. */
	if (targ->user != NULL && !operand_okname(targ->user)) {
		fprintf(stderr, "%s: invalid user name\n", targ->user);
		log_count_error();
		return 0;
	}
	if (targ->port != -1 && targ->port != 22) {
		snprintf(l->fatal, sizeof(l->fatal),
		    "target port not supported with two remote hosts and the -R option");
		return 255;
	}
	pre = scpp_command_prefix(&c);
	strv_push(&argv, l->o->ssh_program);
	strv_push(&argv, "-x");
	strv_push(&argv, "-oClearAllForwardings=yes");
	strv_push(&argv, "-n");
	strv_append(&argv, &l->o->ssh_args);
	sshproc_push_port_user(&argv, src->port, src->user);
	strv_push(&argv, "--");
	strv_push(&argv, src->host);
	strv_push(&argv, pre);
	strv_push(&argv, src->path);
	strv_pushf(&argv, "%s%s%s:%s", targ->user ? targ->user : "", targ->user ? "@" : "",
	    targ->host, targ->path);
	free(pre);
	if (l->o->verbose) {
		fprintf(stderr, "Executing:");
		for (size_t i = 0; i < argv.n; i++)
			fprintf(stderr, " %s", argv.v[i]);
		fprintf(stderr, "\n");
	}
	if (sshproc_run(&argv) != 0)
		log_count_error();
	strv_free(&argv);
	scp_legacy_local_cmd(l);
	return 0;
}

const char *
scp_legacy_fatal(const struct scp_legacy *l)
{
	return l->fatal[0] != '\0' ? l->fatal : NULL;
}

void
scp_legacy_local_cmd(struct scp_legacy *l)
{
	l->check = false;
}

void
scp_legacy_finish(struct scp_legacy *l)
{
	bool check = l->check && log_errors() == 0;

	if (drop(l) != 0 && check)
		log_count_error();
}

int
scp_legacy_server(const struct fscp_opts *o)
{
	struct scp_wire_opts wo = {
		.remote = true,
		.preserve = o->preserve,
		.recursive = o->recursive,
		.no_strict = o->no_strict_names,
		.target_dir = o->target_dir,
		.verbose = o->verbose > 0,
	};
	struct fscp_stream st;
	struct scp_wire w;
	int rc;

	scp_wire_fd_stream(STDIN_FILENO, STDOUT_FILENO, &st);
	scp_wire_init(&w, &st, &wo);
	if (o->server_from) {
		/* The sink speaks first: its \0 says it is ready. */
		(void)scp_wire_response(&w);
		scp_source_run(&w, o->operands, o->noperands);
	} else if (o->noperands != 1) {
		scp_wire_run_err(&w, "ambiguous target");
		scp_wire_end(&w, 1, NULL);
	} else {
		scp_sink_run(&w, o->operands[0], NULL);
	}
	/* The server's sink has no request to match, so no fatal(). */
	rc = scp_wire_ended(&w);
	if (rc == 0)
		rc = log_errors() != 0 ? 1 : 0;
	scp_wire_free(&w);
	scp_wire_fd_stream_free(&st);
	return rc;
}
