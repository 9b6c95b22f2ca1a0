/* SPDX-License-Identifier: ISC
 * Copyright (c) 2026 The fscp authors.  See LICENSE. */
/* facts: what the route decision is given about one host, gathered.
 *
 * ssh -G's answer, a live ControlMaster (a connect() on its socket), AWS
 * SSM in the ProxyCommand or behind the first ProxyJump hop, and for an
 * SSM instance a direct address (the user's own aws CLI) probed for the
 * instance's known host key; then route_decide().  Everything here may
 * take time (processes, probes); route.c, which decides, takes none. */
#include "config.h"
#include "session/facts.h"

#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>
#include <zlib.h>

#include "util/clock.h"
#include "util/log.h"
#include "util/proc.h"
#include "util/strv.h"
#include "util/xmalloc.h"
#include "policy/fscpconf.h"
#include "policy/proxyjump.h"
#include "policy/proxytok.h"
#include "transport/sshconn.h"
#include "session/pool.h"

/* A direct route to an SSM instance is probed with this connect timeout. */
#define FACTS_PROBE_TIMEOUT	3

/* A ControlMaster is live when its socket accepts a connection. */
static bool
facts_master_live(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd;
	bool live;

	if (path == NULL || strlen(path) >= sizeof(sa.sun_path))
		return false;
	strcpy(sa.sun_path, path);
	if ((fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) < 0)
		return false;
	live = connect(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0;
	close(fd);
	return live;
}

/* The proxy command libssh needs for this host, tokens expanded, or NULL
 * for a plain TCP connection.  ProxyJump becomes `ssh -W`, as ssh does. */
char *
facts_proxy_command(const struct fscp_opts *o, const struct sshcfg *cfg)
{
	struct proxytok tok;
	struct proxytok_store store = { 0 };
	char err[256], *out = NULL;

	proxytok_from(&tok, &store, cfg);
	if (cfg->proxycommand != NULL) {
		out = proxytok_expand(cfg->proxycommand, &tok, PROXYTOK_PROXY, err, sizeof(err));
		if (out == NULL)
			log_verbose("ProxyCommand: %s", err);
	} else if (cfg->proxyjump != NULL) {
		/* What ssh does with ProxyJump a,b: ssh -J a -W [host]:port b. */
		struct strv argv = { 0 };
		char *spec = xstrdup(cfg->proxyjump), *last = strrchr(spec, ',');
		char *dest = last ? last + 1 : spec;

		if (last)
			*last = '\0';
		strv_push(&argv, o->ssh_program);
		if (o->ssh_config) {
			strv_push(&argv, "-F");
			strv_push(&argv, o->ssh_config);
		}
		strv_push(&argv, "-oBatchMode=yes");
		strv_push(&argv, "-oControlMaster=no");
		strv_push(&argv, "-oControlPath=none");
		if (last) {
			strv_push(&argv, "-J");
			strv_push(&argv, spec);
		}
		strv_push(&argv, "-W");
		strv_pushf(&argv, "[%s]:%d", cfg->hostname, cfg->port);
		/* user@host:port is not a destination ssh takes; its URI is. */
		if (strchr(dest, ':') != NULL && dest[0] != '[' && strncmp(dest, "ssh://", 6) != 0)
			strv_pushf(&argv, "ssh://%s", dest);
		else
			strv_push(&argv, dest);
		out = strv_join_quoted(&argv);
		strv_free(&argv);
		free(spec);
	}
	proxytok_free(&store);
	return out;
}

/* What the first hop of a ProxyJump's own ssh config says, as it would
 * for ssh: true when it is reached through AWS SSM; *batch when the
 * ProxyJump is that one hop and its login looks possible without anyone
 * answering. */
static bool
facts_jump_hop(const struct fscp_opts *o, const char *spec, bool *batch)
{
	struct proxyjump_hop *hops = NULL;
	struct sshcfg jcfg;
	char err[256];
	bool ssm = false;
	int n = proxyjump_parse(spec, &hops);

	*batch = false;
	if (n <= 0)
		return false;
	if (sshcfg_load(o, hops[0].user, hops[0].host, hops[0].port, &jcfg, err,
	    sizeof(err)) == 0) {
		ssm = ssmcmd_match(jcfg.proxycommand, NULL);
		/* The hop's own ssh -W logs in without a terminal: only a
		 * login that asks nobody (a key, a known host key) and no
		 * proxy of its own, which fscp would not see. */
		*batch = n == 1 && !ssm && jcfg.proxycommand == NULL &&
		    jcfg.proxyjump == NULL && sshconn_may_log_in(&jcfg);
		sshcfg_free(&jcfg);
	}
	proxyjump_free(hops, n);
	return ssm;
}

/* ssm-direct: where does the instance answer directly?  FSCP_SSM_DIRECT is
 * off, auto (ask the user's own aws CLI) or an address. */
static char *
facts_ssm_address(const struct fscp_opts *o, const struct ssmcmd *ssm,
    const char *instance, const char **why)
{
	const char *mode = o->ssm_direct;
	struct strv argv = { 0 };
	char buf[512] = "";
	struct proc_spec ps = {
		.search_path = true, .in = PROC_NULL, .err = PROC_NULL,
		.msg = PROC_MSG_NONE, .exec_status = 127, .group = true,
	};
	struct proc_output po;

	if (mode != NULL && strcmp(mode, "off") == 0) {
		*why = "FSCP_SSM_DIRECT=off";
		return NULL;
	}
	if (mode != NULL && *mode != '\0' && strcmp(mode, "auto") != 0)
		return xstrdup(mode);
	strv_push(&argv, "aws");
	if (ssm->profile) {
		strv_push(&argv, "--profile");
		strv_push(&argv, ssm->profile);
	}
	if (ssm->region) {
		strv_push(&argv, "--region");
		strv_push(&argv, ssm->region);
	}
	strv_push(&argv, "ec2");
	strv_push(&argv, "describe-instances");
	strv_push(&argv, "--instance-ids");
	strv_push(&argv, instance);
	strv_push(&argv, "--query");
	strv_push(&argv, "Reservations[0].Instances[0].[PrivateIpAddress,PublicIpAddress]");
	strv_push(&argv, "--output");
	strv_push(&argv, "text");
	/* stdin and (below -vv) stderr are /dev/null; no time limit, as
	 * before: a slow aws CLI only delays the route decision. */
	ps.argv = argv.v;
	if (log_level() >= 2)
		ps.err = PROC_KEEP;
	if (proc_capture(&ps, false, -1, &po, NULL, 0) == 0) {
		if (po.status != 0) {
			proc_output_free(&po);
			strv_free(&argv);
			*why = "aws ec2 describe-instances failed";
			return NULL;
		}
		snprintf(buf, sizeof(buf), "%s", po.out);
		proc_output_free(&po);
	}
	strv_free(&argv);
	/* "PRIVATE\tPUBLIC": the private address first, as it is usually the
	 * one reachable from inside the VPC. */
	char *save = NULL;

	/* strtok_r: the lookup may run beside the pool's threads. */
	for (char *tok = strtok_r(buf, " \t\r\n", &save); tok;
	    tok = strtok_r(NULL, " \t\r\n", &save)) {
		if (strcmp(tok, "None") != 0 && *tok != '\0')
			return xstrdup(tok);
	}
	*why = "the instance has no IP address";
	return NULL;
}

/* ssm-direct probe: connect to addr and check it presents the instance's
 * known host key (under its HostName/HostKeyAlias), nothing else. */
static bool
facts_probe_direct(const struct sshcfg *cfg, const char *addr, char *why, size_t whylen)
{
	struct sshcfg probe = *cfg;
	struct sshconn_params p = {
		.cfg = &probe, .proxy_fd = -1, .connect_host = addr,
		.probe_only = true, .may_prompt = false,
		.handshake_timeout = FACTS_PROBE_TIMEOUT,
	};
	struct sshconn *c = NULL;
	enum sshconn_err rc;

	/* Never add a key while probing: only a key already known counts. */
	if (probe.stricthostkeychecking != SHK_YES)
		probe.stricthostkeychecking = SHK_YES;
	if (probe.connecttimeout < 0 || probe.connecttimeout > FACTS_PROBE_TIMEOUT)
		probe.connecttimeout = FACTS_PROBE_TIMEOUT;
	rc = sshconn_open(&p, &c, why, whylen);
	if (c)
		sshconn_close(c);
	return rc == SSHCONN_OK;
}

/* Does looking for a direct address run the aws CLI (FSCP_SSM_DIRECT
 * auto)? */
static bool
facts_direct_asks_cli(const struct fscp_opts *o)
{
	return o->ssm_direct == NULL || *o->ssm_direct == '\0' ||
	    strcmp(o->ssm_direct, "auto") == 0;
}

/* The direct address found (or NULL, whyp saying why): probed, it is the
 * route's when it presents the instance's known key (f->direct), else
 * in->direct_why says why not.  Takes addr. */
static void
facts_direct_try(struct facts *f, struct route_input *in, char *addr, const char *whyp)
{
	if (addr != NULL) {
		char perr[256] = "";

		if (facts_probe_direct(f->cfg, addr, perr, sizeof(perr))) {
			in->direct_ok = true;
			f->direct = addr;
			return;
		}
		char *msg = xasprintf("direct address %s refused: %s", addr, pool_one_line(perr));

		snprintf(f->why, sizeof(f->why), "%s", msg);
		free(msg);
		free(addr);
		in->direct_why = f->why;
	} else if (whyp != NULL) {
		snprintf(f->why, sizeof(f->why), "%s", whyp);
		in->direct_why = f->why;
	}
}

bool
facts_direct_now(struct facts *f, const struct fscp_opts *o)
{
	const char *whyp = NULL;
	char *addr;

	if (!f->direct_later)
		return false;
	f->direct_later = false;
	addr = facts_ssm_address(o, &f->ssm, f->cfg->hostname, &whyp);
	facts_direct_try(f, &f->in, addr, whyp);
	if (!f->in.direct_ok) {
		log_route("no direct route: %s", f->why);
		return false;
	}
	route_decide(&f->in, &f->d);
	log_route("route %s: %s", route_name(f->d.kind), f->d.reason);
	return true;
}

struct facts_lookup {
	struct facts *f;
	const struct fscp_opts *o;
	pthread_t tid;
	bool threaded, done, found;
	pthread_mutex_t lock;
	pthread_cond_t cond;
};

static void *
facts_lookup_run(void *arg)
{
	struct facts_lookup *l = arg;
	bool found = facts_direct_now(l->f, l->o);

	pthread_mutex_lock(&l->lock);
	l->found = found;
	l->done = true;
	pthread_cond_broadcast(&l->cond);
	pthread_mutex_unlock(&l->lock);
	return NULL;
}

struct facts_lookup *
facts_lookup_start(struct facts *f, const struct fscp_opts *o)
{
	struct facts_lookup *l = xcalloc(1, sizeof(*l));

	l->f = f;
	l->o = o;
	pthread_mutex_init(&l->lock, NULL);
	pthread_cond_init(&l->cond, NULL);
	l->threaded = pthread_create(&l->tid, NULL, facts_lookup_run, l) == 0;
	if (!l->threaded)
		(void)facts_lookup_run(l);
	return l;
}

bool
facts_lookup_wait(struct facts_lookup *l, double s)
{
	struct timespec ts = clock_deadline(s);
	bool done;

	pthread_mutex_lock(&l->lock);
	if (!l->done)
		(void)pthread_cond_timedwait(&l->cond, &l->lock, &ts);
	done = l->done;
	pthread_mutex_unlock(&l->lock);
	return done;
}

bool
facts_lookup_end(struct facts_lookup *l)
{
	bool found;

	if (l->threaded)
		pthread_join(l->tid, NULL);
	found = l->found;
	pthread_mutex_destroy(&l->lock);
	pthread_cond_destroy(&l->cond);
	free(l);
	return found;
}

/* Does a sample of the first source compress well?  Then zlib pays on SSM,
 * whose cap is on bytes after ssh. */
bool
facts_sample_compresses(const char *path)
{
	static unsigned char in[65536], out[70000];
	uLongf outlen = sizeof(out);
	ssize_t n;
	int fd;

	/* O_NOATIME: looking must not change the source (its atime is what
	 * -p copies).  Without it (not the owner) do not look at all. */
	if (path == NULL || (fd = open(path, O_RDONLY | O_NOATIME | O_CLOEXEC)) < 0)
		return false;
	n = read(fd, in, sizeof(in));
	close(fd);
	if (n < 4096 || compress2(out, &outlen, in, (uLong)n, 1) != Z_OK)
		return false;
	return outlen < (uLongf)n * 7 / 10;
}


void
facts_gather(struct facts *f, const struct fscp_opts *o, const char *host,
    const char *user, int port, long long bytes, int want, bool one_stream)
{
	struct route_input in = { .bytes = bytes, .one_stream = one_stream };
	struct sshcfg *cfg = NULL;
	struct ssmcmd ssm = { 0 };
	char err[512], *why = f->why;

	memset(f, 0, sizeof(*f));

	bool from_file;

	in.force = fscpconf_route(o->conf, host, o->route_force_set,
	    (enum route_force)o->route_force, f->force_why, sizeof(f->force_why), &from_file);
	in.force_why = f->force_why[0] != '\0' ? f->force_why : NULL;
	if (from_file)
		log_route("route setting for %s: %s", host, f->force_why);
	in.connections_wanted = want > 0 ? want : o->connections;
	in.cores = proc_cores();
	in.ssm_start_cpu_s = o->ssm_start_cpu_s;
	const char *prog = strrchr(o->ssh_program, '/');

	prog = prog ? prog + 1 : o->ssh_program;
	if (o->sftp_direct != NULL) {
		in.legacy_or_special = true;
		in.special_why = "-D runs an SFTP server directly";
	} else if (strcmp(prog, "ssh") != 0 && strcmp(o->ssh_program, FSCP_SSH_PROGRAM) != 0) {
		/* The user's -S program may do anything (a wrapper, a jump, a
		 * log): going around it would not be what they asked for. */
		in.legacy_or_special = true;
		in.special_why = "-S with a program other than ssh";
	} else if (in.force != ROUTE_FORCE_STANDARD &&
	    route_wants_config(bytes, in.force, in.connections_wanted)) {
		/* A small copy asks none: ssh -G would cost about what ssh's
		 * own start does, to decide what route_decide says anyway.
		 * Its owner keeps it (facts_free leaves it): connections may
		 * still be coming up (and reading it) after the session is
		 * open. */
		cfg = xcalloc(1, sizeof(*cfg));
		if (sshcfg_load(o, user, host, port, cfg, err, sizeof(err)) == 0) {
			f->cfg = cfg;
			in.cfg = cfg;
			in.master_live = facts_master_live(cfg->controlpath);
			in.ssm = ssmcmd_match(cfg->proxycommand, &ssm);
			if (!in.ssm && cfg->proxyjump != NULL)
				in.ssm = in.ssm_via_jump = facts_jump_hop(o, cfg->proxyjump,
				    &f->jump_batch);
		} else {
			free(cfg);
			cfg = NULL;
			in.special_why = "ssh -G failed";
			log_verbose("ssh -G %s: %s", host, err);
		}
	}
	if (in.ssm_via_jump) {
		/* The direct address would be the jump host's, not the target's. */
		snprintf(why, sizeof(f->why), "the SSM host is the jump host");
		in.direct_why = why;
	} else if (in.ssm) {
		const char *whyp = NULL;
		char *addr = NULL;

		switch (route_ssm_lookup(bytes, one_stream, facts_direct_asks_cli(o), in.cores,
		    &whyp)) {
		case ROUTE_LOOKUP_FIRST:
			addr = facts_ssm_address(o, &ssm, cfg->hostname, &whyp);
			break;
		case ROUTE_LOOKUP_BESIDE:
			f->direct_later = true;
			break;
		case ROUTE_LOOKUP_NONE:
			break;
		}
		facts_direct_try(f, &in, addr, whyp);
	}
	route_decide(&in, &f->d);
	log_route("route %s: %s", route_name(f->d.kind), f->d.reason);
	f->in = in;
	f->ssm = ssm;
	/* Only SSM sessions start while the lookup runs: any other route
	 * waits for it. */
	if (f->direct_later && f->d.kind != ROUTE_SSM_PARALLEL)
		(void)facts_direct_now(f, o);
}

void
facts_route(const struct facts *f, const struct fscp_opts *o, int want, struct route_facts *rf)
{
	const struct sshcfg *cfg = f->cfg;

	memset(rf, 0, sizeof(*rf));
	rf->cfg = cfg;
	rf->master_live = f->in.master_live;
	rf->ssm = f->in.ssm;
	rf->special = f->in.legacy_or_special;
	rf->has_proxy = cfg != NULL && (cfg->proxycommand != NULL || cfg->proxyjump != NULL);
	rf->compress = o->compress || (cfg != NULL && cfg->compression);
	rf->want = want;
	rf->connections = o->connections;
	rf->cores = f->in.cores;
	rf->ssm_start_cpu_s = o->ssm_start_cpu_s;
	rf->jump_batch = f->jump_batch;
}

void
facts_free(struct facts *f)
{
	free(f->direct);
	f->direct = NULL;
	if (f->in.ssm)
		ssmcmd_free(&f->ssm);
	f->in.ssm = false;
}
