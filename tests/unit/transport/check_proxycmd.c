/* SPDX-License-Identifier: ISC
 * Copyright (c) 2026 The fscp authors.  See LICENSE. */
/* Unit tests for proxycmd: token expansion, spawning, SSM and ProxyJump. */
#include "config.h"

#include <check.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../check_main.h"
#include "policy/sshcfg.h"
#include "transport/proxycmd.h"

static const struct proxycmd_tokens tok = {
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
	enum proxycmd_tokset set;
	const char *want;
	const char *err;
} exp_table[] = {
	{ "nc %h %p", PROXYCMD_TOK_PROXY, "nc real.example 2201", NULL },
	{ "%%h is %h", PROXYCMD_TOK_PROXY, "%h is real.example", NULL },
	{ "%r@%n:%k", PROXYCMD_TOK_PROXY, "bob@My.Alias:My.Alias", NULL },
	{ "plain", PROXYCMD_TOK_PROXY, "plain", NULL },
	{ "", PROXYCMD_TOK_PROXY, "", NULL },
	{ "$HOME ${HOME} ~", PROXYCMD_TOK_PROXY, "$HOME ${HOME} ~", NULL },
	{ "100%%", PROXYCMD_TOK_PROXY, "100%", NULL },
	{ "%C", PROXYCMD_TOK_PROXY, NULL, "vdollar_percent_expand: unknown key %C" },
	{ "x %u", PROXYCMD_TOK_PROXY, NULL, "vdollar_percent_expand: unknown key %u" },
	{ "%j", PROXYCMD_TOK_PROXY, NULL, "vdollar_percent_expand: unknown key %j" },
	{ "%x", PROXYCMD_TOK_ALL, NULL, "vdollar_percent_expand: unknown key %x" },
	{ "50%", PROXYCMD_TOK_PROXY, NULL, "vdollar_percent_expand: invalid format" },
	{ "%u@%l/%L %d %i [%j]", PROXYCMD_TOK_ALL,
	    "alice@vm.lan/vm /home/alice 1000 []", NULL },
	{ "cm-%C", PROXYCMD_TOK_ALL, "cm-0123456789abcdef0123456789abcdef01234567", NULL },
	{ "sh -c \"aws ssm start-session --target %h --parameters 'portNumber=%p'\"",
	    PROXYCMD_TOK_PROXY,
	    "sh -c \"aws ssm start-session --target real.example --parameters 'portNumber=2201'\"",
	    NULL },
};

