/* SPDX-License-Identifier: ISC
 * Copyright (c) 2026 The fscp authors.  See LICENSE. */
/* Unit tests for args.c: scp 9.2's option grammar.
 *
 * Expected values were taken from /usr/bin/scp (OpenSSH 9.2p1); the
 * "real_scp" test re-checks the error cases against it when it is present. */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <libssh/libssh.h>
#include <openssl/crypto.h>
#include <zlib.h>

#include "../check_main.h"
#include "cli/args.h"
#include "cli/version.h"
#include "policy/route.h"

#define MAXARGS 24

/* Join ssh_args with '|' so a whole vector is one string compare. */
static void
join_args(const struct strv *sv, char *buf, size_t len)
{
	buf[0] = '\0';
	for (size_t i = 0; i < sv->n; i++) {
		if (i > 0)
			strncat(buf, "|", len - strlen(buf) - 1);
		strncat(buf, sv->v[i], len - strlen(buf) - 1);
	}
}

static enum args_status
parse(const char *const *args, struct fscp_opts *o)
{
	static char *argv[MAXARGS + 1];
	int argc = 0;

	while (args[argc] != NULL) {
		ck_assert_int_lt(argc, MAXARGS);
		argv[argc] = (char *)args[argc];
		argc++;
	}
	argv[argc] = NULL;
	return args_parse(argc, argv, o);
}

/* ---- grammar table: status, diag, operands, ssh argument vector ---- */

struct grammar_case {
	const char *argv[MAXARGS];
	enum args_status st;
	const char *diag;
	int nops;		/* checked when st == ARGS_OK */
	const char *op0;	/* first operand, when nops > 0 */
	const char *ssh;	/* ssh_args joined by '|', when st == ARGS_OK */
};

