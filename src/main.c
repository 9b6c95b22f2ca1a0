/* fscp: the command line.  scp's main(), toremote() and tolocal() over the
 * engine: parse, decide where each operand goes, open sessions, hand the
 * copies to xfer, and exit as scp exits. */
#include "config.h"

#include <dirent.h>
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
#include "plan.h"
#include "progress.h"
#include "scp_legacy.h"
#include "session.h"
#include "sshproc.h"
#include "strv.h"
#include "version.h"
#include "xfer.h"

struct run {
	struct fscp_opts *o;
	struct bwlimit *bw;
	struct progress *pm;
	struct session s;	/* the open one, if x != NULL */
	struct xfer *x;
	struct plan *pl;	/* planning onto x, on its first connection */
	struct scp_legacy legacy;	/* -O: the ssh children, as scp keeps them */
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
run_open(struct run *r, const char *host, const char *user, int port, long long bytes,
    const char *sample)
{
	struct xfer_params xp = { 0 };

	session_open(&r->s, r->o, host, user, port, bytes, sample);
	xp.preserve = r->o->preserve;
	xp.nrequests = r->o->sftp_nrequests;
	xp.chunk_size = r->s.chunk_size;
	xp.inflight_bytes = r->s.inflight_bytes;
	xp.upload_inflight_bytes = r->s.upload_inflight_bytes;
	xp.bw = r->bw;
	xp.progress = r->pm;
	r->x = xfer_new(&xp, r->s.conns, r->s.nconns);
	r->pl = plan_new(r->x, r->s.conns[0], r->o->recursive, r->o->preserve);
}

/* The session's connections still coming up, for the engine. */
static struct sftp_conn *
run_next_conn(void *ctx)
{
	return session_next_conn(ctx);
}

static void
run_stop_conns(void *ctx)
{
	session_stop_pending(ctx);
}

static void
run_close(struct run *r)
{
	if (r->x == NULL)
		return;
	plan_free(r->pl);
	r->pl = NULL;
	/* Growing may move the connection array even when it keeps no new
	 * connection: always hand the engine the current one. */
	(void)session_grow(&r->s, r->o, (long long)xfer_planned_bytes(r->x));
	xfer_set_conns(r->x, r->s.conns + r->s.data_from, r->s.nconns - r->s.data_from,
	    r->s.chunk_size, r->s.inflight_bytes, r->s.upload_inflight_bytes);
	struct xfer_joiner j = { .next = run_next_conn, .stop = run_stop_conns, .ctx = &r->s,
		.max = session_pending_count(&r->s) };

	xfer_set_joiner(r->x, &j);
	if (xfer_run(r->x) != 0)
		log_fatal("Connection closed");
	xfer_free(r->x);
	r->x = NULL;
	/* scp counts a failing ssh as an error. */
	if (session_close(&r->s) != 0)
		log_count_error();
}

static bool
same_str(const char *a, const char *b)
{
	return (a == NULL && b == NULL) || (a && b && strcmp(a, b) == 0);
}

/* Reuse the open session for consecutive operands on the same host. */
static struct plan *
run_for(struct run *r, const char *host, const char *user, int port, long long bytes,
    const char *sample)
{
	if (r->x != NULL && strcmp(r->s.host, host) == 0 &&
	    same_str(r->s.user, user) && r->s.port == port)
		return r->pl;
	run_close(r);
	run_open(r, host, user, port, bytes, sample);
	return r->pl;
}

/* Bytes under a local path (following scp's rules loosely: links are
 * followed), capped so a huge tree does not delay the start. */
static long long
local_bytes(const char *path, bool recursive, int *budget)
{
	struct stat st;
	long long sum = 0;

	if (--*budget < 0 || stat(path, &st) != 0)
		return 0;
	if (S_ISREG(st.st_mode))
		return st.st_size;
	if (!S_ISDIR(st.st_mode) || !recursive)
		return 0;
	DIR *d = opendir(path);
	struct dirent *de;

	if (d == NULL)
		return 0;
	while ((de = readdir(d)) != NULL && *budget > 0) {
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		char *sub = xasprintf("%s/%s", path, de->d_name);

		sum += local_bytes(sub, true, budget);
		free(sub);
	}
	closedir(d);
	return sum;
}

/* Total bytes of the local sources, and the first regular file as a
 * sample for the compression check. */
static long long
upload_bytes(const struct fscp_opts *o, const char **sample)
{
	int budget = 20000;
	long long sum = 0;
	struct stat st;

	*sample = NULL;
	for (int i = 0; i < o->noperands - 1; i++) {
		if (operand_colon(o->operands[i]) != NULL)
			continue;
		if (*sample == NULL && stat(o->operands[i], &st) == 0 && S_ISREG(st.st_mode))
			*sample = o->operands[i];
		sum += local_bytes(o->operands[i], o->recursive, &budget);
	}
	return budget < 0 ? -1 : sum;
}

/* operand_parse(), with scp's complaint about a bad URI (an error, and the
 * caller goes on with the next operand). */
static bool
parse_operand(const char *arg, struct fscp_operand *op)
{
	if (operand_parse(arg, op) == OPERAND_OK)
		return true;
	fprintf(stderr, "%s: invalid uri\n", arg);
	log_count_error();
	return false;
}

static int
effective_port(const struct fscp_opts *o, const struct fscp_operand *op)
{
	return op->port != -1 ? op->port : o->port;
}

/* A remote source with a remote target: -R runs scp on the source host
 * (either protocol); -O -3 joins two ssh children.  SFTP through the local
 * host is still handed over before we get here. */
static void
remote_to_remote(struct run *r, const struct fscp_operand *s, const struct fscp_operand *t)
{
	if (s->user != NULL && !operand_okname(s->user)) {
		fprintf(stderr, "%s: invalid user name\n", s->user);
		log_count_error();
		return;
	}
	if (!r->o->throughlocal) {
		/* scp -R passes only a URI's port, not -P. */
		struct scp_legacy_end from = { s->host, s->user, s->port, s->path };
		struct scp_legacy_end to = { t->host, t->user, t->port, t->path };

		scp_legacy_remote(&r->legacy, &from, &to);
	} else if (r->o->legacy) {
		struct scp_legacy_end from = { s->host, s->user, effective_port(r->o, s), s->path };
		struct scp_legacy_end to = { t->host, t->user, effective_port(r->o, t), t->path };

		scp_legacy_through_local(&r->legacy, &from, &to);
	}
}

static void
toremote(struct run *r)
{
	struct fscp_opts *o = r->o;
	const char *targ_arg = o->operands[o->noperands - 1];
	struct fscp_operand t;
	bool tsbd = o->noperands > 2 || o->target_dir;
	const char *sample;
	long long bytes = upload_bytes(o, &sample);

	if (!parse_operand(targ_arg, &t))
		return;
	if (!t.remote) {
		fprintf(stderr, "%s: invalid target\n", targ_arg);
		log_count_error();
		operand_free(&t);
		return;
	}
	for (int i = 0; i < o->noperands - 1; i++) {
		struct fscp_operand s;

		if (!parse_operand(o->operands[i], &s))
			continue;
		if (s.remote) {
			remote_to_remote(r, &s, &t);
			operand_free(&s);
			continue;
		}
		if (o->legacy) {
			scp_legacy_upload(&r->legacy, t.host, t.user, effective_port(o, &t),
			    t.path, o->operands[i], bytes);
			operand_free(&s);
			continue;
		}
		struct plan *pl = run_for(r, t.host, t.user, effective_port(o, &t), bytes, sample);

		plan_upload(pl, s.path, t.path, tsbd);
		operand_free(&s);
	}
	run_close(r);
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

		if (!parse_operand(o->operands[i], &s))
			continue;
		if (s.user != NULL && !operand_okname(s.user)) {
			fprintf(stderr, "%s: invalid user name\n", s.user);
			log_count_error();
			operand_free(&s);
			continue;
		}
		if (!s.remote) {
			run_close(r);
			local_copy(r, o->operands[i], dst);
			scp_legacy_local_cmd(&r->legacy);
		} else if (o->legacy) {
			scp_legacy_download(&r->legacy, s.host, s.user, effective_port(o, &s),
			    s.path, dst);
		} else {
			struct plan *pl = run_for(r, s.host, s.user, effective_port(o, &s), -1, NULL);

			plan_download(pl, s.path, dst);
		}
		operand_free(&s);
	}
	run_close(r);
}

