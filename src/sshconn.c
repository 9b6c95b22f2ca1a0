/* sshconn: fresh direct libssh sessions; channels as struct fscp_stream.
 * See sshconn.h for the contract. */
#include "config.h"
#include "sshconn.h"

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <libssh/libssh.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>

#include "clock.h"
#include "log.h"
#include "strv.h"

struct sshconn {
	ssh_session s;
	int fd;			/* the socket under the session; we close it */
	size_t read_buf;
	char keydesc[160];
	double connect_ms;	/* TCP connect time (about one round trip); -1 via a proxy */
};

/* One channel as a stream.  Reads go through buf so that every
 * ssh_channel_read asks for a lot and libssh grows the window to match. */
struct sshconn_chan {
	ssh_channel ch;
	unsigned char *buf;
	size_t cap, off, len;
	bool exec;		/* a command's channel: its stderr is shown */
};

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

/* ---- host keys ------------------------------------------------------ */

/* What the known_hosts files say about (name, key). */
struct hk_scan {
	bool ok;		/* an entry with exactly this key */
	bool revoked;		/* this key is marked @revoked */
	bool changed;		/* an entry of this key's type with another key */
	bool other;		/* entries of other key types only */
	char *off_file;		/* first offending entry (changed) */
	int off_line;
	unsigned types;		/* bit per enum ssh_keytypes_e known for name */
};

static bool
is_space(char ch)
{
	return ch == ' ' || ch == '\t';
}

/* Scan one file; key may be NULL (only collect known types). */
static void
hk_scan_file(const char *file, const char *name, ssh_key key, struct hk_scan *r)
{
	FILE *f = fopen(file, "r");
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	int lineno = 0;

	if (f == NULL)
		return;		/* missing files are fine, as for ssh */
	while ((n = getline(&line, &cap, f)) >= 0) {
		struct ssh_knownhosts_entry *e = NULL;
		char *p = line;
		bool revoked = false;

		lineno++;
		while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r'))
			line[--n] = '\0';
		while (is_space(*p))
			p++;
		if (*p == '\0' || *p == '#')
			continue;
		if (*p == '@') {
			/* Markers: @revoked counts; @cert-authority needs host
			 * certificates, which we do not use (ssh would then
			 * still need a plain entry, so skipping is safe). */
			if (strncmp(p, "@revoked", 8) != 0 || !is_space(p[8]))
				continue;
			revoked = true;
			p += 8;
			while (is_space(*p))
				p++;
		}
		if (ssh_known_hosts_parse_line(name, p, &e) != SSH_OK || e == NULL) {
			ssh_knownhosts_entry_free(e);
			continue;
		}
		if (e->publickey == NULL) {
			ssh_knownhosts_entry_free(e);
			continue;
		}
		if (revoked) {
			if (key != NULL && ssh_key_cmp(e->publickey, key, SSH_KEY_CMP_PUBLIC) == 0)
				r->revoked = true;
			ssh_knownhosts_entry_free(e);
			continue;
		}
		if ((unsigned)ssh_key_type(e->publickey) < 32)
			r->types |= 1u << ssh_key_type(e->publickey);
		if (key != NULL) {
			if (ssh_key_cmp(e->publickey, key, SSH_KEY_CMP_PUBLIC) == 0) {
				r->ok = true;
			} else if (ssh_key_type(e->publickey) == ssh_key_type(key)) {
				if (!r->changed) {
					r->off_file = xstrdup(file);
					r->off_line = lineno;
				}
				r->changed = true;
			} else {
				r->other = true;
			}
		}
		ssh_knownhosts_entry_free(e);
	}
	free(line);
	fclose(f);
}

static void
hk_scan_all(const struct sshcfg *cfg, const char *name, ssh_key key, struct hk_scan *r)
{
	size_t i;

	for (i = 0; i < cfg->userknownhostsfiles.n; i++)
		hk_scan_file(cfg->userknownhostsfiles.v[i], name, key, r);
	for (i = 0; i < cfg->globalknownhostsfiles.n; i++)
		hk_scan_file(cfg->globalknownhostsfiles.v[i], name, key, r);
}