static const struct grammar_case grammar[] = {
	{ { "scp", "a", "b" }, ARGS_OK, "", 2, "a", "" },
	/* no permutation: options after an operand are operands */
	{ { "scp", "a", "b", "-r" }, ARGS_OK, "", 3, "a", "" },
	{ { "scp", "a", "b", "-P" }, ARGS_OK, "", 3, "a", "" },
	{ { "scp", "-r", "a", "-p", "b" }, ARGS_OK, "", 3, "a", "" },
	/* clusters and attached arguments */
	{ { "scp", "-rpq", "a", "b" }, ARGS_OK, "", 2, "a", "-q" },
	{ { "scp", "-P2222", "a", "b" }, ARGS_OK, "", 2, "a", "" },
	{ { "scp", "-P", "2222", "a", "b" }, ARGS_OK, "", 2, "a", "" },
	{ { "scp", "-rP2222", "a", "b" }, ARGS_OK, "", 2, "a", "" },
	{ { "scp", "-rP", "2222", "a", "b" }, ARGS_OK, "", 2, "a", "" },
	{ { "scp", "-oFoo=bar", "a", "b" }, ARGS_OK, "", 2, "a", "-o|Foo=bar" },
	{ { "scp", "-o", "Foo=bar", "a", "b" }, ARGS_OK, "", 2, "a", "-o|Foo=bar" },
	{ { "scp", "-qoX=y", "a", "b" }, ARGS_OK, "", 2, "a", "-q|-o|X=y" },
	/* an option argument may itself look like an option */
	{ { "scp", "-o", "-r", "a", "b" }, ARGS_OK, "", 2, "a", "-o|-r" },
	{ { "scp", "-S", "--", "a", "b" }, ARGS_OK, "", 2, "a", "" },
	/* "--" ends options; "-" alone is an operand */
	{ { "scp", "--", "-r", "b" }, ARGS_OK, "", 2, "-r", "" },
	{ { "scp", "-q", "--", "--", "b" }, ARGS_OK, "", 2, "--", "-q" },
	{ { "scp", "-", "b" }, ARGS_OK, "", 2, "-", "" },
	/* BSD quirk: "-q-" applies -q, then the word itself is an operand */
	{ { "scp", "-q-", "a", "b" }, ARGS_OK, "", 3, "-q-", "-q" },
	/* ssh arguments in command-line order, spelled as scp spells them */
	{ { "scp", "-4", "-B", "-q", "-oFoo=bar", "-c", "aes", "-i", "id",
	    "-F", "cfg", "-J", "jh", "-A", "-C", "-v", "-6", "a", "b" },
	  ARGS_OK, "", 2, "a",
	  "-4|-oBatchmode=yes|-q|-o|Foo=bar|-c|aes|-i|id|-F|cfg|-J|jh|-A|-C|-v|-6" },
	{ { "scp", "-vvq", "a", "b" }, ARGS_OK, "", 2, "a", "-v|-v|-q" },
	/* options that do not reach ssh */
	{ { "scp", "-2", "-3", "-R", "-O", "-s", "-p", "-r", "-T", "-d",
	    "-D", "/x", "-S", "prog", "-l", "10", "-P", "22", "-X", "buffer=1K",
	    "a", "b" }, ARGS_OK, "", 2, "a", "" },
	/* server modes need no operand count */
	{ { "scp", "-t", "x" }, ARGS_OK, "", 1, "x", "" },
	{ { "scp", "-f" }, ARGS_OK, "", 0, NULL, "" },
	{ { "scp", "-dt", "--", "." }, ARGS_OK, "", 1, ".", "" },
	/* operand count */
	{ { "scp" }, ARGS_USAGE, "", 0, NULL, NULL },
	{ { "scp", "a" }, ARGS_USAGE, "", 0, NULL, NULL },
	{ { "scp", "-r", "--", "a" }, ARGS_USAGE, "", 0, NULL, NULL },
	/* getopt diagnostics */
	{ { "scp", "-Z", "a", "b" }, ARGS_USAGE, "unknown option -- Z", 0, NULL, NULL },
	{ { "scp", "-rZ", "a", "b" }, ARGS_USAGE, "unknown option -- Z", 0, NULL, NULL },
	{ { "scp", "-Zr", "a", "b" }, ARGS_USAGE, "unknown option -- Z", 0, NULL, NULL },
	{ { "scp", "-:", "a", "b" }, ARGS_USAGE, "unknown option -- :", 0, NULL, NULL },
	{ { "scp", "--x", "a", "b" }, ARGS_USAGE, "unknown option -- -", 0, NULL, NULL },
	{ { "scp", "-h" }, ARGS_USAGE, "unknown option -- h", 0, NULL, NULL },
	{ { "scp", "-P" }, ARGS_USAGE, "option requires an argument -- P", 0, NULL, NULL },
	{ { "scp", "-r", "-o" }, ARGS_USAGE, "option requires an argument -- o", 0, NULL, NULL },
	{ { "scp", "-rX" }, ARGS_USAGE, "option requires an argument -- X", 0, NULL, NULL },
	{ { "scp", "-M" }, ARGS_USAGE, "option requires an argument -- M", 0, NULL, NULL },
	/* -M takes an argument but scp has no case for it */
	{ { "scp", "-M", "x", "a", "b" }, ARGS_USAGE, "", 0, NULL, NULL },
	/* --version: only as the whole first word; anywhere else scp's
	 * grammar applies (an operand, or the unknown option "-") */
	{ { "scp", "--version" }, ARGS_VERSION, "", 0, NULL, NULL },
	/* ... and alone: words after it are a usage error, not ignored */
	{ { "scp", "--version", "a", "b" }, ARGS_USAGE, "--version takes no arguments", 0,
	    NULL, NULL },
	{ { "scp", "--version", "--version" }, ARGS_USAGE, "--version takes no arguments", 0,
	    NULL, NULL },
	{ { "scp", "--version", "" }, ARGS_USAGE, "--version takes no arguments", 0, NULL,
	    NULL },
	{ { "scp", "--", "--version", "x" }, ARGS_OK, "", 2, "--version", "" },
	{ { "scp", "a", "--version" }, ARGS_OK, "", 2, "a", "" },
	{ { "scp", "-o", "--version", "a", "b" }, ARGS_OK, "", 2, "a", "-o|--version" },
	{ { "scp", "-r", "--version" }, ARGS_USAGE, "unknown option -- -", 0, NULL, NULL },
	{ { "scp", "--versio" }, ARGS_USAGE, "unknown option -- -", 0, NULL, NULL },
	{ { "scp", "--version=1" }, ARGS_USAGE, "unknown option -- -", 0, NULL, NULL },
	{ { "scp", "---version" }, ARGS_USAGE, "unknown option -- -", 0, NULL, NULL },
	{ { "scp", "--VERSION" }, ARGS_USAGE, "unknown option -- -", 0, NULL, NULL },
	/* no -V: it stays scp's unknown option, alone or in a cluster */
	{ { "scp", "-V" }, ARGS_USAGE, "unknown option -- V", 0, NULL, NULL },
	{ { "scp", "-rV", "a", "b" }, ARGS_USAGE, "unknown option -- V", 0, NULL, NULL },
	/* -1 is fatal; errors are reported in command-line order */
	{ { "scp", "-1", "a", "b" }, ARGS_FATAL,
	  "SSH protocol v.1 is no longer supported", 0, NULL, NULL },
	{ { "scp", "-r1", "a", "b" }, ARGS_FATAL,
	  "SSH protocol v.1 is no longer supported", 0, NULL, NULL },
	{ { "scp", "-1", "-Z" }, ARGS_FATAL,
	  "SSH protocol v.1 is no longer supported", 0, NULL, NULL },
	{ { "scp", "-Z", "-1" }, ARGS_USAGE, "unknown option -- Z", 0, NULL, NULL },
	{ { "scp", "a", "-1" }, ARGS_OK, "", 2, "a", "" },
	/* -P */
	{ { "scp", "-P", "0", "a", "b" }, ARGS_FATAL, "bad port \"0\"\n", 0, NULL, NULL },
	{ { "scp", "-P", "65536", "a", "b" }, ARGS_FATAL, "bad port \"65536\"\n", 0, NULL, NULL },
	{ { "scp", "-P", "foo", "a", "b" }, ARGS_FATAL, "bad port \"foo\"\n", 0, NULL, NULL },
	{ { "scp", "-P", "-0", "a", "b" }, ARGS_FATAL, "bad port \"-0\"\n", 0, NULL, NULL },
	{ { "scp", "-P", "22 ", "a", "b" }, ARGS_FATAL, "bad port \"22 \"\n", 0, NULL, NULL },
	{ { "scp", "-P", "", "a", "b" }, ARGS_FATAL, "bad port \"\"\n", 0, NULL, NULL },
	/* -l: any bad value is a plain usage error */
	{ { "scp", "-l", "0", "a", "b" }, ARGS_USAGE, "", 0, NULL, NULL },
	{ { "scp", "-l", "104857601", "a", "b" }, ARGS_USAGE, "", 0, NULL, NULL },
	{ { "scp", "-l", "5x", "a", "b" }, ARGS_USAGE, "", 0, NULL, NULL },
	{ { "scp", "-l", "", "a", "b" }, ARGS_USAGE, "", 0, NULL, NULL },
	{ { "scp", "-l", "-5", "a", "b" }, ARGS_USAGE, "", 0, NULL, NULL },
	/* -X */
	{ { "scp", "-X", "foo", "a", "b" }, ARGS_FATAL, "Invalid -X option", 0, NULL, NULL },
	{ { "scp", "-X", "buffer", "a", "b" }, ARGS_FATAL, "Invalid -X option", 0, NULL, NULL },
	{ { "scp", "-X", "Buffer=1", "a", "b" }, ARGS_FATAL, "Invalid -X option", 0, NULL, NULL },
	{ { "scp", "-X", "buffer=0", "a", "b" }, ARGS_FATAL,
	  "Invalid buffer size \"0\": Invalid argument", 0, NULL, NULL },
	{ { "scp", "-X", "buffer=300K", "a", "b" }, ARGS_FATAL,
	  "Invalid buffer size \"300K\": Invalid argument", 0, NULL, NULL },
	{ { "scp", "-X", "buffer=262145", "a", "b" }, ARGS_FATAL,
	  "Invalid buffer size \"262145\": Invalid argument", 0, NULL, NULL },
	{ { "scp", "-X", "buffer=abc", "a", "b" }, ARGS_FATAL,
	  "Invalid buffer size \"abc\": Invalid argument", 0, NULL, NULL },
	{ { "scp", "-X", "buffer=1x", "a", "b" }, ARGS_FATAL,
	  "Invalid buffer size \"1x\": Invalid argument", 0, NULL, NULL },
	{ { "scp", "-X", "buffer=", "a", "b" }, ARGS_FATAL,
	  "Invalid buffer size \"\": Invalid argument", 0, NULL, NULL },
	{ { "scp", "-X", "buffer=-1", "a", "b" }, ARGS_FATAL,
	  "Invalid buffer size \"-1\": Invalid argument", 0, NULL, NULL },
	{ { "scp", "-X", "buffer=64KB", "a", "b" }, ARGS_FATAL,
	  "Invalid buffer size \"64KB\": Invalid argument", 0, NULL, NULL },
	{ { "scp", "-X", "buffer=0.5", "a", "b" }, ARGS_FATAL,
	  "Invalid buffer size \"0.5\": Invalid argument", 0, NULL, NULL },
	{ { "scp", "-X", "buffer=--1", "a", "b" }, ARGS_FATAL,
	  "Invalid buffer size \"--1\": Invalid argument", 0, NULL, NULL },
	{ { "scp", "-X", "buffer=1.2.3", "a", "b" }, ARGS_FATAL,
	  "Invalid buffer size \"1.2.3\": Invalid argument", 0, NULL, NULL },
	{ { "scp", "-X", "buffer=1M", "a", "b" }, ARGS_FATAL,
	  "Invalid buffer size \"1M\": Invalid argument", 0, NULL, NULL },
	{ { "scp", "-X", "buffer=99999999999999999999", "a", "b" }, ARGS_FATAL,
	  "Invalid buffer size \"99999999999999999999\": Numerical result out of range", 0, NULL, NULL },
	{ { "scp", "-X", "nrequests=0", "a", "b" }, ARGS_FATAL,
	  "Invalid number of requests \"0\": too small", 0, NULL, NULL },
	{ { "scp", "-X", "nrequests=-5", "a", "b" }, ARGS_FATAL,
	  "Invalid number of requests \"-5\": too small", 0, NULL, NULL },
	{ { "scp", "-X", "nrequests=262145", "a", "b" }, ARGS_FATAL,
	  "Invalid number of requests \"262145\": too large", 0, NULL, NULL },
	{ { "scp", "-X", "nrequests=abc", "a", "b" }, ARGS_FATAL,
	  "Invalid number of requests \"abc\": invalid", 0, NULL, NULL },
	{ { "scp", "-X", "nrequests=", "a", "b" }, ARGS_FATAL,
	  "Invalid number of requests \"\": invalid", 0, NULL, NULL },
	{ { "scp", "-X", "nrequests=5 ", "a", "b" }, ARGS_FATAL,
	  "Invalid number of requests \"5 \": invalid", 0, NULL, NULL },
	{ { "scp", "-X", "nrequests=0x10", "a", "b" }, ARGS_FATAL,
	  "Invalid number of requests \"0x10\": invalid", 0, NULL, NULL },
};
#define NGRAMMAR ((int)(sizeof(grammar) / sizeof(grammar[0])))

