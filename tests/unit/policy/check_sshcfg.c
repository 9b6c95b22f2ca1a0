/* SPDX-License-Identifier: ISC
 * Copyright (c) 2026 The fscp authors.  See LICENSE. */
/* Unit tests for sshcfg: parsing ssh -G text, and the real ssh -G. */
#include "config.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../check_main.h"
#include "util/xmalloc.h"
#include "policy/sshcfg.h"
#include "policy/proxyjump.h"
#include "policy/proxytok.h"
#include "policy/ssmcmd.h"
#include "cli/args.h"

/* Trimmed real output of OpenSSH 9.2 `ssh -G` (Debian 12). */
static const char *plain_g =
    "host web1\n"
    "user root\n"
    "hostname web1.example.org\n"
    "port 22\n"
    "addressfamily any\n"
    "batchmode no\n"
    "compression no\n"
    "controlmaster false\n"
    "kbdinteractiveauthentication yes\n"
    "passwordauthentication yes\n"
    "proxyusefdpass no\n"
    "pubkeyauthentication true\n"
    "stricthostkeychecking ask\n"
    "ciphers chacha20-poly1305@openssh.com,aes128-ctr\n"
    "hostkeyalgorithms ssh-ed25519,rsa-sha2-512\n"
    "kexalgorithms curve25519-sha256\n"
    "pubkeyacceptedalgorithms ssh-ed25519,rsa-sha2-256\n"
    "identityfile ~/.ssh/id_rsa\n"
    "identityfile ~/.ssh/id_ecdsa\n"
    "identityfile ~/.ssh/id_ed25519\n"
    "connecttimeout none\n"
    "connectionattempts 1\n"
    "controlpersist no\n"
    "globalknownhostsfile /etc/ssh/ssh_known_hosts /etc/ssh/ssh_known_hosts2\n"
    "userknownhostsfile /root/.ssh/known_hosts /root/.ssh/known_hosts2\n";

START_TEST(parse_plain)
{
	struct sshcfg c;

	ck_assert_int_eq(sshcfg_parse(plain_g, &c), 0);
	ck_assert_str_eq(c.host_arg, "web1");
	ck_assert_str_eq(c.hostname, "web1.example.org");
	ck_assert_str_eq(c.user, "root");
	ck_assert_int_eq(c.port, 22);
	ck_assert_ptr_null(c.proxycommand);
	ck_assert_ptr_null(c.proxyjump);
	ck_assert_ptr_null(c.controlpath);
	ck_assert_str_eq(c.controlmaster, "no");
	ck_assert_str_eq(c.controlpersist, "no");
	ck_assert_ptr_null(c.hostkeyalias);
	ck_assert_ptr_null(c.identityagent);
	ck_assert_uint_eq(c.identityfiles.n, 3);
	ck_assert_str_eq(c.identityfiles.v[0], "~/.ssh/id_rsa");
	ck_assert_str_eq(c.identityfiles.v[2], "~/.ssh/id_ed25519");
	ck_assert_uint_eq(c.userknownhostsfiles.n, 2);
	ck_assert_str_eq(c.userknownhostsfiles.v[1], "/root/.ssh/known_hosts2");
	ck_assert_uint_eq(c.globalknownhostsfiles.n, 2);
	ck_assert_str_eq(c.globalknownhostsfiles.v[0], "/etc/ssh/ssh_known_hosts");
	ck_assert_int_eq(c.stricthostkeychecking, SHK_ASK);
	ck_assert(!c.batchmode);
	ck_assert(!c.compression);
	ck_assert_int_eq(c.connecttimeout, -1);
	ck_assert_int_eq(c.connectionattempts, 1);
	ck_assert_int_eq(c.addressfamily, 0);
	ck_assert(c.pubkeyauthentication);
	ck_assert(c.passwordauthentication);
	ck_assert(c.kbdinteractiveauthentication);
	ck_assert(!c.proxyusefdpass);
	ck_assert_str_eq(c.ciphers, "chacha20-poly1305@openssh.com,aes128-ctr");
	ck_assert_str_eq(c.kexalgorithms, "curve25519-sha256");
	ck_assert(!sshcfg_has_controlpath(&c));
	sshcfg_free(&c);
}
END_TEST

