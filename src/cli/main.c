/* SPDX-License-Identifier: ISC
 * Copyright (c) 2026 The fscp authors.  See LICENSE. */
/* fscp: the command line.  scp's main(), toremote() and tolocal() over the
 * engine: parse, decide where each operand goes, open sessions, hand the
 * copies to xfer, and exit as scp exits. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/log.h"
#include "util/mtext.h"
#include "util/proc.h"
#include "util/strv.h"
#include "util/xmalloc.h"
#include "policy/operand.h"
#include "policy/fscpconf.h"
#include "transport/sshproc.h"
#include "session/session.h"
#include "engine/bwlimit.h"
#include "engine/crossload.h"
#include "engine/journal.h"
#include "engine/journal_text.h"
#include "engine/plan.h"
#include "engine/progress.h"
#include "engine/xfer.h"
#include "scp/scp_legacy.h"
#include "cli/args.h"
#include "cli/version.h"

struct run {
	struct fscp_opts *o;
	struct bwlimit *bw;
	struct progress *pm;
	struct session *s;	/* the open one, if x != NULL */
	struct xfer *x;
	struct plan *pl;	/* planning onto x, on its first connection */
	struct scp_legacy legacy;	/* -O: the ssh children, as scp keeps them */
	struct session *from;	/* remote to remote: the open source, or NULL */
	bool single;		/* only remote sources: the target needs one connection */
	/* Where scp would exit early: its status (0: the copy goes on) and
	 * what its fatal() says, said by main once everything is closed. */
	int end;
	char fatal[1024];
	struct journal *j;	/* the resume journal of this command, or NULL */
};

/* The copy ends here as scp's exit(status) or fatal() ends scp (fatal
 * NULL: nothing more to say).  The first end counts; every caller returns
 * once r->end is set, and main() alone closes, says and exits. */
static void
run_end(struct run *r, int status, const char *fatal)
{
	if (r->end != 0)
		return;
	r->end = status;
	if (fatal != NULL)
		snprintf(r->fatal, sizeof(r->fatal), "%s", fatal);
}

/* A legacy call's end, with its fatal() message. */
static void
run_legacy_end(struct run *r, int status)
{
	if (status != 0)
		run_end(r, status, scp_legacy_fatal(&r->legacy));
}

/* How the route's tuning drives the engine: piece sizes, bytes in flight. */
static void
run_tuning(const struct route_tuning *t, struct xfer_params *xp)
{
	xp->chunk_size = t->chunk;
	xp->chunk_max = t->chunk_max;
	xp->inflight_bytes = t->read_inflight;
	xp->upload_inflight_bytes = t->write_inflight;
}

static void run_no_sftp(struct run *r, const char *what);

static void
run_open(struct run *r, const char *host, const char *user, int port, long long bytes,
    bool upload, const char *sample)
{
	struct xfer_params xp = { 0 };
	const struct route_tuning *t;
	struct sftp_conn **conns;
	struct session_err err;
	int n;

	if (r->single)
		r->s = session_open_one(r->o, host, user, port, upload, &err);
	else
		r->s = session_open(r->o, host, user, port, bytes, upload, sample, &err);
	if (r->s == NULL && err.fatal)
		run_no_sftp(r, err.msg);
	if (r->s == NULL)
		return;		/* no SFTP there: run_for() answers NULL */
	t = session_tuning(r->s);
	conns = session_conns(r->s, &n);
	xp.preserve = r->o->preserve;
	xp.nrequests = r->o->sftp_nrequests;
	run_tuning(t, &xp);
	xp.bw = r->bw;
	xp.progress = r->pm;
	xp.journal = r->j;
	r->x = xfer_new(&xp, conns, n);
	r->pl = plan_new(r->x, session_list_conn(r->s), r->o->recursive, r->o->preserve);
}

/* The engine's connections again, after the session grew (the array may
 * have moved even when nothing was added). */
static void
run_set_conns(struct run *r)
{
	struct xfer_params xp;
	int n;
	struct sftp_conn **conns = session_conns(r->s, &n);

	run_tuning(session_tuning(r->s), &xp);
	xfer_set_conns(r->x, conns, n, &xp);
}

/* The session's connections still coming up, for the engine, and one
 * more when all of them died. */
static struct sftp_conn *
run_next_conn(void *ctx)
{
	return session_next_conn(((struct run *)ctx)->s);
}

static void
run_stop_conns(void *ctx)
{
	session_stop_pending(((struct run *)ctx)->s);
}

static double
run_tick(void *ctx, uint64_t moved, uint64_t total)
{
	return session_tick(((struct run *)ctx)->s, moved, total);
}

