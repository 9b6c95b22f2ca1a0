/* SPDX-License-Identifier: ISC
 * Copyright (c) 2026 The fscp authors.  See LICENSE. */
/* proxycmd: ProxyCommand token expansion, spawning, SSM and ProxyJump parsing. */
#include "config.h"
#include "transport/proxycmd.h"
#include "util/clock.h"
#include "util/proc.h"
#include "util/strv.h"
#include "util/xmalloc.h"
#include "policy/sshcfg.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdbool.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <unistd.h>

#include <openssl/sha.h>

/* ---- token expansion ---------------------------------------------------- */

static const char *
tok_value(const struct proxycmd_tokens *t, char c, enum proxycmd_tokset set,
    char portbuf[16])
{
	switch (c) {
	case 'h': return t->host;
	case 'n': return t->host_arg;
	case 'k': return t->keyalias != NULL ? t->keyalias : t->host_arg;
	case 'r': return t->remote_user;
	case 'p':
		snprintf(portbuf, 16, "%d", t->port);
		return portbuf;
	default:
		break;
	}
	if (set != PROXYCMD_TOK_ALL)
		return NULL;
	switch (c) {
	case 'u': return t->local_user;
	case 'l': return t->local_host;
	case 'L': return t->short_host;
	case 'd': return t->home;
	case 'i': return t->uid;
	case 'j': return t->jump != NULL ? t->jump : "";
	case 'C': return t->conn_hash;
	default: return NULL;
	}
}

char *
proxycmd_expand(const char *tmpl, const struct proxycmd_tokens *tok,
    enum proxycmd_tokset set, char *err, size_t errlen)
{
	size_t cap = strlen(tmpl) + 64, n = 0;
	char *out = xmalloc(cap);

	for (const char *p = tmpl; *p != '\0'; p++) {
		const char *v;
		char one[2] = { 0, 0 }, portbuf[16];
		size_t vl;

		if (*p != '%') {
			one[0] = *p;
			v = one;
		} else if (p[1] == '\0') {
			snprintf(err, errlen, "vdollar_percent_expand: invalid format");
			free(out);
			return NULL;
		} else if (*++p == '%') {
			v = "%";
		} else if ((v = tok_value(tok, *p, set, portbuf)) == NULL) {
			snprintf(err, errlen,
			    "vdollar_percent_expand: unknown key %%%c", *p);
			free(out);
			return NULL;
		}
		vl = strlen(v);
		if (n + vl + 1 > cap) {
			cap = (n + vl + 1) * 2;
			out = xrealloc(out, cap);
		}
		memcpy(out + n, v, vl);
		n += vl;
	}
	out[n] = '\0';
	return out;
}

void
proxycmd_conn_hash(const char *l, const char *h, int port, const char *r,
    char out[41])
{
	unsigned char md[SHA_DIGEST_LENGTH];
	char *s = xasprintf("%s%s%d%s", l ? l : "", h ? h : "", port, r ? r : "");

	SHA1((const unsigned char *)s, strlen(s), md);
	for (int i = 0; i < SHA_DIGEST_LENGTH; i++)
		snprintf(out + 2 * i, 3, "%02x", md[i]);
	free(s);
}

void
proxycmd_tokens_from(struct proxycmd_tokens *tok, struct proxycmd_tokstore *st,
    const struct sshcfg *cfg)
{
	char hn[256] = "";
	struct passwd *pw = getpwuid(getuid());
	char hash[41];

	memset(tok, 0, sizeof(*tok));
	memset(st, 0, sizeof(*st));
	if (gethostname(hn, sizeof(hn) - 1) != 0)
		hn[0] = '\0';
	st->s[0] = xstrdup(hn);
	st->s[1] = xstrdup(hn);
	st->s[1][strcspn(st->s[1], ".")] = '\0';
	st->s[2] = xstrdup(pw != NULL ? pw->pw_name : "");
	st->s[3] = xstrdup(pw != NULL ? pw->pw_dir : "");
	st->s[4] = xasprintf("%lu", (unsigned long)getuid());
	proxycmd_conn_hash(hn, cfg->hostname, cfg->port, cfg->user, hash);
	st->s[5] = xstrdup(hash);

	tok->host = cfg->hostname;
	tok->host_arg = cfg->host_arg != NULL ? cfg->host_arg : cfg->hostname;
	tok->keyalias = cfg->hostkeyalias;	/* NULL → %n, as ssh */
	tok->remote_user = cfg->user;
	tok->port = cfg->port;
	tok->local_host = st->s[0];
	tok->short_host = st->s[1];
	tok->local_user = st->s[2];
	tok->home = st->s[3];
	tok->uid = st->s[4];
	tok->conn_hash = st->s[5];
	tok->jump = cfg->proxyjump != NULL ? cfg->proxyjump : "";
}