START_TEST(parse_options)
{
	struct sshcfg c;
	const char *t =
	    "host alias1\nhostname real.example\nport 2200\nuser bob\n"
	    "batchmode yes\ncompression yes\nconnecttimeout 7\n"
	    "addressfamily inet6\nstricthostkeychecking true\n"
	    "controlmaster auto\ncontrolpath /tmp/cm-c1c192429f5a0bf0d548607a306c6b1994d37d1d\n"
	    "controlpersist 60\nhostkeyalias hk1\nidentityagent none\n"
	    "identitiesonly yes\nproxyjump bastion\npubkeyauthentication no\n"
	    "passwordauthentication no\nkbdinteractiveauthentication no\n"
	    "userknownhostsfile x y\nidentityfile /tmp/ka\nidentityfile /tmp/kb\n"
	    "proxyusefdpass yes\nconnectionattempts 3\n";

	ck_assert_int_eq(sshcfg_parse(t, &c), 0);
	ck_assert_str_eq(c.hostname, "real.example");
	ck_assert_int_eq(c.port, 2200);
	ck_assert_str_eq(c.user, "bob");
	ck_assert(c.batchmode);
	ck_assert(c.compression);
	ck_assert_int_eq(c.connecttimeout, 7);
	ck_assert_int_eq(c.addressfamily, 6);
	ck_assert_int_eq(c.stricthostkeychecking, SHK_YES);
	ck_assert_str_eq(c.controlmaster, "auto");
	ck_assert_str_eq(c.controlpath, "/tmp/cm-c1c192429f5a0bf0d548607a306c6b1994d37d1d");
	ck_assert(sshcfg_has_controlpath(&c));
	ck_assert_str_eq(c.controlpersist, "60");
	ck_assert_str_eq(c.hostkeyalias, "hk1");
	ck_assert_str_eq(c.identityagent, "none");
	ck_assert(c.identitiesonly);
	ck_assert_str_eq(c.proxyjump, "bastion");
	ck_assert(!c.pubkeyauthentication);
	ck_assert(!c.passwordauthentication);
	ck_assert(!c.kbdinteractiveauthentication);
	ck_assert_uint_eq(c.userknownhostsfiles.n, 2);
	ck_assert_str_eq(c.userknownhostsfiles.v[0], "x");
	ck_assert_str_eq(c.userknownhostsfiles.v[1], "y");
	ck_assert_uint_eq(c.identityfiles.n, 2);
	ck_assert_str_eq(c.identityfiles.v[1], "/tmp/kb");
	ck_assert(c.proxyusefdpass);
	ck_assert_int_eq(c.connectionattempts, 3);
	sshcfg_free(&c);
}
END_TEST

/* Value spellings ssh -G uses, one per table row. */
static const struct {
	const char *line;
	int strict;		/* -1: do not check */
	const char *cm;		/* NULL: do not check */
	int af;			/* -1: do not check */
	int loginfo;		/* -1: do not check */
} spell[] = {
	{ "stricthostkeychecking true", SHK_YES, NULL, -1, -1 },
	{ "stricthostkeychecking false", SHK_NO, NULL, -1, -1 },
	{ "stricthostkeychecking ask", SHK_ASK, NULL, -1, -1 },
	{ "stricthostkeychecking accept-new", SHK_ACCEPT_NEW, NULL, -1, -1 },
	{ "stricthostkeychecking yes", SHK_YES, NULL, -1, -1 },
	{ "stricthostkeychecking off", SHK_NO, NULL, -1, -1 },
	{ "controlmaster true", -1, "yes", -1, -1 },
	{ "controlmaster false", -1, "no", -1, -1 },
	{ "controlmaster auto", -1, "auto", -1, -1 },
	{ "controlmaster ask", -1, "ask", -1, -1 },
	{ "controlmaster autoask", -1, "autoask", -1, -1 },
	{ "addressfamily any", -1, NULL, 0, -1 },
	{ "addressfamily inet", -1, NULL, 4, -1 },
	{ "addressfamily inet6", -1, NULL, 6, -1 },
	/* LogLevel: -q prints as SILENT; ssh shows a banner from INFO up. */
	{ "loglevel SILENT", -1, NULL, -1, 0 },
	{ "loglevel QUIET", -1, NULL, -1, 0 },
	{ "loglevel FATAL", -1, NULL, -1, 0 },
	{ "loglevel ERROR", -1, NULL, -1, 0 },
	{ "loglevel INFO", -1, NULL, -1, 1 },
	{ "loglevel VERBOSE", -1, NULL, -1, 1 },
	{ "loglevel DEBUG1", -1, NULL, -1, 1 },
	{ "loglevel DEBUG3", -1, NULL, -1, 1 },
	{ "user u", -1, NULL, -1, 1 },		/* no loglevel line: INFO */
};

