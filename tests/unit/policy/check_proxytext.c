/* SPDX-License-Identifier: ISC
 * Copyright (c) 2026 The fscp authors.  See LICENSE. */
/* Unit tests for a ProxyCommand's text: its % tokens (proxytok), its shell
 * words (shwords), SSM recognition (ssmcmd) and ProxyJump specs (proxyjump). */
#include "config.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../check_main.h"
#include "policy/proxyjump.h"
#include "policy/proxytok.h"
#include "policy/shwords.h"
#include "policy/sshcfg.h"
#include "policy/ssmcmd.h"

static const struct proxytok tok = {
	.host = "real.example",
	.host_arg = "My.Alias",
	.keyalias = NULL,
	.remote_user = "bob",
	.port = 2201,
	.local_user = "alice",
	.local_host = "vm.lan",
	.short_host = "vm",
	.home = "/home/alice",
	.uid = "1000",
	.jump = "",
	.conn_hash = "0123456789abcdef0123456789abcdef01234567",
};

/* tmpl, set, expected (NULL: error), expected error */
static const struct {
	const char *tmpl;
	enum proxytok_set set;
	const char *want;
	const char *err;
} exp_table[] = {
	{ "nc %h %p", PROXYTOK_PROXY, "nc real.example 2201", NULL },
	{ "%%h is %h", PROXYTOK_PROXY, "%h is real.example", NULL },
	{ "%r@%n:%k", PROXYTOK_PROXY, "bob@My.Alias:My.Alias", NULL },
	{ "plain", PROXYTOK_PROXY, "plain", NULL },
	{ "", PROXYTOK_PROXY, "", NULL },
	{ "$HOME ${HOME} ~", PROXYTOK_PROXY, "$HOME ${HOME} ~", NULL },
	{ "100%%", PROXYTOK_PROXY, "100%", NULL },
	{ "%C", PROXYTOK_PROXY, NULL, "vdollar_percent_expand: unknown key %C" },
	{ "x %u", PROXYTOK_PROXY, NULL, "vdollar_percent_expand: unknown key %u" },
	{ "%j", PROXYTOK_PROXY, NULL, "vdollar_percent_expand: unknown key %j" },
	{ "%x", PROXYTOK_ALL, NULL, "vdollar_percent_expand: unknown key %x" },
	{ "50%", PROXYTOK_PROXY, NULL, "vdollar_percent_expand: invalid format" },
	{ "%u@%l/%L %d %i [%j]", PROXYTOK_ALL,
	    "alice@vm.lan/vm /home/alice 1000 []", NULL },
	{ "cm-%C", PROXYTOK_ALL, "cm-0123456789abcdef0123456789abcdef01234567", NULL },
	{ "sh -c \"aws ssm start-session --target %h --parameters 'portNumber=%p'\"",
	    PROXYTOK_PROXY,
	    "sh -c \"aws ssm start-session --target real.example --parameters 'portNumber=2201'\"",
	    NULL },
};

START_TEST(expand_table)
{
	char err[128] = "";
	char *s = proxytok_expand(exp_table[_i].tmpl, &tok, exp_table[_i].set,
	    err, sizeof(err));

	if (exp_table[_i].want != NULL) {
		ck_assert_ptr_nonnull(s);
		ck_assert_str_eq(s, exp_table[_i].want);
	} else {
		ck_assert_ptr_null(s);
		ck_assert_str_eq(err, exp_table[_i].err);
	}
	free(s);
}
END_TEST

START_TEST(expand_keyalias)
{
	struct proxytok t = tok;
	char err[64], *s;

	t.keyalias = "hka";
	s = proxytok_expand("%k/%n", &t, PROXYTOK_PROXY, err, sizeof(err));
	ck_assert_str_eq(s, "hka/My.Alias");
	free(s);
	t.jump = "bastion";
	s = proxytok_expand("%j", &t, PROXYTOK_ALL, err, sizeof(err));
	ck_assert_str_eq(s, "bastion");
	free(s);
}
END_TEST

START_TEST(expand_long)
{
	char err[64], *s, big[5000];

	memset(big, 'x', sizeof(big) - 3);
	strcpy(big + sizeof(big) - 3, "%h");
	s = proxytok_expand(big, &tok, PROXYTOK_PROXY, err, sizeof(err));
	ck_assert_uint_eq(strlen(s), sizeof(big) - 3 + strlen("real.example"));
	free(s);
}
END_TEST