START_TEST(test_grammar)
{
	const struct grammar_case *c = &grammar[_i];
	struct fscp_opts o;
	char joined[1024];
	enum args_status st = parse(c->argv, &o);

	ck_assert_msg(st == c->st, "case %d (%s %s): status %d, want %d (diag \"%s\")",
	    _i, c->argv[1] ? c->argv[1] : "", c->argv[2] ? c->argv[2] : "",
	    st, c->st, o.diag);
	ck_assert_str_eq(o.diag, c->diag);
	if (c->st == ARGS_OK) {
		ck_assert_int_eq(o.noperands, c->nops);
		if (c->nops > 0)
			ck_assert_str_eq(o.operands[0], c->op0);
		ck_assert_ptr_null(o.operands[o.noperands]);
		join_args(&o.ssh_args, joined, sizeof(joined));
		ck_assert_str_eq(joined, c->ssh);
	}
	args_free(&o);
}
END_TEST

/* ---- numeric option values ---- */

struct value_case {
	const char *opt, *arg;
	long long want;
};

static const struct value_case values[] = {
	{ "-P", "22", 22 }, { "-P", "1", 1 }, { "-P", "65535", 65535 },
	{ "-P", "ssh", 22 }, { "-P", " 22", 22 }, { "-P", "+22", 22 },
	{ "-P", "010", 10 },
	{ "-l", "1", 1024 }, { "-l", "10", 10240 }, { "-l", " 5", 5120 },
	{ "-l", "104857600", 104857600LL * 1024 },
	{ "-X", "buffer=1", 1 }, { "-X", "buffer=64K", 65536 },
	{ "-X", "buffer=64k", 65536 }, { "-X", "buffer=256K", 262144 },
	{ "-X", "buffer=262144", 262144 }, { "-X", "buffer=1.5K", 1536 },
	{ "-X", "buffer=0.5K", 512 }, { "-X", "buffer=1B", 1 },
	{ "-X", "buffer=1.9", 1 }, { "-X", "buffer= 64K", 65536 },
	{ "-X", "buffer=+64K", 65536 }, { "-X", "buffer=1K!", 1024 },
	{ "-X", "buffer=0000000000000000001", 1 },
	{ "-X", "nrequests=1", 1 }, { "-X", "nrequests=64", 64 },
	{ "-X", "nrequests=262144", 262144 }, { "-X", "nrequests= 5", 5 },
	{ "-X", "nrequests=+5", 5 }, { "-X", "nrequests=010", 10 },
};
#define NVALUES ((int)(sizeof(values) / sizeof(values[0])))