START_TEST(parse_spellings)
{
	struct sshcfg c;
	char *t = xasprintf("hostname h\n%s\n", spell[_i].line);

	ck_assert_int_eq(sshcfg_parse(t, &c), 0);
	if (spell[_i].strict >= 0)
		ck_assert_int_eq(c.stricthostkeychecking, spell[_i].strict);
	if (spell[_i].cm != NULL)
		ck_assert_str_eq(c.controlmaster, spell[_i].cm);
	if (spell[_i].af >= 0)
		ck_assert_int_eq(c.addressfamily, spell[_i].af);
	if (spell[_i].loginfo >= 0)
		ck_assert_int_eq(c.loginfo, spell[_i].loginfo);
	sshcfg_free(&c);
	free(t);
}
END_TEST

START_TEST(parse_none_values)
{
	struct sshcfg c;
	const char *t = "hostname h\nproxycommand none\nproxyjump none\n"
	    "controlpath none\nhostkeyalias none\nlocalcommand none\n"
	    "userknownhostsfile none\n";

	ck_assert_int_eq(sshcfg_parse(t, &c), 0);
	ck_assert_ptr_null(c.proxycommand);
	ck_assert_ptr_null(c.proxyjump);
	ck_assert_ptr_null(c.controlpath);
	ck_assert_ptr_null(c.hostkeyalias);
	ck_assert_ptr_null(c.localcommand);
	ck_assert_uint_eq(c.userknownhostsfiles.n, 0);
	sshcfg_free(&c);
}
END_TEST

START_TEST(parse_proxycommand_verbatim)
{
	struct sshcfg c;
	const char *t = "hostname i-0123456789abcdef0\n"
	    "proxycommand sh -c \"aws ssm start-session --target %h "
	    "--document-name AWS-StartSSHSession --parameters 'portNumber=%p'\"\r\n";

	ck_assert_int_eq(sshcfg_parse(t, &c), 0);
	ck_assert_str_eq(c.proxycommand, "sh -c \"aws ssm start-session --target %h "
	    "--document-name AWS-StartSSHSession --parameters 'portNumber=%p'\"");
	sshcfg_free(&c);
}
END_TEST

START_TEST(parse_defaults_and_garbage)
{
	struct sshcfg c;

	/* Not ssh -G output: -1 but still a valid, freeable struct. */
	ck_assert_int_eq(sshcfg_parse("usage: fake-ssh [-x]\n", &c), -1);
	ck_assert_int_eq(c.port, 22);
	ck_assert_int_eq(c.connecttimeout, -1);
	ck_assert_int_eq(c.stricthostkeychecking, SHK_ASK);
	sshcfg_free(&c);
	ck_assert_int_eq(sshcfg_parse("", &c), -1);
	sshcfg_free(&c);
	/* Last value wins for scalars; no trailing newline. */
	ck_assert_int_eq(sshcfg_parse("hostname a\nhostname b\nport 1\nport 2", &c), 0);
	ck_assert_str_eq(c.hostname, "b");
	ck_assert_int_eq(c.port, 2);
	sshcfg_free(&c);
	/* Key case is tolerated, lines without value ignored. */
	ck_assert_int_eq(sshcfg_parse("HostName X\nbatchmode\nBatchMode yes\n", &c), 0);
	ck_assert_str_eq(c.hostname, "X");
	ck_assert(c.batchmode);
	sshcfg_free(&c);
}
END_TEST