START_TEST(conn_hash)
{
	char h[41];

	/* printf 'vmreal.example2200root' | sha1sum */
	ck_assert(proxytok_conn_hash("vm", "real.example", 2200, "root", h));
	ck_assert_str_eq(h, "c1c192429f5a0bf0d548607a306c6b1994d37d1d");
}
END_TEST

START_TEST(tokens_from_cfg)
{
	struct sshcfg c;
	struct proxytok t;
	struct proxytok_store st;
	char err[64], *s;

	ck_assert_int_eq(sshcfg_parse("host My.Alias\nhostname real.example\n"
	    "user bob\nport 2201\nhostkeyalias hka\n", &c), 0);
	proxytok_from(&t, &st, &c);
	s = proxytok_expand("%h %n %k %r %p", &t, PROXYTOK_PROXY, err, sizeof(err));
	ck_assert_str_eq(s, "real.example My.Alias hka bob 2201");
	free(s);
	ck_assert_uint_eq(strlen(t.conn_hash), 40);
	ck_assert_str_eq(t.jump, "");
	ck_assert(strchr(t.short_host, '.') == NULL);
	proxytok_free(&st);
	sshcfg_free(&c);
}
END_TEST

/* ---- words ----------------------------------------------------------------- */

START_TEST(words_quoting)
{
	char **w = shwords_split("a 'b c' \"d \\\"e\\\" $f\" g\\ h i'j'\"k\" x;y&&z|w");

	ck_assert_ptr_nonnull(w);
	ck_assert_str_eq(w[0], "a");
	ck_assert_str_eq(w[1], "b c");
	ck_assert_str_eq(w[2], "d \"e\" $f");
	ck_assert_str_eq(w[3], "g h");
	ck_assert_str_eq(w[4], "ijk");
	ck_assert_str_eq(w[5], "x");
	ck_assert_str_eq(w[6], ";");
	ck_assert_str_eq(w[7], "y");
	ck_assert_str_eq(w[8], "&&");
	ck_assert_str_eq(w[9], "z");
	ck_assert_str_eq(w[10], "|");
	ck_assert_str_eq(w[11], "w");
	ck_assert_ptr_null(w[12]);
	shwords_free(w);
	ck_assert_ptr_null(shwords_split("a 'b"));
	ck_assert_ptr_null(shwords_split("a \"b"));
	w = shwords_split("   ");
	ck_assert_ptr_null(w[0]);
	shwords_free(w);
	w = shwords_split("''");
	ck_assert_str_eq(w[0], "");
	shwords_free(w);
}
END_TEST

/* ---- SSM detection --------------------------------------------------------- */