/* ssh -G prints "none" for an unset HostKeyAlias; accept either form. */
static bool
has_alias(const struct sshcfg *cfg)
{
	return cfg->hostkeyalias != NULL && *cfg->hostkeyalias != '\0' &&
	    strcmp(cfg->hostkeyalias, "none") != 0;
}

/* The name ssh looks keys up under: HostKeyAlias as is, else the host,
 * in brackets with the port when the port is not 22. */
static char *
hk_lookup_name(const struct sshcfg *cfg)
{
	if (has_alias(cfg))
		return xstrdup(cfg->hostkeyalias);
	if (cfg->port != 0 && cfg->port != 22)
		return xasprintf("[%s]:%d", cfg->hostname, cfg->port);
	return xstrdup(cfg->hostname);
}

static const char *
hk_type_label(enum ssh_keytypes_e t)
{
	switch (t) {
	case SSH_KEYTYPE_RSA:
		return "RSA";
	case SSH_KEYTYPE_ED25519:
		return "ED25519";
	case SSH_KEYTYPE_ECDSA_P256:
	case SSH_KEYTYPE_ECDSA_P384:
	case SSH_KEYTYPE_ECDSA_P521:
		return "ECDSA";
	default:
		return ssh_key_type_to_char(t) ? ssh_key_type_to_char(t) : "unknown";
	}
}

/* Host key algorithm names that produce a key of type t. */
static const char *
hk_algos_for(enum ssh_keytypes_e t)
{
	switch (t) {
	case SSH_KEYTYPE_RSA:
		return "rsa-sha2-512,rsa-sha2-256,ssh-rsa";
	case SSH_KEYTYPE_ED25519:
		return "ssh-ed25519";
	case SSH_KEYTYPE_ECDSA_P256:
		return "ecdsa-sha2-nistp256";
	case SSH_KEYTYPE_ECDSA_P384:
		return "ecdsa-sha2-nistp384";
	case SSH_KEYTYPE_ECDSA_P521:
		return "ecdsa-sha2-nistp521";
	default:
		return NULL;
	}
}

static bool
list_has(const char *list, const char *word)
{
	size_t wl = strlen(word);
	const char *p = list;

	while (p != NULL && *p != '\0') {
		const char *q = strchr(p, ',');
		size_t l = q ? (size_t)(q - p) : strlen(p);
		if (l == wl && strncmp(p, word, l) == 0)
			return true;
		p = q ? q + 1 : NULL;
	}
	return false;
}

/* Like ssh: prefer the algorithms whose key types are already known for the
 * host, so a host with several keys shows us one we can check.  Only the
 * order changes; the allowed set stays cfg's (or libssh's default). */
