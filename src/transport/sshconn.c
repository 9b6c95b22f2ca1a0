/* SPDX-License-Identifier: ISC
 * Copyright (c) 2026 The fscp authors.  See LICENSE. */
/* sshconn: fresh direct libssh sessions; channels as struct fscp_stream.
 * See sshconn.h for the contract. */
#include "config.h"
#include "transport/sshconn.h"

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <libssh/libssh.h>
#include <libssh/server.h>	/* ssh_send_keepalive, a client call too */

#include "util/clock.h"
#include "util/log.h"
#include "util/strv.h"
#include "util/xmalloc.h"
#include "transport/hostkey.h"

/* Seconds a closing channel waits for the server's exit status. */
#define SSHCONN_CLOSE_TIMEOUT 3

/* How long a thread waiting on a shared session's socket sleeps at most
 * before it looks at its channel again (ms). */
#define SSHCONN_SHARED_POLL_MS 50

struct sshconn {
	ssh_session s;
	int fd;			/* the socket under the session; we close it */
	size_t read_buf;
	char keydesc[160];
	char *banner;		/* the server's SSH_MSG_USERAUTH_BANNER, NULL if none */
	double connect_ms;	/* TCP connect time (about one round trip); -1 via a proxy */
	bool loopback;		/* connected by TCP to a loopback address */
	/* Several channels used by several threads (sshconn_sftp_streams with
	 * n > 1): every libssh call takes lock, and nobody blocks inside
	 * libssh waiting for data.  One thread at a time (polling) sleeps in
	 * poll() on the socket with the lock released; the others wait on
	 * cond; whoever lets libssh read the socket wakes them. */
	bool shared;
	bool polling;
	int wake[2];		/* pipe that ends the poller's sleep early */
	int refs;		/* the owner's and one per open stream */
	pthread_mutex_t lock;
	pthread_cond_t cond;
};

/* One channel as a stream.  Reads go through buf so that every
 * ssh_channel_read asks for a lot and libssh grows the window to match. */
struct sshconn_chan {
	struct sshconn *c;
	ssh_channel ch;
	unsigned char *buf;
	size_t cap, off, len;
	bool exec;		/* a command's channel: its stderr is shown */
};

static bool sshconn_unref(struct sshconn *c);
static void
seterr(char *err, size_t errlen, const char *fmt, ...) FSCP_PRINTF(3, 4);

static void
seterr(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (err == NULL || errlen == 0)
		return;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

/* ---- TCP ------------------------------------------------------------ */

/* Wait for a non-blocking connect; deadline < 0 means no limit. */
static int
tcp_wait(int fd, long long deadline)
{
	struct pollfd pfd = { .fd = fd, .events = POLLOUT };
	int soerr = 0, rc;
	socklen_t sl = sizeof(soerr);

	for (;;) {
		int left = -1;

		if (deadline >= 0) {
			long long d = deadline - clock_now_ms();
			if (d <= 0)
				return ETIMEDOUT;
			left = d > 0x7fffffff ? 0x7fffffff : (int)d;
		}
		rc = poll(&pfd, 1, left);
		if (rc < 0 && errno == EINTR)
			continue;
		if (rc < 0)
			return errno;
		if (rc == 0)
			return ETIMEDOUT;
		break;
	}
	if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &sl) < 0)
		return errno;
	return soerr;
}

/* Connect like ssh: every address in turn, ConnectTimeout across them all. */
static int
tcp_connect(const char *host, int port, int family, int timeout_s,
    char *err, size_t errlen)
{
	struct addrinfo hints, *res = NULL, *ai;
	char portstr[16];
	long long deadline = timeout_s > 0 ? clock_now_ms() + timeout_s * 1000LL : -1;
	int rc, fd = -1, lasterr = 0;

	memset(&hints, 0, sizeof(hints));
	hints.ai_family = family == 4 ? AF_INET : family == 6 ? AF_INET6 : AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_flags = AI_NUMERICSERV;
	snprintf(portstr, sizeof(portstr), "%d", port);
	rc = getaddrinfo(host, portstr, &hints, &res);
	if (rc != 0) {
		seterr(err, errlen, "Could not resolve hostname %s: %s", host,
		    gai_strerror(rc));
		return -1;
	}
	for (ai = res; ai != NULL; ai = ai->ai_next) {
		int flags, one = 1;

		fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol);
		if (fd < 0) {
			lasterr = errno;
			continue;
		}
		flags = fcntl(fd, F_GETFL);
		fcntl(fd, F_SETFL, flags | O_NONBLOCK);
		if (connect(fd, ai->ai_addr, ai->ai_addrlen) == 0)
			lasterr = 0;
		else if (errno == EINPROGRESS)
			lasterr = tcp_wait(fd, deadline);
		else
			lasterr = errno;
		if (lasterr == 0) {
			fcntl(fd, F_SETFL, flags);
			setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
			break;
		}
		close(fd);
		fd = -1;
		if (lasterr == ETIMEDOUT && deadline >= 0 && clock_now_ms() >= deadline)
			break;
	}
	freeaddrinfo(res);
	if (fd < 0)
		seterr(err, errlen, "connect to host %s port %d: %s", host, port,
		    strerror(lasterr ? lasterr : ECONNREFUSED));
	return fd;
}

