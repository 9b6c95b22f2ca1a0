#include "config.h"
#include "session.h"
#include "clock.h"
#include "log.h"
#include "proc.h"
#include "proxycmd.h"
#include "sftp.h"
#include "sshcfg.h"
#include "sshconn.h"
#include "sshproc.h"
#include "strv.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zlib.h>

#include <openssl/crypto.h>

/* How the engine cuts files across connections: SSM sessions are slow,
 * so small pieces keep all of them busy to the end. */
#define SESSION_CHUNK_SSM	(256ull << 10)
#define SESSION_SSM_INFLIGHT	(512ull << 10)
#define SESSION_CHUNK_FAST	(4ull << 20)
/* A direct route to an SSM instance is probed with this connect timeout. */
#define SESSION_PROBE_TIMEOUT	3
/* Smallest copy for which a direct route to an SSM instance is looked for. */
#define SESSION_SSM_DIRECT_MIN_BYTES	(1ll << 20)

/* A ControlMaster is live when its socket accepts a connection. */
static bool
session_master_live(const char *path)
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
static char *
session_proxy_command(const struct fscp_opts *o, const struct sshcfg *cfg)
{
	struct proxycmd_tokens tok;
	struct proxycmd_tokstore store = { 0 };
	char err[256], *out = NULL;

	proxycmd_tokens_from(&tok, &store, cfg);
	if (cfg->proxycommand != NULL) {
		out = proxycmd_expand(cfg->proxycommand, &tok, PROXYCMD_TOK_PROXY, err, sizeof(err));
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
	proxycmd_tokens_free(&store);
	return out;
}

/* Is the first hop of a ProxyJump reached through AWS SSM?  Its own ssh
 * config decides, as it would for ssh. */
static bool
session_jump_is_ssm(const struct fscp_opts *o, const char *spec)
{
	struct proxycmd_hop *hops = NULL;
	struct sshcfg jcfg;
	char err[256];
	bool ssm = false;
	int n = proxycmd_jump_parse(spec, &hops);

	if (n <= 0)
		return false;
	if (sshcfg_load(o, hops[0].user, hops[0].host, hops[0].port, &jcfg, err,
	    sizeof(err)) == 0) {
		ssm = proxycmd_is_ssm(jcfg.proxycommand, NULL);
		sshcfg_free(&jcfg);
	}
	proxycmd_hops_free(hops, n);
	return ssm;
}

/* ssm-direct: where does the instance answer directly?  FSCP_SSM_DIRECT is
 * off, auto (ask the user's own aws CLI) or an address. */
static char *
session_ssm_address(const struct proxycmd_ssm *ssm, const char *instance, const char **why)
{
	const char *mode = getenv("FSCP_SSM_DIRECT");
	struct strv argv = { 0 };
	char buf[512] = "";
	struct proc_spec ps = {
		.search_path = true, .in = PROC_NULL, .err = PROC_NULL,
		.msg = PROC_MSG_NONE, .exec_status = 127,
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
	for (char *tok = strtok(buf, " \t\r\n"); tok; tok = strtok(NULL, " \t\r\n")) {
		if (strcmp(tok, "None") != 0 && *tok != '\0')
			return xstrdup(tok);
	}
	*why = "the instance has no IP address";
	return NULL;
}

/* sshconn's messages can be ssh's multi-line warnings: -v wants one line. */
static const char *
session_one_line(char *msg)
{
	char *nl;

	if (strstr(msg, "REMOTE HOST IDENTIFICATION HAS CHANGED") != NULL)
		return "it presents a different host key than the one known for the instance";
	while (*msg == '\n' || *msg == '@')
		msg += strspn(msg, "@\n ");
	if ((nl = strchr(msg, '\n')) != NULL)
		*nl = '\0';
	return msg;
}

struct session_job {
	const struct fscp_opts *o;
	const struct sshcfg *cfg;
	const char *proxy;		/* expanded ProxyCommand or NULL */
	const char *direct;		/* ssm-direct address or NULL */
	bool compress;
	struct session_pending *batch;
	int chan;			/* 0: the connection's own job; 1..: another
					   SFTP channel on that connection */
	struct fscp_stream stream;	/* a channel's, before its SFTP starts */
	/* results */
	enum sshconn_err rc;
	char err[512];
	struct sshconn *ssh;		/* one reference per job */
	struct sftp_conn *sftp;
	pid_t pid;		/* the ProxyCommand; written under batch->lock */
	double ready_s;		/* seconds from the batch's start */
	bool done, taken;	/* under batch->lock */
	bool unused;		/* a channel slot the connection did not open */
};

/* Connections being opened side by side, each with up to per SFTP
 * channels: jobs[c * per + k] is connection c's channel k.  The copy may
 * start on the first ones while the rest are still coming up
 * (session_next_conn). */
struct session_pending {
	struct session_job *jobs;
	pthread_t *tids;	/* one per job that has a thread */
	int n;			/* jobs: connections * per */
	int per;
	int ok;			/* connections up so far */
	int chans;		/* channels up so far */
	bool probe;		/* the first connection says how many more start */
	bool expanded;		/* ... it has */
	int started;		/* connections whose thread was started */
	double t0, last;	/* start, and when the latest came up */
	bool stop;		/* no more wanted: abort what is still connecting */
	bool joined;		/* its owner is joining the threads */
	char *proxy, *direct;	/* the jobs' (outlive the caller's copies) */
	pthread_mutex_t lock;
	pthread_cond_t cond;
};

static int session_near_limit(double rtt_ms);

/* A banner later than this after the connect means a far server: the
 * other connections start at once instead of after the first's login. */
#define SESSION_FAR_HINT_MS	10.0

/* Under j->batch->lock: the job is over, one way or the other. */
static void
session_job_finish(struct session_job *j)
{
	struct session_pending *b = j->batch;

	j->done = true;
	j->ready_s = clock_now() - b->t0;
	if (j->rc == SSHCONN_OK) {
		b->chans++;
		if (j->chan == 0)
			b->ok++;
		b->last = j->ready_s;
	}
	pthread_cond_broadcast(&b->cond);
}

/* Another channel of a connection that is up: its SFTP handshake. */
static void *
session_channel_one(void *arg)
{
	struct session_job *j = arg;

	j->sftp = sftp_open(j->stream, j->o->sftp_buflen, j->err, sizeof(j->err));
	j->rc = j->sftp != NULL ? SSHCONN_OK : SSHCONN_ERR_CHANNEL;
	pthread_mutex_lock(&j->batch->lock);
	/* The proxy is the connection's; a job still running has none, so
	 * that stopping the batch does not hang up on a connection in use. */
	j->pid = (j - j->chan)->pid;
	session_job_finish(j);
	pthread_mutex_unlock(&j->batch->lock);
	return NULL;
}

/* The connection's channel slots past the first: those it opened get a
 * thread for their SFTP handshake, the rest are marked unused. */
static void
session_channels_start(struct session_job *j, struct fscp_stream *st, int got)
{
	struct session_pending *b = j->batch;
	int base = (int)(j - b->jobs);

	pthread_mutex_lock(&b->lock);
	for (int k = 1; k < b->per; k++) {
		struct session_job *x = &b->jobs[base + k];

		if (k < got && !b->stop) {
			x->stream = st[k];
			x->ssh = sshconn_ref(j->ssh);
			if (pthread_create(&b->tids[base + k], NULL, session_channel_one, x) == 0)
				continue;
			b->tids[base + k] = 0;
			x->stream.ops->close(x->stream.ctx);
			(void)sshconn_close(x->ssh);
			x->ssh = NULL;
		} else if (k < got) {
			st[k].ops->close(st[k].ctx);
		}
		x->rc = SSHCONN_ERR_CHANNEL;
		x->unused = x->taken = x->done = true;
	}
	pthread_mutex_unlock(&b->lock);
}

static void *session_connect_one(void *arg);

/* Under b->lock: a probing batch now has total connections (the first
 * included); the others' slots are given up. */
static void
session_batch_expand(struct session_pending *b, int total)
{
	int conns = b->n / b->per;

	if (b->expanded)
		return;
	b->expanded = true;
	if (b->stop)
		total = b->started;
	for (int c = b->started; c < conns; c++) {
		struct session_job *j = &b->jobs[c * b->per];
		bool up = c < total &&
		    pthread_create(&b->tids[c * b->per], NULL, session_connect_one, j) == 0;

		if (up)
			continue;
		b->tids[c * b->per] = 0;
		for (int k = 0; k < b->per; k++) {
			j[k].rc = SSHCONN_ERR_CONNECT;
			j[k].unused = j[k].taken = j[k].done = true;
		}
	}
	b->started = total < b->started ? b->started : total > conns ? conns : total;
	pthread_cond_broadcast(&b->cond);
}

/* The first connection's banner came: a far server's others start now. */
static void
session_first_byte(void *arg, double ms)
{
	struct session_job *j = arg;
	struct session_pending *b = j->batch;

	pthread_mutex_lock(&b->lock);
	if (b->probe && !b->expanded && ms >= SESSION_FAR_HINT_MS) {
		log_verbose("the server's first bytes came after %.1f ms: %d connections start "
		    "at once", ms, b->n / b->per);
		session_batch_expand(b, b->n / b->per);
	}
	pthread_mutex_unlock(&b->lock);
}

/* The first connection is in and measured the round trip: a near
 * server is worth fewer connections (CPU-bound), a far one all. */
static void
session_probe_done(struct session_job *j, double rtt)
{
	struct session_pending *b = j->batch;
	int conns = b->n / b->per, near = session_near_limit(rtt);

	pthread_mutex_lock(&b->lock);
	if (b->probe && !b->expanded) {
		if (near > 0 && near < conns) {
			log_verbose("server answers in %.2f ms and this machine has %ld cores: "
			    "%d fresh connection%s", rtt, sysconf(_SC_NPROCESSORS_ONLN), near,
			    near == 1 ? "" : "s");
			conns = near;
		}
		session_batch_expand(b, conns);
	}
	pthread_mutex_unlock(&b->lock);
}

static void *
session_connect_one(void *arg)
{
	struct session_job *j = arg;
	struct sshconn_params p = {
		.cfg = j->cfg, .proxy_fd = -1, .compress = j->compress,
		.connect_host = j->direct, .may_prompt = false,
	};
	bool first = j == j->batch->jobs && j->batch->probe;
	struct fscp_stream st[ROUTE_MAX_CHANNELS];
	int got = 0;

	struct proxycmd_hold *hold = NULL;

	if (j->proxy != NULL) {
		pid_t pid = 0;

		p.proxy_fd = proxycmd_spawn_held(j->proxy, &pid, &hold, j->err, sizeof(j->err));
		pthread_mutex_lock(&j->batch->lock);
		j->pid = pid;
		if (j->batch->stop && pid > 0)
			kill(pid, SIGHUP);
		pthread_mutex_unlock(&j->batch->lock);
		if (p.proxy_fd < 0) {
			j->rc = SSHCONN_ERR_CONNECT;
			goto out;
		}
	}
	if (first) {
		p.on_first_byte = session_first_byte;
		p.cb_arg = j;
	}
	j->rc = sshconn_open(&p, &j->ssh, j->err, sizeof(j->err));
	if (j->rc != SSHCONN_OK)
		goto out;
	double rtt = j->batch->per > 1 || first ? sshconn_measure_rtt(j->ssh) : -1;

	if (first)
		session_probe_done(j, rtt);
	/* A far server gives every channel its own window: what more round
	 * trips in flight need, without another handshake. */
	got = sshconn_sftp_streams(j->ssh, j->batch->per > 1 ?
	    route_channels(rtt, j->batch->per) : 1, st, j->err, sizeof(j->err));
	if (got < 1) {
		j->rc = SSHCONN_ERR_CHANNEL;
		goto out;
	}
	if (got > 1)
		log_debug(1, "%d SFTP channels on one connection", got);
	session_channels_start(j, st, got);
	j->sftp = sftp_open(st[0], j->o->sftp_buflen, j->err, sizeof(j->err));
	if (j->sftp == NULL)
		j->rc = SSHCONN_ERR_CHANNEL;
out:
	if (got < 1)
		session_channels_start(j, st, 0);
	if (first && j->rc != SSHCONN_OK) {
		/* The caller falls back (or goes on with what it has). */
		pthread_mutex_lock(&j->batch->lock);
		session_batch_expand(j->batch, 1);
		pthread_mutex_unlock(&j->batch->lock);
	}
	/* A connection that came up shows what its proxy said; a failed one's
	 * words come again from ssh's own try (or -v says why it failed). */
	proxycmd_hold_end(hold, j->rc == SSHCONN_OK);
	pthread_mutex_lock(&j->batch->lock);
	session_job_finish(j);
	pthread_mutex_unlock(&j->batch->lock);
	if (j->rc == SSHCONN_OK)
		log_debug(1, "connection ready in %.2f s", j->ready_s);
	return NULL;
}

static void
session_reap(pid_t pid)
{
	if (pid <= 0)
		return;
	/* ssh sends SIGHUP to its ProxyCommand when done; so do we. */
	kill(pid, SIGHUP);
	(void)proc_wait(pid);
}

/* Close one connection: its SFTP channel (or ssh), its libssh session and
 * its ProxyCommand.  Returns true when it ended badly (a non-zero exit
 * status of ssh or of the SFTP channel). */
static bool
session_close_parts(struct sftp_conn *sftp, struct sshconn *ssh, pid_t pid)
{
	bool bad = sftp != NULL && sftp_close(sftp) != 0;

	/* A connection's channels share its session and proxy: whoever
	 * closes the last of them ends the proxy. */
	if (ssh == NULL || sshconn_close(ssh))
		session_reap(pid);
	return bad;
}

static void
session_job_undo(struct session_job *j)
{
	(void)session_close_parts(j->sftp, j->ssh, j->pid);
	j->sftp = NULL;
	j->ssh = NULL;
	j->pid = 0;
}

/* Stop what is still connecting (hang up on its proxy; a direct one
 * finishes its handshake).  Returns true when the caller is the one to
 * join the threads.  Every exit of fscp happens in main, after the
 * sessions are closed (which joins these threads): a thread still in its
 * handshake at exit() would crash in OpenSSL's freed state. */
static bool
session_batch_stop(struct session_pending *b)
{
	bool join;

	pthread_mutex_lock(&b->lock);
	b->stop = true;
	for (int i = 0; i < b->n; i++)
		if (!b->jobs[i].done && b->jobs[i].pid > 0)
			kill(b->jobs[i].pid, SIGHUP);
	pthread_cond_broadcast(&b->cond);
	join = !b->joined;
	b->joined = true;
	pthread_mutex_unlock(&b->lock);
	return join;
}

static void
session_batch_join(struct session_pending *b)
{
	for (int i = 0; i < b->n; i++)
		if (b->tids[i])
			pthread_join(b->tids[i], NULL);
}

/* No more connections are wanted from the batch: stop the ones still
 * connecting (their proxies are hung up on; direct ones finish their
 * handshake), wait for every thread and close what nobody took.  report:
 * say under -v how many came up. */
static void
session_pending_end(struct session *s, bool report)
{
	struct session_pending *b = s->pending;

	if (b == NULL)
		return;
	if (session_batch_stop(b))
		session_batch_join(b);
	for (int i = 0; i < b->n; i++) {
		if (!b->jobs[i].taken) {
			b->jobs[i].taken = true;
			session_job_undo(&b->jobs[i]);
		}
	}
	if (report && b->ok > 0 && b->chans > b->ok)
		log_verbose("%d of %d connections ready in %.2f s, with %d SFTP channels",
		    b->ok, b->n / b->per, b->last, b->chans);
	else if (report && b->ok > 0)
		log_verbose("%d of %d connections ready in %.2f s", b->ok, b->n / b->per, b->last);
	pthread_mutex_destroy(&b->lock);
	pthread_cond_destroy(&b->cond);
	free(b->proxy);
	free(b->direct);
	free(b->jobs);
	free(b->tids);
	free(b);
	s->pending = NULL;
}

static struct sftp_conn *session_take(struct session *s, struct session_job *j, int i, int n);

/* Under b->lock: the first finished job nobody has taken (now taken), or
 * -1; *left says whether some are still connecting. */
static int
session_pick_done(struct session_pending *b, bool *left)
{
	*left = false;
	for (int i = 0; i < b->n; i++) {
		if (b->jobs[i].taken)
			continue;
		if (b->jobs[i].done) {
			b->jobs[i].taken = true;
			return i;
		}
		*left = true;
	}
	return -1;
}

struct sftp_conn *
session_next_conn(struct session *s)
{
	struct session_pending *b = s->pending;
	struct sftp_conn *c = NULL;

	if (b == NULL)
		return NULL;
	pthread_mutex_lock(&b->lock);
	while (!b->stop && c == NULL) {
		bool left;
		int pick = session_pick_done(b, &left);

		if (pick >= 0) {
			pthread_mutex_unlock(&b->lock);
			c = session_take(s, &b->jobs[pick], pick, b->n);
			if (c != NULL)
				log_debug(1, "connection %d of %d (channel %d) joins the copy "
				    "after %.2f s", pick / b->per + 1, b->n / b->per,
				    b->jobs[pick].chan + 1, b->jobs[pick].ready_s);
			pthread_mutex_lock(&b->lock);
		} else if (!left) {
			break;
		} else {
			pthread_cond_wait(&b->cond, &b->lock);
		}
	}
	pthread_mutex_unlock(&b->lock);
	return c;
}

void
session_stop_pending(struct session *s)
{
	struct session_pending *b = s->pending;

	if (b == NULL)
		return;
	pthread_mutex_lock(&b->lock);
	b->stop = true;
	pthread_cond_broadcast(&b->cond);
	pthread_mutex_unlock(&b->lock);
}

void
session_end_pending(struct session *s)
{
	session_pending_end(s, true);
}

int
session_pending_count(const struct session *s)
{
	int n = 0;

	if (s->pending == NULL)
		return 0;
	pthread_mutex_lock(&s->pending->lock);
	for (int i = 0; i < s->pending->n; i++)
		n += !s->pending->jobs[i].taken;
	pthread_mutex_unlock(&s->pending->lock);
	return n;
}

/* Hand a connection that came up to the session; a failed one is said
 * under -v and undone. */
static struct sftp_conn *
session_take(struct session *s, struct session_job *j, int i, int n)
{
	int per = j->batch->per;

	if (j->rc != SSHCONN_OK) {
		if (j->chan == 0)
			log_verbose("connection %d of %d failed: %s", i / per + 1, n / per,
			    session_one_line(j->err));
		else
			log_verbose("connection %d: SFTP channel %d failed: %s", i / per + 1,
			    j->chan + 1, session_one_line(j->err));
		session_job_undo(j);
		return NULL;
	}
	s->conns[s->nconns] = j->sftp;
	s->ssh[s->nconns] = j->ssh;
	s->proxy_pids[s->nconns] = j->pid;
	s->nconns++;
	return j->sftp;
}

/* Make room for more connections in the session's arrays; connections
 * before from (ssh pipes of a standard route) have no libssh session. */
static void
session_reserve(struct session *s, int more)
{
	size_t cap = (size_t)(s->nconns + more);

	s->conns = xrealloc(s->conns, cap * sizeof(*s->conns));
	if (s->ssh == NULL) {
		s->ssh = xcalloc(cap, sizeof(*s->ssh));
		s->proxy_pids = xcalloc(cap, sizeof(*s->proxy_pids));
	} else {
		s->ssh = xrealloc(s->ssh, cap * sizeof(*s->ssh));
		s->proxy_pids = xrealloc(s->proxy_pids, cap * sizeof(*s->proxy_pids));
	}
}

/* Open n bypass connections at once, each with up to per SFTP channels
 * (route_channels decides from the round trip), and add those that work
 * to the session.  Unstaged: wait for all.  Staged: return as soon as one
 * is up (or the first has failed), leaving the others to
 * session_next_conn.  Returns how many channels were added, 0 when the
 * first connection failed (the caller then falls back; the others are
 * closed). */
static int
session_open_bypass(struct session *s, const struct fscp_opts *o, const struct sshcfg *cfg,
    const char *proxy, const char *direct, bool compress, int n, int per, bool staged,
    bool probe)
{
	struct session_pending *b;
	int had = s->nconns;
	bool first_failed = false;

	if (per < 1)
		per = 1;
	if (per > ROUTE_MAX_CHANNELS)
		per = ROUTE_MAX_CHANNELS;
	session_pending_end(s, true);	/* one batch at a time */
	b = xcalloc(1, sizeof(*b));
	b->jobs = xcalloc((size_t)(n * per), sizeof(*b->jobs));
	b->tids = xcalloc((size_t)(n * per), sizeof(*b->tids));
	b->n = n * per;
	b->per = per;
	b->t0 = clock_now();
	b->proxy = proxy ? xstrdup(proxy) : NULL;
	b->direct = direct ? xstrdup(direct) : NULL;
	pthread_mutex_init(&b->lock, NULL);
	pthread_cond_init(&b->cond, NULL);
	for (int i = 0; i < b->n; i++)
		b->jobs[i] = (struct session_job){ .o = o, .cfg = cfg, .proxy = b->proxy,
			.direct = b->direct, .compress = compress, .batch = b, .chan = i % per };
	/* Probing: the first connection starts the others (session_batch_expand). */
	b->probe = probe && n > 1;
	b->started = b->probe ? 1 : n;
	for (int i = 0; i < b->started * per; i += per) {
		struct session_job *j = &b->jobs[i];

		if (pthread_create(&b->tids[i], NULL, session_connect_one, j) != 0) {
			j->rc = SSHCONN_ERR_CONNECT;
			snprintf(j->err, sizeof(j->err), "pthread_create failed");
			b->tids[i] = 0;
			session_channels_start(j, NULL, 0);
			pthread_mutex_lock(&b->lock);
			if (b->probe)
				session_batch_expand(b, 1);
			session_job_finish(j);
			pthread_mutex_unlock(&b->lock);
		}
	}
	pthread_mutex_lock(&b->lock);
	/* Connections already there (a listing one) start at once. */
	for (; !(staged && had > 0);) {
		bool all = true;

		first_failed = b->jobs[0].done && b->jobs[0].rc != SSHCONN_OK;
		for (int i = 0; i < b->n; i++)
			all = all && b->jobs[i].done;
		if (all || first_failed || (staged && b->ok > 0))
			break;
		pthread_cond_wait(&b->cond, &b->lock);
	}
	pthread_mutex_unlock(&b->lock);
	if (had == 0 && first_failed) {
		log_verbose("bypass failed: %s; falling back to the standard route",
		    b->jobs[0].err[0] ? session_one_line(b->jobs[0].err) : "connection failed");
		s->pending = b;
		session_pending_end(s, false);	/* closes them all */
		return 0;
	}
	session_reserve(s, b->n);
	s->pending = b;
	bool left;

	pthread_mutex_lock(&b->lock);
	for (int i; (i = session_pick_done(b, &left)) >= 0;) {
		pthread_mutex_unlock(&b->lock);
		(void)session_take(s, &b->jobs[i], i, b->n);
		pthread_mutex_lock(&b->lock);
	}
	pthread_mutex_unlock(&b->lock);
	if (!staged)
		session_pending_end(s, true);
	else if (session_pending_count(s) > 0)
		log_verbose("%d of %d %sconnections up in %.2f s: the copy starts, the others "
		    "join as they come up", b->ok, n, had > 0 ? "more " : "",
		    clock_now() - b->t0);
	else
		session_pending_end(s, true);
	return s->nconns - had;
}

/* A server this near (a round trip under 2 ms: the same host or a LAN) is
 * not held back by windows or round trips; the copy is bound by CPU, and
 * more connections than half the local cores only compete for it.  The
 * round trip is the SFTP limits request's (end to end, through whatever
 * relays the path has); the TCP connect's where the server has none. */
#define SESSION_NEAR_MS	2.0

/* The connections a server rtt_ms away is worth: 0 when it is not near
 * (or not known to be), else half the cores. */
static int
session_near_limit(double rtt_ms)
{
	long cores = sysconf(_SC_NPROCESSORS_ONLN);

	if (rtt_ms < 0 || rtt_ms >= SESSION_NEAR_MS)
		return 0;
	return cores >= 2 ? (int)(cores / 2) : 1;
}


/* The quickest SFTP round trip among the connections; -1 when none was
 * measured. */
static double
session_rtt(const struct session *s)
{
	double best = -1;

	for (int i = 0; i < s->nconns; i++) {
		double ms = s->conns[i]->rtt_ms;

		/* A server without limits@openssh.com: the TCP connect's. */
		if (ms < 0 && s->ssh && s->ssh[i])
			ms = sshconn_connect_ms(s->ssh[i]);
		if (ms >= 0 && (best < 0 || ms < best))
			best = ms;
	}
	return best;
}

/* Bytes in flight per connection: SSM sessions have their own budget;
 * everything else keeps the round trip covered and no more. */
static void
session_set_inflight(struct session *s)
{
	double ms = session_rtt(s);

	if (s->route == ROUTE_SSM_PARALLEL)
		return;
	/* A far connection's reads are shared by its channels (each has its
	 * own window, the rate to aim at is the connection's); its writes
	 * are capped by each channel's window, so that stays per channel. */
	int chans = s->route == ROUTE_STANDARD ? 1 : route_channels(ms, ROUTE_MAX_CHANNELS);

	s->inflight_bytes = route_inflight_bytes(ms, false) / (uint64_t)chans;
	if (s->inflight_bytes < ROUTE_INFLIGHT_MIN)
		s->inflight_bytes = ROUTE_INFLIGHT_MIN;
	s->upload_inflight_bytes = route_inflight_bytes(ms, true);
	log_debug(1, "round trip %.2f ms: %llu KiB in flight per SFTP channel (%llu KiB "
	    "uploading)", ms, (unsigned long long)(s->inflight_bytes >> 10),
	    (unsigned long long)(s->upload_inflight_bytes >> 10));
}

struct session_closer {
	struct sftp_conn *sftp;
	struct sshconn *ssh;
	pid_t pid;
	bool bad;
};

static void *
session_close_one(void *arg)
{
	struct session_closer *k = arg;

	k->bad = session_close_parts(k->sftp, k->ssh, k->pid);
	return NULL;
}

/* Close connections from index keep on; returns how many of them ended
 * badly (a non-zero exit status of ssh or of the SFTP channel).  Each close
 * waits a round trip for the server's exit status: through SSM that is
 * ~40 ms, so twelve sessions are closed side by side, not in turn. */
static int
session_drop_from(struct session *s, int keep)
{
	int n = s->nconns - keep, bad = 0;
	struct session_closer *ks;
	pthread_t *tids;

	if (n <= 0)
		return 0;
	ks = xcalloc((size_t)n, sizeof(*ks));
	tids = xcalloc((size_t)n, sizeof(*tids));
	for (int i = 0; i < n; i++) {
		ks[i].sftp = s->conns[keep + i];
		ks[i].ssh = s->ssh ? s->ssh[keep + i] : NULL;
		ks[i].pid = s->proxy_pids ? s->proxy_pids[keep + i] : 0;
		if (n == 1 || pthread_create(&tids[i], NULL, session_close_one, &ks[i]) != 0) {
			tids[i] = 0;
			session_close_one(&ks[i]);
		}
	}
	for (int i = 0; i < n; i++) {
		if (tids[i])
			pthread_join(tids[i], NULL);
		bad += ks[i].bad;
	}
	free(ks);
	free(tids);
	s->nconns = keep;
	return bad;
}

/* ssm-direct probe: connect to addr and check it presents the instance's
 * known host key (under its HostName/HostKeyAlias), nothing else. */
static bool
session_probe_direct(const struct sshcfg *cfg, const char *addr, char *why, size_t whylen)
{
	struct sshcfg probe = *cfg;
	struct sshconn_params p = {
		.cfg = &probe, .proxy_fd = -1, .connect_host = addr,
		.probe_only = true, .may_prompt = false,
		.handshake_timeout = SESSION_PROBE_TIMEOUT,
	};
	struct sshconn *c = NULL;
	enum sshconn_err rc;

	/* Never add a key while probing: only a key already known counts. */
	if (probe.stricthostkeychecking != SHK_YES)
		probe.stricthostkeychecking = SHK_YES;
	if (probe.connecttimeout < 0 || probe.connecttimeout > SESSION_PROBE_TIMEOUT)
		probe.connecttimeout = SESSION_PROBE_TIMEOUT;
	rc = sshconn_open(&p, &c, why, whylen);
	if (c)
		sshconn_close(c);
	return rc == SSHCONN_OK;
}

/* Does a sample of the first source compress well?  Then zlib pays on SSM,
 * whose cap is on bytes after ssh. */
static bool
session_sample_compresses(const char *path)
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

static void
session_open_standard(struct session *s, const struct fscp_opts *o)
{
	struct fscp_stream st;
	char err[256];

	if (o->sftp_direct != NULL) {
		if (sshproc_direct(o, &st) != 0)
			log_fatal("Unable to open sftp connection");
	} else if (sshproc_sftp(o, s->host, s->user, s->port, &st) != 0) {
		log_fatal("Unable to open sftp connection");
	}
	s->conns = xcalloc(1, sizeof(*s->conns));
	s->conns[0] = sftp_open(st, o->sftp_buflen, err, sizeof(err));
	if (s->conns[0] == NULL)
		log_fatal("%s", err);
	s->nconns = 1;
	s->route = ROUTE_STANDARD;
}

static int
session_env_int(const char *name)
{
	const char *v = getenv(name);
	char *end;
	long n;

	if (v == NULL || *v == '\0')
		return 0;
	n = strtol(v, &end, 10);
	if (*end != '\0' || n < 1 || n > ROUTE_MAX_CONNS) {
		log_verbose("%s=%s ignored (1..%d)", name, v, ROUTE_MAX_CONNS);
		return 0;
	}
	return (int)n;
}

/* What the route decision needs to know about host, gathered: ssh -G's
 * answer (kept in s->cfg), a live master, SSM, a direct address (probed).
 * Then route_decide().  The caller frees *direct and, when in->ssm,
 * proxycmd_ssm_free(ssm). */
struct session_facts {
	struct route_input in;
	struct route_decision d;
	struct proxycmd_ssm ssm;
	char *direct;
	char why[512];
};

/* want > 0: that many connections at most, whatever FSCP_CONNECTIONS says. */
static void
session_decide(struct session *s, const struct fscp_opts *o, const char *host,
    const char *user, int port, long long bytes, int want, struct session_facts *f)
{
	struct route_input in = { .bytes = bytes };
	struct sshcfg *cfg = NULL;
	struct proxycmd_ssm ssm = { 0 };
	char err[512], *why = f->why;
	char *direct = NULL;
	const char *force = getenv("FSCP_ROUTE");

	memset(s, 0, sizeof(*s));
	why[0] = '\0';
	s->host = xstrdup(host);
	s->user = user ? xstrdup(user) : NULL;
	s->port = port;

	if (route_force_parse(force, &in.force) != 0) {
		log_verbose("FSCP_ROUTE=%s not understood; using auto", force);
		in.force = ROUTE_FORCE_AUTO;
	}
	in.connections_wanted = want > 0 ? want : session_env_int("FSCP_CONNECTIONS");
	const char *prog = strrchr(o->ssh_program, '/');

	prog = prog ? prog + 1 : o->ssh_program;
	if (o->sftp_direct != NULL) {
		in.legacy_or_special = true;
		in.special_why = "-D runs an SFTP server directly";
	} else if (strcmp(prog, "ssh") != 0) {
		/* The user's -S program may do anything (a wrapper, a jump, a
		 * log): going around it would not be what they asked for. */
		in.legacy_or_special = true;
		in.special_why = "-S with a program other than ssh";
	} else if (in.force != ROUTE_FORCE_STANDARD) {
		/* The session keeps it: connections may still be coming up
		 * (and reading it) after this returns. */
		cfg = xcalloc(1, sizeof(*cfg));
		if (sshcfg_load(o, user, host, port, cfg, err, sizeof(err)) == 0) {
			s->cfg = cfg;
			in.cfg = cfg;
			in.master_live = session_master_live(cfg->controlpath);
			in.ssm = proxycmd_is_ssm(cfg->proxycommand, &ssm);
			if (!in.ssm && cfg->proxyjump != NULL)
				in.ssm = in.ssm_via_jump = session_jump_is_ssm(o, cfg->proxyjump);
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

		/* Looking for a direct path costs a CLI call and a probe (about
		 * what SSM takes for 1 MiB); a direct path saves the SSM start
		 * (1-3 s) on top of the transfer, so most copies gain. */
		if (bytes >= 0 && bytes < SESSION_SSM_DIRECT_MIN_BYTES)
			whyp = "copy too small to look for a direct route";
		else
			addr = session_ssm_address(&ssm, cfg->hostname, &whyp);
		if (addr != NULL) {
			char perr[256] = "";

			if (session_probe_direct(cfg, addr, perr, sizeof(perr))) {
				in.direct_ok = true;
				direct = addr;
				addr = NULL;
			} else {
				char *msg = xasprintf("direct address %s refused: %s", addr,
				    session_one_line(perr));

				snprintf(why, sizeof(f->why), "%s", msg);
				free(msg);
				in.direct_why = why;
			}
			free(addr);
		} else if (whyp != NULL) {
			snprintf(why, sizeof(f->why), "%s", whyp);
			in.direct_why = why;
		}
	}
	route_decide(&in, &f->d);
	log_verbose("route %s: %s", route_name(f->d.kind), f->d.reason);
	f->in = in;
	f->ssm = ssm;
	f->direct = direct;
}

static void
session_open_n(struct session *s, const struct fscp_opts *o, const char *host,
    const char *user, int port, long long bytes, const char *sample, int want)
{
	struct session_facts f;
	struct route_input in;
	struct route_decision d;
	struct sshcfg *cfg;
	char *proxy = NULL, *direct;
	bool compress;

	session_decide(s, o, host, user, port, bytes, want, &f);
	in = f.in;
	d = f.d;
	cfg = s->cfg;
	direct = f.direct;
	if (d.kind != ROUTE_STANDARD && cfg != NULL) {
		int n;

		if (d.kind != ROUTE_SSM_DIRECT)
			proxy = session_proxy_command(o, cfg);
		compress = o->compress || cfg->compression;
		if (!compress && d.kind == ROUTE_SSM_PARALLEL && session_sample_compresses(sample)) {
			log_verbose("data compresses well: zlib on over SSM");
			compress = true;
		}
		/* SSM sessions come up over a second or more, some later than
		 * others: the copy starts on the first.  Direct connections:
		 * the first one tells the round trip (a far one by its banner
		 * already); a near server is given fewer, and the copy starts
		 * while the others connect. */
		bool probe_first = d.kind != ROUTE_SSM_PARALLEL && proxy == NULL &&
		    in.connections_wanted == 0 && d.connections > 1;

		/* An SSM session is capped by its data channel, not a window:
		 * more channels in it gain nothing. */
		int per = d.kind == ROUTE_SSM_PARALLEL ? 1 : ROUTE_MAX_CHANNELS;

		n = session_open_bypass(s, o, cfg, proxy, direct, compress, d.connections, per,
		    d.kind == ROUTE_SSM_PARALLEL || probe_first, probe_first);
		if (n > 0) {
			/* No ssh runs for this host: its warnings are ours to say. */
			if (cfg->warnings != NULL)
				fputs(cfg->warnings, stderr);
			s->route = d.kind;
			s->bypass_proxy = proxy ? xstrdup(proxy) : NULL;
			s->bypass_direct = direct ? xstrdup(direct) : NULL;
			s->bypass_compress = compress;
			s->chunk_size = d.kind == ROUTE_SSM_PARALLEL ? SESSION_CHUNK_SSM :
			    SESSION_CHUNK_FAST;
			/* An SSM session moves ~833 KiB/s: more in flight only
			 * queues in the proxy and starves the other sessions. */
			if (d.kind == ROUTE_SSM_PARALLEL)
				s->inflight_bytes = s->upload_inflight_bytes =
				    SESSION_SSM_INFLIGHT;
		}
	}
	if (s->nconns == 0)
		session_open_standard(s, o);
	session_set_inflight(s);
	s->may_grow = s->route == ROUTE_STANDARD && d.grow && cfg != NULL && o->sftp_direct == NULL;
	s->master_live = in.master_live;
	free(proxy);
	free(direct);
	if (in.ssm)
		proxycmd_ssm_free(&f.ssm);
}

/* A legacy stream on a bypass: the exec channel, and the connection (and
 * proxy) it alone uses. */
struct session_exec {
	struct fscp_stream ch;
	struct session s;	/* host, user, cfg */
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

static int
session_exec_close(void *ctx)
{
	struct session_exec *x = ctx;
	int rc = x->ch.ops->close(x->ch.ctx);

	sshconn_close(x->ssh);
	session_reap(x->proxy_pid);
	(void)session_close(&x->s);
	free(x);
	return rc;
}

static const struct fscp_stream_ops session_exec_ops = {
	.read = session_exec_read,
	.write = session_exec_write,
	.close = session_exec_close,
};

/* One libssh connection for x, through the host's proxy (not for a
 * direct SSM address); false with the reason in err. */
static bool
session_exec_connect(struct session_exec *x, const struct fscp_opts *o,
    const struct session_facts *f, const char *cmd, char *err, size_t errlen)
{
	struct sshconn_params p = {
		.cfg = x->s.cfg, .proxy_fd = -1, .connect_host = f->direct,
		.compress = o->compress || x->s.cfg->compression, .may_prompt = false,
	};
	char *proxy = f->d.kind == ROUTE_SSM_DIRECT ? NULL : session_proxy_command(o, x->s.cfg);

	if (proxy != NULL) {
		p.proxy_fd = proxycmd_spawn(proxy, &x->proxy_pid, err, errlen);
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
	struct session_facts f;
	char err[512] = "";
	bool ok = false;

	session_decide(&x->s, o, host, user, port, bytes, 0, &f);
	/* The legacy protocol is one stream: only a route that is faster with
	 * one connection pays (a fresh one beside a busy master, a direct
	 * path around SSM).  A master with the size unknown stays. */
	if (x->s.cfg != NULL && !f.d.grow &&
	    (f.d.kind == ROUTE_FRESH || f.d.kind == ROUTE_SSM_DIRECT)) {
		ok = session_exec_connect(x, o, &f, cmd, err, sizeof(err));
		if (!ok)
			log_verbose("bypass failed: %s; falling back to the standard route",
			    err[0] ? session_one_line(err) : "connection failed");
	} else if (f.d.kind != ROUTE_STANDARD) {
		log_verbose("route standard: the legacy protocol has one stream");
	}
	free(f.direct);
	if (f.in.ssm)
		proxycmd_ssm_free(&f.ssm);
	if (!ok) {
		session_reap(x->proxy_pid);
		(void)session_close(&x->s);
		free(x);
		return -1;
	}
	log_verbose("legacy protocol over a libssh exec channel: %s", cmd);
	out->ops = &session_exec_ops;
	out->ctx = x;
	out->desc = "libssh exec channel";
	return 0;
}

void
session_open(struct session *s, const struct fscp_opts *o, const char *host,
    const char *user, int port, long long bytes, const char *sample)
{
	session_open_n(s, o, host, user, port, bytes, sample, 0);
}

void
session_open_one(struct session *s, const struct fscp_opts *o, const char *host,
    const char *user, int port)
{
	session_open_n(s, o, host, user, port, -1, NULL, 1);
}

bool
session_grow(struct session *s, const struct fscp_opts *o, long long bytes)
{
	struct route_input in = { .cfg = s->cfg, .bytes = bytes, .master_live = s->master_live };
	struct route_decision d;
	int had = s->nconns;

	if (!s->may_grow)
		return false;
	s->may_grow = false;
	in.connections_wanted = session_env_int("FSCP_CONNECTIONS");
	route_decide(&in, &d);
	if (d.kind != ROUTE_FRESH) {
		log_verbose("route stays standard: %s", d.reason);
		return false;
	}
	/* The ssh connection is one of them already. */
	int want = d.connections - 1;
	double rtt = session_rtt(s);
	int near = session_near_limit(rtt);
	bool near_only = near > 0 && in.connections_wanted == 0;

	if (near_only) {
		/* The listing measured the round trip: a near server is bound
		 * by CPU, and the data goes faster over a libssh connection than
		 * through an ssh process (256 MiB: 0.80 s against 1.1 s).  Open
		 * what a near server is given; the listing connection rests. */
		want = near;
		log_verbose("route %s: %s (after listing); the server answers in %.2f ms and "
		    "this machine has %ld cores: %d fresh connection%s", route_name(d.kind),
		    d.reason, rtt, sysconf(_SC_NPROCESSORS_ONLN), near, near == 1 ? "" : "s");
	} else {
		log_verbose("route %s: %s (after listing)", route_name(d.kind), d.reason);
	}
	/* Far away the listing connection starts on the data while the others
	 * connect (at 50 ms a libssh connection takes half a second). */
	(void)session_open_bypass(s, o, s->cfg, NULL, NULL, o->compress || s->cfg->compression,
	    want, ROUTE_MAX_CHANNELS, !near_only, false);
	if (s->nconns == had && session_pending_count(s) == 0) {
		log_verbose("route standard: no fresh connection came up; the listing one "
		    "carries the copy");
		return false;
	}
	if (near_only)
		s->data_from = had;
	s->route = ROUTE_FRESH;
	s->bypass_compress = o->compress || s->cfg->compression;
	s->chunk_size = SESSION_CHUNK_FAST;
	session_set_inflight(s);
	return s->nconns > had || session_pending_count(s) > 0;
}

struct sftp_conn *
session_reconnect(struct session *s, const struct fscp_opts *o)
{
	int had = s->nconns;

	if (s->route == ROUTE_STANDARD || s->cfg == NULL)
		return NULL;
	if (session_open_bypass(s, o, s->cfg, s->bypass_proxy, s->bypass_direct,
	    s->bypass_compress, 1, 1, false, false) <= 0 || s->nconns == had)
		return NULL;
	return s->conns[s->nconns - 1];
}

int
session_close(struct session *s)
{
	int bad;

	session_pending_end(s, true);
	bad = session_drop_from(s, 0);
	if (s->cfg) {
		sshcfg_free(s->cfg);
		free(s->cfg);
	}
	free(s->conns);
	free(s->ssh);
	free(s->proxy_pids);
	free(s->host);
	free(s->user);
	free(s->bypass_proxy);
	free(s->bypass_direct);
	memset(s, 0, sizeof(*s));
	return bad;
}