void
proxycmd_tokens_free(struct proxycmd_tokstore *st)
{
	for (size_t i = 0; i < sizeof(st->s) / sizeof(st->s[0]); i++) {
		free(st->s[i]);
		st->s[i] = NULL;
	}
}

/* ---- spawning ----------------------------------------------------------- */

const char *
proxycmd_shell(const char *shell_env)
{
	return shell_env != NULL && *shell_env != '\0' ? shell_env : "/bin/sh";
}

/* ssh gives its ProxyCommand pipes, not a socket, and that matters: bash
 * started with a socket on stdin (and SHLVL unset) takes itself to be run by
 * sshd and reads ~/.bashrc, which may put another `aws` first on PATH.
 * libssh wants one socket, so a small relay joins the two. */
struct proxy_relay {
	int sock;	/* our end of the socketpair libssh talks to */
	int to_child;	/* the child's stdin */
	int from_child;	/* the child's stdout */
	int err_child;	/* the child's stderr when held, else -1 */
	struct proxycmd_hold *hold;
};

/* The proxy's stderr while its connection is being tried: a connection
 * that fails is followed by ssh's own try, whose proxy says the same again,
 * so what a failed try printed is dropped; one that comes up shows it. */
enum hold_mode { HOLD_KEEP, HOLD_SHOW, HOLD_DROP };
struct proxycmd_hold {
	pthread_mutex_t lock;
	enum hold_mode mode;
	char *buf;
	size_t len;
	int refs;		/* the relay and the owner */
};

#define PROXY_HOLD_MAX (64 * 1024)

static void
hold_unref(struct proxycmd_hold *h)
{
	bool last;

	pthread_mutex_lock(&h->lock);
	last = --h->refs == 0;
	pthread_mutex_unlock(&h->lock);
	if (last) {
		pthread_mutex_destroy(&h->lock);
		free(h->buf);
		free(h);
	}
}

void
proxycmd_hold_end(struct proxycmd_hold *h, bool show)
{
	if (h == NULL)
		return;
	pthread_mutex_lock(&h->lock);
	h->mode = show ? HOLD_SHOW : HOLD_DROP;
	if (show && h->len > 0)
		(void)!write(STDERR_FILENO, h->buf, h->len);
	free(h->buf);
	h->buf = NULL;
	h->len = 0;
	pthread_mutex_unlock(&h->lock);
	hold_unref(h);
}

bool
proxycmd_hold_has(struct proxycmd_hold *h, const char *needle, int wait_ms)
{
	bool found = false;

	if (h == NULL)
		return false;
	for (int waited = 0;; waited += 10) {
		pthread_mutex_lock(&h->lock);
		found = h->buf != NULL && memmem(h->buf, h->len, needle, strlen(needle)) != NULL;
		pthread_mutex_unlock(&h->lock);
		if (found || waited >= wait_ms)
			return found;
		struct timespec ts = { 0, 10 * 1000000L };

		nanosleep(&ts, NULL);
	}
}

/* What the child wrote on stderr: kept, shown or dropped as the hold
 * says.  False once the pipe is over. */