/* Is the socket's peer a loopback address?  ssh's CheckHostIP and
 * NoHostAuthenticationForLocalhost depend on it. */
static bool
peer_is_loopback(int fd)
{
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);

	if (getpeername(fd, (struct sockaddr *)&ss, &sl) != 0)
		return false;
	if (ss.ss_family == AF_INET) {
		const struct sockaddr_in *in = (const struct sockaddr_in *)&ss;

		return (ntohl(in->sin_addr.s_addr) >> 24) == 127;
	}
	if (ss.ss_family == AF_INET6) {
		const struct in6_addr *a = &((const struct sockaddr_in6 *)&ss)->sin6_addr;

		return IN6_IS_ADDR_LOOPBACK(a) ||
		    (IN6_IS_ADDR_V4MAPPED(a) && a->s6_addr[12] == 127);
	}
	return false;
}

/* ---- host keys ------------------------------------------------------ */

/* ssh's verdict on the server's key (hostkey.c).  DEFER is an error of
 * its own so the caller knows ssh, not the user's config, must decide. */
static enum sshconn_err
verify_hostkey(struct sshconn *c, const struct sshconn_params *p, char *err, size_t errlen)
{
	struct hostkey_peer peer = { .via_proxy = p->proxy_fd >= 0, .loopback = c->loopback,
		.never_add = p->never_add };
	struct hostkey_result r;
	ssh_key key = NULL;
	enum sshconn_err ret;

	if (ssh_get_server_publickey(c->s, &key) != SSH_OK || key == NULL) {
		seterr(err, errlen, "cannot get the host key of %s: %s", p->cfg->hostname,
		    ssh_get_error(c->s));
		return SSHCONN_ERR_CONNECT;
	}
	switch (hostkey_check(p->cfg, &peer, key, &r)) {
	case HOSTKEY_ACCEPT:
	case HOSTKEY_ADD:
		ret = SSHCONN_OK;
		break;
	case HOSTKEY_DEFER:
		ret = SSHCONN_ERR_HOSTKEY_DEFER;
		break;
	default:
		ret = SSHCONN_ERR_HOSTKEY;
		break;
	}
	snprintf(c->keydesc, sizeof(c->keydesc), "%s %s", r.type, r.fingerprint);
	if (ret != SSHCONN_OK)
		seterr(err, errlen, "%s", r.msg);
	hostkey_result_free(&r);
	ssh_key_free(key);
	return ret;
}

/* ---- authentication ------------------------------------------------- */

/* libssh asks this for key passphrases.  Never prompt: an encrypted key is
 * skipped and the caller falls back to ssh, which asks properly. */
static int
auth_no_prompt(const char *prompt, char *buf, size_t len, int echo, int verify,
    void *userdata)
{
	return -1;
}

/* The agent socket ssh would use (IdentityAgent, else SSH_AUTH_SOCK);
 * NULL when there is none. */
static const char *
auth_agent_socket(const struct sshcfg *cfg)
{
	const char *a = cfg->identityagent, *sock;

	if (a == NULL || strcmp(a, "SSH_AUTH_SOCK") == 0)
		sock = getenv("SSH_AUTH_SOCK");
	else if (strcmp(a, "none") == 0)
		return NULL;
	else if (a[0] == '$')
		sock = getenv(a + 1);
	else
		sock = a;
	return sock == NULL || *sock == '\0' ? NULL : sock;
}

/* Point libssh at the agent ssh would use; false when there is none. */
static bool
auth_agent_setup(struct sshconn *c, const struct sshcfg *cfg)
{
	const char *sock = auth_agent_socket(cfg);

	return sock != NULL && ssh_options_set(c->s, SSH_OPTIONS_IDENTITY_AGENT, sock) == SSH_OK;
}

/* An identity file ssh could offer without asking: readable and not
 * encrypted.  *key is the caller's to free; a missing file is skipped
 * silently, like ssh. */
static bool
auth_key_load(const char *file, ssh_key *key)
{
	*key = NULL;
	return access(file, R_OK) == 0 &&
	    ssh_pki_import_privkey_file(file, NULL, auth_no_prompt, NULL, key) == SSH_OK;
}

/* libssh 0.10's auth calls wait for the server's reply without looking
 * at the session: once its socket is gone (a stopped batch shuts it down,
 * a proxy dies) they poll a closed descriptor until the timeout, 120 s.
 * So they run in short slices, and a closed socket or the deadline ends
 * the wait between two. */
#define AUTH_SLICE_USEC	200000L

enum auth_method { AUTH_NONE, AUTH_AGENT, AUTH_KEY };

static bool
auth_socket_gone(struct sshconn *c)
{
	return ssh_get_fd(c->s) < 0 || (ssh_get_status(c->s) & (SSH_CLOSED | SSH_CLOSED_ERROR));
}