static struct sftp_conn *
run_reconnect(void *ctx)
{
	struct run *r = ctx;

	return session_reconnect(r->s, r->o);
}

/* Before an early exit: everything closed, every connection thread
 * joined (one still in its handshake at exit() would crash in OpenSSL's
 * freed state).  What is unmoved stays unmoved.  Only main() calls it. */
static void
run_shutdown(struct run *r)
{
	plan_free(r->pl);
	r->pl = NULL;
	xfer_free(r->x);
	r->x = NULL;
	(void)session_close(r->s);
	r->s = NULL;
	(void)session_close(r->from);
	r->from = NULL;
}

/* Every connection died with work left: scp's lostconn() (said now, as
 * scp says it before its cleanup), or its fatal() when the last one was
 * given up for a broken reply. */
static void
run_lost(struct run *r)
{
	if (r->x != NULL && xfer_fatal(r->x) != NULL) {
		run_end(r, 255, xfer_fatal(r->x));
	} else {
		fputs("lost connection\n", stderr);
		run_end(r, 1, NULL);
	}
}

static void
run_close(struct run *r)
{
	if (r->x == NULL || r->end != 0)
		return;
	plan_free(r->pl);
	r->pl = NULL;
	/* Growing may move the connection array even when it keeps no new
	 * connection: always hand the engine the current one. */
	(void)session_grow(r->s, r->o, (long long)xfer_planned_bytes(r->x));
	run_set_conns(r);
	struct xfer_joiner j = { .next = run_next_conn, .stop = run_stop_conns,
		.reconnect = run_reconnect, .tick = run_tick, .tick_s = session_tick_s(r->s),
		.ctx = r, .max = session_pending_count(r->s),
		.planned = session_planned_count(r->s) };

	xfer_set_joiner(r->x, &j);
	if (xfer_run(r->x) != 0) {
		run_lost(r);
		return;		/* main() closes what is open */
	}
	xfer_free(r->x);
	r->x = NULL;
	/* scp counts a failing ssh as an error. */
	if (session_close(r->s) != 0)
		log_count_error();
	r->s = NULL;
}

/* A session that did not open (its server refused SFTP): scp's fatal(). */
static void
run_no_sftp(struct run *r, const char *what)
{
	run_end(r, 255, what);
}

/* A planning step ended as scp ends: what is planned moves first (scp
 * copies in order), then fatal()'s message and 255.  A synchronous
 * request that finds the connection gone is scp's fatal() too
 * ("Connection closed"). */
static void
run_planned(struct run *r, enum plan_status st)
{
	char msg[1024] = "";

	if (st == PLAN_OK)
		return;
	if (st == PLAN_LOST)
		snprintf(msg, sizeof(msg), "Connection closed");
	else if (r->pl != NULL && plan_fatal_msg(r->pl) != NULL)
		snprintf(msg, sizeof(msg), "%s", plan_fatal_msg(r->pl));
	run_close(r);
	run_end(r, 255, msg[0] != '\0' ? msg : NULL);
}

/* Reuse the open session for consecutive operands on the same host.
 * NULL when the server answered SFTP's INIT with another packet (said):
 * the caller says what scp says next (and tries again for another operand,
 * as scp connects again). */