static char *
hk_algo_order(const char *allowed, unsigned types)
{
	static const char *deflt =
	    "ssh-ed25519,ecdsa-sha2-nistp521,ecdsa-sha2-nistp384,"
	    "ecdsa-sha2-nistp256,rsa-sha2-512,rsa-sha2-256";
	static const enum ssh_keytypes_e order[] = {
		SSH_KEYTYPE_ED25519, SSH_KEYTYPE_ECDSA_P521, SSH_KEYTYPE_ECDSA_P384,
		SSH_KEYTYPE_ECDSA_P256, SSH_KEYTYPE_RSA,
	};
	const char *base = allowed != NULL ? allowed : deflt;
	struct strv first = { 0 }, rest = { 0 };
	char *out, *dup, *tok, *save = NULL;
	size_t i, len = 1;

	if (types == 0)
		return allowed != NULL ? xstrdup(allowed) : NULL;
	for (i = 0; i < sizeof(order) / sizeof(order[0]); i++) {
		const char *a = hk_algos_for(order[i]);
		if (!(types & (1u << order[i])) || a == NULL)
			continue;
		dup = xstrdup(a);
		for (tok = strtok_r(dup, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
			if (list_has(base, tok))
				strv_push(&first, tok);
		free(dup);
	}
	dup = xstrdup(base);
	for (tok = strtok_r(dup, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		bool seen = false;
		for (i = 0; i < first.n; i++)
			if (strcmp(first.v[i], tok) == 0)
				seen = true;
		if (!seen)
			strv_push(&rest, tok);
	}
	free(dup);
	for (i = 0; i < first.n; i++)
		len += strlen(first.v[i]) + 1;
	for (i = 0; i < rest.n; i++)
		len += strlen(rest.v[i]) + 1;
	out = xmalloc(len);
	out[0] = '\0';
	for (i = 0; i < first.n + rest.n; i++) {
		const char *w = i < first.n ? first.v[i] : rest.v[i - first.n];
		if (out[0] != '\0')
			strcat(out, ",");
		strcat(out, w);
	}
	strv_free(&first);
	strv_free(&rest);
	return out;
}

/* HashKnownHosts format: |1|base64(salt)|base64(HMAC-SHA1(salt, name)). */
static char *
hk_hash_name(const char *name)
{
	unsigned char salt[20], mac[EVP_MAX_MD_SIZE];
	unsigned int maclen = 0;
	char bsalt[64], bmac[64];

	if (RAND_bytes(salt, sizeof(salt)) != 1)
		return NULL;
	if (HMAC(EVP_sha1(), salt, sizeof(salt), (const unsigned char *)name,
	    strlen(name), mac, &maclen) == NULL || maclen != 20)
		return NULL;
	EVP_EncodeBlock((unsigned char *)bsalt, salt, sizeof(salt));
	EVP_EncodeBlock((unsigned char *)bmac, mac, maclen);
	return xasprintf("|1|%s|%s", bsalt, bmac);
}

/* Append name's key to the first UserKnownHostsFile, as ssh does for
 * accept-new / no.  0 on success. */
static int
hk_add(const struct sshconn_params *p, const char *name, ssh_key key,
    char *err, size_t errlen)
{
	const struct sshcfg *cfg = p->cfg;
	const char *file;
	char *b64 = NULL, *hname = NULL, *dir, *slash;
	FILE *f;
	int rc = -1;
	struct stat st;

	if (cfg->userknownhostsfiles.n == 0) {
		seterr(err, errlen, "no UserKnownHostsFile to add the host key to");
		return -1;
	}
	file = cfg->userknownhostsfiles.v[0];
	if (ssh_pki_export_pubkey_base64(key, &b64) != SSH_OK) {
		seterr(err, errlen, "cannot encode the host key");
		return -1;
	}
	if (p->hash_known_hosts && (hname = hk_hash_name(name)) == NULL) {
		seterr(err, errlen, "cannot hash the host name");
		goto out;
	}
	/* ssh creates ~/.ssh when it is missing; do the same for the parent. */
	dir = xstrdup(file);
	slash = strrchr(dir, '/');
	if (slash != NULL && slash != dir) {
		*slash = '\0';
		if (stat(dir, &st) < 0)
			(void)mkdir(dir, 0700);
	}
	free(dir);
	f = fopen(file, "a+");
	if (f == NULL) {
		seterr(err, errlen, "Failed to add the host to the list of known hosts (%s): %s",
		    file, strerror(errno));
		goto out;
	}
	/* Keep lines whole when the file does not end in a newline. */
	if (fseek(f, -1, SEEK_END) == 0) {
		int last = fgetc(f);
		fseek(f, 0, SEEK_END);
		if (last != '\n' && last != EOF)
			fputc('\n', f);
	}
	fprintf(f, "%s %s %s\n", hname ? hname : name,
	    ssh_key_type_to_char(ssh_key_type(key)), b64);
	if (fclose(f) != 0) {
		seterr(err, errlen, "Failed to add the host to the list of known hosts (%s): %s",
		    file, strerror(errno));
		goto out;
	}
	rc = 0;
out:
	ssh_string_free_char(b64);
	free(hname);
	return rc;
}

static char *
hk_fingerprint(ssh_key key)
{
	unsigned char *hash = NULL;
	size_t hlen = 0;
	char *fp, *out;

	if (ssh_get_publickey_hash(key, SSH_PUBLICKEY_HASH_SHA256, &hash, &hlen) != 0)
		return xstrdup("(no fingerprint)");
	fp = ssh_get_fingerprint_hash(SSH_PUBLICKEY_HASH_SHA256, hash, hlen);
	ssh_clean_pubkey_hash(&hash);
	out = xstrdup(fp ? fp : "(no fingerprint)");
	ssh_string_free_char(fp);
	return out;
}

/* Decide about the server's key exactly as ssh would, minus prompting. */
static enum sshconn_err
hk_verify(struct sshconn *c, const struct sshconn_params *p, char *err, size_t errlen)
{
	const struct sshcfg *cfg = p->cfg;
	struct hk_scan r = { 0 };
	ssh_key key = NULL;
	char *name = hk_lookup_name(cfg), *fp = NULL;
	const char *tl;
	enum sshconn_err ret = SSHCONN_ERR_HOSTKEY;

	if (ssh_get_server_publickey(c->s, &key) != SSH_OK || key == NULL) {
		seterr(err, errlen, "cannot get the host key of %s: %s", name,
		    ssh_get_error(c->s));
		free(name);
		return SSHCONN_ERR_CONNECT;
	}
	tl = hk_type_label(ssh_key_type(key));
	fp = hk_fingerprint(key);
	snprintf(c->keydesc, sizeof(c->keydesc), "%s %s", tl, fp);
	hk_scan_all(cfg, name, key, &r);

	if (r.revoked) {
		seterr(err, errlen,
		    "@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@\n"
		    "@       WARNING: REVOKED HOST KEY DETECTED!               @\n"
		    "@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@\n"
		    "The %s host key for %s is marked as revoked.\n"
		    "This could mean that a stolen key is being used to\n"
		    "impersonate this host.\n"
		    "Host key verification failed.", tl, name);
	} else if (r.ok) {
		ret = SSHCONN_OK;
	} else if (r.changed) {
		seterr(err, errlen,
		    "@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@\n"
		    "@    WARNING: REMOTE HOST IDENTIFICATION HAS CHANGED!     @\n"
		    "@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@\n"
		    "IT IS POSSIBLE THAT SOMEONE IS DOING SOMETHING NASTY!\n"
		    "Someone could be eavesdropping on you right now (man-in-the-middle attack)!\n"
		    "It is also possible that a host key has just been changed.\n"
		    "The fingerprint for the %s key sent by the remote host is\n"
		    "%s.\n"
		    "Offending %s key in %s:%d\n"
		    "Host key for %s has changed and you have requested strict checking.\n"
		    "Host key verification failed.",
		    tl, fp, tl, r.off_file, r.off_line, name);
	} else {
		/* Unknown key. */
		bool add = false;

		if (cfg->stricthostkeychecking == SHK_YES ||
		    (cfg->stricthostkeychecking == SHK_ASK && cfg->batchmode)) {
			seterr(err, errlen, "No %s host key is known for %s and you have "
			    "requested strict checking.\nHost key verification failed.",
			    tl, name);
		} else if (cfg->stricthostkeychecking == SHK_ASK) {
			/* ssh would ask; we never do, the caller falls back. */
			seterr(err, errlen, "The authenticity of host '%s' can't be established "
			    "(%s key fingerprint is %s)%s; not asking on this route",
			    name, tl, fp, r.other ? ", but keys of different type are known" : "");
		} else {
			add = true;	/* accept-new, no */
		}
		if (add) {
			char aerr[256] = "";
			if (hk_add(p, name, key, aerr, sizeof(aerr)) == 0)
				fprintf(stderr, "Warning: Permanently added '%s' (%s) to the "
				    "list of known hosts.\r\n", name, tl);
			else if (*aerr != '\0')
				fprintf(stderr, "%s\r\n", aerr);
			ret = SSHCONN_OK;	/* ssh goes on even when adding fails */
		}
	}
	free(r.off_file);
	free(fp);
	free(name);
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

/* Point libssh at the agent ssh would use; false when there is none. */
static bool
auth_agent_setup(struct sshconn *c, const struct sshcfg *cfg)
{
	const char *a = cfg->identityagent, *sock;

	if (a == NULL || strcmp(a, "SSH_AUTH_SOCK") == 0)
		sock = getenv("SSH_AUTH_SOCK");
	else if (strcmp(a, "none") == 0)
		return false;
	else if (a[0] == '$')
		sock = getenv(a + 1);
	else
		sock = a;
	if (sock == NULL || *sock == '\0')
		return false;
	return ssh_options_set(c->s, SSH_OPTIONS_IDENTITY_AGENT, sock) == SSH_OK;
}

static enum sshconn_err
auth_run(struct sshconn *c, const struct sshconn_params *p, char *err, size_t errlen)
{
	const struct sshcfg *cfg = p->cfg;
	int rc;
	size_t i;
	char *user = NULL;

	/* Keys straight away: asking with "none" first for the server's methods
	 * costs a round trip per connection (40 ms through SSM), and a server
	 * without publickey just refuses the key. */
	if (!cfg->pubkeyauthentication) {
		rc = ssh_userauth_none(c->s, NULL);
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
		rc = ssh_userauth_agent(c->s, NULL);
		if (rc == SSH_AUTH_SUCCESS)
			return SSHCONN_OK;
		if (rc == SSH_AUTH_ERROR && ssh_get_status(c->s) & (SSH_CLOSED | SSH_CLOSED_ERROR))
			goto broken;
	}
	for (i = 0; i < cfg->identityfiles.n; i++) {
		const char *file = cfg->identityfiles.v[i];
		ssh_key key = NULL;

		if (access(file, R_OK) != 0)
			continue;	/* missing: silently, like ssh */
		if (ssh_pki_import_privkey_file(file, NULL, auth_no_prompt, NULL, &key) != SSH_OK) {
			log_debug(1, "sshconn: skipping identity %s (encrypted or unreadable)", file);
			continue;
		}
		rc = ssh_userauth_publickey(c->s, NULL, key);
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
	    ssh_get_error(c->s));
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
	size_t len = 0;

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
	for (size_t i = 0; i < out.n; i++)
		len += strlen(out.v[i]) + 1;
	joined = xcalloc(1, len + 1);
	for (size_t i = 0; i < out.n; i++) {
		if (i > 0)
			strcat(joined, ",");
		strcat(joined, out.v[i]);
	}
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
	struct hk_scan known = { 0 };
	char *name, *algos, *ciphers;
	bool ok;
	enum sshconn_err e;

	*out = NULL;
	if (err && errlen)
		err[0] = '\0';
	c = xcalloc(1, sizeof(*c));
	c->fd = -1;
	c->read_buf = p->read_buf ? p->read_buf : SSHCONN_READ_BUF_DEFAULT;
	if (c->read_buf > SSHCONN_READ_BUF_MAX)
		c->read_buf = SSHCONN_READ_BUF_MAX;

	c->connect_ms = -1;
	if (p->proxy_fd >= 0) {
		c->fd = p->proxy_fd;
	} else {
		double t0 = clock_now();

		c->fd = tcp_connect(chost, cport, cfg->addressfamily, cfg->connecttimeout,
		    err, errlen);
		if (c->fd < 0) {
			free(c);
			return SSHCONN_ERR_CONNECT;
		}
		c->connect_ms = (clock_now() - t0) * 1e3;
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
	 * labels messages; verification is hk_verify's own. */
	port_for_lookup = has_alias(cfg) ? 22 : (cfg->port > 0 ? cfg->port : 22);
	if (ssh_options_set(c->s, SSH_OPTIONS_HOST,
	    has_alias(cfg) ? cfg->hostkeyalias : cfg->hostname) != SSH_OK)
		ssh_options_set(c->s, SSH_OPTIONS_HOST, "localhost");
	ssh_options_set(c->s, SSH_OPTIONS_PORT, &port_for_lookup);
	if (cfg->user != NULL)
		ssh_options_set(c->s, SSH_OPTIONS_USER, cfg->user);
	/* Keep libssh away from its default known_hosts files. */
	ssh_options_set(c->s, SSH_OPTIONS_KNOWNHOSTS, "/dev/null");
	ssh_options_set(c->s, SSH_OPTIONS_GLOBAL_KNOWNHOSTS, "/dev/null");

	name = hk_lookup_name(cfg);
	hk_scan_all(cfg, name, NULL, &known);
	free(name);
	algos = hk_algo_order(cfg->hostkeyalgorithms, known.types);
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
	e = hk_verify(c, p, err, errlen);
	if (e != SSHCONN_OK)
		goto fail;
	if (!p->probe_only) {
		e = auth_run(c, p, err, errlen);
		if (e != SSHCONN_OK)
			goto fail;
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

void
sshconn_close(struct sshconn *c)
{
	if (c == NULL)
		return;
	if (c->s != NULL) {
		if (ssh_is_connected(c->s))
			ssh_disconnect(c->s);
		ssh_free(c->s);
	}
	/* libssh does not close a socket handed in with SSH_OPTIONS_FD. */
	if (c->fd >= 0)
		close(c->fd);
	free(c);
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

/* ---- channels as streams -------------------------------------------- */

/* A remote command's stderr goes to ours, as ssh passes it on. */
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

static ssize_t
chan_read(void *ctx, void *buf, size_t n)
{
	struct sshconn_chan *k = ctx;
	size_t m;

	if (n == 0)
		return 0;
	while (k->off == k->len) {
		int r;

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

static ssize_t
chan_write(void *ctx, const void *buf, size_t n)
{
	struct sshconn_chan *k = ctx;
	const unsigned char *b = buf;
	size_t done = 0;

	while (done < n) {
		size_t step = n - done > (1u << 30) ? (1u << 30) : n - done;
		int r = ssh_channel_write(k->ch, b + done, (uint32_t)step);
		if (r == SSH_ERROR || r < 0)
			return -1;
		done += (size_t)r;
	}
	return (ssize_t)n;
}

static int
chan_close(void *ctx)
{
	struct sshconn_chan *k = ctx;
	int status = -1;

	if (ssh_channel_is_open(k->ch) && !ssh_channel_is_closed(k->ch))
		ssh_channel_send_eof(k->ch);
	/* Waits for the server's exit-status or the channel's close; when the
	 * server closed already it returns what it got. */
	status = ssh_channel_get_exit_status(k->ch);
	if (k->exec)
		chan_forward_stderr(k);
	if (ssh_channel_is_open(k->ch))
		ssh_channel_close(k->ch);
	ssh_channel_free(k->ch);
	free(k->buf);
	free(k);
	return status <= 0 ? 0 : 1;
}

static const struct fscp_stream_ops chan_ops = {
	.read = chan_read,
	.write = chan_write,
	.close = chan_close,
};

static enum sshconn_err
chan_open(struct sshconn *c, const char *subsystem, const char *cmd,
    struct fscp_stream *out, char *err, size_t errlen)
{
	struct sshconn_chan *k;
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
	k = xcalloc(1, sizeof(*k));
	k->ch = ch;
	k->exec = subsystem == NULL;
	k->cap = c->read_buf;
	k->buf = xmalloc(k->cap);
	out->ops = &chan_ops;
	out->ctx = k;
	out->desc = "libssh channel";
	return SSHCONN_OK;
}

enum sshconn_err
sshconn_sftp_stream(struct sshconn *c, struct fscp_stream *out, char *err, size_t errlen)
{
	return chan_open(c, "sftp", NULL, out, err, errlen);
}

enum sshconn_err
sshconn_exec_stream(struct sshconn *c, const char *cmd, struct fscp_stream *out,
    char *err, size_t errlen)
{
	return chan_open(c, NULL, cmd, out, err, errlen);
}