/* One method to its end: SSH_AUTH_SUCCESS, _DENIED, _PARTIAL or _ERROR
 * (never _AGAIN). */
static int
auth_try(struct sshconn *c, enum auth_method m, ssh_key key, double deadline)
{
	for (;;) {
		int rc = m == AUTH_NONE ? ssh_userauth_none(c->s, NULL) :
		    m == AUTH_AGENT ? ssh_userauth_agent(c->s, NULL) :
		    ssh_userauth_publickey(c->s, NULL, key);

		if (rc != SSH_AUTH_AGAIN)
			return rc;
		if (auth_socket_gone(c))
			return SSH_AUTH_ERROR;
		if (clock_now() >= deadline) {
			ssh_disconnect(c->s);
			return SSH_AUTH_ERROR;
		}
	}
}

bool
sshconn_may_log_in(const struct sshcfg *cfg)
{
	if (!cfg->pubkeyauthentication || !hostkey_known(cfg))
		return false;
	/* What auth_run offers: the agent (not with IdentitiesOnly), then
	 * the identity files. */
	if (!cfg->identitiesonly && auth_agent_socket(cfg) != NULL)
		return true;
	for (size_t i = 0; i < cfg->identityfiles.n; i++) {
		ssh_key key;

		if (auth_key_load(cfg->identityfiles.v[i], &key)) {
			ssh_key_free(key);
			return true;
		}
	}
	return false;
}

static enum sshconn_err
auth_run(struct sshconn *c, const struct sshconn_params *p, long timeout_s, char *err,
    size_t errlen)
{
	const struct sshcfg *cfg = p->cfg;
	double deadline = clock_now() + (double)timeout_s;
	long zero = 0, slice = AUTH_SLICE_USEC;
	int rc;
	size_t i;
	char *user = NULL;

	ssh_options_set(c->s, SSH_OPTIONS_TIMEOUT, &zero);
	ssh_options_set(c->s, SSH_OPTIONS_TIMEOUT_USEC, &slice);
	/* Keys straight away: asking with "none" first for the server's methods
	 * costs a round trip per connection (40 ms through SSM), and a server
	 * without publickey just refuses the key. */
	if (!cfg->pubkeyauthentication) {
		rc = auth_try(c, AUTH_NONE, NULL, deadline);
		if (rc == SSH_AUTH_SUCCESS)
			return SSHCONN_OK;
		if (rc == SSH_AUTH_ERROR)
			goto broken;
		goto denied;
	}

	/* The agent first, as ssh does.  With IdentitiesOnly ssh offers only
	 * agent keys that match an IdentityFile; libssh 0.10 cannot pick agent
	 * keys, so skip the agent then (unencrypted files still work). */
	if (!cfg->identitiesonly && auth_agent_setup(c, cfg)) {
		rc = auth_try(c, AUTH_AGENT, NULL, deadline);
		if (rc == SSH_AUTH_SUCCESS)
			return SSHCONN_OK;
		if (rc == SSH_AUTH_ERROR && auth_socket_gone(c))
			goto broken;
	}
	for (i = 0; i < cfg->identityfiles.n; i++) {
		const char *file = cfg->identityfiles.v[i];
		ssh_key key;

		if (!auth_key_load(file, &key)) {
			if (access(file, R_OK) == 0)
				log_debug(1, "sshconn: skipping identity %s (encrypted or "
				    "unreadable)", file);
			continue;
		}
		rc = auth_try(c, AUTH_KEY, key, deadline);
		ssh_key_free(key);
		if (rc == SSH_AUTH_SUCCESS)
			return SSHCONN_OK;
		if (rc == SSH_AUTH_ERROR)
			goto broken;
	}
denied:
	user = cfg->user ? xstrdup(cfg->user) : NULL;
	seterr(err, errlen, "%s%s%s: Permission denied (no usable key for a "
	    "non-interactive login)", user ? user : "", user ? "@" : "", cfg->hostname);
	free(user);
	return SSHCONN_ERR_AUTH;
broken:
	seterr(err, errlen, "authentication with %s failed: %s", cfg->hostname,
	    clock_now() >= deadline ? "timed out" : ssh_get_error(c->s));
	return SSHCONN_ERR_AUTH;
}

/* ---- session -------------------------------------------------------- */

/* Set an algorithm list.  libssh drops the names it does not know; when
 * none is left it refuses the list.  Then fail rather than fall back to
 * libssh's defaults, which could allow what the user's config excludes:
 * the caller takes the ssh route instead. */
static bool
set_algos(struct sshconn *c, enum ssh_options_e opt, const char *what, const char *list,
    char *err, size_t errlen)
{
	if (list == NULL || *list == '\0')
		return true;
	if (ssh_options_set(c->s, opt, list) == SSH_OK)
		return true;
	seterr(err, errlen, "libssh supports none of %s %s", what, list);
	return false;
}

/* The same cipher set, AES-GCM first: with AES-NI it costs a fraction of
 * chacha20-poly1305's CPU on both ends, which is what bounds a fast copy.
 * Only the preference changes, never what is allowed. */