START_TEST(test_values)
{
	const struct value_case *c = &values[_i];
	const char *argv[] = { "scp", c->opt, c->arg, "a", "b", NULL };
	struct fscp_opts o;
	long long got;

	ck_assert_msg(parse(argv, &o) == ARGS_OK, "%s %s: %s", c->opt, c->arg, o.diag);
	if (strcmp(c->opt, "-P") == 0)
		got = o.port;
	else if (strcmp(c->opt, "-l") == 0)
		got = o.limit_bps;
	else if (strncmp(c->arg, "buffer=", 7) == 0)
		got = (long long)o.sftp_buflen;
	else
		got = o.sftp_nrequests;
	ck_assert_msg(got == c->want, "%s %s: got %lld, want %lld", c->opt,
	    c->arg, got, c->want);
	args_free(&o);
}
END_TEST

/* ---- flags and defaults ---- */

START_TEST(test_defaults)
{
	const char *argv[] = { "scp", "a", "b", NULL };
	struct fscp_opts o;

	ck_assert_int_eq(parse(argv, &o), ARGS_OK);
	ck_assert_str_eq(o.ssh_program, FSCP_SSH_PROGRAM);
	ck_assert_ptr_null(o.sftp_direct);
	ck_assert_ptr_null(o.ssh_config);
	ck_assert_ptr_null(o.identity);
	ck_assert_ptr_null(o.jump);
	ck_assert_ptr_null(o.cipher);
	ck_assert_int_eq(o.family, 0);
	ck_assert_int_eq(o.port, -1);
	ck_assert(!o.legacy);		/* SFTP is the default */
	ck_assert(o.throughlocal);	/* -3 is the default in 9.x */
	ck_assert(!o.recursive && !o.preserve && !o.quiet && !o.batchmode);
	ck_assert(!o.forward_agent && !o.compress && !o.no_strict_names);
	ck_assert(!o.server_to && !o.server_from && !o.target_dir);
	ck_assert_int_eq(o.verbose, 0);
	ck_assert(o.limit_bps == 0);
	ck_assert_uint_eq(o.sftp_buflen, 0);
	ck_assert_uint_eq(o.sftp_nrequests, 0);
	ck_assert_uint_eq(o.ssh_args.n, 0);
	ck_assert_str_eq(o.diag, "");
	args_free(&o);
}
END_TEST

