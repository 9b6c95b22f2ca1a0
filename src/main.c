/* fscp: the command line.  scp's main(), toremote() and tolocal() over the
 * engine: parse, decide where each operand goes, open sessions, hand the
 * copies to xfer, and exit as scp exits. */
#include "config.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "args.h"
#include "bwlimit.h"
#include "log.h"
#include "operand.h"
#include "progress.h"
#include "sftp.h"
#include "sshproc.h"
#include "strv.h"
#include "xfer.h"

/* One host's sessions, opened for a run of operands on that host. */
struct session {
	char *host, *user;
	int port;
	struct sftp_conn **conns;
	int nconns;
	struct xfer *x;
};

struct run {
	struct fscp_opts *o;
	struct bwlimit *bw;
	struct progress *pm;
	struct session s;	/* the open one, if s.x != NULL */
};

/* Hand the whole command to OpenSSH's scp, for what fscp does not do
 * itself yet.  It then behaves exactly as scp, because it is scp. */
static void FSCP_NORETURN
delegate_to_scp(char **argv, const char *why)
{
	const char *scp = getenv("FSCP_SCP");

	if (scp == NULL || *scp == '\0')
		scp = "/usr/bin/scp";
	if (getenv("FSCP_DELEGATED") != NULL)
		log_fatal("%s: refusing to delegate to %s twice", why, scp);
	setenv("FSCP_DELEGATED", "1", 1);
	log_verbose("route scp: %s; running %s", why, scp);
	fflush(NULL);
	execv(scp, argv);
	log_fatal("%s needs %s: %s", why, scp, strerror(errno));
}

static void
session_open(struct run *r, const char *host, const char *user, int port)
{
	struct fscp_stream st;
	struct xfer_params xp = { 0 };
	char err[256];

	if (r->o->sftp_direct != NULL) {
		if (sshproc_direct(r->o, &st) != 0)
			log_fatal("Unable to open sftp connection");
	} else if (sshproc_sftp(r->o, host, user, port, &st) != 0) {
		log_fatal("Unable to open sftp connection");
	}
	r->s.conns = xcalloc(1, sizeof(*r->s.conns));
	r->s.conns[0] = sftp_open(st, r->o->sftp_buflen, err, sizeof(err));
	if (r->s.conns[0] == NULL)
		log_fatal("%s", err);
	r->s.nconns = 1;
	r->s.host = xstrdup(host);
	r->s.user = user ? xstrdup(user) : NULL;
	r->s.port = port;
	xp.preserve = r->o->preserve;
	xp.recursive = r->o->recursive;
	xp.nrequests = r->o->sftp_nrequests;
	xp.bw = r->bw;
	xp.progress = r->pm;
	r->s.x = xfer_new(&xp, r->s.conns, r->s.nconns);
}

static void
session_close(struct run *r)
{
	if (r->s.x == NULL)
		return;
	if (xfer_run(r->s.x) != 0)
		log_fatal("Connection closed");
	xfer_free(r->s.x);
	for (int i = 0; i < r->s.nconns; i++) {
		/* scp counts a failing ssh as an error. */
		if (sftp_close(r->s.conns[i]) != 0)
			log_count_error();
	}
	free(r->s.conns);
	free(r->s.host);
	free(r->s.user);
	memset(&r->s, 0, sizeof(r->s));
}

static bool
same_str(const char *a, const char *b)
{
	return (a == NULL && b == NULL) || (a && b && strcmp(a, b) == 0);
}

/* Reuse the open session for consecutive operands on the same host. */
static struct xfer *
session_for(struct run *r, const char *host, const char *user, int port)
{
	if (r->s.x != NULL && strcmp(r->s.host, host) == 0 &&
	    same_str(r->s.user, user) && r->s.port == port)
		return r->s.x;
	session_close(r);
	session_open(r, host, user, port);
	return r->s.x;
}

static int
effective_port(const struct fscp_opts *o, const struct fscp_operand *op)
{
	return op->port != -1 ? op->port : o->port;
}

