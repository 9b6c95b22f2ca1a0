/* operand: what one scp operand names, following OpenSSH 9.2 misc.c
 * (colon, parse_user_host_path, parse_uri, cleanhostname, valid_domain,
 * urldecode) and scp.c okname(); pure. */
#include "config.h"
#include "policy/operand.h"
#include "util/number.h"
#include "util/xmalloc.h"

#include <stdlib.h>
#include <string.h>

static bool
operand_isalnum(int c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') ||
	    (c >= 'A' && c <= 'Z');
}

const char *
operand_colon(const char *s)
{
	bool bracket;

	if (*s == ':')		/* ":x" is a local file name */
		return NULL;
	bracket = *s == '[';
	for (; *s != '\0'; s++) {
		/* "[v6]:p" and "user@[v6]:p": only "]:" ends the host */
		if (s[0] == '@' && s[1] == '[')
			bracket = true;
		if (bracket && s[0] == ']' && s[1] == ':')
			return s + 1;
		if (!bracket && *s == ':')
			return s;
		if (*s == '/')
			return NULL;
	}
	return NULL;
}

/* cleanhostname(): "[h]" -> "h", in place. */
static char *
operand_cleanhost(char *h)
{
	size_t n = strlen(h);

	if (n > 0 && h[0] == '[' && h[n - 1] == ']') {
		h[n - 1] = '\0';
		return h + 1;
	}
	return h;
}

/* valid_domain(name, makelower=0): alnum first, then [A-Za-z0-9._-] with
 * no "..".  A single trailing dot is dropped, as OpenSSH does in place. */
static bool
operand_valid_domain(char *name)
{
	size_t n = strlen(name);
	char last = '\0';

	if (n == 0 || !operand_isalnum((unsigned char)name[0]))
		return false;
	for (size_t i = 0; i < n; i++) {
		char c = name[i];

		if (last == '.' && c == '.')
			return false;
		if (c != '.' && c != '-' && c != '_' &&
		    !operand_isalnum((unsigned char)c))
			return false;
		last = c;
	}
	if (name[n - 1] == '.')
		name[n - 1] = '\0';
	return true;
}

static int
operand_hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* urldecode(): %XX and '+' -> ' '.  NULL on a malformed escape, and on
 * %00, which Debian's 9.2 scp rejects as an invalid uri (checked). */
static char *
operand_urldecode(const char *s)
{
	char *ret = xmalloc(strlen(s) + 1), *d = ret;

	for (; *s != '\0'; s++) {
		if (*s == '+') {
			*d++ = ' ';
		} else if (*s == '%') {
			int hi = operand_hexval(s[1]);
			int lo = hi < 0 ? -1 : operand_hexval(s[2]);

			if (lo < 0 || (hi == 0 && lo == 0)) {
				free(ret);
				return NULL;
			}
			*d++ = (char)(hi << 4 | lo);
			s += 2;
		} else {
			*d++ = *s;
		}
	}
	*d = '\0';
	return ret;
}

/* parse_uri("scp", ...): 1 when not a URI, -1 when invalid, 0 when op is
 * filled in. */