static struct plan *
run_for(struct run *r, const char *host, const char *user, int port, long long bytes,
    bool upload, const char *sample)
{
	if (r->x != NULL && session_is_for(r->s, host, user, port))
		return r->pl;
	run_close(r);
	if (r->end != 0)
		return NULL;
	run_open(r, host, user, port, bytes, upload, sample);
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
		/* A remote source's size is known once it is listed. */
		if (operand_colon(o->operands[i]) != NULL)
			return -1;
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

/* A remote source with a remote target and scp on the hosts: -R runs scp
 * on the source host (either protocol); -O -3 joins two ssh children. */
static void
remote_to_remote_scp(struct run *r, const struct fscp_operand *s, const struct fscp_operand *t)
{
	int st = 0;

	if (s->user != NULL && !operand_okname(s->user)) {
		fprintf(stderr, "%s: invalid user name\n", s->user);
		log_count_error();
		return;
	}
	if (!r->o->throughlocal) {
		/* scp -R passes only a URI's port, not -P. */
		struct scp_legacy_end from = { s->host, s->user, s->port, s->path };
		struct scp_legacy_end to = { t->host, t->user, t->port, t->path };

		st = scp_legacy_remote(&r->legacy, &from, &to);
	} else if (r->o->legacy) {
		struct scp_legacy_end from = { s->host, s->user, effective_port(r->o, s), s->path };
		struct scp_legacy_end to = { t->host, t->user, effective_port(r->o, t), t->path };

		st = scp_legacy_through_local(&r->legacy, &from, &to);
	}
	run_legacy_end(r, st);
}

/* Grow s into its bypass as a copy of bytes would; the connection to use,
 * and no more are waited for.  *grew (if given) says whether it grew. */
static struct sftp_conn *
grow_for(struct session *s, const struct fscp_opts *o, long long bytes, bool *grew)
{
	struct sftp_conn *c;
	bool g = session_grow(s, o, bytes);

	if (grew != NULL)
		*grew = g;
	c = session_data_conn(s);
	session_stop_pending(s);
	return c;
}

static void
source_close(struct run *r)
{
	if (r->from == NULL)
		return;
	/* scp counts a failing ssh as an error. */
	if (session_close(r->from) != 0)
		log_count_error();
	r->from = NULL;
}

/* The source's session; consecutive operands on one host share it (scp
 * connects again for each). */
static struct session *
source_for(struct run *r, const struct fscp_operand *s)
{
	int port = effective_port(r->o, s);

	if (session_is_for(r->from, s->host, s->user, port))
		return r->from;
	struct session_err err;

	source_close(r);
	r->from = session_open_one(r->o, s->host, s->user, port, false, &err);
	if (r->from == NULL && err.fatal)
		run_no_sftp(r, err.msg);
	return r->from;
}

/* scp's remote to remote through this host (the default and -3): the
 * destination once, then the source operands' hosts, each side on the
 * route it would take alone: the source is listed first, then both
 * sessions may grow into their bypass for the size found. */
static void
remote_to_remote(struct run *r, const struct fscp_operand *t, const struct fscp_operand *s,
    bool target_should_be_dir)
{
	struct crossload_params cp = {
		.preserve = r->o->preserve, .recursive = r->o->recursive,
		.target_should_be_dir = target_should_be_dir, .nrequests = r->o->sftp_nrequests,
		.bw = r->bw, .progress = r->pm,
	};
	struct session *src;
	struct sftp_conn *from, *to;
	struct crossload_plan *pl;
	long long bytes;
	bool grew;

	if (run_for(r, t->host, t->user, effective_port(r->o, t), -1, true, NULL) == NULL) {
		run_no_sftp(r, "Unable to open destination connection");
		return;
	}
	/* The planning runs on the connections already up, without waiting
	 * for the ones still coming up (grow_for() opens what the size needs). */
	session_end_pending(r->s);
	/* Uploads of earlier local sources go first: scp copies in order, and
	 * a later source may land on the same name. */
	if (xfer_run(r->x) != 0) {
		run_lost(r);
		return;
	}
	src = source_for(r, s);
	if (src == NULL) {
		run_no_sftp(r, "Unable to open source connection");
		return;
	}
	enum plan_status pst = crossload_plan(session_data_conn(src), session_data_conn(r->s),
	    s->path, t->path, &cp, &pl);

	if (pst != PLAN_OK) {
		/* A connection died under the planning: scp's fatal(), said
		 * once every session is closed and its threads joined; or a
		 * ~user path the server could not expand, said already. */
		crossload_plan_free(pl);
		run_end(r, 255, pst == PLAN_FATAL ? NULL : "Connection closed");
		return;
	}
	bytes = crossload_plan_bytes(pl);
	from = grow_for(src, r->o, bytes, NULL);
	to = grow_for(r->s, r->o, bytes, &grew);
	/* Uploads still to come need the target's new connection array. */
	if (grew)
		run_set_conns(r);
	char fatal[256];

	if (crossload_run(pl, from, to, session_tuning(src)->read_inflight,
	    session_tuning(r->s)->read_inflight, fatal,
	    sizeof(fatal)) != 0)
		run_end(r, 255, fatal);
	crossload_plan_free(pl);
}

static bool
all_sources_remote(const struct fscp_opts *o)
{
	for (int i = 0; i < o->noperands - 1; i++)
		if (operand_colon(o->operands[i]) == NULL)
			return false;
	return true;
}

static void
toremote(struct run *r)
{
	struct fscp_opts *o = r->o;
	const char *targ_arg = o->operands[o->noperands - 1];
	struct fscp_operand t;
	bool target_should_be_dir = o->noperands > 2 || o->target_dir;
	const char *sample;
	long long bytes = upload_bytes(o, &sample);

	r->single = all_sources_remote(o);
	if (!parse_operand(targ_arg, &t))
		return;
	if (!t.remote) {
		fprintf(stderr, "%s: invalid target\n", targ_arg);
		log_count_error();
		operand_free(&t);
		return;
	}
	for (int i = 0; i < o->noperands - 1 && r->end == 0; i++) {
		struct fscp_operand s;

		if (!parse_operand(o->operands[i], &s))
			continue;
		if (s.remote) {
			if (o->legacy || !o->throughlocal) {
				remote_to_remote_scp(r, &s, &t);
			} else if (s.user != NULL && !operand_okname(s.user)) {
				fprintf(stderr, "%s: invalid user name\n", s.user);
				log_count_error();
			} else {
				remote_to_remote(r, &t, &s, target_should_be_dir);
			}
			operand_free(&s);
			continue;
		}
		if (o->legacy) {
			run_legacy_end(r, scp_legacy_upload(&r->legacy, t.host, t.user,
			    effective_port(o, &t), t.path, o->operands[i], bytes));
			operand_free(&s);
			continue;
		}
		struct plan *pl = run_for(r, t.host, t.user, effective_port(o, &t), bytes, true,
		    sample);

		if (pl == NULL) {
			run_no_sftp(r, "Unable to open sftp connection");
			operand_free(&s);
			break;
		}
		enum plan_status ps = plan_upload(pl, s.path, t.path, target_should_be_dir);

		operand_free(&s);
		run_planned(r, ps);
	}
	if (r->end == 0) {
		source_close(r);
		run_close(r);
	}
	operand_free(&t);
}

/* scp's verifydir(): the copy ends (1) unless target is a directory. */
static void
verifydir(struct run *r, const char *target)
{
	struct stat st;

	if (stat(target, &st) == 0) {
		if (S_ISDIR(st.st_mode))
			return;
		errno = ENOTDIR;
	}
	log_runerr("%s: %s", target, strerror(errno));
	run_end(r, 1, NULL);
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

	for (int i = 0; i < o->noperands - 1 && r->end == 0; i++) {
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
			if (r->end == 0) {
				local_copy(r, o->operands[i], dst);
				scp_legacy_local_cmd(&r->legacy);
			}
		} else if (o->legacy) {
			run_legacy_end(r, scp_legacy_download(&r->legacy, s.host, s.user,
			    effective_port(o, &s), s.path, dst));
		} else {
			struct plan *pl = run_for(r, s.host, s.user, effective_port(o, &s), -1,
			    false, NULL);

			if (pl != NULL)
				run_planned(r, plan_download(pl, s.path, dst));
			else if (r->end == 0)	/* not the earlier copy's loss */
				log_error("sftp connection failed");
		}
		operand_free(&s);
	}
	run_close(r);
}

