/* SPDX-License-Identifier: ISC
 * Copyright (c) 2026 The fscp authors.  See LICENSE. */
/* sshconn's way in: the TCP connection (as ssh makes it), the host key
 * (as ssh checks it) and public key authentication. */
#include "config.h"
#include "transport/sshconn_impl.h"

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "util/clock.h"
#include "util/strv.h"
#include "util/xmalloc.h"
#include "transport/hostkey.h"

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

/* The round trip of a TCP handshake just made: the kernel's sample from
 * it where there is one, else how long connect() took. */
static double
tcp_handshake_ms(int fd, double began)
{
#ifdef TCP_INFO
	struct tcp_info ti;
	socklen_t sl = sizeof(ti);

	if (getsockopt(fd, IPPROTO_TCP, TCP_INFO, &ti, &sl) == 0 && ti.tcpi_rtt > 0)
		return ti.tcpi_rtt / 1e3;
#endif
	return (clock_now() - began) * 1e3;
}

/* Connect like ssh: every address in turn, ConnectTimeout across them all. */
int
sshconn_tcp_connect(const char *host, int port, int family, int timeout_s,
    void (*on_connect)(void *, double), void *arg, char *err, size_t errlen)
{
	struct addrinfo hints, *res = NULL, *ai;
	char portstr[16];
	long long deadline = timeout_s > 0 ? clock_now_ms() + timeout_s * 1000LL : -1;
	int rc, fd = -1, lasterr = 0;
	bool told = false;

	memset(&hints, 0, sizeof(hints));
	hints.ai_family = family == 4 ? AF_INET : family == 6 ? AF_INET6 : AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_flags = AI_NUMERICSERV;
	snprintf(portstr, sizeof(portstr), "%d", port);
	rc = getaddrinfo(host, portstr, &hints, &res);
	if (rc != 0) {
		sshconn_seterr(err, errlen, "Could not resolve hostname %s: %s", host,
		    gai_strerror(rc));
		return -1;
	}
	for (ai = res; ai != NULL; ai = ai->ai_next) {
		int flags, one = 1;
		double began;

		fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol);
		if (fd < 0) {
			lasterr = errno;
			continue;
		}
		flags = fcntl(fd, F_GETFL);
		fcntl(fd, F_SETFL, flags | O_NONBLOCK);
		if (on_connect != NULL && !told) {
			on_connect(arg, -1);
			told = true;
		}
		began = clock_now();
		if (connect(fd, ai->ai_addr, ai->ai_addrlen) == 0)
			lasterr = 0;
		else if (errno == EINPROGRESS)
			lasterr = tcp_wait(fd, deadline);
		else
			lasterr = errno;
		if (lasterr == 0) {
			fcntl(fd, F_SETFL, flags);
			setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
			if (on_connect != NULL)
				on_connect(arg, tcp_handshake_ms(fd, began));
			break;
		}
		close(fd);
		fd = -1;
		if (lasterr == ETIMEDOUT && deadline >= 0 && clock_now_ms() >= deadline)
			break;
	}
	freeaddrinfo(res);
	if (fd < 0)
		sshconn_seterr(err, errlen, "connect to host %s port %d: %s", host, port,
		    strerror(lasterr ? lasterr : ECONNREFUSED));
	return fd;
}

/* Is the socket's peer a loopback address?  ssh's CheckHostIP and
 * NoHostAuthenticationForLocalhost depend on it. */
bool
sshconn_peer_is_loopback(int fd)
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
enum sshconn_err
sshconn_verify_hostkey(struct sshconn *c, const struct sshconn_params *p, char *err, size_t errlen)
{
	struct hostkey_peer peer = { .via_proxy = p->proxy_fd >= 0, .loopback = c->loopback,
		.never_add = p->never_add };
	struct hostkey_result r;
	ssh_key key = NULL;
	enum sshconn_err ret;

	if (ssh_get_server_publickey(c->s, &key) != SSH_OK || key == NULL) {
		sshconn_seterr(err, errlen, "cannot get the host key of %s: %s", p->cfg->hostname,
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
		sshconn_seterr(err, errlen, "%s", r.msg);
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
	if (!sshlib_load(NULL) || !cfg->pubkeyauthentication || !hostkey_known(cfg))
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

enum sshconn_err
sshconn_auth_run(struct sshconn *c, const struct sshconn_params *p, long timeout_s, char *err,
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
	/* The login service first, timed: the server answers it at once, so
	 * it is the round trip the channels are sized by, without a keepalive
	 * of its own after the login (sshconn_measure_rtt).  libssh's auth
	 * calls find it accepted. */
	double t0 = clock_now();

	while ((rc = ssh_service_request(c->s, "ssh-userauth")) == SSH_AGAIN) {
		if (auth_socket_gone(c))
			goto broken;
		if (clock_now() >= deadline) {
			ssh_disconnect(c->s);
			goto broken;
		}
	}
	if (rc != SSH_OK)
		goto broken;
	c->service_ms = (clock_now() - t0) * 1e3;
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
	sshconn_seterr(err, errlen, "%s%s%s: Permission denied (no usable key for a "
	    "non-interactive login)", user ? user : "", user ? "@" : "", cfg->hostname);
	free(user);
	return SSHCONN_ERR_AUTH;
broken:
	sshconn_seterr(err, errlen, "authentication with %s failed: %s", cfg->hostname,
	    clock_now() >= deadline ? "timed out" : ssh_get_error(c->s));
	return SSHCONN_ERR_AUTH;
}