static int
operand_parse_uri(const char *arg, struct fscp_operand *op)
{
	static const char prefix[] = "scp://";
	char *dup, *rest, *at, *semi, *hoststart, *sep, *slash;
	char *user = NULL, *host = NULL, *path = NULL;
	char delim = '\0';
	int port = -1;

	if (strncmp(arg, prefix, sizeof(prefix) - 1) != 0)
		return 1;
	dup = rest = xstrdup(arg + sizeof(prefix) - 1);

	/* The user ends at the first '@' anywhere, even inside the path:
	 * "scp://h/p@q/r" is user "h/p" on host "q", as in scp. */
	if ((at = strchr(rest, '@')) != NULL) {
		*at = '\0';
		if ((semi = strchr(rest, ';')) != NULL)
			*semi = '\0';	/* connection parameters are ignored */
		if (*rest == '\0' || (user = operand_urldecode(rest)) == NULL)
			goto bad;
		rest = at + 1;
	}

	/* hpdelim2(): host is "[...]" or runs to the first ':' or '/' */
	hoststart = rest;
	if (*rest == '[') {
		if ((sep = strchr(rest, ']')) == NULL)
			goto bad;
		sep++;
	} else {
		sep = rest + strcspn(rest, ":/");
	}
	if (*sep == '\0') {
		rest = NULL;
	} else if (*sep == ':' || *sep == '/') {
		delim = *sep;
		*sep = '\0';
		rest = sep + 1;
	} else {
		goto bad;
	}
	if (*hoststart == '\0')
		goto bad;
	host = xstrdup(operand_cleanhost(hoststart));
	if (!operand_valid_domain(host))
		goto bad;

	if (rest != NULL && *rest != '\0') {
		if (delim == ':') {
			if ((slash = strchr(rest, '/')) != NULL)
				*slash = '\0';
			if ((port = number_a2port(rest)) <= 0)
				goto bad;
			rest = slash != NULL ? slash + 1 : NULL;
		}
		if (rest != NULL && *rest != '\0' &&
		    (path = operand_urldecode(rest)) == NULL)
			goto bad;
	}
	free(dup);
	op->remote = true;
	op->is_uri = true;
	op->user = user;
	op->host = host;
	op->port = port;
	op->path = path != NULL ? path : xstrdup(".");
	return 0;
bad:
	free(dup);
	free(user);
	free(host);
	free(path);
	return -1;
}

/* parse_user_host_path(): [user@]host:[path], colon already known. */
static void
operand_parse_uhp(const char *arg, struct fscp_operand *op)
{
	char *dup = xstrdup(arg), *colon, *at;

	colon = dup + (operand_colon(dup) - dup);
	*colon = '\0';
	op->path = xstrdup(colon[1] != '\0' ? colon + 1 : ".");
	/* the LAST '@' before the colon splits user from host */
	if ((at = strrchr(dup, '@')) != NULL) {
		*at = '\0';
		op->host = xstrdup(operand_cleanhost(at + 1));
		if (*dup != '\0')
			op->user = xstrdup(dup);
	} else {
		op->host = xstrdup(operand_cleanhost(dup));
	}
	op->remote = true;
	op->port = -1;
	free(dup);
}

enum operand_status
operand_parse(const char *arg, struct fscp_operand *op)
{
	memset(op, 0, sizeof(*op));
	if (operand_colon(arg) == NULL) {
		op->path = xstrdup(arg);
		op->port = -1;
		return OPERAND_OK;
	}
	switch (operand_parse_uri(arg, op)) {
	case 0:
		return OPERAND_OK;
	case -1:
		memset(op, 0, sizeof(*op));
		return OPERAND_INVALID_URI;
	default:
		operand_parse_uhp(arg, op);
		return OPERAND_OK;
	}
}

void
operand_free(struct fscp_operand *op)
{
	free(op->user);
	free(op->host);
	free(op->path);
	memset(op, 0, sizeof(*op));
	op->port = -1;
}

bool
operand_okname(const char *user)
{
	for (const unsigned char *p = (const unsigned char *)user; *p; p++) {
		if (*p & 0x80)
			return false;
		switch (*p) {
		case '\'':
		case '"':
		case '`':
		case ' ':
		case '#':
			return false;
		default:
			break;
		}
	}
	return true;
}

char *
operand_basename(const char *path)
{
	size_t end = strlen(path), start;

	while (end > 1 && path[end - 1] == '/')
		end--;
	if (end == 1 && path[0] == '/')
		return xstrdup("/");
	start = end;
	while (start > 0 && path[start - 1] != '/')
		start--;
	char *ret = xmalloc(end - start + 1);
	memcpy(ret, path + start, end - start);
	ret[end - start] = '\0';
	return ret;
}