START_TEST(expand_table)
{
	char err[128] = "";
	char *s = proxycmd_expand(exp_table[_i].tmpl, &tok, exp_table[_i].set,
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
	struct proxycmd_tokens t = tok;
	char err[64], *s;

	t.keyalias = "hka";
	s = proxycmd_expand("%k/%n", &t, PROXYCMD_TOK_PROXY, err, sizeof(err));
	ck_assert_str_eq(s, "hka/My.Alias");
	free(s);
	t.jump = "bastion";
	s = proxycmd_expand("%j", &t, PROXYCMD_TOK_ALL, err, sizeof(err));
	ck_assert_str_eq(s, "bastion");
	free(s);
}
END_TEST

START_TEST(expand_long)
{
	char err[64], *s, big[5000];

	memset(big, 'x', sizeof(big) - 3);
	strcpy(big + sizeof(big) - 3, "%h");
	s = proxycmd_expand(big, &tok, PROXYCMD_TOK_PROXY, err, sizeof(err));
	ck_assert_uint_eq(strlen(s), sizeof(big) - 3 + strlen("real.example"));
	free(s);
}
END_TEST

START_TEST(conn_hash)
{
	char h[41];

	/* printf 'vmreal.example2200root' | sha1sum */
	proxycmd_conn_hash("vm", "real.example", 2200, "root", h);
	ck_assert_str_eq(h, "c1c192429f5a0bf0d548607a306c6b1994d37d1d");
}
END_TEST

START_TEST(tokens_from_cfg)
{
	struct sshcfg c;
	struct proxycmd_tokens t;
	struct proxycmd_tokstore st;
	char err[64], *s;

	ck_assert_int_eq(sshcfg_parse("host My.Alias\nhostname real.example\n"
	    "user bob\nport 2201\nhostkeyalias hka\n", &c), 0);
	proxycmd_tokens_from(&t, &st, &c);
	s = proxycmd_expand("%h %n %k %r %p", &t, PROXYCMD_TOK_PROXY, err, sizeof(err));
	ck_assert_str_eq(s, "real.example My.Alias hka bob 2201");
	free(s);
	ck_assert_uint_eq(strlen(t.conn_hash), 40);
	ck_assert_str_eq(t.jump, "");
	ck_assert(strchr(t.short_host, '.') == NULL);
	proxycmd_tokens_free(&st);
	sshcfg_free(&c);
}
END_TEST

START_TEST(shell_choice)
{
	ck_assert_str_eq(proxycmd_shell(NULL), "/bin/sh");
	ck_assert_str_eq(proxycmd_shell(""), "/bin/sh");
	ck_assert_str_eq(proxycmd_shell("/bin/bash"), "/bin/bash");
}
END_TEST

/* ---- spawn ----------------------------------------------------------------- */

static void
read_all(int fd, char *buf, size_t len)
{
	size_t n = 0;
	ssize_t r;

	while (n + 1 < len && (r = read(fd, buf + n, len - 1 - n)) > 0)
		n += (size_t)r;
	buf[n] = '\0';
}

START_TEST(spawn_echo)
{
	char err[128], buf[256];
	pid_t pid;
	int fd, st;

	setenv("SHELL", "/bin/sh", 1);
	/* The proxy talks over its stdin/stdout: an upper-casing cat. */
	fd = proxycmd_spawn("tr a-z A-Z", &pid, err, sizeof(err));
	ck_assert_int_ge(fd, 0);
	ck_assert(fcntl(fd, F_GETFD) & FD_CLOEXEC);
	ck_assert_int_eq(write(fd, "hello proxy\n", 12), 12);
	shutdown(fd, SHUT_WR);
	read_all(fd, buf, sizeof(buf));
	ck_assert_str_eq(buf, "HELLO PROXY\n");
	close(fd);
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	ck_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0);
}
END_TEST

START_TEST(spawn_exec_replaces_shell)
{
	char err[128], buf[64];
	pid_t pid;
	int fd, st;

	/* "exec" is prepended as ssh does: the command keeps the child's pid. */
	unsetenv("SHELL");
	fd = proxycmd_spawn("sh -c 'echo $$'", &pid, err, sizeof(err));
	ck_assert_int_ge(fd, 0);
	shutdown(fd, SHUT_WR);
	read_all(fd, buf, sizeof(buf));
	ck_assert_int_eq(atoi(buf), pid);
	close(fd);
	waitpid(pid, &st, 0);
}
END_TEST

START_TEST(spawn_failing_command)
{
	char err[128], buf[64];
	pid_t pid;
	int fd, st;

	setenv("SHELL", "/bin/sh", 1);
	/* "exec " is prepended, so the command must be a program, as in ssh. */
	fd = proxycmd_spawn("sh -c 'exit 7'", &pid, err, sizeof(err));
	ck_assert_int_ge(fd, 0);
	read_all(fd, buf, sizeof(buf));
	ck_assert_str_eq(buf, "");	/* EOF, like a dead proxy */
	close(fd);
	waitpid(pid, &st, 0);
	ck_assert_int_eq(WEXITSTATUS(st), 7);
}
END_TEST

/* ---- words ----------------------------------------------------------------- */