START_TEST(parse_hostkey_options)
{
	struct sshcfg c;

	ck_assert_int_eq(sshcfg_parse("hostname h\ncheckhostip yes\nhashknownhosts yes\n"
	    "nohostauthenticationforlocalhost yes\nverifyhostkeydns ask\n"
	    "knownhostscommand /bin/kh %H\nrevokedhostkeys /etc/ssh/krl\n"
	    "hostkeyalias none\n", &c), 0);
	ck_assert(c.checkhostip && c.hashknownhosts && c.nohostauthenticationforlocalhost);
	ck_assert(c.verifyhostkeydns);
	ck_assert_str_eq(c.knownhostscommand, "/bin/kh %H");
	ck_assert_str_eq(c.revokedhostkeys, "/etc/ssh/krl");
	ck_assert_ptr_null(sshcfg_hostkeyalias(&c));
	sshcfg_free(&c);
	ck_assert_int_eq(sshcfg_parse("hostname h\ncheckhostip no\nverifyhostkeydns false\n"
	    "knownhostscommand none\nrevokedhostkeys none\nhostkeyalias a1\n", &c), 0);
	ck_assert(!c.checkhostip && !c.hashknownhosts && !c.verifyhostkeydns);
	ck_assert_ptr_null(c.knownhostscommand);
	ck_assert_ptr_null(c.revokedhostkeys);
	ck_assert_str_eq(sshcfg_hostkeyalias(&c), "a1");
	sshcfg_free(&c);
}
END_TEST

START_TEST(parse_env_lists)
{
	struct sshcfg c;

	ck_assert_int_eq(sshcfg_parse("hostname h\nsendenv LANG\nsendenv LC_*\n"
	    "setenv A=1\nsetenv B=2 3\n", &c), 0);
	ck_assert_int_eq((int)c.sendenv.n, 2);
	ck_assert_str_eq(c.sendenv.v[0], "LANG");
	ck_assert_str_eq(c.sendenv.v[1], "LC_*");
	ck_assert_int_eq((int)c.setenv.n, 2);
	ck_assert_str_eq(c.setenv.v[0], "A=1");
	ck_assert_str_eq(c.setenv.v[1], "B=2 3");	/* one entry a line, spaces kept */
	sshcfg_free(&c);
	ck_assert_int_eq(sshcfg_parse("hostname h\n", &c), 0);
	ck_assert_int_eq((int)(c.sendenv.n + c.setenv.n), 0);
	sshcfg_free(&c);
}
END_TEST

START_TEST(tilde)
{
	struct sshcfg c;

	ck_assert_int_eq(sshcfg_parse("hostname h\nidentityfile ~/.ssh/id_rsa\n"
	    "identityfile ~other/k\nidentityfile /abs\nuserknownhostsfile ~/.ssh/kh ~\n", &c), 0);
	sshcfg_expand_tilde(&c, "/home/u");
	ck_assert_str_eq(c.identityfiles.v[0], "/home/u/.ssh/id_rsa");
	ck_assert_str_eq(c.identityfiles.v[1], "~other/k");
	ck_assert_str_eq(c.identityfiles.v[2], "/abs");
	ck_assert_str_eq(c.userknownhostsfiles.v[0], "/home/u/.ssh/kh");
	ck_assert_str_eq(c.userknownhostsfiles.v[1], "/home/u");
	sshcfg_expand_tilde(&c, NULL);
	sshcfg_free(&c);
}
END_TEST

/* ---- the real ssh -G ------------------------------------------------------- */

static char tmpdir[64];
static char cfgpath[128];

static void
write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	fclose(f);
}