START_TEST(test_flags)
{
	const char *argv[] = { "scp", "-rpqvvATCB", "-dft", "-4", "-6",
	    "-c", "aes", "-i", "id1", "-i", "id2", "-F", "cfg", "-J", "jh",
	    "-S", "/bin/myssh", "-D", "/usr/lib/sftp-server", "a", "b", NULL };
	struct fscp_opts o;

	ck_assert_int_eq(parse(argv, &o), ARGS_OK);
	ck_assert(o.recursive && o.preserve && o.quiet && o.forward_agent);
	ck_assert(o.no_strict_names && o.compress && o.batchmode);
	ck_assert(o.target_dir && o.server_from && o.server_to);
	ck_assert_int_eq(o.verbose, 2);
	ck_assert_int_eq(o.family, 6);
	ck_assert_str_eq(o.cipher, "aes");
	ck_assert_str_eq(o.identity, "id2");
	ck_assert_str_eq(o.ssh_config, "cfg");
	ck_assert_str_eq(o.jump, "jh");
	ck_assert_str_eq(o.ssh_program, "/bin/myssh");
	ck_assert_str_eq(o.sftp_direct, "/usr/lib/sftp-server");
	ck_assert_int_eq(o.noperands, 2);
	args_free(&o);
}
END_TEST

struct last_wins_case {
	const char *argv[6];
	bool legacy, throughlocal;
};

static const struct last_wins_case last_wins[] = {
	{ { "scp", "-O", "a", "b" }, true, true },
	{ { "scp", "-Os", "a", "b" }, false, true },
	{ { "scp", "-sO", "a", "b" }, true, true },
	{ { "scp", "-R", "a", "b" }, false, false },
	{ { "scp", "-R3", "a", "b" }, false, true },
	{ { "scp", "-3R", "a", "b" }, false, false },
	{ { "scp", "-3", "a", "b" }, false, true },
};

START_TEST(test_last_wins)
{
	const struct last_wins_case *c = &last_wins[_i];
	struct fscp_opts o;

	ck_assert_int_eq(parse(c->argv, &o), ARGS_OK);
	ck_assert_int_eq(o.legacy, c->legacy);
	ck_assert_int_eq(o.throughlocal, c->throughlocal);
	args_free(&o);
}
END_TEST

START_TEST(test_operands_point_into_argv)
{
	char a0[] = "scp", a1[] = "-r", a2[] = "src", a3[] = "dst";
	char *argv[] = { a0, a1, a2, a3, NULL };
	struct fscp_opts o;

	ck_assert_int_eq(args_parse(4, argv, &o), ARGS_OK);
	ck_assert_ptr_eq(o.operands, &argv[2]);
	ck_assert_int_eq(o.noperands, 2);
	args_free(&o);
	args_free(&o);		/* harmless twice */
}
END_TEST

/* ---- usage text ---- */