static const struct {
	const char *cmd;
	bool ssm;
	const char *target, *profile, *region, *port;
	bool plugin;
} ssm_table[] = {
	/* The AWS documentation's form. */
	{ "sh -c \"aws ssm start-session --target %h --document-name AWS-StartSSHSession "
	  "--parameters 'portNumber=%p'\"", true, "%h", NULL, NULL, "%p", false },
	{ "bash -c 'aws ssm start-session --target %h --document-name AWS-StartSSHSession "
	  "--parameters portNumber=%p'", true, "%h", NULL, NULL, "%p", false },
	{ "aws ssm start-session --target %h --document-name AWS-StartSSHSession "
	  "--parameters \"portNumber=%p\"", true, "%h", NULL, NULL, "%p", false },
	{ "aws ssm start-session --target=i-0123 --document-name=AWS-StartSSHSession "
	  "--parameters=portNumber=22 --profile prod --region eu-west-1",
	  true, "i-0123", "prod", "eu-west-1", "22", false },
	{ "aws --profile dev --region us-east-1 ssm start-session --target %h "
	  "--document-name AWS-StartSSHSession --parameters portNumber=%p",
	  true, "%h", "dev", "us-east-1", "%p", false },
	{ "/usr/local/bin/aws ssm start-session --target %h --document-name "
	  "AWS-StartSSHSession --parameters '{\"portNumber\":[\"%p\"]}'",
	  true, "%h", NULL, NULL, "%p", false },
	{ "env AWS_PROFILE=stage AWS_REGION=ap-south-1 aws ssm start-session "
	  "--target %h --document-name AWS-StartSSHSession", true, "%h", "stage",
	  "ap-south-1", NULL, false },
	{ "/usr/bin/env AWS_DEFAULT_REGION=us-west-2 aws ssm start-session --target %h "
	  "--document-name AWS-StartSSHSession", true, "%h", NULL, "us-west-2", NULL, false },
	{ "AWS_PROFILE=x sh -c \"exec aws ssm start-session --target %h --document-name "
	  "AWS-StartSSHSession --parameters portNumber=%p\"", true, "%h", "x", NULL, "%p",
	  false },
	{ "sh -c \"AWS_PROFILE=y aws ssm start-session --target %h --document-name "
	  "AWS-StartSSHSession --profile z\"", true, "%h", "z", NULL, NULL, false },
	{ "bash -lc \"aws sso login --profile p >/dev/null; aws ssm start-session "
	  "--target %h --document-name AWS-StartSSHSession --profile p\"",
	  true, "%h", "p", NULL, NULL, false },
	{ "sh -c 'sh -c \"aws ssm start-session --target %h --document-name "
	  "AWS-StartSSHSession\"'", true, "%h", NULL, NULL, NULL, false },
	{ "aws-vault exec prod -- aws ssm start-session --target %h --document-name "
	  "AWS-StartSSHSession --parameters portNumber=%p", true, "%h", NULL, NULL, "%p",
	  false },
	{ "session-manager-plugin '{\"SessionId\":\"s\"}' us-east-1 StartSession",
	  true, NULL, NULL, NULL, NULL, true },
	{ "exec aws ssm start-session --target %h --document-name aws-startsshsession",
	  true, "%h", NULL, NULL, NULL, false },
	/* Not SSM. */
	{ "nc %h %p", false, NULL, NULL, NULL, NULL, false },
	{ "corkscrew proxy.example 8080 %h %p", false, NULL, NULL, NULL, NULL, false },
	{ "ssh -W %h:%p bastion", false, NULL, NULL, NULL, NULL, false },
	{ "aws ssm start-session --target %h", false, NULL, NULL, NULL, NULL, false },
	{ "aws ssm start-session --target %h --document-name "
	  "AWS-StartPortForwardingSession", false, NULL, NULL, NULL, NULL, false },
	{ "aws ec2 describe-instances", false, NULL, NULL, NULL, NULL, false },
	{ "echo aws ssm start-session --document-name AWS-StartSSHSession", false,
	  NULL, NULL, NULL, NULL, false },
	{ "sh -c 'unbalanced", false, NULL, NULL, NULL, NULL, false },
	{ "", false, NULL, NULL, NULL, NULL, false },
	{ "sh -x", false, NULL, NULL, NULL, NULL, false },
};

static void
check_opt_str(const char *got, const char *want)
{
	if (want == NULL)
		ck_assert_ptr_null(got);
	else {
		ck_assert_ptr_nonnull(got);
		ck_assert_str_eq(got, want);
	}
}

START_TEST(ssm_detect)
{
	struct ssmcmd info;
	bool r = ssmcmd_match(ssm_table[_i].cmd, &info);

	ck_assert_msg(r == ssm_table[_i].ssm, "row %d: %s", _i, ssm_table[_i].cmd);
	check_opt_str(info.target, ssm_table[_i].target);
	check_opt_str(info.profile, ssm_table[_i].profile);
	check_opt_str(info.region, ssm_table[_i].region);
	check_opt_str(info.port_param, ssm_table[_i].port);
	ck_assert(info.plugin == ssm_table[_i].plugin);
	ssmcmd_free(&info);
	/* info is optional */
	ck_assert(ssmcmd_match(ssm_table[_i].cmd, NULL) == ssm_table[_i].ssm);
}
END_TEST

START_TEST(ssm_null)
{
	struct ssmcmd info;

	ck_assert(!ssmcmd_match(NULL, &info));
	ck_assert_ptr_null(info.target);
	ssmcmd_free(NULL);
}
END_TEST

/* ---- ProxyJump ------------------------------------------------------------- */

