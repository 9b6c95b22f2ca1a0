#include "config.h"
#include "session/session.h"
#include "util/clock.h"
#include "util/log.h"
#include "util/proc.h"
#include "transport/proxycmd.h"
#include "sftp/sftp.h"
#include "policy/sshcfg.h"
#include "transport/sshconn.h"
#include "transport/sshproc.h"
#include "util/strv.h"
#include "util/xmalloc.h"

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
session_ssm_address(const struct fscp_opts *o, const struct proxycmd_ssm *ssm,
    const char *instance, const char **why)
{
	const char *mode = o->ssm_direct;
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
	int abort_fd;		/* a dup of its socket while it connects, under
				   batch->lock; -1 when none */
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
	bool spec;		/* opened before the listing, in case it pays */
	int wave;		/* > 0: connections started together, ... */
	double wave_s;		/* ... one wave every wave_s seconds (SSM) */
	pthread_t pacer;	/* starts the later waves; 0: none */
	bool expanded;		/* ... it has */
	int started;		/* connections whose thread was started */
	int limit;		/* no more than this many are started */
	double t0, last;	/* start, and when the latest came up */
	bool stop;		/* no more wanted: abort what is still connecting */
	bool joined;		/* its owner is joining the threads */
	char *proxy, *direct;	/* the jobs' (outlive the caller's copies) */
	pthread_mutex_t lock;
	pthread_cond_t cond;
};

static int session_near_limit(double rtt_ms);
static void session_reap(pid_t pid);

/* A banner later than this after the connect means a far server: the
 * other connections start at once instead of after the first's login. */
#define SESSION_FAR_HINT_MS	10.0

