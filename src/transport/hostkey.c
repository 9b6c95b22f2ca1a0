/* SPDX-License-Identifier: ISC
 * Copyright (c) 2026 The fscp authors.  See LICENSE. */
/* hostkey: ssh's verdict on a server's host key.  See hostkey.h. */
#include "config.h"
#include "transport/hostkey.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <arpa/inet.h>

#include "transport/sshlib.h"
#include "util/cryptolib.h"
#include "util/strv.h"
#include "util/xmalloc.h"
#include "policy/fscpconf.h"	/* fscpconf_glob: ssh's match_pattern */

/* ---- names and patterns (pure) ------------------------------------- */

int
hostkey_match_list(const char *host, const char *patterns)
{
	char *h = xstrdup(host), *list = xstrdup(patterns), *tok, *save = NULL;
	int ret = 0;

	for (char *c = h; *c; c++)
		*c = (char)tolower((unsigned char)*c);
	for (char *c = list; *c; c++)
		*c = (char)tolower((unsigned char)*c);
	for (tok = strtok_r(list, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		bool neg = *tok == '!';

		if (!fscpconf_glob(h, neg ? tok + 1 : tok))
			continue;
		if (neg) {
			ret = -1;	/* a negated match rules the line out */
			break;
		}
		ret = 1;
	}
	free(h);
	free(list);
	return ret;
}

/* HMAC-SHA1(salt, host) as "|1|base64(salt)|base64(mac)"; salt NULL: a new one. */
static char *
hash_name(const char *host, const unsigned char *salt_in)
{
	unsigned char salt[20], mac[20];
	char bsalt[64], bmac[64];

	if (salt_in != NULL)
		memcpy(salt, salt_in, sizeof(salt));
	else if (!cryptolib_random(salt, sizeof(salt)))
		return NULL;
	if (!cryptolib_hmac_sha1(salt, sizeof(salt), host, strlen(host), mac) ||
	    cryptolib_b64_encode(bsalt, salt, sizeof(salt)) < 0 ||
	    cryptolib_b64_encode(bmac, mac, sizeof(mac)) < 0)
		return NULL;
	return xasprintf("|1|%s|%s", bsalt, bmac);
}

bool
hostkey_match_hashed(const char *host, const char *field)
{
	unsigned char salt[64];
	const char *b, *e;
	char bsalt[64];
	char *mine;
	bool ok;

	if (strncmp(field, "|1|", 3) != 0)
		return false;
	b = field + 3;
	if ((e = strchr(b, '|')) == NULL || (size_t)(e - b) >= sizeof(bsalt))
		return false;
	memcpy(bsalt, b, (size_t)(e - b));
	bsalt[e - b] = '\0';
	/* 20 bytes of salt are 28 base64 characters. */
	if (strlen(bsalt) != 28 || cryptolib_b64_decode(salt, bsalt, 28) != 21)
		return false;
	if ((mine = hash_name(host, salt)) == NULL)
		return false;
	ok = strcmp(mine, field) == 0;
	free(mine);
	return ok;
}

char *
hostkey_lookup_name(const char *host, int port, const char *alias)
{
	if (alias != NULL)
		return xstrdup(alias);
	if (port != 0 && port != 22)
		return xasprintf("[%s]:%d", host, port);
	return xstrdup(host);
}

static bool
is_blank(char c)
{
	return c == ' ' || c == '\t';
}

/* Cut the next blank-separated word off *p. */
static char *
next_word(char **p)
{
	char *w = *p, *e;

	while (is_blank(*w))
		w++;
	if (*w == '\0')
		return NULL;
	for (e = w; *e != '\0' && !is_blank(*e); e++)
		;
	if (*e != '\0')
		*e++ = '\0';
	*p = e;
	return w;
}

bool
hostkey_line_split(char *line, struct hostkey_line *out)
{
	char *p = line, *w;

	line[strcspn(line, "\r\n")] = '\0';
	memset(out, 0, sizeof(*out));
	while (is_blank(*p))
		p++;
	if (*p == '\0' || *p == '#')
		return false;
	if (*p == '@') {
		w = next_word(&p);
		if (strcmp(w, "@cert-authority") == 0)
			out->marker = HOSTKEY_MARK_CA;
		else if (strcmp(w, "@revoked") == 0)
			out->marker = HOSTKEY_MARK_REVOKED;
		else
			return false;	/* unknown marker: ssh skips the line */
		while (is_blank(*p))
			p++;
		if (*p == '@')
			return false;	/* only one marker */
	}
	out->hosts = next_word(&p);
	out->keytype = next_word(&p);
	out->base64 = next_word(&p);
	return out->hosts != NULL && out->keytype != NULL && out->base64 != NULL &&
	    *out->keytype != '#' && *out->base64 != '#';
}

/* ---- the decision (pure) ------------------------------------------- */

enum hostkey_verdict
hostkey_decide(const struct hostkey_facts *f)
{
	switch (f->status) {
	case HOSTKEY_OK:
		return HOSTKEY_ACCEPT;
	case HOSTKEY_REVOKED:
	case HOSTKEY_CHANGED:
		/* StrictHostKeyChecking=no: ssh goes on, but trusts the server
		 * less (no password login, no forwarding).  Not ours to copy. */
		return f->strict == SHK_NO ? HOSTKEY_DEFER : HOSTKEY_REFUSE;
	case HOSTKEY_NEW:
		break;
	}
	if (f->retry_bare) {
		/* "checking without port identifier": a key filed under the
		 * bare host counts, read-only. */
		if (f->bare_status == HOSTKEY_OK)
			return HOSTKEY_ACCEPT;
		if (f->bare_status == HOSTKEY_REVOKED && f->strict == SHK_NO)
			return HOSTKEY_DEFER;
	}
	if (f->readonly)
		return HOSTKEY_REFUSE;
	switch (f->strict) {
	case SHK_YES:
		return HOSTKEY_REFUSE;
	case SHK_ASK:
		/* ssh's confirm() says no at once in batch mode. */
		return f->batchmode ? HOSTKEY_REFUSE : HOSTKEY_DEFER;
	default:
		return HOSTKEY_ADD;
	}
}

/* ---- known_hosts files --------------------------------------------- */

static const char *type_label(enum ssh_keytypes_e t);

static bool
line_names(const struct hostkey_line *l, const char *name)
{
	if (l->hosts[0] == '|')
		return hostkey_match_hashed(name, l->hosts);
	return hostkey_match_list(name, l->hosts) == 1;
}

static void
scan_file(const char *file, const char *name, ssh_key key, struct hostkey_scan *r)
{
	FILE *f = fopen(file, "r");
	char *line = NULL;
	size_t cap = 0;
	int lineno = 0;

	if (f == NULL)
		return;		/* a missing file is fine, as for ssh */
	while (getline(&line, &cap, f) >= 0) {
		struct hostkey_line l;
		ssh_key k = NULL;
		enum ssh_keytypes_e t;

		lineno++;
		if (!hostkey_line_split(line, &l) || !line_names(&l, name))
			continue;
		t = ssh_key_type_from_name(l.keytype);
		if (t == SSH_KEYTYPE_UNKNOWN || ssh_pki_import_pubkey_base64(l.base64, t, &k) != SSH_OK)
			continue;	/* unparsable: ssh skips it too */
		if (l.marker == HOSTKEY_MARK_REVOKED) {
			if (key != NULL && ssh_key_cmp(k, key, SSH_KEY_CMP_PUBLIC) == 0)
				r->revoked = true;
		} else if (l.marker == HOSTKEY_MARK_NONE) {
			/* Certificate authorities vouch only for host
			 * certificates, which we never ask for. */
			if ((unsigned)ssh_key_type(k) < 32)
				r->types |= 1u << ssh_key_type(k);
			if (key == NULL || r->status == HOSTKEY_OK) {
				/* only collecting types, or already found */
			} else if (ssh_key_cmp(k, key, SSH_KEY_CMP_PUBLIC) == 0) {
				r->status = HOSTKEY_OK;
			} else {
				/* ssh 9.2: any other plain key for the name, of
				 * whatever type, makes it "changed" (the last one
				 * seen is the offending entry). */
				r->status = HOSTKEY_CHANGED;
				free(r->off_file);
				free(r->off_type);
				r->off_file = xstrdup(file);
				r->off_line = lineno;
				r->off_type = xstrdup(type_label(ssh_key_type(k)));
			}
		}
		ssh_key_free(k);
	}
	free(line);
	fclose(f);
}

void
hostkey_scan(const struct sshcfg *cfg, const char *name, ssh_key key, struct hostkey_scan *out)
{
	memset(out, 0, sizeof(*out));
	out->status = HOSTKEY_NEW;
	if (!sshlib_load(NULL)) {
		/* No key can be read: none is trusted (no caller gets here
		 * without a connection, which loaded libssh). */
		out->revoked = true;
		out->status = HOSTKEY_REVOKED;
		return;
	}
	for (size_t i = 0; i < cfg->userknownhostsfiles.n; i++)
		scan_file(cfg->userknownhostsfiles.v[i], name, key, out);
	for (size_t i = 0; i < cfg->globalknownhostsfiles.n; i++)
		scan_file(cfg->globalknownhostsfiles.v[i], name, key, out);
	if (out->revoked)
		out->status = HOSTKEY_REVOKED;
}

void
hostkey_scan_free(struct hostkey_scan *s)
{
	free(s->off_file);
	free(s->off_type);
	s->off_file = s->off_type = NULL;
}

/* ---- recording ------------------------------------------------------- */

static int
record(const struct sshcfg *cfg, const char *name, ssh_key key)
{
	const char *file = cfg->userknownhostsfiles.v[0];
	char *b64 = NULL, *hname = NULL, *dir, *slash;
	struct stat st;
	FILE *f;
	int rc = -1;

	if (ssh_pki_export_pubkey_base64(key, &b64) != SSH_OK)
		return -1;
	if (cfg->hashknownhosts && (hname = hash_name(name, NULL)) == NULL)
		goto out;
	/* ssh creates the directory of the file (~/.ssh) when it is missing. */
	dir = xstrdup(file);
	slash = strrchr(dir, '/');
	if (slash != NULL && slash != dir) {
		*slash = '\0';
		if (stat(dir, &st) < 0)
			(void)mkdir(dir, 0700);
	}
	free(dir);
	if ((f = fopen(file, "a")) == NULL)
		goto out;
	fprintf(f, "%s %s %s\n", hname ? hname : name, ssh_key_type_to_char(ssh_key_type(key)), b64);
	rc = fclose(f) == 0 ? 0 : -1;
out:
	ssh_string_free_char(b64);
	free(hname);
	return rc;
}

/* ---- the check ---------------------------------------------------------- */

static const char *
type_label(enum ssh_keytypes_e t)
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

static char *
fingerprint(ssh_key key)
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

static void
say(struct hostkey_result *r, const char *fmt, ...) FSCP_PRINTF(2, 3);

static void
say(struct hostkey_result *r, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(r->msg, sizeof(r->msg), fmt, ap);
	va_end(ap);
}

static bool
is_ip_literal(const char *h)
{
	unsigned char buf[16];

	return inet_pton(AF_INET, h, buf) == 1 || inet_pton(AF_INET6, h, buf) == 1;
}

/* What ssh reads that this module does not: then ssh must decide. */
static const char *
unsupported(const struct sshcfg *cfg, const struct hostkey_peer *peer)
{
	if (cfg->knownhostscommand != NULL)
		return "KnownHostsCommand is set";
	if (cfg->verifyhostkeydns)
		return "VerifyHostKeyDNS is set";
	if (cfg->revokedhostkeys != NULL)
		return "RevokedHostKeys is set";
	/* ssh turns CheckHostIP off for local addresses, proxies and a host
	 * given as an address; elsewhere it also checks (and may record) the
	 * address's key. */
	if (cfg->checkhostip && !peer->loopback && !peer->via_proxy &&
	    !is_ip_literal(cfg->hostname))
		return "CheckHostIP is set";
	return NULL;
}

static void
explain(const struct hostkey_scan *s, const struct hostkey_facts *f, struct hostkey_result *r)
{
	const char *name = r->name;

	if (r->verdict == HOSTKEY_DEFER) {
		say(r, "ssh would %s the %s key of %s (%s); not deciding on this route",
		    f->status == HOSTKEY_NEW ? "ask about" : "warn about but accept",
		    r->type, name, r->fingerprint);
		return;
	}
	if (s->status == HOSTKEY_REVOKED) {
		say(r, "@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@\n"
		    "@       WARNING: REVOKED HOST KEY DETECTED!               @\n"
		    "@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@\n"
		    "The %s host key for %s is marked as revoked.\n"
		    "This could mean that a stolen key is being used to\n"
		    "impersonate this host.\n"
		    "%s host key for %s was revoked and you have requested strict checking.\n"
		    "Host key verification failed.", r->type, name, r->type, name);
	} else if (s->status == HOSTKEY_CHANGED) {
		say(r, "@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@\n"
		    "@    WARNING: REMOTE HOST IDENTIFICATION HAS CHANGED!     @\n"
		    "@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@\n"
		    "IT IS POSSIBLE THAT SOMEONE IS DOING SOMETHING NASTY!\n"
		    "Someone could be eavesdropping on you right now (man-in-the-middle attack)!\n"
		    "It is also possible that a host key has just been changed.\n"
		    "The fingerprint for the %s key sent by the remote host is\n%s.\n"
		    "Please contact your system administrator.\n"
		    "Offending %s key in %s:%d\n"
		    "Host key for %s has changed and you have requested strict checking.\n"
		    "Host key verification failed.", r->type, r->fingerprint,
		    s->off_type, s->off_file, s->off_line, name);
	} else if (f->readonly) {
		say(r, "Host key verification failed.");
	} else {
		say(r, "No %s host key is known for %s and you have requested strict checking.\n"
		    "Host key verification failed.", r->type, name);
	}
}

/* ssh's second look, without the port, for a host on another port and
 * no HostKeyAlias ("checking without port identifier"). */
static bool
hostkey_retry_bare(const struct sshcfg *cfg, const char *alias)
{
	return alias == NULL && cfg->port != 0 && cfg->port != 22;
}

bool
hostkey_known(const struct sshcfg *cfg)
{
	const char *alias = sshcfg_hostkeyalias(cfg);
	struct hostkey_scan s;
	char *name = hostkey_lookup_name(cfg->hostname, cfg->port, alias);
	bool known;

	hostkey_scan(cfg, name, NULL, &s);
	known = s.types != 0 && !s.revoked;
	hostkey_scan_free(&s);
	free(name);
	if (!known && hostkey_retry_bare(cfg, alias)) {
		hostkey_scan(cfg, cfg->hostname, NULL, &s);
		known = s.types != 0 && !s.revoked;
		hostkey_scan_free(&s);
	}
	return known;
}

enum hostkey_verdict
hostkey_check(const struct sshcfg *cfg, const struct hostkey_peer *peer, ssh_key key,
    struct hostkey_result *r)
{
	const char *alias = sshcfg_hostkeyalias(cfg), *why;
	struct hostkey_facts f = { 0 };
	struct hostkey_scan s, bare = { 0 };

	memset(r, 0, sizeof(*r));
	snprintf(r->type, sizeof(r->type), "%s", type_label(ssh_key_type(key)));
	r->fingerprint = fingerprint(key);
	r->name = hostkey_lookup_name(cfg->hostname, cfg->port, alias);
	if ((why = unsupported(cfg, peer)) != NULL) {
		say(r, "%s; ssh checks this host key", why);
		return r->verdict = HOSTKEY_DEFER;
	}
	if (cfg->nohostauthenticationforlocalhost && peer->loopback && alias == NULL)
		return r->verdict = HOSTKEY_ACCEPT;	/* as ssh: any key */

	hostkey_scan(cfg, r->name, key, &s);
	f.status = s.status;
	f.strict = cfg->stricthostkeychecking;
	f.batchmode = cfg->batchmode;
	f.readonly = cfg->userknownhostsfiles.n == 0 ||
	    strcspn(cfg->hostname, "@?*#[]|'\"\\") != strlen(cfg->hostname);
	f.retry_bare = hostkey_retry_bare(cfg, alias);
	if (f.retry_bare && s.status == HOSTKEY_NEW) {
		hostkey_scan(cfg, cfg->hostname, key, &bare);
		f.bare_status = bare.status;
		hostkey_scan_free(&bare);
	}
	r->verdict = hostkey_decide(&f);
	if (r->verdict == HOSTKEY_ADD && peer->never_add) {
		r->verdict = HOSTKEY_DEFER;
		snprintf(r->msg, sizeof(r->msg), "the host key is not known yet: ssh records it");
	} else if (r->verdict == HOSTKEY_ADD) {
		if (record(cfg, r->name, key) == 0)
			fprintf(stderr, "Warning: Permanently added '%s' (%s) to the list of "
			    "known hosts.\r\n", r->name, r->type);
		else
			fprintf(stderr, "Failed to add the host to the list of known hosts "
			    "(%s).\r\n", cfg->userknownhostsfiles.v[0]);
	} else if (r->verdict != HOSTKEY_ACCEPT) {
		explain(&s, &f, r);
	}
	hostkey_scan_free(&s);
	return r->verdict;
}

void
hostkey_result_free(struct hostkey_result *r)
{
	free(r->name);
	free(r->fingerprint);
	r->name = r->fingerprint = NULL;
}

/* ---- algorithm order ----------------------------------------------------- */

static const char *
algos_for(enum ssh_keytypes_e t)
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
list_has(const struct strv *l, const char *w)
{
	for (size_t i = 0; i < l->n; i++)
		if (strcmp(l->v[i], w) == 0)
			return true;
	return false;
}

static void
split_commas(const char *s, struct strv *out)
{
	char *dup = xstrdup(s), *tok, *save = NULL;

	for (tok = strtok_r(dup, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
		strv_push(out, tok);
	free(dup);
}

char *
hostkey_algo_order(const struct sshcfg *cfg)
{
	static const char *deflt =
	    "ssh-ed25519,ecdsa-sha2-nistp521,ecdsa-sha2-nistp384,"
	    "ecdsa-sha2-nistp256,rsa-sha2-512,rsa-sha2-256";
	static const enum ssh_keytypes_e order[] = {
		SSH_KEYTYPE_ED25519, SSH_KEYTYPE_ECDSA_P521, SSH_KEYTYPE_ECDSA_P384,
		SSH_KEYTYPE_ECDSA_P256, SSH_KEYTYPE_RSA,
	};
	const char *allowed = cfg->hostkeyalgorithms;
	struct strv base = { 0 }, out = { 0 };
	struct hostkey_scan known;
	char *name, *joined;

	name = hostkey_lookup_name(cfg->hostname, cfg->port, sshcfg_hostkeyalias(cfg));
	hostkey_scan(cfg, name, NULL, &known);
	free(name);
	hostkey_scan_free(&known);
	if (known.types == 0)
		return allowed != NULL ? xstrdup(allowed) : NULL;
	split_commas(allowed != NULL ? allowed : deflt, &base);
	for (size_t i = 0; i < sizeof(order) / sizeof(order[0]); i++) {
		struct strv names = { 0 };

		if (!(known.types & (1u << order[i])) || algos_for(order[i]) == NULL)
			continue;
		split_commas(algos_for(order[i]), &names);
		for (size_t j = 0; j < names.n; j++)
			if (list_has(&base, names.v[j]) && !list_has(&out, names.v[j]))
				strv_push(&out, names.v[j]);
		strv_free(&names);
	}
	for (size_t i = 0; i < base.n; i++)
		if (!list_has(&out, base.v[i]))
			strv_push(&out, base.v[i]);
	joined = strv_join(&out, ",");
	strv_free(&base);
	strv_free(&out);
	return joined;
}