static bool
hold_pump(struct proxy_relay *r, char *buf, size_t len)
{
	struct proxycmd_hold *h = r->hold;
	ssize_t n = read(r->err_child, buf, len);

	if (n < 0 && errno == EINTR)
		return true;
	if (n <= 0)
		return false;
	pthread_mutex_lock(&h->lock);
	if (h->mode == HOLD_SHOW) {
		(void)!write(STDERR_FILENO, buf, (size_t)n);
	} else if (h->mode == HOLD_KEEP && h->len + (size_t)n <= PROXY_HOLD_MAX) {
		h->buf = xrealloc(h->buf, h->len + (size_t)n);
		memcpy(h->buf + h->len, buf, (size_t)n);
		h->len += (size_t)n;
	}
	pthread_mutex_unlock(&h->lock);
	return true;
}

static bool
relay_write_all(int fd, const char *buf, size_t n)
{
	while (n > 0) {
		ssize_t w = write(fd, buf, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return false;
		buf += w;
		n -= (size_t)w;
	}
	return true;
}

/* Move what one side has to the other.  Returns false once that
 * direction is over (EOF, or either side gone); EINTR is not the end.
 * *got: what was read (0 for nothing). */
static bool
relay_pump(int from, int to, char *buf, size_t len, size_t *got)
{
	ssize_t n = read(from, buf, len);

	*got = 0;
	if (n < 0 && errno == EINTR)
		return true;
	if (n <= 0)
		return false;
	*got = (size_t)n;
	return relay_write_all(to, buf, (size_t)n);
}

/* Seconds to let the child's output gather after a read of n bytes at
 * now (proxycmd.h). */
double
proxycmd_trickle_wait(struct proxycmd_trickle *t, size_t n, size_t up, double now)
{
	double gap, w;
	bool trickle;

	if (n == 0)	/* EINTR */
		return 0;
	gap = now - t->last;
	t->last = now;
	/* Small, soon (within PROXYCMD_WAIT_S of the end of the last wait),
	 * and libssh quiet meanwhile. */
	trickle = n < PROXYCMD_BATCH && gap - t->waited < PROXYCMD_WAIT_S &&
	    up <= PROXYCMD_UP_QUIET;
	t->waited = 0;
	if (!trickle) {
		t->streak = 0;
		return 0;
	}
	if (++t->streak < PROXYCMD_STREAK)
		return 0;
	w = (double)PROXYCMD_BATCH * gap / (double)n;
	return t->waited = w < PROXYCMD_WAIT_S ? w : PROXYCMD_WAIT_S;
}

static void *
relay_run(void *arg)
{
	struct proxy_relay *r = arg;
	char buf[65536];
	bool up = true, down = true;	/* sock->child, child->sock */
	bool errs = r->err_child >= 0;	/* the child's stderr, held */
	struct proxycmd_trickle trickle = { 0 };
	double hold_until = 0;	/* the child's output gathers until then */
	size_t got, up_since = 0;	/* bytes to the child since its last read */

	while (up || down || errs) {
		struct timespec ts, *tp = NULL;
		bool held = false;

		if (hold_until > 0) {
			double left = hold_until - clock_now();

			if (left > 0) {
				held = true;
				ts.tv_sec = 0;
				ts.tv_nsec = (long)(left * 1e9);
				tp = &ts;
			} else {
				hold_until = 0;
			}
		}
		struct pollfd pf[3] = {
			{ .fd = up ? r->sock : -1, .events = POLLIN },
			{ .fd = down && !held ? r->from_child : -1, .events = POLLIN },
			{ .fd = errs ? r->err_child : -1, .events = POLLIN },
		};

		if (ppoll(pf, 3, tp, NULL) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (up && (pf[0].revents & (POLLIN | POLLHUP | POLLERR))) {
			if (relay_pump(r->sock, r->to_child, buf, sizeof(buf), &got)) {
				up_since += got;
			} else {
				up = false;
				close(r->to_child);	/* EOF for the child */
				r->to_child = -1;
			}
		}
		if (down && !held && (pf[1].revents & (POLLIN | POLLHUP | POLLERR))) {
			if (relay_pump(r->from_child, r->sock, buf, sizeof(buf), &got)) {
				double now = clock_now(), w;

				w = proxycmd_trickle_wait(&trickle, got, up_since, now);
				up_since = 0;
				if (w > 0)
					hold_until = now + w;
			} else {
				down = false;
				shutdown(r->sock, SHUT_WR);	/* EOF for libssh */
			}
		}
		if (errs && (pf[2].revents & (POLLIN | POLLHUP | POLLERR)) &&
		    !hold_pump(r, buf, sizeof(buf)))
			errs = false;
	}
	if (r->to_child >= 0)
		close(r->to_child);
	close(r->from_child);
	close(r->sock);
	if (r->hold != NULL) {
		close(r->err_child);
		hold_unref(r->hold);
	}
	free(r);
	return NULL;
}

/* Close whichever of the n descriptors are open. */
static void
close_open(int *fds, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (fds[i] >= 0)
			close(fds[i]);
}

int
proxycmd_spawn(const char *expanded, pid_t *pid, char *err, size_t errlen)
{
	return proxycmd_spawn_held(expanded, pid, NULL, err, errlen);
}

int
proxycmd_spawn_held(const char *expanded, pid_t *pid, struct proxycmd_hold **hold,
    char *err, size_t errlen)
{
	/* sp: libssh's socket and the relay's; pin/pout/perr: the child's
	 * stdin, stdout and (held) stderr.  Kept in one array so that every
	 * failure closes all. */
	int fds[8] = { -1, -1, -1, -1, -1, -1, -1, -1 };
	int *sp = fds, *pin = fds + 2, *pout = fds + 4, *perr = fds + 6;
	const char *shell = proxycmd_shell(getenv("SHELL"));
	char *cmd, *argv[4];
	struct proc_spec ps = {
		.err = PROC_KEEP, .msg = PROC_MSG_PERROR, .exec_status = 1,
		.group = true,
	};
	pid_t p;
	pthread_t tid;
	struct proxy_relay *r;

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sp) == -1) {
		snprintf(err, errlen, "socketpair: %s", strerror(errno));
		return -1;
	}
	if (pipe2(pin, O_CLOEXEC) == -1 || pipe2(pout, O_CLOEXEC) == -1 ||
	    (hold != NULL && pipe2(perr, O_CLOEXEC) == -1)) {
		snprintf(err, errlen, "pipe: %s", strerror(errno));
		close_open(fds, 8);
		return -1;
	}
	cmd = xasprintf("exec %s", expanded);
	argv[0] = (char *)shell;
	argv[1] = (char *)"-c";
	argv[2] = cmd;
	argv[3] = NULL;
	/* stderr stays the user's: SSM and aws errors must be seen.  A
	 * process group of its own: `sh -c "aws ssm start-session ..."` and
	 * the CLI and plugin under it are ended together (proc_end). */
	ps.argv = argv;
	ps.in = pin[0];
	ps.out = pout[1];
	if (hold != NULL)
		ps.err = perr[1];
	p = proc_spawn(&ps, err, errlen);
	if (p == -1) {
		close_open(fds, 8);
		free(cmd);
		return -1;
	}
	free(cmd);
	*pid = p;
	close(pin[0]);
	close(pout[1]);
	if (perr[1] >= 0)
		close(perr[1]);
	pin[0] = pout[1] = perr[1] = -1;
	r = xcalloc(1, sizeof(*r));
	r->sock = sp[1];
	r->to_child = pin[1];
	r->from_child = pout[0];
	r->err_child = perr[0];
	if (hold != NULL) {
		struct proxycmd_hold *h = xcalloc(1, sizeof(*h));

		pthread_mutex_init(&h->lock, NULL);
		h->refs = 2;
		r->hold = *hold = h;
	}
	if (pthread_create(&tid, NULL, relay_run, r) != 0) {
		snprintf(err, errlen, "cannot start the proxy relay");
		if (r->hold != NULL) {
			free(r->hold);
			*hold = NULL;
		}
		free(r);
		close_open(fds, 8);
		(void)proc_end(p, SIGHUP);
		return -1;
	}
	/* The relay is nobody's to join: it ends once its proxy's output has
	 * ended (the proxy's owner ends it, proc_end) and libssh's side is
	 * closed (sshconn_close). */
	pthread_detach(tid);
	return sp[0];
}