static char *
cipher_order(const char *list)
{
	static const char *const fast[] = { "aes128-gcm@openssh.com",
	    "aes256-gcm@openssh.com", NULL };
	struct strv out = { 0 };
	char *copy, *tok, *save, *joined;

	if (list == NULL || *list == '\0')
		return NULL;
	for (int i = 0; fast[i]; i++) {
		copy = xstrdup(list);
		for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
			if (strcmp(tok, fast[i]) == 0)
				strv_push(&out, tok);
		free(copy);
	}
	copy = xstrdup(list);
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		bool seen = false;

		for (int i = 0; fast[i]; i++)
			seen = seen || strcmp(tok, fast[i]) == 0;
		if (!seen)
			strv_push(&out, tok);
	}
	free(copy);
	joined = strv_join(&out, ",");
	strv_free(&out);
	return joined;
}

enum sshconn_err
sshconn_open(const struct sshconn_params *p, struct sshconn **out, char *err, size_t errlen)
{
	const struct sshcfg *cfg = p->cfg;
	struct sshconn *c;
	const char *chost = p->connect_host ? p->connect_host : cfg->hostname;
	int cport = p->connect_port > 0 ? p->connect_port : (cfg->port > 0 ? cfg->port : 22);
	long hs_timeout;
	int port_for_lookup;
	char *algos, *ciphers;
	bool ok;
	enum sshconn_err e;

	*out = NULL;
	if (err && errlen)
		err[0] = '\0';
	c = xcalloc(1, sizeof(*c));
	c->fd = -1;
	c->wake[0] = c->wake[1] = -1;
	c->refs = 1;
	pthread_mutex_init(&c->lock, NULL);
	pthread_cond_init(&c->cond, NULL);
	c->read_buf = p->read_buf ? p->read_buf : SSHCONN_READ_BUF_DEFAULT;
	if (c->read_buf > SSHCONN_READ_BUF_MAX)
		c->read_buf = SSHCONN_READ_BUF_MAX;

	c->connect_ms = -1;
	double t0 = clock_now();

	if (p->proxy_fd >= 0) {
		c->fd = p->proxy_fd;
	} else {
		c->fd = tcp_connect(chost, cport, cfg->addressfamily, cfg->connecttimeout,
		    err, errlen);
		if (c->fd < 0) {
			sshconn_unref(c);
			return SSHCONN_ERR_CONNECT;
		}
		c->connect_ms = (clock_now() - t0) * 1e3;
		c->loopback = peer_is_loopback(c->fd);
	}
	if (p->on_socket != NULL)
		p->on_socket(p->cb_arg, c->fd);
	if (p->on_first_byte != NULL) {
		/* Only looked at, not read: libssh reads the banner itself. */
		struct pollfd pf = { .fd = c->fd, .events = POLLIN };

		p->on_first_byte(p->cb_arg, poll(&pf, 1, 1000) == 1 ?
		    (clock_now() - t0) * 1e3 : -1);
	}

	c->s = ssh_new();
	if (c->s == NULL) {
		seterr(err, errlen, "cannot create a libssh session");
		e = SSHCONN_ERR_CONNECT;
		goto fail;
	}
	/* libssh must not read ~/.ssh/config: cfg is already ssh's view. */
	{
		bool no = false;
		ssh_options_set(c->s, SSH_OPTIONS_PROCESS_CONFIG, &no);
	}
	ssh_options_set(c->s, SSH_OPTIONS_FD, &c->fd);
	/* The host name libssh knows only orders host key algorithms and
	 * labels messages; verification is verify_hostkey's own. */
	port_for_lookup = sshcfg_hostkeyalias(cfg) ? 22 : (cfg->port > 0 ? cfg->port : 22);
	if (ssh_options_set(c->s, SSH_OPTIONS_HOST,
	    sshcfg_hostkeyalias(cfg) ? cfg->hostkeyalias : cfg->hostname) != SSH_OK)
		ssh_options_set(c->s, SSH_OPTIONS_HOST, "localhost");
	ssh_options_set(c->s, SSH_OPTIONS_PORT, &port_for_lookup);
	if (cfg->user != NULL)
		ssh_options_set(c->s, SSH_OPTIONS_USER, cfg->user);
	/* Keep libssh away from its default known_hosts files. */
	ssh_options_set(c->s, SSH_OPTIONS_KNOWNHOSTS, "/dev/null");
	ssh_options_set(c->s, SSH_OPTIONS_GLOBAL_KNOWNHOSTS, "/dev/null");

	algos = hostkey_algo_order(cfg);
	ciphers = cipher_order(cfg->ciphers);
	ok = set_algos(c, SSH_OPTIONS_CIPHERS_C_S, "Ciphers", ciphers, err, errlen) &&
	    set_algos(c, SSH_OPTIONS_CIPHERS_S_C, "Ciphers", ciphers, err, errlen) &&
	    set_algos(c, SSH_OPTIONS_KEY_EXCHANGE, "KexAlgorithms", cfg->kexalgorithms,
		err, errlen) &&
	    set_algos(c, SSH_OPTIONS_PUBLICKEY_ACCEPTED_TYPES, "PubkeyAcceptedAlgorithms",
		cfg->pubkeyacceptedalgorithms, err, errlen) &&
	    set_algos(c, SSH_OPTIONS_HOSTKEYS, "HostKeyAlgorithms", algos, err, errlen);
	free(algos);
	free(ciphers);
	if (!ok) {
		e = SSHCONN_ERR_CONNECT;
		goto fail;
	}
	ssh_options_set(c->s, SSH_OPTIONS_COMPRESSION, p->compress ? "yes" : "no");

	/* A bound on the handshake and login only.  libssh 0.10 applies
	 * SSH_OPTIONS_TIMEOUT to its blocking calls, so it is reset below. */
	hs_timeout = p->handshake_timeout > 0 ? p->handshake_timeout :
	    cfg->connecttimeout > 0 ? cfg->connecttimeout : 120;
	ssh_options_set(c->s, SSH_OPTIONS_TIMEOUT, &hs_timeout);

	if (ssh_connect(c->s) != SSH_OK) {
		seterr(err, errlen, "ssh handshake with %s port %d failed: %s", chost, cport,
		    ssh_get_error(c->s));
		e = SSHCONN_ERR_CONNECT;
		goto fail;
	}
	e = verify_hostkey(c, p, err, errlen);
	if (e != SSHCONN_OK)
		goto fail;
	if (!p->probe_only) {
		e = auth_run(c, p, hs_timeout, err, errlen);
		if (e != SSHCONN_OK)
			goto fail;
		/* Taken now, while no stream shares the session. */
		c->banner = ssh_get_issue_banner(c->s);
	}
	{
		long z = 0;
		ssh_options_set(c->s, SSH_OPTIONS_TIMEOUT, &z);
		ssh_options_set(c->s, SSH_OPTIONS_TIMEOUT_USEC, &z);
	}
	*out = c;
	return SSHCONN_OK;
fail:
	sshconn_close(c);
	return e;
}