static const char usage_scp[] =
    "usage: scp [-346ABCOpqRrsTv] [-c cipher] [-D sftp_server_path] [-F ssh_config]\n"
    "           [-i identity_file] [-J destination] [-l limit] [-o ssh_option]\n"
    "           [-P port] [-S program] [-X sftp_option] source ... target\n";

START_TEST(test_usage)
{
	char buf[1024];
	const char *nl;

	ck_assert_str_eq(args_usage("scp", buf, sizeof(buf)), usage_scp);
	ck_assert_str_eq(args_usage(NULL, buf, sizeof(buf)), usage_scp);
	/* another name changes the first line only; the indent is fixed */
	args_usage("fscp", buf, sizeof(buf));
	ck_assert(strncmp(buf, "usage: fscp [-346ABCOpqRrsTv] [-c cipher]", 41) == 0);
	nl = strchr(usage_scp, '\n');
	ck_assert_str_eq(strchr(buf, '\n'), nl);
	/* truncation is safe */
	ck_assert_str_eq(args_usage("scp", buf, 10), "usage: sc");
}
END_TEST

/* The usage text names the program as invoked: linked as scp, scp's. */
START_TEST(test_progname)
{
	char buf[1024];

	ck_assert_str_eq(args_progname("scp"), "scp");
	ck_assert_str_eq(args_progname("/usr/local/bin/scp"), "scp");
	ck_assert_str_eq(args_progname("./fscp"), "fscp");
	ck_assert_str_eq(args_progname("fscp"), "fscp");
	ck_assert_str_eq(args_progname("/opt/x/my-scp"), "my-scp");
	ck_assert_str_eq(args_progname(""), "fscp");
	ck_assert_str_eq(args_progname(NULL), "fscp");
	ck_assert_str_eq(args_progname("dir/"), "fscp");
	ck_assert_str_eq(args_usage(args_progname("/usr/bin/scp"), buf, sizeof(buf)), usage_scp);
	args_usage(args_progname("/usr/local/bin/fscp"), buf, sizeof(buf));
	ck_assert(strncmp(buf, "usage: fscp [-346ABCOpqRrsTv]", 29) == 0);
}
END_TEST

/* ---- --version ---- */

/* What --version prints: fscp's version, then the runtime libraries'. */
START_TEST(test_version_text)
{
	char buf[512], want[512];

	/* libssh's own version only: "0.10.6", not "0.10.6/openssl/zlib",
	 * whose crypto and zlib the next two lines give */
	snprintf(want, sizeof(want), "fscp %s\nlibssh %.*s\n%s\nzlib %s\n", PACKAGE_VERSION,
	    (int)strcspn(ssh_version(0), "/"), ssh_version(0),
	    OpenSSL_version(OPENSSL_VERSION), zlibVersion());
	ck_assert_str_eq(version_text(buf, sizeof(buf)), want);
	ck_assert(strncmp(strchr(buf, '\n') + 1, "libssh 0.", 9) == 0);
	ck_assert_ptr_null(strchr(buf, '/'));
	ck_assert_ptr_nonnull(strstr(buf, "\nOpenSSL "));
	ck_assert_ptr_nonnull(strstr(buf, "\nzlib 1."));
	/* cut short, still a string */
	ck_assert_str_eq(version_text(buf, 6), "fscp ");
}
END_TEST

/* ---- cross-check the error cases against the real scp ---- */

#define REAL_SCP "/usr/bin/scp"