/* ---- shell words ---------------------------------------------------------- */

void
proxycmd_words_free(char **w)
{
	if (w == NULL)
		return;
	for (char **p = w; *p != NULL; p++)
		free(*p);
	free(w);
}

static bool
is_op_char(char c)
{
	return c == ';' || c == '&' || c == '|' || c == '(' || c == ')';
}

char **
proxycmd_words(const char *s)
{
	struct strv out = { 0 };
	size_t cap = strlen(s) + 1, n;
	char *cur = xmalloc(cap);
	const char *p = s;

	for (;;) {
		bool have = false;

		while (*p == ' ' || *p == '\t' || *p == '\n')
			p++;
		if (*p == '\0')
			break;
		if (is_op_char(*p)) {
			char op[3] = { *p, 0, 0 };

			if ((p[0] == '&' || p[0] == '|') && p[1] == p[0])
				op[1] = *++p;
			p++;
			strv_push(&out, op);
			continue;
		}
		n = 0;
		while (*p != '\0' && *p != ' ' && *p != '\t' && *p != '\n' &&
		    !is_op_char(*p)) {
			have = true;
			if (*p == '\'') {
				const char *e = strchr(p + 1, '\'');

				if (e == NULL)
					goto bad;
				memcpy(cur + n, p + 1, (size_t)(e - p - 1));
				n += (size_t)(e - p - 1);
				p = e + 1;
			} else if (*p == '"') {
				p++;
				while (*p != '"') {
					if (*p == '\0')
						goto bad;
					if (*p == '\\' && (p[1] == '"' || p[1] == '\\' ||
					    p[1] == '$' || p[1] == '`'))
						p++;
					cur[n++] = *p++;
				}
				p++;
			} else if (*p == '\\' && p[1] != '\0') {
				cur[n++] = p[1];
				p += 2;
			} else
				cur[n++] = *p++;
		}
		if (have) {
			cur[n] = '\0';
			strv_push(&out, cur);
		}
	}
	free(cur);
	if (out.v == NULL)
		out.v = xcalloc(1, sizeof(char *));
	return out.v;
bad:
	free(cur);
	strv_free(&out);
	return NULL;
}