START_TEST(words_quoting)
{
	char **w = proxycmd_words("a 'b c' \"d \\\"e\\\" $f\" g\\ h i'j'\"k\" x;y&&z|w");

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
	proxycmd_words_free(w);
	ck_assert_ptr_null(proxycmd_words("a 'b"));
	ck_assert_ptr_null(proxycmd_words("a \"b"));
	w = proxycmd_words("   ");
	ck_assert_ptr_null(w[0]);
	proxycmd_words_free(w);
	w = proxycmd_words("''");
	ck_assert_str_eq(w[0], "");
	proxycmd_words_free(w);
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
	struct proxycmd_ssm info;
	bool r = proxycmd_is_ssm(ssm_table[_i].cmd, &info);

	ck_assert_msg(r == ssm_table[_i].ssm, "row %d: %s", _i, ssm_table[_i].cmd);
	check_opt_str(info.target, ssm_table[_i].target);
	check_opt_str(info.profile, ssm_table[_i].profile);
	check_opt_str(info.region, ssm_table[_i].region);
	check_opt_str(info.port_param, ssm_table[_i].port);
	ck_assert(info.plugin == ssm_table[_i].plugin);
	proxycmd_ssm_free(&info);
	/* info is optional */
	ck_assert(proxycmd_is_ssm(ssm_table[_i].cmd, NULL) == ssm_table[_i].ssm);
}
END_TEST

START_TEST(ssm_null)
{
	struct proxycmd_ssm info;

	ck_assert(!proxycmd_is_ssm(NULL, &info));
	ck_assert_ptr_null(info.target);
	proxycmd_ssm_free(NULL);
}
END_TEST

/* ---- ProxyJump ------------------------------------------------------------- */

START_TEST(jump_parse)
{
	struct proxycmd_hop *h;
	int n;

	n = proxycmd_jump_parse("bastion", &h);
	ck_assert_int_eq(n, 1);
	ck_assert_ptr_null(h[0].user);
	ck_assert_str_eq(h[0].host, "bastion");
	ck_assert_int_eq(h[0].port, -1);
	proxycmd_hops_free(h, n);

	n = proxycmd_jump_parse("bob@jump1:2222,ssh://carol@jump2:22,[::1]:99,fe80::1", &h);
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
	proxycmd_hops_free(h, n);

	ck_assert_int_eq(proxycmd_jump_parse("", &h), -1);
	ck_assert_int_eq(proxycmd_jump_parse(NULL, &h), -1);
	ck_assert_int_eq(proxycmd_jump_parse("none", &h), -1);
	ck_assert_int_eq(proxycmd_jump_parse("a,,b", &h), -1);
	ck_assert_int_eq(proxycmd_jump_parse("@host", &h), -1);
	ck_assert_int_eq(proxycmd_jump_parse("host:0", &h), -1);
	ck_assert_int_eq(proxycmd_jump_parse("host:99999", &h), -1);
	ck_assert_int_eq(proxycmd_jump_parse("[::1", &h), -1);
	/* Found by tests/fuzz/fuzz_proxycmd (crashes/proxycmd/bracket-port-0):
	 * a bracketed host took any port, 0 included. */
	ck_assert_int_eq(proxycmd_jump_parse("[::1]:0", &h), -1);
	ck_assert_int_eq(proxycmd_jump_parse("[::1]::1", &h), -1);
	ck_assert_int_eq(proxycmd_jump_parse("a,[::1]:99999", &h), -1);
	ck_assert_int_eq(proxycmd_jump_parse("u@", &h), -1);
	ck_assert_ptr_null(h);
}
END_TEST

/* ---- the relay's pace ------------------------------------------------------ */

/* SSM's trickle: 1 KiB every 1.2 ms.  The first PROXYCMD_STREAK reads
 * pass at once (the first follows no other), then each waits the longest (32 KiB at that rate is 38 ms);
 * the reads behind a wait, bigger and a wait later, keep the streak. */
