/* SPDX-License-Identifier: ISC
 * Copyright (c) 2026 The fscp authors.  See LICENSE. */
#include "config.h"
#include "policy/ssmcmd.h"
#include "policy/shwords.h"
#include "util/xmalloc.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

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
	return xstrndup(p, n);
}

static bool check_words(char **w, size_t start, size_t end, struct ssm_env env,
    struct ssmcmd *info, int depth);

static bool
check_string(const char *s, struct ssm_env env, struct ssmcmd *info,
    int depth)
{
	char **w;
	size_t n = 0;
	bool r;

	if (depth > 4 || (w = shwords_split(s)) == NULL)
		return false;
	while (w[n] != NULL)
		n++;
	r = check_words(w, 0, n, env, info, depth);
	shwords_free(w);
	return r;
}

static bool
check_aws(char **w, size_t i, size_t end, struct ssm_env env,
    struct ssmcmd *info)
{
	struct ssmcmd t = { 0 };
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
		ssmcmd_free(&t);
		return false;
	}
	if (t.profile == NULL && env.profile != NULL)
		t.profile = xstrdup(env.profile);
	if (t.region == NULL && env.region != NULL)
		t.region = xstrdup(env.region);
	if (info != NULL)
		*info = t;
	else
		ssmcmd_free(&t);
	return true;
}

/* One simple command w[start..end). */
static bool
check_simple(char **w, size_t i, size_t end, struct ssm_env env,
    struct ssmcmd *info, int depth)
{
	for (; i < end; i++) {
		const char *b = shwords_base_name(w[i]);

		if (shwords_is_assignment(w[i])) {
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
    struct ssmcmd *info, int depth)
{
	size_t s = start;

	for (size_t i = start; i <= end; i++) {
		if (i < end && !shwords_is_op(w[i]))
			continue;
		if (i > s && check_simple(w, s, i, env, info, depth))
			return true;
		s = i + 1;
	}
	return false;
}

bool
ssmcmd_match(const char *proxycommand, struct ssmcmd *info)
{
	struct ssm_env env = { NULL, NULL };

	if (info != NULL)
		memset(info, 0, sizeof(*info));
	if (proxycommand == NULL)
		return false;
	return check_string(proxycommand, env, info, 0);
}

void
ssmcmd_free(struct ssmcmd *info)
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
