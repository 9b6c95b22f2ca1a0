/* SPDX-License-Identifier: ISC
 * Copyright (c) 2026 The fscp authors.  See LICENSE. */
/* session/exec: the legacy protocol's one stream over a libssh exec
 * channel, when the plan says one fresh connection beats ssh for it
 * (route_plan_exec); else ssh carries it, as scp's. */
#include "config.h"
#include "session/session.h"

#include <stdio.h>
#include <stdlib.h>

#include "util/log.h"
#include "util/xmalloc.h"
#include "policy/route.h"
#include "policy/route_plan.h"
#include "policy/sshcfg.h"
#include "transport/proxycmd.h"
#include "transport/sshconn.h"
#include "transport/stream.h"
#include "session/facts.h"
#include "session/pool.h"
#include "session/session_int.h"

/* A legacy stream on a bypass: the exec channel, and the connection (and
 * proxy) it alone uses. */
struct session_exec {
	struct fscp_stream ch;
	struct sshcfg *cfg;	/* ssh -G's answer */
	struct sshconn *ssh;
	pid_t proxy_pid;
};

static ssize_t
session_exec_read(void *ctx, void *buf, size_t n)
{
	struct session_exec *x = ctx;

	return x->ch.ops->read(x->ch.ctx, buf, n);
}

static ssize_t
session_exec_write(void *ctx, const void *buf, size_t n)
{
	struct session_exec *x = ctx;

	return x->ch.ops->write(x->ch.ctx, buf, n);
}

static void
session_exec_free(struct session_exec *x)
{
	if (x->cfg != NULL) {
		sshcfg_free(x->cfg);
		free(x->cfg);
	}
	free(x);
}

static int
session_exec_close(void *ctx)
{
	struct session_exec *x = ctx;
	int rc = x->ch.ops->close(x->ch.ctx);

	sshconn_close(x->ssh);
	pool_reap(x->proxy_pid);
	session_exec_free(x);
	return rc;
}

static const struct fscp_stream_ops session_exec_ops = {
	.read = session_exec_read,
	.write = session_exec_write,
	.close = session_exec_close,
};

/* One libssh connection for x, through the host's proxy when via_proxy;
 * false with the reason in err. */
static bool
session_exec_connect(struct session_exec *x, const struct fscp_opts *o,
    const struct facts *f, bool via_proxy, const char *cmd, char *err, size_t errlen)
{
	struct sshconn_params p = {
		.cfg = x->cfg, .proxy_fd = -1, .connect_host = f->direct,
		.compress = o->compress || x->cfg->compression, .may_prompt = false,
	};
	char *proxy = via_proxy ? facts_proxy_command(o, x->cfg) : NULL;

	if (via_proxy && proxy == NULL) {
		snprintf(err, errlen, "the proxy command cannot be run here");
		return false;
	}
	if (proxy != NULL) {
		struct proxycmd_how how = { .out_pipe = route_proxy_pipe(proxy) };

		p.proxy_fd = proxycmd_spawn_metered(proxy, &x->proxy_pid, NULL, &how, err,
		    errlen);
		free(proxy);
		if (p.proxy_fd < 0)
			return false;
	}
	if (sshconn_open(&p, &x->ssh, err, errlen) != SSHCONN_OK)
		return false;
	if (sshconn_exec_stream(x->ssh, cmd, &x->ch, err, errlen) != SSHCONN_OK) {
		sshconn_close(x->ssh);
		x->ssh = NULL;
		return false;
	}
	return true;
}

int
session_exec_open(const struct fscp_opts *o, const char *host, const char *user,
    int port, long long bytes, const char *cmd, struct fscp_stream *out)
{
	struct session_exec *x = xcalloc(1, sizeof(*x));
	struct facts f;
	struct route_facts rf;
	char err[512] = "";
	bool ok = false, via_proxy;

	facts_gather(&f, o, host, user, port, bytes, 0, true);
	x->cfg = f.cfg;
	facts_route(&f, o, 0, &rf);
	if (route_plan_exec(&rf, &f.d, &via_proxy)) {
		ok = session_exec_connect(x, o, &f, via_proxy, cmd, err, sizeof(err));
		if (!ok)
			log_route("bypass failed: %s; falling back to the standard route",
			    err[0] ? pool_one_line(err) : "connection failed");
	} else if (f.d.kind != ROUTE_STANDARD) {
		log_route("route standard: the legacy protocol has one stream");
	}
	if (!ok) {
		facts_free(&f);
		pool_reap(x->proxy_pid);
		session_exec_free(x);
		return -1;
	}
	session_say_for_ssh(x->cfg, f.in.master_live, &x->ssh, 1);
	facts_free(&f);
	log_verbose("legacy protocol over a libssh exec channel: %s", cmd);
	out->ops = &session_exec_ops;
	out->ctx = x;
	out->desc = "libssh exec channel";
	return 0;
}
