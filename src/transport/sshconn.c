/* SPDX-License-Identifier: ISC
 * Copyright (c) 2026 The fscp authors.  See LICENSE. */
/* sshconn: fresh direct libssh sessions; channels as struct fscp_stream.
 * See sshconn.h for the contract.  This file: the session (options, open,
 * references, close); getting in is sshconn_login.c's, the channels are
 * sshconn_chan.c's. */
#include "config.h"
#include "transport/sshconn_impl.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/clock.h"
#include "util/xmalloc.h"
#include "transport/hostkey.h"

void
sshconn_seterr(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (err == NULL || errlen == 0)
		return;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
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
	sshconn_seterr(err, errlen, "libssh supports none of %s %s", what, list);
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

/* libssh's progress through its handshake: 0.4 once the server's banner
 * is read, 0.8 as the client's key exchange message goes, 1.0 once the
 * server's reply and new keys are in. */
static void
sshconn_progress(void *arg, float status)
{
	struct sshconn *c = arg;

	if (status >= 1.0f) {
		if (c->kex_sent > 0 && c->kex_ms < 0)
			c->kex_ms = (clock_now() - c->kex_sent) * 1e3;
	} else if (status >= 0.8f) {
		if (c->kex_sent == 0)
			c->kex_sent = clock_now();
	} else if (status >= 0.4f && c->banner_ms < 0) {
		c->banner_ms = (clock_now() - c->t0) * 1e3;
		if (c->on_first_byte != NULL)
			c->on_first_byte(c->cb_arg, c->banner_ms);
	}
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
	const char *why;
	bool ok;
	enum sshconn_err e;

	*out = NULL;
	if (err && errlen)
		err[0] = '\0';
	if (!sshlib_load(&why)) {
		sshconn_seterr(err, errlen, "libssh cannot be loaded: %s", why);
		if (p->proxy_fd >= 0)
			close(p->proxy_fd);	/* ours, as on any failure below */
		return SSHCONN_ERR_CONNECT;
	}
	c = xcalloc(1, sizeof(*c));
	c->fd = -1;
	c->wake[0] = c->wake[1] = -1;
	c->refs = 1;
	pthread_mutex_init(&c->lock, NULL);
	c->read_buf = p->read_buf ? p->read_buf : SSHCONN_READ_BUF_DEFAULT;
	if (c->read_buf > SSHCONN_READ_BUF_MAX)
		c->read_buf = SSHCONN_READ_BUF_MAX;

	/* The session is made ready before the connect, so that nothing
	 * holds its banner back once the socket is up. */
	if (p->proxy_fd >= 0)
		c->fd = p->proxy_fd;
	c->s = ssh_new();
	if (c->s == NULL) {
		sshconn_seterr(err, errlen, "cannot create a libssh session");
		e = SSHCONN_ERR_CONNECT;
		goto fail;
	}
	/* libssh must not read ~/.ssh/config: cfg is already ssh's view. */
	{
		bool no = false;
		ssh_options_set(c->s, SSH_OPTIONS_PROCESS_CONFIG, &no);
	}
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

	c->connect_ms = -1;
	c->kex_ms = -1;
	c->service_ms = -1;
	c->banner_ms = -1;
	c->t0 = clock_now();
	if (p->proxy_fd < 0) {
		c->fd = sshconn_tcp_connect(chost, cport, cfg->addressfamily, cfg->connecttimeout,
		    p->on_connect, p->cb_arg, err, errlen);
		if (c->fd < 0) {
			e = SSHCONN_ERR_CONNECT;
			goto fail;
		}
		c->connect_ms = (clock_now() - c->t0) * 1e3;
		c->loopback = sshconn_peer_is_loopback(c->fd);
	}
	ssh_options_set(c->s, SSH_OPTIONS_FD, &c->fd);
	if (p->on_socket != NULL)
		p->on_socket(p->cb_arg, c->fd);
	/* libssh's progress tells when the server's banner came and times the
	 * key exchange; its own banner goes at once, which the server waits
	 * for before its key exchange starts. */
	c->on_first_byte = p->on_first_byte;
	c->cb_arg = p->cb_arg;
	ssh_callbacks_init(&c->progress);
	c->progress.userdata = c;
	c->progress.connect_status_function = sshconn_progress;
	(void)ssh_set_callbacks(c->s, &c->progress);

	/* A bound on the handshake and login only.  libssh 0.10 applies
	 * SSH_OPTIONS_TIMEOUT to its blocking calls, so it is reset below. */
	hs_timeout = p->handshake_timeout > 0 ? p->handshake_timeout :
	    cfg->connecttimeout > 0 ? cfg->connecttimeout : 120;
	ssh_options_set(c->s, SSH_OPTIONS_TIMEOUT, &hs_timeout);

	c->lib_owns_fd = true;
	if (ssh_connect(c->s) != SSH_OK) {
		sshconn_seterr(err, errlen, "ssh handshake with %s port %d failed: %s", chost, cport,
		    ssh_get_error(c->s));
		e = SSHCONN_ERR_CONNECT;
		goto fail;
	}
	/* A rekey later would call it again, from a stream's thread. */
	c->progress.connect_status_function = NULL;
	if (p->on_kex != NULL && !p->on_kex(p->cb_arg, c->kex_ms)) {
		sshconn_seterr(err, errlen, "not needed after the key exchange");
		e = SSHCONN_ERR_CONNECT;
		goto fail;
	}
	e = sshconn_verify_hostkey(c, p, err, errlen);
	if (e != SSHCONN_OK)
		goto fail;
	if (!p->probe_only) {
		e = sshconn_auth_run(c, p, hs_timeout, err, errlen);
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
bool
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
	/* Before ssh_connect the socket is still fscp's to close. */
	if (c->fd >= 0 && !c->lib_owns_fd)
		close(c->fd);
	for (int i = 0; i < 2; i++)
		if (c->wake[i] >= 0)
			close(c->wake[i]);
	pthread_mutex_destroy(&c->lock);
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
sshconn_measure_rtt(struct sshconn *c, bool free_only)
{
	double best = -1;
	long bound = 10;

	if (c == NULL || c->shared)
		return -1;
	/* The login's service request was such a round trip already. */
	if (c->service_ms >= 0 && c->kex_ms >= 0 && c->service_ms <= c->kex_ms)
		return c->service_ms;
	if (free_only)
		return -1;
	/* OpenSSH answers keepalive@openssh.com at once (with a failure):
	 * one plain round trip, end to end through any relay or proxy.  The
	 * first may wait 40 ms for a delayed ACK (Nagle on the server's side,
	 * its last login packet unacknowledged): the second is the clean one.
	 * The key exchange took a round trip and both ends' computation, so
	 * a first answer no slower than that was held back by nothing. */
	ssh_options_set(c->s, SSH_OPTIONS_TIMEOUT, &bound);
	for (int i = 0; i < 2; i++) {
		double t0 = clock_now(), ms;

		(void)ssh_send_keepalive(c->s);
		ms = (clock_now() - t0) * 1e3;
		if (best < 0 || ms < best)
			best = ms;
		if (c->kex_ms >= 0 && ms <= c->kex_ms)
			break;
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