/* scp's killchild(): an interrupted copy ends its children (ssh gets
 * the signal, as scp sends it; a proxy is hung up on), then exits 1.
 * Called by proc's signal thread; the copy's threads stop with the
 * process (_exit: nothing of theirs is freed under them). */
static void
on_signal(int sig)
{
	int null = open("/dev/null", O_WRONLY);

	/* scp is gone at once: what the copy's threads would say as they
	 * see their connections close is not scp's to say. */
	if (null >= 0)
		dup2(null, STDERR_FILENO);
	proc_end_all(sig);
	_exit(1);
}

/* The fallback when no signal thread could start: what is async-signal
 * safe, and the children left to end on their own as their pipes close. */
static void
on_signal_now(int sig)
{
	(void)sig;
	_exit(1);
}

/* A bad FSCP_* value or setting file line: said before anything is
 * copied, the value escaped as scp's log escapes it; the run ends (1). */
static void
bad_setting(struct run *r, const char *argv0, const char *diag)
{
	char *msg = mtext_vis(diag);

	fprintf(stderr, "%s: %s\r\n", argv0, msg);
	free(msg);
	run_end(r, 1, NULL);
}

/* The resume journal of this command line: named by everything that
 * decides what goes where (the working directory, the operands, the
 * options that change the files or reach another host). */