/* ---- SSM detection ------------------------------------------------------- */

static const char *
base_name(const char *w)
{
	const char *s = strrchr(w, '/');

	return s != NULL ? s + 1 : w;
}

static bool
is_assignment(const char *w)
{
	if (!(isalpha((unsigned char)*w) || *w == '_'))
		return false;
	for (const char *p = w; *p != '\0'; p++) {
		if (*p == '=')
			return true;
		if (!(isalnum((unsigned char)*p) || *p == '_'))
			return false;
	}
	return false;
}

static bool
is_op(const char *w)
{
	return is_op_char(w[0]) && (w[1] == '\0' || (w[1] == w[0] && w[2] == '\0'));
}

static void
set_once(char **dst, const char *v)
{
	free(*dst);
	*dst = xstrdup(v);
}

/* Environment seen so far (outer assignments reach inner sh -c). */
struct ssm_env {
	const char *profile;
	const char *region;
};

/* "--opt value" or "--opt=value"; advances *i past what it used. */
static const char *
opt_value(char **w, size_t *i, size_t end, const char *opt)
{
	size_t l = strlen(opt);

	if (strncmp(w[*i], opt, l) != 0)
		return NULL;
	if (w[*i][l] == '=')
		return w[*i] + l + 1;
	if (w[*i][l] == '\0' && *i + 1 < end)
		return w[++*i];
	return NULL;
}

/* portNumber out of "portNumber=%p", '{"portNumber":["%p"]}', ... */
static char *
port_from_parameters(const char *v)
{
	const char *p = strstr(v, "portNumber");
	size_t n;

	if (p == NULL)
		return NULL;
	p += strlen("portNumber");
	while (*p == '"' || *p == ':' || *p == '=' || *p == '[' || *p == ' ')
		p++;
	n = strcspn(p, "\"],} ");
	if (n == 0)
		return NULL;
	return strndup(p, n);
}

static bool check_words(char **w, size_t start, size_t end, struct ssm_env env,
    struct proxycmd_ssm *info, int depth);