/* Drop one reference; the last one disconnects and frees.  True when this
 * was the last. */
static bool
sshconn_unref(struct sshconn *c)
{
	bool last;

	pthread_mutex_lock(&c->lock);
	last = --c->refs == 0;
	pthread_mutex_unlock(&c->lock);
	if (!last)
		return false;
	if (c->s != NULL) {
		if (ssh_is_connected(c->s))
			ssh_disconnect(c->s);
		ssh_free(c->s);
	}
	/* libssh does not close a socket handed in with SSH_OPTIONS_FD. */
	if (c->fd >= 0)
		close(c->fd);
	for (int i = 0; i < 2; i++)
		if (c->wake[i] >= 0)
			close(c->wake[i]);
	pthread_mutex_destroy(&c->lock);
	pthread_cond_destroy(&c->cond);
	free(c->banner);
	free(c);
	return true;
}

bool
sshconn_close(struct sshconn *c)
{
	return c != NULL && sshconn_unref(c);
}

struct sshconn *
sshconn_ref(struct sshconn *c)
{
	pthread_mutex_lock(&c->lock);
	c->refs++;
	pthread_mutex_unlock(&c->lock);
	return c;
}

double
sshconn_measure_rtt(struct sshconn *c)
{
	double best = -1;
	long bound = 10;

	if (c == NULL || c->shared)
		return -1;
	/* OpenSSH answers keepalive@openssh.com at once (with a failure):
	 * one plain round trip, end to end through any relay or proxy.  The
	 * first may wait 40 ms for a delayed ACK (Nagle on the server's side,
	 * its last login packet unacknowledged): the second is the clean one. */
	ssh_options_set(c->s, SSH_OPTIONS_TIMEOUT, &bound);
	for (int i = 0; i < 2; i++) {
		double t0 = clock_now(), ms;

		(void)ssh_send_keepalive(c->s);
		ms = (clock_now() - t0) * 1e3;
		if (best < 0 || ms < best)
			best = ms;
	}
	bound = 0;
	ssh_options_set(c->s, SSH_OPTIONS_TIMEOUT, &bound);
	if (ssh_get_status(c->s) & SSH_CLOSED_ERROR)
		return -1;
	return best;
}

double
sshconn_connect_ms(const struct sshconn *c)
{
	return c ? c->connect_ms : -1;
}

const char *
sshconn_hostkey_desc(const struct sshconn *c)
{
	return c && c->keydesc[0] ? c->keydesc : NULL;
}

const char *
sshconn_banner(const struct sshconn *c)
{
	return c != NULL && c->banner != NULL && c->banner[0] != '\0' ? c->banner : NULL;
}

/* ---- channels as streams -------------------------------------------- */