static struct journal *
run_journal(const struct fscp_opts *o)
{
	struct strv parts = { 0 };
	struct journal *j;
	char cwd[4096], flags[128];

	if (getcwd(cwd, sizeof(cwd)) == NULL)
		return NULL;	/* no stable name: no journal */
	snprintf(flags, sizeof(flags), "r%d p%d d%d O%d 3%d P%d", o->recursive, o->preserve,
	    o->target_dir, o->legacy, o->throughlocal, o->port);
	strv_push(&parts, cwd);
	strv_push(&parts, flags);
	strv_push(&parts, o->ssh_program != NULL ? o->ssh_program : "");
	/* ssh's options, but not those that only change how it talks
	 * (-v, -q, -C, -A, -4, -6, -c x, -i x): a resume with -v is the
	 * same copy. */
	for (size_t i = 0; i < o->ssh_args.n; i++) {
		const char *a = o->ssh_args.v[i];

		if (strcmp(a, "-c") == 0 || strcmp(a, "-i") == 0)
			i++;
		else if (strlen(a) != 2 || strchr("vqCA46", a[1]) == NULL)
			strv_push(&parts, a);
	}
	strv_push(&parts, "--");
	for (int i = 0; i < o->noperands; i++)
		strv_push(&parts, o->operands[i]);
	j = journal_open(&(struct journal_params){ .key_parts = (const char *const *)parts.v,
	    .nkey_parts = parts.n, .resume = o->resume, .preserve = o->preserve, .delay_s = -1 });
	strv_free(&parts);
	return j;
}

/* However fscp ends, no child outlives it. */
static void
end_children(void)
{
	proc_end_all(0);
}

/* scp's main() from the command line to the last copy: the exit status
 * when it ends normally, r->end set when it ends early. */
static int
run_main(struct run *r, int argc, char **argv, struct fscpconf *conf)
{
	struct fscp_opts *o = r->o;
	enum args_status st = args_parse(argc, argv, o);
	char usage[1024];

	if (st == ARGS_VERSION) {
		char text[512];

		fputs(version_text(text, sizeof(text)), stdout);
		return fflush(stdout) == 0 && !ferror(stdout) ? 0 : 1;
	}
	if (st == ARGS_FATAL) {
		fprintf(stderr, "%s: %s\r\n", argv[0], o->diag);
		run_end(r, 255, NULL);
		return 255;
	}
	if (st == ARGS_USAGE) {
		if (o->diag[0] != '\0')
			fprintf(stderr, "%s: %s\r\n", argv[0], o->diag);
		fputs(args_usage(args_progname(argv[0]), usage, sizeof(usage)), stderr);
		run_end(r, 1, NULL);
		return 1;
	}
	log_init(argv[0], o->verbose);
	if (args_read_env(o) != 0) {
		bad_setting(r, argv[0], o->diag);
		return 1;
	}
	log_set_route(o->verbose_route);
	if (o->server_to || o->server_from)
		return scp_legacy_server(o);
	if (args_read_config(o, conf) != 0) {
		bad_setting(r, argv[0], o->diag);
		return 1;
	}

	r->pm = progress_new(STDOUT_FILENO, o->quiet);
	r->bw = bwlimit_new(o->limit_bps);
	scp_legacy_init(&r->legacy, o, r->pm, r->bw);
	r->j = run_journal(o);
	if (operand_colon(o->operands[o->noperands - 1]) != NULL) {
		toremote(r);
	} else {
		if (o->noperands > 2 || o->target_dir)
			verifydir(r, o->operands[o->noperands - 1]);
		if (r->end == 0)
			tolocal(r);
	}
	if (r->end != 0)
		return r->end;
	scp_legacy_finish(&r->legacy);
	return log_errors() != 0 ? 1 : 0;
}

/* The one way fscp ends (but for a signal: on_signal()).  Nothing below
 * cli/ exits: each early end comes back here as r->end, and the sessions
 * close and their threads are joined before fatal()'s message is said,
 * as scp says it last.  A -O conversation that ended leaves its ssh child
 * to end_children(), as scp's exit() leaves it. */
int
main(int argc, char **argv)
{
	struct fscp_opts o;
	struct fscpconf conf = { 0 };
	struct run r = { .o = &o };
	int status;

	log_init(argv[0], 0);
	mtext_locale_init();
	/* Broken pipes become errors we report, not a silent death. */
	signal(SIGPIPE, SIG_IGN);
	if (proc_own_children(on_signal) != 0) {
		signal(SIGINT, on_signal_now);
		signal(SIGTERM, on_signal_now);
		signal(SIGHUP, on_signal_now);
	}
	atexit(end_children);

	status = run_main(&r, argc, argv, &conf);
	if (r.end != 0) {
		run_shutdown(&r);
		if (r.fatal[0] != '\0')
			log_warn("%s", r.fatal);
		status = r.end;
	}
	/* A whole copy needs no journal; one that failed or ended early
	 * keeps it, after the shutdown above cut what could not finish. */
	journal_end(r.j, status == 0 && log_errors() == 0);
	progress_free(r.pm);
	bwlimit_free(r.bw);
	args_free(&o);
	fscpconf_free(&conf);
	/* exit(), not return: what an early end left to end_children() (a -O
	 * conversation's stream) stays reachable while atexit runs. */
	exit(status);
}
