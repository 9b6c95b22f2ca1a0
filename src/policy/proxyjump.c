/* SPDX-License-Identifier: ISC
 * Copyright (c) 2026 The fscp authors.  See LICENSE. */
#include "config.h"
#include "policy/proxyjump.h"
#include "policy/shwords.h"
#include "util/xmalloc.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

static bool
parse_hop(const char *s, size_t len, struct proxyjump_hop *h)
{
	char *buf = xstrndup(s, len), *p = buf, *at, *host;
	bool ok = false;

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
proxyjump_free(struct proxyjump_hop *hops, int n)
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
proxyjump_parse(const char *spec, struct proxyjump_hop **hops)
{
	int n = 0, cap = 0;
	struct proxyjump_hop *v = NULL;
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
			proxyjump_free(v, n);
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

bool
proxyjump_via_ssh(const char *proxycommand)
{
	char **w;
	size_t i = 0;
	bool r;

	if (proxycommand == NULL || (w = shwords_split(proxycommand)) == NULL)
		return false;
	while (w[i] != NULL && (strcmp(w[i], "exec") == 0 || strcmp(w[i], "env") == 0 ||
	    shwords_is_assignment(w[i])))
		i++;
	r = w[i] != NULL && strcmp(shwords_base_name(w[i]), "ssh") == 0;
	shwords_free(w);
	return r;
}

bool
proxyjump_host_via_ssh(const char *proxycommand, const char *proxyjump)
{
	return proxycommand != NULL ? proxyjump_via_ssh(proxycommand) : proxyjump != NULL;
}