/* A command's stderr goes to ours, as ssh passes it on. */
static void
chan_forward_stderr(struct sshconn_chan *k)
{
	char buf[4096];
	int r;

	while ((r = ssh_channel_read_nonblocking(k->ch, buf, sizeof(buf), 1)) > 0) {
		if (write(STDERR_FILENO, buf, (size_t)r) < 0)
			break;
	}
}

/* Wait for stdout data or the end, showing stderr meanwhile (a blocking
 * read of stdout alone would hold the remote's messages back). */
static int
chan_wait_stdout(struct sshconn_chan *k)
{
	for (;;) {
		chan_forward_stderr(k);
		int r = ssh_channel_poll_timeout(k->ch, 100, 0);

		if (r == SSH_ERROR)
			return -1;
		if (r != 0) {
			chan_forward_stderr(k);
			return 0;
		}
	}
}

/* ---- a shared session: locking and waiting ------------------------------ */

static void
shared_lock(struct sshconn *c)
{
	if (c->shared)
		pthread_mutex_lock(&c->lock);
}

/* Unlock after a libssh call, which may have read the socket and filled
 * other channels' buffers: wake whoever waits for theirs. */
static void
shared_unlock(struct sshconn *c)
{
	if (!c->shared)
		return;
	pthread_cond_broadcast(&c->cond);
	if (c->polling) {
		char b = 0;

		(void)!write(c->wake[1], &b, 1);
	}
	pthread_mutex_unlock(&c->lock);
}

/* Under c->lock, with this thread's channel found empty: let time pass
 * until the socket may have something (or others read it), the lock
 * released meanwhile.  The caller then asks libssh again. */
static void
shared_wait(struct sshconn *c)
{
	/* What libssh could not write yet (an EOF, a window adjust) must go
	 * out before anyone sleeps: the server may be waiting for it. */
	if (ssh_get_status(c->s) & SSH_WRITE_PENDING)
		(void)ssh_blocking_flush(c->s, 100);
	if (!c->polling) {
		struct pollfd pf[2] = {
			{ .fd = c->fd, .events = POLLIN },
			{ .fd = c->wake[0], .events = POLLIN },
		};
		char drain[64];

		c->polling = true;
		pthread_mutex_unlock(&c->lock);
		(void)poll(pf, 2, SSHCONN_SHARED_POLL_MS);
		while (read(c->wake[0], drain, sizeof(drain)) > 0)
			;
		pthread_mutex_lock(&c->lock);
		c->polling = false;
		pthread_cond_broadcast(&c->cond);
	} else {
		struct timespec ts = clock_deadline(SSHCONN_SHARED_POLL_MS / 1000.0);

		(void)pthread_cond_timedwait(&c->cond, &c->lock, &ts);
	}
}

/* A shared channel's read: libssh is asked without blocking; while there
 * is nothing, shared_wait. */
static int
chan_fill_shared(struct sshconn_chan *k)
{
	struct sshconn *c = k->c;
	int r;

	pthread_mutex_lock(&c->lock);
	for (;;) {
		r = ssh_channel_poll(k->ch, 0);
		if (r == SSH_ERROR || ssh_get_status(c->s) & SSH_CLOSED_ERROR) {
			r = -1;
			break;
		}
		if (r > 0) {
			/* Data is there: the blocking read returns at once, and
			 * asking for cap grows the window to about cap. */
			r = ssh_channel_read(k->ch, k->buf, (uint32_t)k->cap, 0);
			/* ... and the window adjust must not wait in libssh's
			 * buffer while everybody sleeps in poll(). */
			if (r >= 0 && ssh_blocking_flush(c->s, 10000) == SSH_ERROR)
				r = -1;
			break;
		}
		if (r == SSH_EOF || ssh_channel_is_closed(k->ch)) {
			r = 0;
			break;
		}
		shared_wait(c);
	}
	shared_unlock(c);
	return r;
}

static ssize_t
chan_read(void *ctx, void *buf, size_t n)
{
	struct sshconn_chan *k = ctx;
	size_t m;

	if (n == 0)
		return 0;
	while (k->off == k->len) {
		int r;

		if (k->c->shared) {
			r = chan_fill_shared(k);
			if (r <= 0)
				return r < 0 ? -1 : 0;
			k->off = 0;
			k->len = (size_t)r;
			break;
		}
		if (k->exec && chan_wait_stdout(k) < 0)
			return -1;
		if (ssh_channel_is_eof(k->ch) && ssh_channel_poll(k->ch, 0) <= 0)
			return 0;
		/* Asking for cap bytes grows the window to about cap; libssh
		 * returns once at least one byte is there. */
		r = ssh_channel_read(k->ch, k->buf, (uint32_t)k->cap, 0);
		if (r == SSH_ERROR)
			return -1;
		if (r == 0) {
			if (ssh_channel_is_eof(k->ch) || ssh_channel_is_closed(k->ch))
				return 0;
			continue;
		}
		k->off = 0;
		k->len = (size_t)r;
	}
	m = k->len - k->off;
	if (m > n)
		m = n;
	memcpy(buf, k->buf + k->off, m);
	k->off += m;
	return (ssize_t)m;
}

