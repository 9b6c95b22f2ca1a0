/* SPDX-License-Identifier: ISC
 * Copyright (c) 2026 The fscp authors.  See LICENSE. */
#include "config.h"
#include "transport/sshproc.h"
#include "policy/sshcfg.h"
#include "util/fdio.h"
#include "util/log.h"
#include "util/proc.h"
#include "util/xmalloc.h"

#include <errno.h>
#include <signal.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

struct sshproc {
	int fd;
	pid_t pid;
};

static ssize_t
sshproc_read(void *ctx, void *buf, size_t n)
{
	return fdio_read(((struct sshproc *)ctx)->fd, buf, n);
}

static ssize_t
sshproc_write(void *ctx, const void *buf, size_t n)
{
	return fdio_write_all(((struct sshproc *)ctx)->fd, buf, n) == 0 ? (ssize_t)n : -1;
}

static int
sshproc_close(void *ctx)
{
	struct sshproc *p = ctx;
	int rc;

	/* EOF on ssh's stdin ends the session; then reap it like scp does. */
	close(p->fd);
	rc = proc_wait(p->pid);
	free(p);
	return rc;
}

/* The connection died: end ssh as scp's killchild() does, then reap it. */
static int
sshproc_abort(void *ctx)
{
	struct sshproc *p = ctx;

	close(p->fd);
	(void)proc_end(p->pid, SIGTERM);
	free(p);
	return 1;
}

static const struct fscp_stream_ops sshproc_ops = {
	.read = sshproc_read,
	.write = sshproc_write,
	.close = sshproc_close,
	.abort = sshproc_abort,
};

/* scp's children print perror(program) when exec fails and exit 1. */
static struct proc_spec
sshproc_spec(const char *file, char *const argv[], int in, int out)
{
	struct proc_spec ps = {
		.argv = argv, .file = file, .search_path = true,
		.in = in, .out = out, .err = PROC_KEEP,
		.msg = PROC_MSG_PERROR, .exec_status = 1,
	};

	return ps;
}

static int
sshproc_spawn(const char *file, char *const argv[], struct fscp_stream *out,
    const char *desc)
{
	int sv[2];
	pid_t pid;
	struct sshproc *p;
	struct proc_spec ps;
	char err[256];

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0) {
		log_error("socketpair: %s", strerror(errno));
		return -1;
	}
	ps = sshproc_spec(file, argv, sv[1], sv[1]);
	pid = proc_spawn(&ps, err, sizeof(err));
	close(sv[1]);
	if (pid < 0) {
		log_error("%s", err);
		close(sv[0]);
		return -1;
	}
	p = xmalloc(sizeof(*p));
	p->fd = sv[0];
	p->pid = pid;
	out->ops = &sshproc_ops;
	out->ctx = p;
	out->desc = desc;
	return 0;
}

void
sshproc_push_port_user(struct strv *argv, int port, const char *user)
{
	if (port >= 0) {
		strv_push(argv, "-p");
		strv_pushf(argv, "%d", port);
	}
	if (user != NULL) {
		strv_push(argv, "-l");
		strv_push(argv, user);
	}
}

/* scp's do_cmd() argv: the fixed options, the user's, -oForwardAgent=no,
 * (alone: -oControlPath=none), -p, -l, then extra (do_cmd2's
 * -oBatchMode=yes) and -s when asked, "--", host, cmd. */
static void
ssh_argv(const struct fscp_opts *o, const char *host, const char *user, int port,
    bool alone, const char *extra, const char *cmd, struct strv *argv)
{
	strv_push(argv, o->ssh_program);
	for (size_t i = 0; sshcfg_scp_fixed[i] != NULL; i++)
		strv_push(argv, sshcfg_scp_fixed[i]);
	strv_append(argv, &o->ssh_args);
	/* scp adds this after the user's options, so that -A still wins
	 * (ssh keeps an option's first value). */
	strv_push(argv, SSHCFG_SCP_LAST);
	if (alone)
		strv_push(argv, "-oControlPath=none");
	sshproc_push_port_user(argv, port, user);
	if (extra != NULL)
		strv_push(argv, extra);
	strv_push(argv, "--");
	strv_push(argv, host);
	strv_push(argv, cmd);
}

/* The full ssh argv scp would use for an SFTP session to host.
 * user NULL / port < 0 when not given. */
static void
sshproc_sftp_argv(const struct fscp_opts *o, const char *host,
    const char *user, int port, bool alone, struct strv *argv)
{
	ssh_argv(o, host, user, port, alone, "-s", "sftp", argv);
}

void
sshproc_exec_argv(const struct fscp_opts *o, const char *host, const char *user,
    int port, bool second, const char *cmd, struct strv *argv)
{
	ssh_argv(o, host, user, port, false, second ? "-oBatchMode=yes" : NULL, cmd, argv);
}

int
sshproc_exec(const struct fscp_opts *o, const char *host, const char *user,
    int port, const char *cmd, struct fscp_stream *out)
{
	struct strv argv = { 0 };
	int rc;

	sshproc_exec_argv(o, host, user, port, false, cmd, &argv);
	if (o->verbose)
		fprintf(stderr, "Executing: program %s host %s, user %s, command %s\n",
		    o->ssh_program, host, user ? user : "(unspecified)", cmd);
	rc = sshproc_spawn(o->ssh_program, argv.v, out, "ssh pipes");
	strv_free(&argv);
	return rc;
}

int
sshproc_stream_fd(const struct fscp_stream *s)
{
	if (s->ops != &sshproc_ops)
		return -1;
	return ((const struct sshproc *)s->ctx)->fd;
}

int
sshproc_run_on(const struct strv *argv, int fd)
{
	int io = fd >= 0 ? fd : PROC_KEEP;
	struct proc_spec ps = sshproc_spec(argv->v[0], argv->v, io, io);
	char err[256] = "";
	int rc = proc_run(&ps, err, sizeof(err));

	if (err[0] != '\0')
		log_error("%s", err);
	return rc;
}

int
sshproc_sftp(const struct fscp_opts *o, const char *host, const char *user,
    int port, bool alone, struct fscp_stream *out)
{
	struct strv argv = { 0 };
	int rc;

	sshproc_sftp_argv(o, host, user, port, alone, &argv);
	if (o->verbose) {
		char *line = strv_join_quoted(&argv);

		fprintf(stderr, "Executing: program %s host %s, user %s, command sftp\n",
		    o->ssh_program, host, user ? user : "(unspecified)");
		log_verbose("running %s", line);
		free(line);
	}
	rc = sshproc_spawn(o->ssh_program, argv.v, out, "ssh pipes");
	strv_free(&argv);
	return rc;
}

int
sshproc_direct(const struct fscp_opts *o, struct fscp_stream *out)
{
	char *argv[] = { (char *)"sftp-server", NULL };

	if (o->verbose)
		fprintf(stderr, "Executing: %s\n", o->sftp_direct);
	return sshproc_spawn(o->sftp_direct, argv, out, "sftp-server");
}

int
sshproc_run(const struct strv *argv)
{
	return sshproc_run_on(argv, -1);
}
