/* SPDX-License-Identifier: ISC
 * Copyright (c) 2026 The fscp authors.  See LICENSE. */
/* hostkey: ssh's verdict on a server's host key, for the bypass routes.
 *
 * OpenSSH 9.2's check_host_key() (sshconnect.c) over its known_hosts reader
 * (hostfile.c), re-stated: the same files in the same order, the same name
 * ("[host]:port" off port 22, HostKeyAlias as is), the same pattern lists
 * with negation, hashed names, @revoked, and the same outcome per
 * StrictHostKeyChecking and BatchMode, including the port-less second look.
 * Where ssh would ask the user, or would go on without trusting the key, or
 * uses something this module does not read (KnownHostsCommand,
 * VerifyHostKeyDNS, RevokedHostKeys, CheckHostIP on a non-local address),
 * the verdict is DEFER: the caller takes the standard route and ssh decides.
 * The verdict never accepts a key that ssh would refuse.
 */
#ifndef FSCP_HOSTKEY_H
#define FSCP_HOSTKEY_H

#include <stdbool.h>
#include <stddef.h>

#include <libssh/libssh.h>

#include "policy/sshcfg.h"

enum hostkey_verdict {
	HOSTKEY_ACCEPT,		/* known and matching */
	HOSTKEY_ADD,		/* unknown; ssh records it and goes on */
	HOSTKEY_REFUSE,		/* ssh says "Host key verification failed." */
	HOSTKEY_DEFER,		/* ssh would ask, or trust it less: let ssh decide */
};

/* What the known_hosts files say about one name and one key
 * (OpenSSH's HostStatus). */
enum hostkey_status {
	HOSTKEY_NEW,		/* no plain entry for the name */
	HOSTKEY_OK,		/* an entry with exactly this key */
	HOSTKEY_CHANGED,	/* entries for the name, none with this key */
	HOSTKEY_REVOKED,	/* this key is marked @revoked for the name */
};

/* The facts check_host_key() decides on; hostkey_decide() is pure. */
struct hostkey_facts {
	enum hostkey_status status;	/* under the lookup name */
	bool retry_bare;		/* port != 22 and no alias: look again by host */
	enum hostkey_status bare_status;	/* ... what that found */
	bool readonly;			/* no UserKnownHostsFile, or a name ssh won't record */
	enum sshcfg_strict strict;
	bool batchmode;
};

enum hostkey_verdict hostkey_decide(const struct hostkey_facts *f);

/* OpenSSH's match_hostname(): 1 when a pattern of the comma list matches
 * host (case-insensitive, '*' and '?'), -1 when a negated one does, else 0. */
int hostkey_match_list(const char *host, const char *patterns);
/* A "|1|salt|hash" field names host (HMAC-SHA1 of host under salt). */
bool hostkey_match_hashed(const char *host, const char *field);
/* The name ssh files a key under: alias, else host, "[host]:port" off 22. */
char *hostkey_lookup_name(const char *host, int port, const char *alias);

/* One known_hosts line, split in place.  Returns false for comments, blank
 * and malformed lines (which ssh skips). */
enum hostkey_marker { HOSTKEY_MARK_NONE, HOSTKEY_MARK_CA, HOSTKEY_MARK_REVOKED };
struct hostkey_line {
	enum hostkey_marker marker;
	char *hosts;		/* the pattern list or hashed name */
	char *keytype;		/* "ssh-ed25519", ... */
	char *base64;
};
bool hostkey_line_split(char *line, struct hostkey_line *out);

/* What a lookup of one name in the configured files found. */
struct hostkey_scan {
	enum hostkey_status status;
	bool revoked;		/* the key is marked @revoked for the name */
	unsigned types;		/* bit per enum ssh_keytypes_e with a plain entry */
	char *off_file;		/* the offending entry, for HOSTKEY_CHANGED */
	int off_line;
	char *off_type;
};
/* Look name up in every UserKnownHostsFile, then every GlobalKnownHostsFile;
 * key NULL: only collect the known key types.  Free with hostkey_scan_free. */
void hostkey_scan(const struct sshcfg *cfg, const char *name, ssh_key key,
    struct hostkey_scan *out);
void hostkey_scan_free(struct hostkey_scan *s);

/* Where the bypass connected; ssh's CheckHostIP and
 * NoHostAuthenticationForLocalhost depend on it. */
struct hostkey_peer {
	bool via_proxy;		/* a ProxyCommand socket: no address */
	bool loopback;		/* a TCP connection to 127.0.0.0/8 or ::1 */
	bool never_add;		/* a key ssh would add: DEFER instead (another
				   connection to the host, ssh's, may add it) */
};

struct hostkey_result {
	enum hostkey_verdict verdict;
	char *name;		/* the name looked up (recorded on ADD) */
	char type[16];		/* "ED25519", "RSA", "ECDSA" as ssh prints it */
	char *fingerprint;	/* SHA256:... */
	char msg[2048];		/* ssh's words for REFUSE, a reason for DEFER */
};

/* The whole check, as ssh's check_host_key() with no prompt.  On ADD the
 * key is recorded in the first UserKnownHostsFile (hashed when
 * HashKnownHosts) and ssh's "Warning: Permanently added ..." is printed;
 * like ssh, a failure to record is reported and the key still accepted. */
enum hostkey_verdict hostkey_check(const struct sshcfg *cfg, const struct hostkey_peer *peer,
    ssh_key key, struct hostkey_result *r);
void hostkey_result_free(struct hostkey_result *r);

/* A plain key is known for the host (under its name, or ssh's port-less
 * second look): a check will not need to add one. */
bool hostkey_known(const struct sshcfg *cfg);

/* The host key algorithms in the order ssh prefers: those whose key types
 * are known for the host first, so the server shows one we can check.
 * Only the order changes.  NULL when allowed is NULL and nothing is known. */
char *hostkey_algo_order(const struct sshcfg *cfg);

#endif