static bool
needs_scp(const struct fscp_opts *o, const char **why)
{
	bool target_remote = operand_colon(o->operands[o->noperands - 1]) != NULL;

	/* -O, -t/-f and -R are native (scp_legacy); SFTP remote to remote
	 * through the local host is not yet. */
	if (!target_remote || o->legacy || !o->throughlocal)
		return false;
	for (int i = 0; i < o->noperands - 1; i++) {
		if (operand_colon(o->operands[i]) != NULL) {
			*why = "remote-to-remote copy";
			return true;
		}
	}
	return false;
}

/* scp's killchild(): an interrupted copy exits 1.  Our ssh and proxy
 * children see their socket close and end on their own. */
static void
on_signal(int sig)
{
	(void)sig;
	_exit(1);
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
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	signal(SIGHUP, on_signal);

	st = args_parse(argc, argv, &o);
	if (st == ARGS_VERSION) {
		char text[512];

		fputs(version_text(text, sizeof(text)), stdout);
		return fflush(stdout) == 0 && !ferror(stdout) ? 0 : 1;
	}
	if (st == ARGS_FATAL) {
		fprintf(stderr, "%s: %s\r\n", argv[0], o.diag);
		exit(255);
	}
	if (st == ARGS_USAGE) {
		if (o.diag[0] != '\0')
			fprintf(stderr, "%s: %s\r\n", argv[0], o.diag);
		fputs(args_usage(args_progname(argv[0]), usage, sizeof(usage)), stderr);
		exit(1);
	}
	log_init(argv[0], o.verbose);
	if (o.server_to || o.server_from)
		exit(scp_legacy_server(&o));
	if (needs_scp(&o, &why))
		delegate_to_scp(argv, why);

	r.pm = progress_new(STDOUT_FILENO, o.quiet);
	r.bw = bwlimit_new(o.limit_bps);
	scp_legacy_init(&r.legacy, &o, r.pm, r.bw);
	if (operand_colon(o.operands[o.noperands - 1]) != NULL) {
		toremote(&r);
	} else {
		if (o.noperands > 2 || o.target_dir)
			verifydir(o.operands[o.noperands - 1]);
		tolocal(&r);
	}
	scp_legacy_finish(&r.legacy);
	progress_free(r.pm);
	bwlimit_free(r.bw);
	args_free(&o);
	return log_errors() != 0 ? 1 : 0;
}