/* Run REAL_SCP with argv, return its exit status and stderr. */
static int
run_real_scp(const char *const *args, char *out, size_t len)
{
	int pfd[2], status;
	size_t used = 0;
	ssize_t n;
	pid_t pid;

	ck_assert_int_eq(pipe(pfd), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		dup2(pfd[1], STDERR_FILENO);
		dup2(pfd[1], STDOUT_FILENO);
		close(pfd[0]);
		close(pfd[1]);
		execv(REAL_SCP, (char *const *)args);
		_exit(127);
	}
	close(pfd[1]);
	while (used + 1 < len && (n = read(pfd[0], out + used, len - used - 1)) > 0)
		used += (size_t)n;
	out[used] = '\0';
	close(pfd[0]);
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* The expectations are OpenSSH 9.2's; other versions word -X etc. differently. */
static bool
real_scp_is_92(void)
{
	char line[128] = "";
	FILE *f;

	if (access(REAL_SCP, X_OK) != 0 || (f = popen("ssh -V 2>&1", "r")) == NULL)
		return false;
	if (fgets(line, sizeof(line), f) == NULL)
		line[0] = '\0';
	pclose(f);
	return strncmp(line, "OpenSSH_9.2", 11) == 0;
}

START_TEST(test_real_scp)
{
	const struct grammar_case *c = &grammar[_i];
	char got[4096], want[4096], usage[1024];
	struct fscp_opts o;
	enum args_status st;
	int rc;

	/* Only cases that make scp stop before touching any file; --version
	 * is fscp's own (test_real_scp_version). */
	if (c->st == ARGS_OK || c->st == ARGS_VERSION || !real_scp_is_92() ||
	    (c->argv[1] != NULL && strcmp(c->argv[1], "--version") == 0))
		return;
	st = parse(c->argv, &o);
	want[0] = '\0';
	if (o.diag[0] != '\0')
		snprintf(want, sizeof(want), "%s: %s\r\n", c->argv[0], o.diag);
	if (st == ARGS_USAGE)
		strncat(want, args_usage("scp", usage, sizeof(usage)),
		    sizeof(want) - strlen(want) - 1);
	args_free(&o);
	rc = run_real_scp(c->argv, got, sizeof(got));
	ck_assert_msg(rc == (int)st, "case %d: real scp exit %d, ours %d", _i, rc, st);
	ck_assert_str_eq(got, want);
}
END_TEST

/* The one command line fscp reads otherwise than scp: for scp 9.2
 * "--version" first is the unknown option "-" and a usage error. */
START_TEST(test_real_scp_version)
{
	static const char *const argv[] = { "scp", "--version", NULL };
	char got[4096], want[4096], usage[1024];

	if (!real_scp_is_92())
		return;
	snprintf(want, sizeof(want), "scp: unknown option -- -\r\n%s",
	    args_usage("scp", usage, sizeof(usage)));
	ck_assert_int_eq(run_real_scp(argv, got, sizeof(got)), 1);
	ck_assert_str_eq(got, want);
}
END_TEST

/* ---- FSCP_* variables ---- */

static const char *const env_vars[] = { "FSCP_ROUTE", "FSCP_CONNECTIONS", "FSCP_SSM_DIRECT",
	"FSCP_SSM_START_CPU", "FSCP_VERBOSE", NULL };

struct env_case {
	const char *var, *value;
	const char *diag;	/* NULL: accepted */
};

static const struct env_case env_cases[] = {
	{ "FSCP_ROUTE", "standard", NULL },
	{ "FSCP_ROUTE", "bypass", NULL },
	{ "FSCP_ROUTE", "auto", NULL },
	{ "FSCP_ROUTE", "never", NULL },
	{ "FSCP_ROUTE", "standrad", "FSCP_ROUTE: \"standrad\" is not one of auto, standard, bypass" },
	{ "FSCP_ROUTE", " standard", "FSCP_ROUTE: \" standard\" is not one of auto, standard, bypass" },
	{ "FSCP_CONNECTIONS", "1", NULL },
	{ "FSCP_CONNECTIONS", "64", NULL },
	{ "FSCP_CONNECTIONS", "abc", "FSCP_CONNECTIONS: \"abc\" is not a number from 1 to 64" },
	{ "FSCP_CONNECTIONS", "0", "FSCP_CONNECTIONS: \"0\" is not a number from 1 to 64" },
	{ "FSCP_CONNECTIONS", "65", "FSCP_CONNECTIONS: \"65\" is not a number from 1 to 64" },
	{ "FSCP_CONNECTIONS", "4x", "FSCP_CONNECTIONS: \"4x\" is not a number from 1 to 64" },
	{ "FSCP_SSM_DIRECT", "off", NULL },
	{ "FSCP_SSM_DIRECT", "10.0.0.5", NULL },
	{ "FSCP_SSM_DIRECT", "fe80::1%eth0", NULL },
	{ "FSCP_SSM_DIRECT", "db-1.example.com", NULL },
	{ "FSCP_SSM_DIRECT", "a b", "FSCP_SSM_DIRECT: \"a b\" is not auto, off, a host name or an address" },
	{ "FSCP_SSM_DIRECT", "-oProxyCommand=x",
	    "FSCP_SSM_DIRECT: \"-oProxyCommand=x\" is not auto, off, a host name or an address" },
	{ "FSCP_SSM_DIRECT", "[::1]", "FSCP_SSM_DIRECT: \"[::1]\" is not auto, off, a host name or an address" },
	{ "FSCP_SSM_START_CPU", "0.3", NULL },
	{ "FSCP_SSM_START_CPU", "60", NULL },
	{ "FSCP_SSM_START_CPU", "61", "FSCP_SSM_START_CPU: \"61\" is not a number of seconds from 0 to 60" },
	{ "FSCP_SSM_START_CPU", "inf", "FSCP_SSM_START_CPU: \"inf\" is not a number of seconds from 0 to 60" },
	{ "FSCP_SSM_START_CPU", "-1", "FSCP_SSM_START_CPU: \"-1\" is not a number of seconds from 0 to 60" },
	{ "FSCP_SSM_START_CPU", "1s", "FSCP_SSM_START_CPU: \"1s\" is not a number of seconds from 0 to 60" },
	{ "FSCP_SSM_START_CPU", ".", "FSCP_SSM_START_CPU: \".\" is not a number of seconds from 0 to 60" },
	{ "FSCP_VERBOSE", "route", NULL },
	{ "FSCP_VERBOSE", "all", "FSCP_VERBOSE: \"all\" is not route" },
};
#define NENV ((int)(sizeof(env_cases) / sizeof(env_cases[0])))

static void
env_clear(void)
{
	for (int i = 0; env_vars[i] != NULL; i++)
		unsetenv(env_vars[i]);
}

START_TEST(test_env_value)
{
	const struct env_case *c = &env_cases[_i];
	struct fscp_opts o;

	memset(&o, 0, sizeof(o));
	env_clear();
	setenv(c->var, c->value, 1);
	if (c->diag == NULL) {
		ck_assert_msg(args_read_env(&o) == 0, "%s=%s refused: %s", c->var, c->value, o.diag);
	} else {
		ck_assert_int_eq(args_read_env(&o), -1);
		ck_assert_str_eq(o.diag, c->diag);
	}
}
END_TEST

/* What the accepted values set; unset and empty are the defaults. */
START_TEST(test_env_fields)
{
	struct fscp_opts o;

	memset(&o, 0, sizeof(o));
	env_clear();
	ck_assert_int_eq(args_read_env(&o), 0);
	ck_assert_int_eq(o.route_force, ROUTE_FORCE_AUTO);
	ck_assert(!o.route_force_set && !o.verbose_route);
	ck_assert_int_eq(o.connections, 0);
	ck_assert_ptr_null(o.ssm_direct);
	for (int i = 0; env_vars[i] != NULL; i++)
		setenv(env_vars[i], "", 1);
	ck_assert_int_eq(args_read_env(&o), 0);
	ck_assert(!o.route_force_set && !o.verbose_route);
	ck_assert_ptr_null(o.ssm_direct);
	setenv("FSCP_ROUTE", "bypass", 1);
	setenv("FSCP_CONNECTIONS", "7", 1);
	setenv("FSCP_SSM_DIRECT", "auto", 1);
	setenv("FSCP_SSM_START_CPU", "1.5", 1);
	setenv("FSCP_VERBOSE", "route", 1);
	ck_assert_int_eq(args_read_env(&o), 0);
	ck_assert_int_eq(o.route_force, ROUTE_FORCE_BYPASS);
	ck_assert(o.route_force_set && o.verbose_route);
	ck_assert_int_eq(o.connections, 7);
	ck_assert_ptr_null(o.ssm_direct);
	ck_assert(o.ssm_start_cpu_s == 1.5);
	setenv("FSCP_ROUTE", "auto", 1);
	setenv("FSCP_SSM_DIRECT", "off", 1);
	ck_assert_int_eq(args_read_env(&o), 0);
	ck_assert_int_eq(o.route_force, ROUTE_FORCE_AUTO);
	ck_assert(o.route_force_set);
	ck_assert_str_eq(o.ssm_direct, "off");
}
END_TEST

static Suite *
args_suite(void)
{
	Suite *s = suite_create("args");
	TCase *tc = tcase_create("grammar");

	tcase_add_loop_test(tc, test_grammar, 0, NGRAMMAR);
	tcase_add_loop_test(tc, test_values, 0, NVALUES);
	tcase_add_test(tc, test_defaults);
	tcase_add_test(tc, test_flags);
	tcase_add_loop_test(tc, test_last_wins, 0,
	    (int)(sizeof(last_wins) / sizeof(last_wins[0])));
	tcase_add_test(tc, test_operands_point_into_argv);
	tcase_add_test(tc, test_usage);
	tcase_add_test(tc, test_progname);
	tcase_add_test(tc, test_version_text);
	suite_add_tcase(s, tc);

	tc = tcase_create("helpers");
	suite_add_tcase(s, tc);

	tc = tcase_create("env");
	tcase_add_loop_test(tc, test_env_value, 0, NENV);
	tcase_add_test(tc, test_env_fields);
	suite_add_tcase(s, tc);

	tc = tcase_create("real_scp");
	tcase_set_timeout(tc, 30);
	tcase_add_loop_test(tc, test_real_scp, 0, NGRAMMAR);
	tcase_add_test(tc, test_real_scp_version);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return check_main(args_suite());
}