static void
real_setup(void)
{
	char inc[128], *main_cfg;

	snprintf(tmpdir, sizeof(tmpdir), "/tmp/check_sshcfg.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(tmpdir));
	snprintf(inc, sizeof(inc), "%s/inc.conf", tmpdir);
	snprintf(cfgpath, sizeof(cfgpath), "%s/config", tmpdir);
	write_file(inc,
	    "Host ssm-*\n"
	    "  ProxyCommand sh -c \"aws ssm start-session --target %h "
	    "--document-name AWS-StartSSHSession --parameters 'portNumber=%p'\"\n"
	    "  User ec2-user\n");
	main_cfg = xasprintf(
	    "Include %s\n"
	    "Host alias1\n"
	    "  HostName real.example\n"
	    "  Port 2200\n"
	    "  HostKeyAlias hk1\n"
	    "Match host real.example\n"
	    "  ControlMaster auto\n"
	    "  ControlPath %s/cm-%%C\n"
	    "  ControlPersist 60\n"
	    "Host viajump\n"
	    "  ProxyJump ssm-bastion\n"
	    "Host *\n"
	    "  ConnectTimeout 5\n", inc, tmpdir);
	write_file(cfgpath, main_cfg);
	free(main_cfg);
}

static void
real_teardown(void)
{
	char *cmd = xasprintf("rm -rf '%s'", tmpdir);

	ck_assert_int_eq(system(cmd), 0);
	free(cmd);
}

static void
opts_with_config(struct fscp_opts *o, const char *prog)
{
	memset(o, 0, sizeof(*o));
	o->ssh_program = prog;
	o->port = -1;
	strv_push(&o->ssh_args, "-F");
	strv_push(&o->ssh_args, cfgpath);
}

/* ssh -G runs with scp's fixed options: with stdin no terminal (here
 * /dev/null) and LogLevel INFO it would otherwise say "Pseudo-terminal
 * will not be allocated ...", which a bypass repeats as ssh's warning. */
START_TEST(real_no_tty_warning)
{
	struct fscp_opts o;
	struct sshcfg c;
	char err[256];

	opts_with_config(&o, NULL);
	ck_assert_msg(sshcfg_load(&o, NULL, "alias1", -1, &c, err, sizeof(err)) == 0,
	    "%s", err);
	ck_assert_msg(c.warnings == NULL, "ssh -G said: %s", c.warnings);
	sshcfg_free(&c);
	strv_free(&o.ssh_args);
}
END_TEST

/* SendEnv and SetEnv as the mux session request needs them (sshmux): one
 * entry a line, a SetEnv value's quotes gone and its spaces kept. */
START_TEST(real_env_lists)
{
	struct fscp_opts o;
	struct sshcfg c;
	char err[256];
	bool lc = false, ab = false;

	opts_with_config(&o, NULL);
	strv_push(&o.ssh_args, "-oSendEnv=LC_* FSCP_T?");
	strv_push(&o.ssh_args, "-oSetEnv=A=1 \"B=2 3\"");
	ck_assert_msg(sshcfg_load(&o, NULL, "alias1", -1, &c, err, sizeof(err)) == 0,
	    "%s", err);
	for (size_t i = 0; i < c.sendenv.n; i++)
		lc |= strcmp(c.sendenv.v[i], "LC_*") == 0;
	ck_assert(lc);
	for (size_t i = 0; i + 1 < c.setenv.n; i++)
		ab |= strcmp(c.setenv.v[i], "A=1") == 0 && strcmp(c.setenv.v[i + 1], "B=2 3") == 0;
	ck_assert(ab);
	sshcfg_free(&c);
	strv_free(&o.ssh_args);
}
END_TEST

START_TEST(real_host_match_include)
{
	struct fscp_opts o;
	struct sshcfg c;
	char err[256], hn[256] = "", hash[41], *want;

	opts_with_config(&o, NULL);
	ck_assert_msg(sshcfg_load(&o, NULL, "alias1", -1, &c, err, sizeof(err)) == 0,
	    "%s", err);
	ck_assert_str_eq(c.host_arg, "alias1");
	ck_assert_str_eq(c.hostname, "real.example");
	ck_assert_int_eq(c.port, 2200);
	ck_assert_str_eq(c.hostkeyalias, "hk1");
	ck_assert_str_eq(c.controlmaster, "auto");
	ck_assert_int_eq(c.connecttimeout, 5);
	ck_assert_ptr_null(c.proxycommand);
	/* ControlPath %C is ssh's hash of %l%h%p%r: our own must agree. */
	gethostname(hn, sizeof(hn) - 1);
	proxytok_conn_hash(hn, "real.example", 2200, c.user, hash);
	want = xasprintf("%s/cm-%s", tmpdir, hash);
	ck_assert_str_eq(c.controlpath, want);
	free(want);
	/* "~" in the default identity files is expanded. */
	ck_assert_uint_gt(c.identityfiles.n, 0);
	ck_assert(c.identityfiles.v[0][0] == '/');
	sshcfg_free(&c);
	args_free(&o);
}
END_TEST

START_TEST(real_include_ssm_and_overrides)
{
	struct fscp_opts o;
	struct sshcfg c;
	char err[256];
	struct ssmcmd info;

	opts_with_config(&o, "ssh");
	strv_push(&o.ssh_args, "-oBatchmode=yes");
	strv_push(&o.ssh_args, "-v");	/* debug output on stderr is harmless */
	strv_push(&o.ssh_args, "-4");
	strv_push(&o.ssh_args, "-o");
	strv_push(&o.ssh_args, "UserKnownHostsFile=/k/a /k/b");
	ck_assert_msg(sshcfg_load(&o, "alice", "ssm-i-0abc", 2022, &c, err,
	    sizeof(err)) == 0, "%s", err);
	ck_assert_str_eq(c.hostname, "ssm-i-0abc");
	ck_assert_str_eq(c.user, "alice");	/* -l beats the config's User */
	ck_assert_int_eq(c.port, 2022);
	ck_assert(c.batchmode);
	ck_assert_ptr_null(c.proxyjump);
	ck_assert_int_eq(c.addressfamily, 4);
	ck_assert_uint_eq(c.userknownhostsfiles.n, 2);
	ck_assert_str_eq(c.userknownhostsfiles.v[1], "/k/b");
	ck_assert_ptr_nonnull(c.proxycommand);
	ck_assert(ssmcmd_match(c.proxycommand, &info));
	ck_assert_str_eq(info.target, "%h");
	ck_assert_str_eq(info.port_param, "%p");
	ssmcmd_free(&info);
	sshcfg_free(&c);
	args_free(&o);
}
END_TEST

START_TEST(real_proxyjump_host)
{
	struct fscp_opts o;
	struct sshcfg c, j;
	struct proxyjump_hop *hops;
	char err[256];
	int n;

	opts_with_config(&o, NULL);
	ck_assert_int_eq(sshcfg_load(&o, NULL, "viajump", -1, &c, err, sizeof(err)), 0);
	ck_assert_ptr_null(c.proxycommand);
	ck_assert_str_eq(c.proxyjump, "ssm-bastion");
	ck_assert(!ssmcmd_match(c.proxycommand, NULL));
	/* The caller's recipe: load the first hop's own config. */
	n = proxyjump_parse(c.proxyjump, &hops);
	ck_assert_int_eq(n, 1);
	ck_assert_int_eq(sshcfg_load(&o, hops[0].user, hops[0].host, hops[0].port,
	    &j, err, sizeof(err)), 0);
	ck_assert(ssmcmd_match(j.proxycommand, NULL));
	proxyjump_free(hops, n);
	sshcfg_free(&j);
	sshcfg_free(&c);
	/* scp's -J reaches ssh -G as "-J x". */
	strv_push(&o.ssh_args, "-J");
	strv_push(&o.ssh_args, "bob@jh:2222");
	ck_assert_int_eq(sshcfg_load(&o, NULL, "plainhost", -1, &c, err, sizeof(err)), 0);
	ck_assert_str_eq(c.proxyjump, "bob@jh:2222");
	sshcfg_free(&c);
	args_free(&o);
}
END_TEST

START_TEST(real_errors)
{
	struct fscp_opts o;
	struct sshcfg c;
	char err[256];

	/* ssh's own complaint comes back in err. */
	opts_with_config(&o, NULL);
	strv_push(&o.ssh_args, "-oBogusOption=1");
	ck_assert_int_eq(sshcfg_load(&o, NULL, "h", -1, &c, err, sizeof(err)), -1);
	ck_assert_msg(strstr(err, "ogus") != NULL, "%s", err);
	args_free(&o);

	/* -S naming a program that is not an ssh: exits 0, prints no config. */
	opts_with_config(&o, "true");
	ck_assert_int_eq(sshcfg_load(&o, NULL, "h", -1, &c, err, sizeof(err)), -1);
	ck_assert_msg(strstr(err, "not an OpenSSH") != NULL, "%s", err);
	args_free(&o);

	/* ... or one that fails. */
	opts_with_config(&o, "false");
	ck_assert_int_eq(sshcfg_load(&o, NULL, "h", -1, &c, err, sizeof(err)), -1);
	args_free(&o);

	/* ... or does not exist. */
	opts_with_config(&o, "/nonexistent/ssh");
	ck_assert_int_eq(sshcfg_load(&o, NULL, "h", -1, &c, err, sizeof(err)), -1);
	ck_assert_msg(strstr(err, "No such file") != NULL, "%s", err);
	args_free(&o);
}
END_TEST

START_TEST(real_dash_host)
{
	struct fscp_opts o;
	struct sshcfg c;
	char err[256];

	/* "--" keeps a host that starts with '-' from being an option. */
	opts_with_config(&o, NULL);
	ck_assert_int_eq(sshcfg_load(&o, NULL, "-oProxyCommand=x", -1, &c, err,
	    sizeof(err)), -1);
	args_free(&o);
}
END_TEST

START_TEST(run_capture_basic)
{
	char *out, err[128];
	char *ok[] = { "printf", "a\\nb", NULL };
	char *bad[] = { "sh", "-c", "echo oops >&2; exit 3", NULL };

	ck_assert_int_eq(sshcfg_run_capture(ok, &out, err, sizeof(err)), 0);
	ck_assert_str_eq(out, "a\nb");
	free(out);
	ck_assert_int_eq(sshcfg_run_capture(bad, &out, err, sizeof(err)), -1);
	ck_assert_ptr_null(out);
	ck_assert_str_eq(err, "oops");
}
END_TEST

static Suite *
sshcfg_suite(void)
{
	Suite *s = suite_create("sshcfg");
	TCase *tc = tcase_create("parse");
	TCase *rt = tcase_create("real-ssh");

	tcase_add_test(tc, parse_plain);
	tcase_add_test(tc, parse_options);
	tcase_add_loop_test(tc, parse_spellings, 0,
	    (int)(sizeof(spell) / sizeof(spell[0])));
	tcase_add_test(tc, parse_none_values);
	tcase_add_test(tc, parse_proxycommand_verbatim);
	tcase_add_test(tc, parse_defaults_and_garbage);
	tcase_add_test(tc, parse_hostkey_options);
	tcase_add_test(tc, parse_env_lists);
	tcase_add_test(tc, tilde);
	suite_add_tcase(s, tc);

	tcase_add_checked_fixture(rt, real_setup, real_teardown);
	tcase_set_timeout(rt, 30);
	tcase_add_test(rt, real_host_match_include);
	tcase_add_test(rt, real_no_tty_warning);
	tcase_add_test(rt, real_include_ssm_and_overrides);
	tcase_add_test(rt, real_proxyjump_host);
	tcase_add_test(rt, real_errors);
	tcase_add_test(rt, real_env_lists);
	tcase_add_test(rt, real_dash_host);
	tcase_add_test(rt, run_capture_basic);
	suite_add_tcase(s, rt);
	return s;
}

int
main(void)
{
	return check_main(sshcfg_suite());
}