static void
toremote(struct run *r)
{
	struct fscp_opts *o = r->o;
	const char *targ_arg = o->operands[o->noperands - 1];
	struct fscp_operand t;
	bool tsbd = o->noperands > 2 || o->target_dir;

	if (operand_parse(targ_arg, &t) != OPERAND_OK) {
		fprintf(stderr, "%s: invalid uri\n", targ_arg);
		log_count_error();
		return;
	}
	if (!t.remote) {
		fprintf(stderr, "%s: invalid target\n", targ_arg);
		log_count_error();
		operand_free(&t);
		return;
	}
	for (int i = 0; i < o->noperands - 1; i++) {
		struct fscp_operand s;

		if (operand_parse(o->operands[i], &s) != OPERAND_OK) {
			fprintf(stderr, "%s: invalid uri\n", o->operands[i]);
			log_count_error();
			continue;
		}
		if (s.remote) {
			/* remote to remote is handed over before we get here */
			operand_free(&s);
			continue;
		}
		struct xfer *x = session_for(r, t.host, t.user, effective_port(o, &t));

		xfer_upload(x, s.path, t.path, tsbd);
		operand_free(&s);
	}
	session_close(r);
	operand_free(&t);
}

/* scp's verifydir(): exit 1 unless target is a directory. */
static void
verifydir(const char *target)
{
	struct stat st;

	if (stat(target, &st) == 0) {
		if (S_ISDIR(st.st_mode))
			return;
		errno = ENOTDIR;
	}
	log_runerr("%s: %s", target, strerror(errno));
	exit(1);
}

static void
local_copy(struct run *r, const char *src, const char *dst)
{
	struct strv argv = { 0 };

	strv_push(&argv, "cp");
	if (r->o->recursive)
		strv_push(&argv, "-r");
	if (r->o->preserve)
		strv_push(&argv, "-p");
	strv_push(&argv, "--");
	strv_push(&argv, src);
	strv_push(&argv, dst);
	if (r->o->verbose) {
		char *line = strv_join_quoted(&argv);

		fprintf(stderr, "Executing: %s\n", line);
		free(line);
	}
	if (sshproc_run(&argv) != 0)
		log_count_error();
	strv_free(&argv);
}

static void
tolocal(struct run *r)
{
	struct fscp_opts *o = r->o;
	const char *dst = o->operands[o->noperands - 1];

	for (int i = 0; i < o->noperands - 1; i++) {
		struct fscp_operand s;

		if (operand_parse(o->operands[i], &s) != OPERAND_OK) {
			fprintf(stderr, "%s: invalid uri\n", o->operands[i]);
			log_count_error();
			continue;
		}
		if (s.user != NULL && !operand_okname(s.user)) {
			fprintf(stderr, "%s: invalid user name\n", s.user);
			log_count_error();
			operand_free(&s);
			continue;
		}
		if (!s.remote) {
			session_close(r);
			local_copy(r, o->operands[i], dst);
		} else {
			struct xfer *x = session_for(r, s.host, s.user, effective_port(o, &s));

			xfer_download(x, s.path, dst);
		}
		operand_free(&s);
	}
	session_close(r);
}

static bool
needs_scp(const struct fscp_opts *o, const char **why)
{
	bool target_remote = operand_colon(o->operands[o->noperands - 1]) != NULL;

	if (o->server_to || o->server_from) {
		*why = "server mode (-t/-f)";
		return true;
	}
	if (o->legacy) {
		*why = "legacy protocol (-O)";
		return true;
	}
	if (!target_remote)
		return false;
	for (int i = 0; i < o->noperands - 1; i++) {
		if (operand_colon(o->operands[i]) != NULL) {
			*why = "remote-to-remote copy";
			return true;
		}
	}
	return false;
}

int
main(int argc, char **argv)
{
	struct fscp_opts o;
	struct run r = { .o = &o };
	enum args_status st;
	const char *why;
	char usage[1024];

	log_init(argv[0], 0);
	progress_locale_init();
	/* Broken pipes become errors we report, not a silent death. */
	signal(SIGPIPE, SIG_IGN);

	st = args_parse(argc, argv, &o);
	if (st == ARGS_FATAL) {
		fprintf(stderr, "%s: %s\r\n", argv[0], o.diag);
		exit(255);
	}
	if (st == ARGS_USAGE) {
		if (o.diag[0] != '\0')
			fprintf(stderr, "%s: %s\r\n", argv[0], o.diag);
		fputs(args_usage("fscp", usage, sizeof(usage)), stderr);
		exit(1);
	}
	log_init(argv[0], o.verbose);
	if (needs_scp(&o, &why))
		delegate_to_scp(argv, why);

	r.pm = progress_new(STDOUT_FILENO, o.quiet);
	r.bw = bwlimit_new(o.limit_bps);
	if (operand_colon(o.operands[o.noperands - 1]) != NULL) {
		toremote(&r);
	} else {
		if (o.noperands > 2 || o.target_dir)
			verifydir(o.operands[o.noperands - 1]);
		tolocal(&r);
	}
	progress_free(r.pm);
	bwlimit_free(r.bw);
	args_free(&o);
	return log_errors() != 0 ? 1 : 0;
}