START_TEST(jump_parse)
{
	struct proxyjump_hop *h;
	int n;

	n = proxyjump_parse("bastion", &h);
	ck_assert_int_eq(n, 1);
	ck_assert_ptr_null(h[0].user);
	ck_assert_str_eq(h[0].host, "bastion");
	ck_assert_int_eq(h[0].port, -1);
	proxyjump_free(h, n);

	n = proxyjump_parse("bob@jump1:2222,ssh://carol@jump2:22,[::1]:99,fe80::1", &h);
	ck_assert_int_eq(n, 4);
	ck_assert_str_eq(h[0].user, "bob");
	ck_assert_str_eq(h[0].host, "jump1");
	ck_assert_int_eq(h[0].port, 2222);
	ck_assert_str_eq(h[1].user, "carol");
	ck_assert_str_eq(h[1].host, "jump2");
	ck_assert_int_eq(h[1].port, 22);
	ck_assert_str_eq(h[2].host, "::1");
	ck_assert_int_eq(h[2].port, 99);
	ck_assert_str_eq(h[3].host, "fe80::1");
	ck_assert_int_eq(h[3].port, -1);
	proxyjump_free(h, n);

	ck_assert_int_eq(proxyjump_parse("", &h), -1);
	ck_assert_int_eq(proxyjump_parse(NULL, &h), -1);
	ck_assert_int_eq(proxyjump_parse("none", &h), -1);
	ck_assert_int_eq(proxyjump_parse("a,,b", &h), -1);
	ck_assert_int_eq(proxyjump_parse("@host", &h), -1);
	ck_assert_int_eq(proxyjump_parse("host:0", &h), -1);
	ck_assert_int_eq(proxyjump_parse("host:99999", &h), -1);
	ck_assert_int_eq(proxyjump_parse("[::1", &h), -1);
	/* Found by tests/fuzz/fuzz_proxycmd (crashes/proxycmd/bracket-port-0):
	 * a bracketed host took any port, 0 included. */
	ck_assert_int_eq(proxyjump_parse("[::1]:0", &h), -1);
	ck_assert_int_eq(proxyjump_parse("[::1]::1", &h), -1);
	ck_assert_int_eq(proxyjump_parse("a,[::1]:99999", &h), -1);
	ck_assert_int_eq(proxyjump_parse("u@", &h), -1);
	ck_assert_ptr_null(h);
}
END_TEST

/* Is the proxy ssh itself?  ProxyJump's own command (quoted words, as
 * facts_proxy_command writes it) and the usual ProxyCommand forms are;
 * a relay, an SSM CLI and a shell wrapper are not. */
START_TEST(jump_via_ssh)
{
	ck_assert(proxyjump_via_ssh("'/usr/bin/ssh' '-oBatchMode=yes' '-W' '[h]:22' 'bastion'"));
	ck_assert(proxyjump_via_ssh("ssh -W %h:%p jump"));
	ck_assert(proxyjump_via_ssh("exec ssh -q jump nc %h %p"));
	ck_assert(proxyjump_via_ssh("env LC_ALL=C /opt/bin/ssh -W [h]:22 j"));
	ck_assert(proxyjump_via_ssh("A=1 B=2 ssh -W h:22 j"));
	ck_assert(!proxyjump_via_ssh("nc %h %p"));
	ck_assert(!proxyjump_via_ssh("/usr/bin/sshpass -p x ssh -W h:22 j"));
	ck_assert(!proxyjump_via_ssh("aws ssm start-session --target %h"));
	ck_assert(!proxyjump_via_ssh("sh -c 'ssh -W %h:%p jump'"));
	ck_assert(!proxyjump_via_ssh("exec"));
	ck_assert(!proxyjump_via_ssh("'unbalanced"));
	ck_assert(!proxyjump_via_ssh(""));
	ck_assert(!proxyjump_via_ssh(NULL));
	/* A host's: its ProxyCommand decides when it has one. */
	ck_assert(proxyjump_host_via_ssh(NULL, "bastion"));
	ck_assert(proxyjump_host_via_ssh("ssh -W %h:%p j", NULL));
	ck_assert(!proxyjump_host_via_ssh("nc %h %p", "bastion"));
	ck_assert(!proxyjump_host_via_ssh(NULL, NULL));
}
END_TEST

static Suite *
proxytext_suite(void)
{
	Suite *s = suite_create("proxytext");
	TCase *te = tcase_create("expand");
	TCase *tm = tcase_create("ssm");

	tcase_add_loop_test(te, expand_table, 0,
	    (int)(sizeof(exp_table) / sizeof(exp_table[0])));
	tcase_add_test(te, expand_keyalias);
	tcase_add_test(te, expand_long);
	tcase_add_test(te, conn_hash);
	tcase_add_test(te, tokens_from_cfg);
	suite_add_tcase(s, te);

	tcase_add_test(tm, words_quoting);
	tcase_add_loop_test(tm, ssm_detect, 0,
	    (int)(sizeof(ssm_table) / sizeof(ssm_table[0])));
	tcase_add_test(tm, ssm_null);
	tcase_add_test(tm, jump_parse);
	tcase_add_test(tm, jump_via_ssh);
	suite_add_tcase(s, tm);
	return s;
}

int
main(void)
{
	return check_main(proxytext_suite());
}