START_TEST(trickle_ssm)
{
	struct proxycmd_trickle t = { 0 };
	double now = 10.0, w;

	ck_assert_double_eq(proxycmd_trickle_wait(&t, 1024, 100, now), 0);
	for (int i = 1; i < PROXYCMD_STREAK; i++) {
		now += 0.0012;
		ck_assert_double_eq(proxycmd_trickle_wait(&t, 1024, 100, now), 0);
	}
	now += 0.0012;
	ck_assert_double_eq(proxycmd_trickle_wait(&t, 1024, 100, now), PROXYCMD_WAIT_S);
	for (int i = 0; i < 5; i++) {
		now += PROXYCMD_WAIT_S + 0.0005;
		w = proxycmd_trickle_wait(&t, 7 * 1024, 100, now);
		ck_assert_double_eq_tol(w, PROXYCMD_WAIT_S, 1e-9);
	}
}
END_TEST

/* What never waits: a handshake's replies a round trip apart, big reads
 * (a fast proxy), nothing read; and a fast small-read stream waits only
 * what 32 KiB takes at its rate. */
START_TEST(trickle_no_wait)
{
	struct proxycmd_trickle t = { 0 };
	double now = 10.0, w;

	for (int i = 0; i < 10; i++) {
		now += 0.040;
		ck_assert_double_eq(proxycmd_trickle_wait(&t, 700, 0, now), 0);
	}
	for (int i = 0; i < 10; i++) {
		now += 0.0001;
		ck_assert_double_eq(proxycmd_trickle_wait(&t, 65536, 0, now), 0);
	}
	ck_assert_double_eq(proxycmd_trickle_wait(&t, 0, 0, now), 0);
	/* 4 KiB every 0.1 ms, 40 MB/s: 32 KiB take 0.8 ms. */
	memset(&t, 0, sizeof(t));
	for (int i = 0; i <= PROXYCMD_STREAK; i++) {
		now += 0.0001;
		w = proxycmd_trickle_wait(&t, 4096, 0, now);
	}
	ck_assert_double_eq_tol(w, 0.0008, 1e-6);
	/* A pause ends the streak: the next small read passes at once. */
	now += w + PROXYCMD_WAIT_S + 0.001;
	ck_assert_double_eq(proxycmd_trickle_wait(&t, 4096, 0, now), 0);
	/* An upload: small replies 1 ms apart while libssh sends 64 KiB
	 * between them; the replies never wait. */
	memset(&t, 0, sizeof(t));
	for (int i = 0; i < 3 * PROXYCMD_STREAK; i++) {
		now += 0.001;
		ck_assert_double_eq(proxycmd_trickle_wait(&t, 90, 65536, now), 0);
	}
}
END_TEST

static Suite *
proxycmd_suite(void)
{
	Suite *s = suite_create("proxycmd");
	TCase *te = tcase_create("expand");
	TCase *ts = tcase_create("spawn");
	TCase *tm = tcase_create("ssm");

	tcase_add_loop_test(te, expand_table, 0,
	    (int)(sizeof(exp_table) / sizeof(exp_table[0])));
	tcase_add_test(te, expand_keyalias);
	tcase_add_test(te, expand_long);
	tcase_add_test(te, conn_hash);
	tcase_add_test(te, tokens_from_cfg);
	tcase_add_test(te, shell_choice);
	suite_add_tcase(s, te);

	tcase_add_test(ts, spawn_echo);
	tcase_add_test(ts, spawn_exec_replaces_shell);
	tcase_add_test(ts, spawn_failing_command);
	tcase_add_test(ts, trickle_ssm);
	tcase_add_test(ts, trickle_no_wait);
	suite_add_tcase(s, ts);

	tcase_add_test(tm, words_quoting);
	tcase_add_loop_test(tm, ssm_detect, 0,
	    (int)(sizeof(ssm_table) / sizeof(ssm_table[0])));
	tcase_add_test(tm, ssm_null);
	tcase_add_test(tm, jump_parse);
	suite_add_tcase(s, tm);
	return s;
}

int
main(void)
{
	return check_main(proxycmd_suite());
}