/* Blocking writes, also on a shared session: the engine keeps less in
 * flight than a channel's window, so a write never waits long for the
 * window while holding the lock (libssh meanwhile files what comes for
 * the other channels). */
static ssize_t
chan_write(void *ctx, const void *buf, size_t n)
{
	struct sshconn_chan *k = ctx;
	const unsigned char *b = buf;
	size_t done = 0;
	ssize_t rc = (ssize_t)n;

	shared_lock(k->c);
	while (done < n) {
		size_t step = n - done > (1u << 30) ? (1u << 30) : n - done;
		int r = ssh_channel_write(k->ch, b + done, (uint32_t)step);
		if (r == SSH_ERROR || r < 0) {
			rc = -1;
			break;
		}
		done += (size_t)r;
	}
	shared_unlock(k->c);
	return rc;
}

static void
chan_free(struct sshconn_chan *k)
{
	struct sshconn *c = k->c;

	shared_lock(c);
	ssh_channel_free(k->ch);
	shared_unlock(c);
	free(k->buf);
	free(k);
	(void)sshconn_unref(c);
}

/* A shared channel's goodbye: EOF, then wait (lock released) for the
 * server to close it, at most until deadline; its exit status or -1. */
static int
chan_close_shared(struct sshconn_chan *k)
{
	struct sshconn *c = k->c;
	double deadline = clock_now() + SSHCONN_CLOSE_TIMEOUT;
	int status = -1;

	pthread_mutex_lock(&c->lock);
	if (ssh_channel_is_open(k->ch) && !ssh_channel_is_closed(k->ch)) {
		ssh_channel_send_eof(k->ch);
		(void)ssh_blocking_flush(c->s, SSHCONN_CLOSE_TIMEOUT * 1000);
	}
	for (;;) {
		unsigned char junk[4096];
		int r = ssh_channel_poll(k->ch, 0);

		if (r > 0) {
			(void)ssh_channel_read_nonblocking(k->ch, junk, sizeof(junk), 0);
			continue;
		}
		if (r == SSH_ERROR || ssh_channel_is_closed(k->ch) || clock_now() > deadline)
			break;
		shared_wait(c);
	}
	/* Closed by the server: the status (if any came) is there already. */
	if (ssh_channel_is_closed(k->ch) && !(ssh_get_status(c->s) & SSH_CLOSED_ERROR))
		status = ssh_channel_get_exit_status(k->ch);
	if (ssh_channel_is_open(k->ch))
		ssh_channel_close(k->ch);
	shared_unlock(c);
	return status;
}

static int
chan_close(void *ctx)
{
	struct sshconn_chan *k = ctx;
	int status = -1;

	if (k->c->shared) {
		status = chan_close_shared(k);
		chan_free(k);
		return status <= 0 ? 0 : 1;
	}
	/* A server that went silent (its sshd half dead) never answers the
	 * goodbye: bound the wait, the transfer's "no timeout" ends here. */
	long bound = SSHCONN_CLOSE_TIMEOUT;

	ssh_options_set(ssh_channel_get_session(k->ch), SSH_OPTIONS_TIMEOUT, &bound);
	if (ssh_channel_is_open(k->ch) && !ssh_channel_is_closed(k->ch))
		ssh_channel_send_eof(k->ch);
	/* Waits for the server's exit-status or the channel's close; when the
	 * server closed already it returns what it got. */
	status = ssh_channel_get_exit_status(k->ch);
	if (k->exec)
		chan_forward_stderr(k);
	if (ssh_channel_is_open(k->ch))
		ssh_channel_close(k->ch);
	chan_free(k);
	return status <= 0 ? 0 : 1;
}

/* The connection died: no EOF, no wait for an exit status that will not
 * come; libssh frees the channel and the session goes next. */
static int
chan_abort(void *ctx)
{
	chan_free(ctx);
	return 0;	/* not an ssh that failed: the copy went on without it */
}

static const struct fscp_stream_ops chan_ops = {
	.read = chan_read,
	.write = chan_write,
	.close = chan_close,
	.abort = chan_abort,
};

static void
chan_stream(struct sshconn *c, ssh_channel ch, bool exec, struct fscp_stream *out)
{
	struct sshconn_chan *k = xcalloc(1, sizeof(*k));

	k->c = sshconn_ref(c);
	k->ch = ch;
	k->exec = exec;
	k->cap = c->read_buf;
	k->buf = xmalloc(k->cap);
	out->ops = &chan_ops;
	out->ctx = k;
	out->desc = "libssh channel";
}

static enum sshconn_err
chan_open(struct sshconn *c, const char *subsystem, const char *cmd,
    struct fscp_stream *out, char *err, size_t errlen)
{
	ssh_channel ch = ssh_channel_new(c->s);