static bool
check_string(const char *s, struct ssm_env env, struct proxycmd_ssm *info,
    int depth)
{
	char **w;
	size_t n = 0;
	bool r;

	if (depth > 4 || (w = proxycmd_words(s)) == NULL)
		return false;
	while (w[n] != NULL)
		n++;
	r = check_words(w, 0, n, env, info, depth);
	proxycmd_words_free(w);
	return r;
}

static bool
check_aws(char **w, size_t i, size_t end, struct ssm_env env,
    struct proxycmd_ssm *info)
{
	struct proxycmd_ssm t = { 0 };
	bool saw_ssm = false, saw_start = false;
	const char *v;

	for (i++; i < end; i++) {
		if ((v = opt_value(w, &i, end, "--profile")) != NULL)
			set_once(&t.profile, v);
		else if ((v = opt_value(w, &i, end, "--region")) != NULL)
			set_once(&t.region, v);
		else if ((v = opt_value(w, &i, end, "--target")) != NULL)
			set_once(&t.target, v);
		else if ((v = opt_value(w, &i, end, "--document-name")) != NULL)
			set_once(&t.document, v);
		else if ((v = opt_value(w, &i, end, "--parameters")) != NULL) {
			free(t.port_param);
			t.port_param = port_from_parameters(v);
		} else if (!saw_ssm && strcmp(w[i], "ssm") == 0)
			saw_ssm = true;
		else if (saw_ssm && !saw_start && strcmp(w[i], "start-session") == 0)
			saw_start = true;
	}
	if (!saw_start || t.document == NULL ||
	    strcasecmp(t.document, "AWS-StartSSHSession") != 0) {
		proxycmd_ssm_free(&t);
		return false;
	}
	if (t.profile == NULL && env.profile != NULL)
		t.profile = xstrdup(env.profile);
	if (t.region == NULL && env.region != NULL)
		t.region = xstrdup(env.region);
	if (info != NULL)
		*info = t;
	else
		proxycmd_ssm_free(&t);
	return true;
}

/* One simple command w[start..end). */
static bool
check_simple(char **w, size_t i, size_t end, struct ssm_env env,
    struct proxycmd_ssm *info, int depth)
{
	for (; i < end; i++) {
		const char *b = base_name(w[i]);

		if (is_assignment(w[i])) {
			const char *val = strchr(w[i], '=') + 1;

			if (strncmp(w[i], "AWS_PROFILE=", 12) == 0)
				env.profile = val;
			else if (strncmp(w[i], "AWS_REGION=", 11) == 0 ||
			    (strncmp(w[i], "AWS_DEFAULT_REGION=", 19) == 0 &&
			    env.region == NULL))
				env.region = val;
			continue;
		}
		if (strcmp(b, "exec") == 0 || strcmp(b, "command") == 0 ||
		    strcmp(b, "nohup") == 0)
			continue;
		if (strcmp(b, "env") == 0) {
			/* env's own options; -u/-C/-S take an argument. */
			while (i + 1 < end && w[i + 1][0] == '-') {
				i++;
				if ((strcmp(w[i], "-u") == 0 || strcmp(w[i], "-C") == 0) &&
				    i + 1 < end)
					i++;
			}
			continue;
		}
		if (strcmp(b, "sh") == 0 || strcmp(b, "bash") == 0 ||
		    strcmp(b, "dash") == 0 || strcmp(b, "zsh") == 0 ||
		    strcmp(b, "ksh") == 0) {
			/* Find the option word holding 'c'; the next word runs. */
			for (size_t j = i + 1; j < end && w[j][0] == '-'; j++)
				if (w[j][1] != '-' && strchr(w[j] + 1, 'c') != NULL) {
					if (j + 1 < end)
						return check_string(w[j + 1], env, info,
						    depth + 1);
					return false;
				}
			return false;
		}
		if (strcmp(b, "aws-vault") == 0) {
			/* aws-vault exec PROFILE [flags] -- cmd ... */
			for (size_t j = i + 1; j < end; j++)
				if (strcmp(w[j], "--") == 0)
					return check_simple(w, j + 1, end, env, info,
					    depth);
			return false;
		}
		if (strcmp(b, "session-manager-plugin") == 0) {
			if (info != NULL) {
				memset(info, 0, sizeof(*info));
				info->plugin = true;
				if (env.profile != NULL)
					info->profile = xstrdup(env.profile);
				if (env.region != NULL)
					info->region = xstrdup(env.region);
			}
			return true;
		}
		if (strcmp(b, "aws") == 0)
			return check_aws(w, i, end, env, info);
		return false;	/* some other program */
	}
	return false;
}