/* Under j->batch->lock: the job is over, one way or the other. */
static void
session_job_finish(struct session_job *j)
{
	struct session_pending *b = j->batch;

	if (j->abort_fd >= 0)
		close(j->abort_fd);
	j->abort_fd = -1;
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

/* Under b->lock: start the connections up to (not including) upto. */
static void
session_batch_start(struct session_pending *b, int upto)
{
	if (upto > b->limit)
		upto = b->limit;
	for (int c = b->started; c < upto && c < b->n / b->per; c++) {
		struct session_job *j = &b->jobs[c * b->per];

		if (pthread_create(&b->tids[c * b->per], NULL, session_connect_one, j) == 0)
			continue;
		b->tids[c * b->per] = 0;
		for (int k = 0; k < b->per; k++) {
			j[k].rc = SSHCONN_ERR_CONNECT;
			j[k].unused = j[k].taken = j[k].done = true;
		}
	}
	if (upto > b->started)
		b->started = upto < b->n / b->per ? upto : b->n / b->per;
	pthread_cond_broadcast(&b->cond);
}

/* Under b->lock: the connections not started are not wanted. */
static void
session_batch_give_up(struct session_pending *b)
{
	for (int i = b->started * b->per; i < b->n; i++) {
		b->jobs[i].rc = SSHCONN_ERR_CONNECT;
		b->jobs[i].unused = b->jobs[i].taken = b->jobs[i].done = true;
	}
	b->started = b->n / b->per;
	pthread_cond_broadcast(&b->cond);
}

/* Under b->lock: a probing batch now has total connections (the first
 * included); the others' slots are given up. */
static void
session_batch_expand(struct session_pending *b, int total)
{
	if (b->expanded)
		return;
	b->expanded = true;
	if (!b->stop)
		session_batch_start(b, total);
	session_batch_give_up(b);
}

/* The later waves of SSM sessions: each aws CLI burns its CPU before it
 * reaches AWS, so as many start together as there are cores, one wave
 * after the other; a copy that is done before stops the rest. */
static void *
session_pacer(void *arg)
{
	struct session_pending *b = arg;
	int conns = b->n / b->per;

	pthread_mutex_lock(&b->lock);
	while (b->started < conns && b->started < b->limit && !b->stop) {
		double due = clock_now() + b->wave_s;

		while (!b->stop && clock_now() < due) {
			struct timespec ts = clock_deadline(due - clock_now());

			(void)pthread_cond_timedwait(&b->cond, &b->lock, &ts);
		}
		if (b->stop)
			break;
		session_batch_start(b, b->started + b->wave);
		log_debug(1, "%d of %d SSM sessions started", b->started, conns);
	}
	if (b->started < conns)
		session_batch_give_up(b);
	pthread_mutex_unlock(&b->lock);
	return NULL;
}

/* Wait s seconds unless the batch is stopped meanwhile: true when the
 * time passed. */
static bool
session_job_pause(struct session_job *j, double s)
{
	struct session_pending *b = j->batch;
	double due = clock_now() + s;
	bool stop;

	pthread_mutex_lock(&b->lock);
	while (!b->stop && clock_now() < due) {
		struct timespec ts = clock_deadline(due - clock_now());

		(void)pthread_cond_timedwait(&b->cond, &b->lock, &ts);
	}
	stop = b->stop;
	pthread_mutex_unlock(&b->lock);
	return !stop;
}

/* The connection's socket, kept (as a dup) so that stopping the batch can
 * cut a handshake short instead of waiting for it. */
static void
session_job_socket(void *arg, int fd)
{
	struct session_job *j = arg;

	pthread_mutex_lock(&j->batch->lock);
	if (j->abort_fd >= 0)
		close(j->abort_fd);
	j->abort_fd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	if (j->batch->stop && j->abort_fd >= 0)
		shutdown(j->abort_fd, SHUT_RDWR);
	pthread_mutex_unlock(&j->batch->lock);
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

	p.on_socket = session_job_socket;
	p.cb_arg = j;
	/* A speculative connection leaves adding a new host key to ssh's. */
	p.never_add = j->batch->spec;
	if (first)
		p.on_first_byte = session_first_byte;
	for (int attempt = 0;; attempt++) {
		if (j->proxy != NULL) {
			pid_t pid = 0;

			p.proxy_fd = proxycmd_spawn_held(j->proxy, &pid, &hold, j->err,
			    sizeof(j->err));
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
		j->rc = sshconn_open(&p, &j->ssh, j->err, sizeof(j->err));
		if (j->rc == SSHCONN_OK)
			break;
		/* AWS refuses StartSession calls that come too fast: try again
		 * a little later (0.5, 1, 2 s), then give this one up; the copy
		 * goes on with the sessions it has. */
		if (j->rc != SSHCONN_ERR_CONNECT || attempt >= 3 ||
		    !proxycmd_hold_has(hold, "ThrottlingException", 200) ||
		    !session_job_pause(j, 0.5 * (1 << attempt)))
			goto out;
		log_verbose("SSM StartSession throttled: connection %d tries again",
		    (int)(j - j->batch->jobs) / j->batch->per + 1);
		proxycmd_hold_end(hold, false);
		hold = NULL;
		pthread_mutex_lock(&j->batch->lock);
		pid_t old = j->pid;

		j->pid = 0;
		pthread_mutex_unlock(&j->batch->lock);
		session_reap(old);
	}
	double rtt = j->batch->per > 1 || first ? sshconn_measure_rtt(j->ssh) : -1;

	if (first)
		session_probe_done(j, rtt);
	/* A far server gives every channel its own window: what more round
	 * trips in flight need, without another handshake. */
	got = sshconn_sftp_streams(j->ssh, j->batch->per > 1 ?
	    route_channels(rtt, j->batch->n / j->batch->per, j->batch->per) : 1, st, j->err,
	    sizeof(j->err));
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

/* Stop what is still connecting (hang up on its proxy, shut its socket
 * down: a handshake is cut short, not waited for).  Returns true when the caller is the one to
 * join the threads.  Every exit of fscp happens in main, after the
 * sessions are closed (which joins these threads): a thread still in its
 * handshake at exit() would crash in OpenSSL's freed state. */
static bool
session_batch_stop(struct session_pending *b)
{
	bool join;

	pthread_mutex_lock(&b->lock);
	b->stop = true;
	for (int i = 0; i < b->n; i++) {
		if (b->jobs[i].done)
			continue;
		if (b->jobs[i].pid > 0)
			kill(b->jobs[i].pid, SIGHUP);
		if (b->jobs[i].abort_fd >= 0)
			shutdown(b->jobs[i].abort_fd, SHUT_RDWR);
	}
	pthread_cond_broadcast(&b->cond);
	join = !b->joined;
	b->joined = true;
	pthread_mutex_unlock(&b->lock);
	return join;
}

static void
session_batch_join(struct session_pending *b)
{
	/* The pacer first: it starts threads until it sees the stop. */
	if (b->pacer)
		pthread_join(b->pacer, NULL);
	for (int i = 0; i < b->n; i++)
		if (b->tids[i])
			pthread_join(b->tids[i], NULL);
}

/* No more connections are wanted from the batch: stop the ones still
 * connecting (their proxies are hung up on, their sockets shut down), wait for every thread and close what nobody took.  report:
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

/* Every job of b that is done and not taken yet, into the session. */
static void
session_take_done(struct session *s, struct session_pending *b)
{
	bool left;

	pthread_mutex_lock(&b->lock);
	for (int i; (i = session_pick_done(b, &left)) >= 0;) {
		pthread_mutex_unlock(&b->lock);
		(void)session_take(s, &b->jobs[i], i, b->n);
		pthread_mutex_lock(&b->lock);
	}
	pthread_mutex_unlock(&b->lock);
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
struct session_batch_how {
	const char *proxy;	/* expanded ProxyCommand, or NULL */
	const char *direct;	/* ssm-direct address, or NULL */
	bool compress;
	int n;			/* connections */
	int per;		/* SFTP channels each, at most */
	bool staged;		/* return once one is up */
	bool probe;		/* the first says how many more start */
	bool spec;		/* nobody waits (session_spec_adopt) */
	int wave;		/* > 0: start this many at a time ... */
	double wave_s;		/* ... one wave every wave_s seconds */
};

static int
session_open_bypass(struct session *s, const struct fscp_opts *o, const struct sshcfg *cfg,
    const struct session_batch_how *h)
{
	struct session_pending *b;
	int had = s->nconns;
	bool first_failed = false;
	const char *proxy = h->proxy, *direct = h->direct;
	bool compress = h->compress, staged = h->staged, probe = h->probe, spec = h->spec;
	int n = h->n, per = h->per;

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
			.direct = b->direct, .compress = compress, .batch = b, .chan = i % per,
			.abort_fd = -1 };
	/* Probing: the first connection starts the others (session_batch_expand). */
	b->probe = probe && n > 1;
	b->spec = spec;
	b->limit = n;
	b->wave = !b->probe && h->wave > 0 && h->wave < n ? h->wave : 0;
	b->wave_s = h->wave_s;
	b->started = b->probe ? 1 : b->wave > 0 ? b->wave : n;
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
	if (b->wave > 0 && pthread_create(&b->pacer, NULL, session_pacer, b) != 0) {
		b->pacer = 0;
		pthread_mutex_lock(&b->lock);
		session_batch_start(b, n);
		pthread_mutex_unlock(&b->lock);
	}
	if (spec) {
		/* Nobody waits: session_spec_adopt takes them or ends them. */
		s->pending = b;
		return 0;
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
	session_take_done(s, b);
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

static int
session_near_limit(double rtt_ms)
{
	return route_near_connections(rtt_ms, (int)sysconf(_SC_NPROCESSORS_ONLN));
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

	struct route_tuning t;

	route_tuning(s->route, ms, &t);
	s->chunk_size = t.chunk;
	s->inflight_bytes = t.read_inflight;
	s->upload_inflight_bytes = t.write_inflight;
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
		session_pending_end(s, false);	/* a speculative one: no thread at exit */
		log_fatal("Unable to open sftp connection");
	}
	s->conns = xcalloc(1, sizeof(*s->conns));
	s->conns[0] = sftp_open(st, o->sftp_buflen, err, sizeof(err));
	if (s->conns[0] == NULL) {
		session_pending_end(s, false);
		log_fatal("%s", err);
	}
	s->nconns = 1;
	s->route = ROUTE_STANDARD;
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
    const char *user, int port, long long bytes, int want, bool one_stream,
    struct session_facts *f)
{
	struct route_input in = { .bytes = bytes, .one_stream = one_stream };
	struct sshcfg *cfg = NULL;
	struct proxycmd_ssm ssm = { 0 };
	char err[512], *why = f->why;
	char *direct = NULL;

	memset(s, 0, sizeof(*s));
	why[0] = '\0';
	s->host = xstrdup(host);
	s->user = user ? xstrdup(user) : NULL;
	s->port = port;

	in.force = (enum route_force)o->route_force;
	in.connections_wanted = want > 0 ? want : o->connections;
	in.cores = (int)sysconf(_SC_NPROCESSORS_ONLN);
	in.ssm_start_cpu_s = o->ssm_start_cpu_s;
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
			addr = session_ssm_address(o, &ssm, cfg->hostname, &whyp);
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

/* Worth a speculative connection beside ssh's listing: a host the bypass
 * may grow onto after the listing (a plain one, or one behind a proxy
 * that is not SSM; a live master lists without a handshake anyway). */
static bool
session_spec_wanted(const struct route_input *in, int want)
{
	return want == 0 && in->cfg != NULL && !in->master_live && !in->ssm &&
	    in->connections_wanted != 1 && !in->legacy_or_special;
}

/* The speculative connection, now that the listing says it pays: wait
 * for it (it started with ssh's, so it is mostly up by now) and take what
 * came up.  Returns the connections taken (0 or 1). */
static int
session_spec_adopt(struct session *s)
{
	struct session_pending *b = s->pending;
	int had;

	if (b == NULL || !b->spec)
		return 0;
	pthread_mutex_lock(&b->lock);
	for (;;) {
		bool all = true;

		for (int i = 0; i < b->n; i++)
			all = all && b->jobs[i].done;
		if (all || b->stop)
			break;
		pthread_cond_wait(&b->cond, &b->lock);
	}
	pthread_mutex_unlock(&b->lock);
	had = b->ok;
	session_take_done(s, b);
	session_pending_end(s, false);
	return had;
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

	session_decide(s, o, host, user, port, bytes, want, false, &f);
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

		struct session_batch_how h = { .proxy = proxy, .direct = direct,
			.compress = compress, .n = d.connections, .per = per,
			.staged = d.kind == ROUTE_SSM_PARALLEL || probe_first,
			.probe = probe_first, .wave = d.wave, .wave_s = d.wave_s };

		n = session_open_bypass(s, o, cfg, &h);
		if (n > 0) {
			/* No ssh runs for this host: its warnings are ours to say. */
			if (cfg->warnings != NULL)
				fputs(cfg->warnings, stderr);
			s->route = d.kind;
			s->bypass_proxy = proxy ? xstrdup(proxy) : NULL;
			s->bypass_direct = direct ? xstrdup(direct) : NULL;
			s->bypass_compress = compress;
		}
	}
	s->may_grow = s->route == ROUTE_STANDARD && d.grow && cfg != NULL && o->sftp_direct == NULL;
	if (s->nconns == 0 && s->may_grow && session_spec_wanted(&in, want)) {
		/* A download's size comes with its listing, over ssh; far away the
		 * bypass connection would then cost its handshake in series.  It
		 * starts now, beside ssh's: session_grow takes it when the copy
		 * pays for it and ends it (cut short) when not. */
		free(proxy);
		proxy = cfg->proxycommand != NULL || cfg->proxyjump != NULL ?
		    session_proxy_command(o, cfg) : NULL;
		if (proxy != NULL || (cfg->proxycommand == NULL && cfg->proxyjump == NULL)) {
			log_debug(1, "a bypass connection starts while ssh lists");
			struct session_batch_how h = { .proxy = proxy,
				.compress = o->compress || cfg->compression, .n = 1,
				.per = ROUTE_MAX_CHANNELS, .staged = true, .spec = true };

			(void)session_open_bypass(s, o, cfg, &h);
		}
	}
	if (s->nconns == 0) {
		session_open_standard(s, o);
		if (s->pending != NULL)
			session_reserve(s, s->pending->n);
	}
	session_set_inflight(s);
	s->master_live = in.master_live;
	free(proxy);
	free(direct);
	if (in.ssm)
		proxycmd_ssm_free(&f.ssm);
	/* Through a master the size may be known already (an upload): the
	 * master's SFTP has just measured the round trip, so whether fresh
	 * connections pay is known now, before the planning, and they come
	 * up while it runs. */
	if (s->may_grow && s->master_live && bytes >= 0)
		(void)session_grow(s, o, bytes);
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

	session_decide(&x->s, o, host, user, port, bytes, 0, true, &f);
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

/* SSM sessions for a download were planned before its size was known:
 * now that the listing has told, the waves still to come stop at what
 * the copy is worth (each start costs a CLI's CPU, which the running
 * sessions' relays need). */
static void
session_ssm_trim(struct session *s, const struct fscp_opts *o, long long bytes)
{
	struct session_pending *b = s->pending;
	struct route_ssm_cost c = { .cores = (int)sysconf(_SC_NPROCESSORS_ONLN),
		.start_cpu_s = o->ssm_start_cpu_s };
	int n;

	if (s->route != ROUTE_SSM_PARALLEL || b == NULL || b->wave == 0 || bytes < 0 ||
	    o->connections > 0)
		return;
	n = route_ssm_sessions(bytes, &c, ROUTE_SSM_MAX_SESSIONS, NULL);
	pthread_mutex_lock(&b->lock);
	if (n < b->limit) {
		char size[32];

		route_format_bytes(bytes, size, sizeof(size));
		b->limit = n < b->started ? b->started : n;
		log_verbose("listed: %s to move, %d SSM sessions are enough", size, b->limit);
		pthread_cond_broadcast(&b->cond);
	}
	pthread_mutex_unlock(&b->lock);
}

bool
session_grow(struct session *s, const struct fscp_opts *o, long long bytes)
{
	struct route_input in = { .cfg = s->cfg, .bytes = bytes, .master_live = s->master_live };
	struct route_decision d;
	int had = s->nconns;

	session_ssm_trim(s, o, bytes);
	if (!s->may_grow)
		return false;
	s->may_grow = false;
	in.connections_wanted = o->connections;
	in.cores = (int)sysconf(_SC_NPROCESSORS_ONLN);
	in.rtt_ms = session_rtt(s);
	route_decide(&in, &d);
	if (d.kind != ROUTE_FRESH && d.kind != ROUTE_PROXIED) {
		session_pending_end(s, false);	/* a speculative one, cut short */
		log_verbose("route stays standard: %s", d.reason);
		return false;
	}
	/* Fresh: the ssh connection is one of them already.  Proxied: the
	 * listing one has ssh's narrow windows, the new one comes on top. */
	int want = d.kind == ROUTE_PROXIED ? d.connections : d.connections - 1;
	double rtt = in.rtt_ms;
	int near = session_near_limit(rtt);
	bool near_only = near > 0 && in.connections_wanted == 0 && d.kind == ROUTE_FRESH;
	char *proxy = d.kind == ROUTE_PROXIED ? session_proxy_command(o, s->cfg) : NULL;

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
	if (d.kind == ROUTE_PROXIED && proxy == NULL) {
		session_pending_end(s, false);
		log_verbose("route stays standard: the proxy command cannot be run here");
		return false;
	}
	/* The one started beside ssh's listing counts; a far server's others
	 * join while the listing connection starts on the data (at 50 ms a
	 * libssh connection takes half a second). */
	int adopted = session_spec_adopt(s);

	if (adopted > 0)
		log_verbose("the connection opened while listing joins the copy");
	want -= adopted;
	if (want > 0) {
		struct session_batch_how h = { .proxy = proxy,
			.compress = o->compress || s->cfg->compression, .n = want,
			.per = ROUTE_MAX_CHANNELS, .staged = !near_only };

		(void)session_open_bypass(s, o, s->cfg, &h);
	}
	if (s->nconns == had && session_pending_count(s) == 0) {
		log_verbose("route standard: no fresh connection came up; the listing one "
		    "carries the copy");
		free(proxy);
		return false;
	}
	if (near_only)
		s->data_from = had;
	s->route = d.kind;
	s->bypass_proxy = proxy;
	s->bypass_compress = o->compress || s->cfg->compression;
	session_set_inflight(s);
	return s->nconns > had || session_pending_count(s) > 0;
}

struct sftp_conn *
session_reconnect(struct session *s, const struct fscp_opts *o)
{
	int had = s->nconns;

	if (s->route == ROUTE_STANDARD || s->cfg == NULL)
		return NULL;
	struct session_batch_how h = { .proxy = s->bypass_proxy, .direct = s->bypass_direct,
		.compress = s->bypass_compress, .n = 1, .per = 1 };

	if (session_open_bypass(s, o, s->cfg, &h) <= 0 || s->nconns == had)
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