	if (ch == NULL) {
		seterr(err, errlen, "cannot create a channel: %s", ssh_get_error(c->s));
		return SSHCONN_ERR_CHANNEL;
	}
	if (ssh_channel_open_session(ch) != SSH_OK) {
		seterr(err, errlen, "channel open failed: %s", ssh_get_error(c->s));
		ssh_channel_free(ch);
		return SSHCONN_ERR_CHANNEL;
	}
	if ((subsystem ? ssh_channel_request_subsystem(ch, subsystem) :
	    ssh_channel_request_exec(ch, cmd)) != SSH_OK) {
		seterr(err, errlen, "%s request failed: %s",
		    subsystem ? "subsystem" : "exec", ssh_get_error(c->s));
		ssh_channel_close(ch);
		ssh_channel_free(ch);
		return SSHCONN_ERR_CHANNEL;
	}
	chan_stream(c, ch, subsystem == NULL, out);
	return SSHCONN_OK;
}

enum sshconn_err
sshconn_sftp_stream(struct sshconn *c, struct fscp_stream *out, char *err, size_t errlen)
{
	return chan_open(c, "sftp", NULL, out, err, errlen);
}

/* Where each channel of sshconn_sftp_streams is; UP and FAILED are final. */
enum sshconn_chan_state { CH_OPENING, CH_REQUESTING, CH_UP, CH_FAILED };

/* The extra channels are asked for all at once, without blocking, so n
 * channels cost about the round trips of one. */
int
sshconn_sftp_streams(struct sshconn *c, int n, struct fscp_stream *out, char *err,
    size_t errlen)
{
	ssh_channel *ch;
	enum sshconn_chan_state *state;
	int got = 0, left = n;	/* left: channels not in a final state */
	double deadline;

	if (n <= 1)
		return sshconn_sftp_stream(c, out, err, errlen) == SSHCONN_OK ? 1 : -1;
	if (c->shared || pipe2(c->wake, O_CLOEXEC | O_NONBLOCK) != 0) {
		c->wake[0] = c->wake[1] = -1;
		return sshconn_sftp_stream(c, out, err, errlen) == SSHCONN_OK ? 1 : -1;
	}
	ch = xcalloc((size_t)n, sizeof(*ch));
	state = xcalloc((size_t)n, sizeof(*state));
	deadline = clock_now() + 30;
	ssh_set_blocking(c->s, 0);
	for (int i = 0; i < n; i++)
		if ((ch[i] = ssh_channel_new(c->s)) == NULL) {
			state[i] = CH_FAILED;
			left--;
		}
	while (left > 0 && clock_now() < deadline) {
		for (int i = 0; i < n; i++) {
			int r;

			if (state[i] == CH_UP || state[i] == CH_FAILED)
				continue;
			if (state[i] == CH_OPENING) {
				r = ssh_channel_open_session(ch[i]);
				if (r == SSH_OK)
					state[i] = CH_REQUESTING;
				else if (r != SSH_AGAIN)
					state[i] = CH_FAILED;
			}
			if (state[i] == CH_REQUESTING) {
				r = ssh_channel_request_subsystem(ch[i], "sftp");
				if (r == SSH_OK)
					state[i] = CH_UP;
				else if (r != SSH_AGAIN)
					state[i] = CH_FAILED;
			}
			if (state[i] == CH_UP || state[i] == CH_FAILED) {
				if (state[i] == CH_FAILED && i == 0)
					seterr(err, errlen, "channel open failed: %s",
					    ssh_get_error(c->s));
				left--;
			}
		}
		if (left > 0) {
			struct pollfd pf = { .fd = c->fd, .events = POLLIN };

			(void)poll(&pf, 1, 100);
		}
	}
	ssh_set_blocking(c->s, 1);
	int up = 0;
	size_t cap = c->read_buf;

	for (int i = 0; i < n; i++)
		up += state[i] == CH_UP;
	/* The connection's receive window is shared out, not multiplied by
	 * the channels: twice one channel's window per connection is what a
	 * far download needs (at 50 ms: 1.9 s for 256 MiB, against 2.4 s with
	 * one window and 1.9 s with four), and every channel's buffer is
	 * memory (72 MB peak with four windows, 42 MB with one). */
	if (up > 2)
		c->read_buf = c->read_buf * 2 / (size_t)up < (1u << 20) ? (1u << 20) :
		    c->read_buf * 2 / (size_t)up;
	for (int i = 0; i < n; i++) {
		if (state[i] == CH_UP) {
			chan_stream(c, ch[i], false, &out[got++]);
			continue;
		}
		/* A server that allows fewer sessions refuses the rest. */
		if (ch[i] != NULL) {
			if (ssh_channel_is_open(ch[i]))
				ssh_channel_close(ch[i]);
			ssh_channel_free(ch[i]);
		}
	}
	c->read_buf = cap;
	free(ch);
	free(state);
	if (got == 0) {
		if (err && errlen && err[0] == '\0')
			seterr(err, errlen, "no SFTP channel came up");
		return -1;
	}
	c->shared = got > 1;
	return got;
}

enum sshconn_err
sshconn_exec_stream(struct sshconn *c, const char *cmd, struct fscp_stream *out,
    char *err, size_t errlen)
{
	return chan_open(c, NULL, cmd, out, err, errlen);
}