static bool
check_words(char **w, size_t start, size_t end, struct ssm_env env,
    struct proxycmd_ssm *info, int depth)
{
	size_t s = start;

	for (size_t i = start; i <= end; i++) {
		if (i < end && !is_op(w[i]))
			continue;
		if (i > s && check_simple(w, s, i, env, info, depth))
			return true;
		s = i + 1;
	}
	return false;
}

bool
proxycmd_is_ssm(const char *proxycommand, struct proxycmd_ssm *info)
{
	struct ssm_env env = { NULL, NULL };

	if (info != NULL)
		memset(info, 0, sizeof(*info));
	if (proxycommand == NULL)
		return false;
	return check_string(proxycommand, env, info, 0);
}

void
proxycmd_ssm_free(struct proxycmd_ssm *info)
{
	if (info == NULL)
		return;
	free(info->target);
	free(info->document);
	free(info->profile);
	free(info->region);
	free(info->port_param);
	memset(info, 0, sizeof(*info));
}

/* ---- ProxyJump ------------------------------------------------------------ */

static bool
parse_hop(const char *s, size_t len, struct proxycmd_hop *h)
{
	char *buf = strndup(s, len), *p = buf, *at, *host;
	bool ok = false;

	if (buf == NULL)
		log_fatal("out of memory");
	memset(h, 0, sizeof(*h));
	h->port = -1;
	if (strncmp(p, "ssh://", 6) == 0)
		p += 6;
	if ((at = strrchr(p, '@')) != NULL) {
		*at = '\0';
		if (*p == '\0')
			goto out;
		h->user = xstrdup(p);
		p = at + 1;
	}
	host = p;
	if (*p == '[') {		/* [v6addr]:port */
		char *e = strchr(p, ']');

		if (e == NULL)
			goto out;
		*e = '\0';
		host = p + 1;
		p = e + 1;
		if (*p == ':') {
			/* The same range as host:port (ssh: "Bad port"). */
			h->port = atoi(p + 1);
			if (h->port <= 0 || h->port > 65535)
				goto out;
		} else if (*p != '\0')
			goto out;
	} else {
		char *c = strchr(p, ':');

		/* One colon: host:port.  More: a bare IPv6 address. */
		if (c != NULL && strchr(c + 1, ':') == NULL) {
			*c = '\0';
			h->port = atoi(c + 1);
			if (h->port <= 0 || h->port > 65535)
				goto out;
		}
	}
	if (*host == '\0')
		goto out;
	h->host = xstrdup(host);
	ok = true;
out:
	free(buf);
	if (!ok) {
		free(h->user);
		h->user = NULL;
	}
	return ok;
}

void
proxycmd_hops_free(struct proxycmd_hop *hops, int n)
{
	if (hops == NULL)
		return;
	for (int i = 0; i < n; i++) {
		free(hops[i].user);
		free(hops[i].host);
	}
	free(hops);
}

int
proxycmd_jump_parse(const char *spec, struct proxycmd_hop **hops)
{
	int n = 0, cap = 0;
	struct proxycmd_hop *v = NULL;
	const char *p = spec;

	*hops = NULL;
	if (spec == NULL || *spec == '\0' || strcmp(spec, "none") == 0)
		return -1;
	for (;;) {
		size_t len = strcspn(p, ",");

		if (n == cap) {
			cap = cap ? cap * 2 : 4;
			v = xrealloc(v, (size_t)cap * sizeof(*v));
		}
		if (len == 0 || !parse_hop(p, len, &v[n])) {
			proxycmd_hops_free(v, n);
			return -1;
		}
		n++;
		if (p[len] == '\0')
			break;
		p += len + 1;
	}
	*hops = v;
	return n;
}
