/* Unit tests for route: decisions over realistic ssh -G configurations. */
#include "config.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_main.h"
#include "proxycmd.h"
#include "route.h"
#include "sshcfg.h"

#define KiB 1024LL
#define MiB (1024LL * 1024)
#define GiB (1024LL * 1024 * 1024)

/* ssh -G-like texts (the keys route and proxycmd look at). */
#define BASE "user root\nport 22\nconnecttimeout none\nstricthostkeychecking ask\n"
static const char *cfg_plain = "host web1\nhostname web1.example.org\n" BASE
    "controlmaster false\n";
static const char *cfg_cm_auto = "host db\nhostname db.example.org\n" BASE
    "controlmaster auto\ncontrolpath /root/.ssh/cm-x\ncontrolpersist 10m\n";
static const char *cfg_cm_client = "host db\nhostname db.example.org\n" BASE
    "controlmaster false\ncontrolpath /root/.ssh/cm-y\n";
static const char *cfg_ssm_doc = "host i-0abc\nhostname i-0abc\n" BASE
    "proxycommand sh -c \"aws ssm start-session --target %h --document-name "
    "AWS-StartSSHSession --parameters 'portNumber=%p'\"\n";
static const char *cfg_ssm_bare = "host i-0abc\nhostname i-0abc\n" BASE
    "proxycommand aws ssm start-session --target %h --document-name "
    "AWS-StartSSHSession --parameters portNumber=%p --profile prod --region eu-west-1\n";
static const char *cfg_ssm_env = "host box\nhostname i-0def\n" BASE
    "proxycommand /usr/bin/env AWS_PROFILE=dev bash -c 'aws ssm start-session "
    "--target %h --document-name AWS-StartSSHSession --parameters \"portNumber=%p\"'\n";
static const char *cfg_ssm_cm = "host i-0abc\nhostname i-0abc\n" BASE
    "proxycommand sh -c \"aws ssm start-session --target %h --document-name "
    "AWS-StartSSHSession --parameters 'portNumber=%p'\"\n"
    "controlmaster auto\ncontrolpath /root/.ssh/cm-z\n";
static const char *cfg_jump = "host inner\nhostname 10.0.0.5\n" BASE
    "proxyjump ssm-bastion\n";
static const char *cfg_jump_bastion = "host ssm-bastion\nhostname i-0bas\n" BASE
    "proxycommand sh -c \"aws ssm start-session --target %h --document-name "
    "AWS-StartSSHSession --parameters 'portNumber=%p'\"\n";
static const char *cfg_nc = "host old\nhostname old.example\n" BASE
    "proxycommand nc -X connect -x proxy:3128 %h %p\n";
static const char *cfg_corkscrew = "host old\nhostname old.example\n" BASE
    "proxycommand corkscrew proxy.example 8080 %h %p\n"
    "controlmaster auto\ncontrolpath /tmp/cm-old\n";

enum { NO = 0, YES = 1 };

static const struct row {
	const char *name;
	const char **cfg;	/* NULL: ssh -G failed */
	const char **jump_cfg;	/* first ProxyJump hop's config, or NULL */
	bool master_live;
	bool direct_ok;
	long long bytes;
	int want_conns_in;
	enum route_force force;
	bool special;
	enum route_kind kind;
	int conns;
	const char *reason_has;
} rows[] = {
	{ "plain small", &cfg_plain, NULL, NO, NO, 10 * KiB, 0, ROUTE_FORCE_AUTO, NO,
	  ROUTE_STANDARD, 1, "no ControlMaster or SSM proxy" },
	{ "plain huge", &cfg_plain, NULL, NO, NO, 10 * GiB, 0, ROUTE_FORCE_AUTO, NO,
	  ROUTE_FRESH, 4, "no ControlMaster or SSM proxy; 10.0 GiB to move: 4 fresh connections" },
	{ "plain just below big", &cfg_plain, NULL, NO, NO, 64 * MiB - 1, 0,
	  ROUTE_FORCE_AUTO, NO, ROUTE_STANDARD, 1, "no ControlMaster or SSM proxy" },
	{ "plain big threshold", &cfg_plain, NULL, NO, NO, 64 * MiB, 0,
	  ROUTE_FORCE_AUTO, NO, ROUTE_FRESH, 4, "64.0 MiB to move" },
	{ "plain unknown size", &cfg_plain, NULL, NO, NO, -1, 0, ROUTE_FORCE_AUTO, NO,
	  ROUTE_STANDARD, 1, "size unknown until listed" },
	{ "plain forced bypass", &cfg_plain, NULL, NO, NO, 10 * KiB, 0,
	  ROUTE_FORCE_BYPASS, NO, ROUTE_FRESH, 4, "(forced)" },
	{ "cm live big", &cfg_cm_auto, NULL, YES, NO, 1 * GiB, 0, ROUTE_FORCE_AUTO, NO,
	  ROUTE_FRESH, 4,
	  "ControlMaster socket /root/.ssh/cm-x is live; 1.0 GiB to move; 4 connections" },
	{ "cm live small", &cfg_cm_auto, NULL, YES, NO, 100 * KiB, 0, ROUTE_FORCE_AUTO,
	  NO, ROUTE_STANDARD, 1, "small copy (100.0 KiB) stays on the live master" },
	{ "cm live just below", &cfg_cm_auto, NULL, YES, NO, 8 * MiB - 1, 0,
	  ROUTE_FORCE_AUTO, NO, ROUTE_STANDARD, 1, "stays on the live master" },
	{ "cm live threshold", &cfg_cm_auto, NULL, YES, NO, 8 * MiB, 0,
	  ROUTE_FORCE_AUTO, NO, ROUTE_FRESH, 4, "8.0 MiB to move" },
	{ "cm live unknown size", &cfg_cm_auto, NULL, YES, NO, -1, 0, ROUTE_FORCE_AUTO,
	  NO, ROUTE_STANDARD, 1, "is live; size unknown until listed" },
	{ "cm live small forced", &cfg_cm_auto, NULL, YES, NO, 1 * KiB, 0,
	  ROUTE_FORCE_BYPASS, NO, ROUTE_FRESH, 4, "(forced)" },
	{ "cm live 2 conns wanted", &cfg_cm_auto, NULL, YES, NO, 1 * GiB, 2,
	  ROUTE_FORCE_AUTO, NO, ROUTE_FRESH, 2, "; 2 connections" },
	{ "cm live 1 conn wanted", &cfg_cm_auto, NULL, YES, NO, 1 * GiB, 1,
	  ROUTE_FORCE_AUTO, NO, ROUTE_FRESH, 1, "; 1 connection" },
	{ "cm live 999 wanted", &cfg_cm_auto, NULL, YES, NO, 1 * GiB, 999,
	  ROUTE_FORCE_AUTO, NO, ROUTE_FRESH, ROUTE_MAX_CONNS, "64 connections" },
	{ "cm client-only live", &cfg_cm_client, NULL, YES, NO, 100 * MiB, 0,
	  ROUTE_FORCE_AUTO, NO, ROUTE_FRESH, 4, "/root/.ssh/cm-y is live" },
	{ "cm not live", &cfg_cm_auto, NULL, NO, NO, 1 * GiB, 0, ROUTE_FORCE_AUTO, NO,
	  ROUTE_STANDARD, 1, "ControlPath /root/.ssh/cm-x has no live master" },
	{ "cm live forced standard", &cfg_cm_auto, NULL, YES, NO, 1 * GiB, 0,
	  ROUTE_FORCE_STANDARD, NO, ROUTE_STANDARD, 1, "forced to standard" },
	{ "cm live legacy -O", &cfg_cm_auto, NULL, YES, NO, 1 * GiB, 0,
	  ROUTE_FORCE_AUTO, YES, ROUTE_STANDARD, 1, "-O needs the standard route" },
	{ "ssm doc big no direct", &cfg_ssm_doc, NULL, NO, NO, 649 * MiB, 0,
	  ROUTE_FORCE_AUTO, NO, ROUTE_SSM_PARALLEL, ROUTE_SSM_MAX_SESSIONS,
	  "AWS SSM ProxyCommand, no direct route (no address); 649.0 MiB to move; 16 SSM sessions" },
	{ "ssm doc big direct", &cfg_ssm_doc, NULL, NO, YES, 649 * MiB, 0,
	  ROUTE_FORCE_AUTO, NO, ROUTE_SSM_DIRECT, 4, "presents the instance's host key" },
	{ "ssm direct tiny", &cfg_ssm_doc, NULL, NO, YES, 100, 0, ROUTE_FORCE_AUTO, NO,
	  ROUTE_SSM_DIRECT, 1, "100 B to move; 1 connection" },
	{ "ssm tiny", &cfg_ssm_bare, NULL, NO, NO, 100 * KiB, 0, ROUTE_FORCE_AUTO, NO,
	  ROUTE_STANDARD, 1, "fits one SSM session" },
	{ "ssm 3 MiB", &cfg_ssm_bare, NULL, NO, NO, 3 * MiB, 0, ROUTE_FORCE_AUTO, NO,
	  ROUTE_STANDARD, 1, "fits one SSM session" },
	{ "ssm 4 MiB", &cfg_ssm_bare, NULL, NO, NO, 4 * MiB, 0, ROUTE_FORCE_AUTO, NO,
	  ROUTE_SSM_PARALLEL, 2, "2 SSM sessions" },
	{ "ssm 10 MB", &cfg_ssm_env, NULL, NO, NO, 10000000, 0, ROUTE_FORCE_AUTO, NO,
	  ROUTE_SSM_PARALLEL, 5, "5 SSM sessions" },
	{ "ssm unknown size", &cfg_ssm_env, NULL, NO, NO, -1, 0, ROUTE_FORCE_AUTO, NO,
	  ROUTE_SSM_PARALLEL, ROUTE_SSM_MAX_SESSIONS, "unknown size" },
	{ "ssm tiny forced", &cfg_ssm_env, NULL, NO, NO, 1, 0, ROUTE_FORCE_BYPASS, NO,
	  ROUTE_SSM_PARALLEL, 2, "2 SSM sessions" },
	{ "ssm 16 wanted", &cfg_ssm_doc, NULL, NO, NO, 1 * GiB, 16, ROUTE_FORCE_AUTO, NO,
	  ROUTE_SSM_PARALLEL, 16, "16 SSM sessions" },
	{ "ssm 1 wanted", &cfg_ssm_doc, NULL, NO, NO, 1 * GiB, 1, ROUTE_FORCE_AUTO, NO,
	  ROUTE_STANDARD, 1, "fits one SSM session" },
	{ "ssm forced standard", &cfg_ssm_doc, NULL, NO, YES, 1 * GiB, 0,
	  ROUTE_FORCE_STANDARD, NO, ROUTE_STANDARD, 1, "forced to standard" },
	{ "ssm + live master", &cfg_ssm_cm, NULL, YES, NO, 1 * GiB, 0, ROUTE_FORCE_AUTO,
	  NO, ROUTE_SSM_PARALLEL, ROUTE_SSM_MAX_SESSIONS, "AWS SSM" },
	{ "ssm via jump", &cfg_jump, &cfg_jump_bastion, NO, NO, 1 * GiB, 0,
	  ROUTE_FORCE_AUTO, NO, ROUTE_SSM_PARALLEL, ROUTE_SSM_MAX_SESSIONS,
	  "ProxyJump host uses an AWS SSM ProxyCommand" },
	{ "ssm via jump direct", &cfg_jump, &cfg_jump_bastion, NO, YES, 1 * GiB, 0,
	  ROUTE_FORCE_AUTO, NO, ROUTE_SSM_DIRECT, 4, "ProxyJump host" },
	{ "jump not ssm", &cfg_jump, &cfg_plain, NO, NO, 1 * GiB, 0, ROUTE_FORCE_AUTO,
	  NO, ROUTE_STANDARD, 1, "ProxyJump host is not reached through AWS SSM" },
	{ "nc proxy", &cfg_nc, NULL, NO, NO, 1 * GiB, 0, ROUTE_FORCE_AUTO, NO,
	  ROUTE_STANDARD, 1, "ProxyCommand is not AWS SSM" },
	{ "corkscrew + live master", &cfg_corkscrew, NULL, YES, NO, 1 * GiB, 0,
	  ROUTE_FORCE_AUTO, NO, ROUTE_FRESH, 4, "/tmp/cm-old is live" },
	{ "no config", NULL, NULL, YES, YES, 1 * GiB, 0, ROUTE_FORCE_AUTO, NO,
	  ROUTE_STANDARD, 1, "ssh -G failed" },
};

START_TEST(decide_table)
{
	const struct row *r = &rows[_i];
	struct sshcfg cfg, jcfg;
	struct route_input in = { 0 };
	struct route_decision d;

	if (r->cfg != NULL) {
		ck_assert_int_eq(sshcfg_parse(*r->cfg, &cfg), 0);
		in.cfg = &cfg;
		in.ssm = proxycmd_is_ssm(cfg.proxycommand, NULL);
		if (!in.ssm && r->jump_cfg != NULL) {
			/* What the caller does for ProxyJump: the hop's own config. */
			ck_assert_ptr_nonnull(cfg.proxyjump);
			ck_assert_int_eq(sshcfg_parse(*r->jump_cfg, &jcfg), 0);
			in.ssm = in.ssm_via_jump = proxycmd_is_ssm(jcfg.proxycommand, NULL);
			sshcfg_free(&jcfg);
		}
	}
	in.master_live = r->master_live;
	in.direct_ok = r->direct_ok;
	in.direct_why = r->direct_ok ? NULL : "no address";
	in.bytes = r->bytes;
	in.connections_wanted = r->want_conns_in;
	in.force = r->force;
	in.legacy_or_special = r->special;
	in.special_why = r->special ? "-O" : NULL;

	route_decide(&in, &d);
	ck_assert_msg(d.kind == r->kind, "%s: got %s (%s)", r->name,
	    route_name(d.kind), d.reason);
	ck_assert_msg(d.connections == r->conns, "%s: got %d connections (%s)",
	    r->name, d.connections, d.reason);
	/* Decide again after the listing: only a size we do not know yet. */
	ck_assert_msg(d.grow == (strstr(r->reason_has, "size unknown until listed") != NULL),
	    "%s: grow %d", r->name, d.grow);
	ck_assert_msg(strstr(d.reason, r->reason_has) != NULL,
	    "%s: reason \"%s\" lacks \"%s\"", r->name, d.reason, r->reason_has);
	if (r->cfg != NULL)
		sshcfg_free(&cfg);
}
END_TEST

START_TEST(names)
{
	ck_assert_str_eq(route_name(ROUTE_STANDARD), "standard");
	ck_assert_str_eq(route_name(ROUTE_FRESH), "fresh");
	ck_assert_str_eq(route_name(ROUTE_SSM_DIRECT), "ssm-direct");
	ck_assert_str_eq(route_name(ROUTE_SSM_PARALLEL), "ssm-parallel");
	ck_assert_str_eq(route_name((enum route_kind)42), "?");
}
END_TEST

static const struct {
	const char *s;
	int rc;
	enum route_force f;
} force_rows[] = {
	{ NULL, 0, ROUTE_FORCE_AUTO }, { "", 0, ROUTE_FORCE_AUTO },
	{ "auto", 0, ROUTE_FORCE_AUTO }, { "AUTO", 0, ROUTE_FORCE_AUTO },
	{ "standard", 0, ROUTE_FORCE_STANDARD }, { "never-bypass", 0, ROUTE_FORCE_STANDARD },
	{ "never", 0, ROUTE_FORCE_STANDARD }, { "no", 0, ROUTE_FORCE_STANDARD },
	{ "0", 0, ROUTE_FORCE_STANDARD }, { "off", 0, ROUTE_FORCE_STANDARD },
	{ "bypass", 0, ROUTE_FORCE_BYPASS }, { "always", 0, ROUTE_FORCE_BYPASS },
	{ "1", 0, ROUTE_FORCE_BYPASS }, { "yes", 0, ROUTE_FORCE_BYPASS },
	{ "sometimes", -1, ROUTE_FORCE_AUTO }, { "fresh", -1, ROUTE_FORCE_AUTO },
};

START_TEST(force_parse)
{
	enum route_force f;

	ck_assert_int_eq(route_force_parse(force_rows[_i].s, &f), force_rows[_i].rc);
	ck_assert_int_eq(f, force_rows[_i].f);
}
END_TEST

START_TEST(format_bytes)
{
	char b[32];

	route_format_bytes(-1, b, sizeof(b));
	ck_assert_str_eq(b, "unknown size");
	route_format_bytes(0, b, sizeof(b));
	ck_assert_str_eq(b, "0 B");
	route_format_bytes(1023, b, sizeof(b));
	ck_assert_str_eq(b, "1023 B");
	route_format_bytes(1024, b, sizeof(b));
	ck_assert_str_eq(b, "1.0 KiB");
	route_format_bytes(1536 * KiB, b, sizeof(b));
	ck_assert_str_eq(b, "1.5 MiB");
	route_format_bytes(GiB, b, sizeof(b));
	ck_assert_str_eq(b, "1.0 GiB");
	route_format_bytes(3 * 1024 * GiB, b, sizeof(b));
	ck_assert_str_eq(b, "3.0 TiB");
}
END_TEST

START_TEST(inflight_model)
{
	/* Unknown round trip: the most. */
	ck_assert_uint_eq(route_inflight_bytes(-1, false), ROUTE_INFLIGHT_MAX);
	ck_assert_uint_eq(route_inflight_bytes(0.0 / 0.0, false), ROUTE_INFLIGHT_MAX);
	ck_assert_uint_eq(route_inflight_bytes(-1, true), ROUTE_UPLOAD_INFLIGHT_MAX);
	/* Same host or LAN: the floor, both ways. */
	ck_assert_uint_eq(route_inflight_bytes(0, false), ROUTE_INFLIGHT_MIN);
	ck_assert_uint_eq(route_inflight_bytes(0.2, false), ROUTE_INFLIGHT_MIN);
	ck_assert_uint_eq(route_inflight_bytes(0.2, true), ROUTE_INFLIGHT_MIN);
	/* In between: the bandwidth-delay product. */
	ck_assert_uint_eq(route_inflight_bytes(2.0, false), (uint64_t)(0.002 * ROUTE_INFLIGHT_RATE));
	ck_assert_uint_eq(route_inflight_bytes(2.0, true), (uint64_t)(0.002 * ROUTE_INFLIGHT_RATE));
	ck_assert_uint_eq(route_inflight_bytes(50, false), (uint64_t)(0.050 * ROUTE_INFLIGHT_RATE));
	/* Far: the caps; an upload's is lower. */
	ck_assert_uint_eq(route_inflight_bytes(50, true), ROUTE_UPLOAD_INFLIGHT_MAX);
	ck_assert_uint_eq(route_inflight_bytes(500, false), ROUTE_INFLIGHT_MAX);
	ck_assert_uint_lt(ROUTE_UPLOAD_INFLIGHT_MAX, ROUTE_INFLIGHT_MAX);
	/* Monotone in the round trip, never below the floor. */
	for (int up = 0; up < 2; up++) {
		double last = 0;

		for (double ms = 0; ms < 200; ms += 0.37) {
			double b = (double)route_inflight_bytes(ms, up);

			ck_assert(b >= last);
			ck_assert(b >= (double)ROUTE_INFLIGHT_MIN);
			last = b;
		}
	}
}
END_TEST

START_TEST(channels_model)
{
	/* Unknown or near: one channel (near copies are CPU-bound). */
	ck_assert_int_eq(route_channels(-1, ROUTE_MAX_CHANNELS), 1);
	ck_assert_int_eq(route_channels(0.0 / 0.0, ROUTE_MAX_CHANNELS), 1);
	ck_assert_int_eq(route_channels(0.1, ROUTE_MAX_CHANNELS), 1);
	ck_assert_int_eq(route_channels(10, ROUTE_MAX_CHANNELS), 1);
	/* One per ROUTE_CHANNEL_MS of round trip, up to the cap. */
	ck_assert_int_eq(route_channels(50, ROUTE_MAX_CHANNELS), 4);
	ck_assert_int_eq(route_channels(150, ROUTE_MAX_CHANNELS), ROUTE_MAX_CHANNELS);
	ck_assert_int_eq(route_channels(150, 3), 3);
	ck_assert_int_eq(route_channels(150, 0), 1);
	/* Below sshd's default MaxSessions (10). */
	ck_assert_int_le(ROUTE_MAX_CHANNELS, 10);
	for (double ms = 0, last = 1; ms < 400; ms += 0.7) {
		int n = route_channels(ms, ROUTE_MAX_CHANNELS);

		ck_assert(n >= last);
		last = n;
	}
}
END_TEST

START_TEST(ssm_sessions_model)
{
	long long per = ROUTE_SSM_RATE * ROUTE_SSM_SETUP_MS / 1000;

	ck_assert_int_eq(route_ssm_sessions(0, 8), 1);
	ck_assert_int_eq(route_ssm_sessions(per - 1, 8), 1);
	ck_assert_int_eq(route_ssm_sessions(2 * per - 1, 8), 1);
	ck_assert_int_eq(route_ssm_sessions(2 * per, 8), 2);
	ck_assert_int_eq(route_ssm_sessions(5 * per, 8), 5);
	ck_assert_int_eq(route_ssm_sessions(100 * per, 8), 8);
	ck_assert_int_eq(route_ssm_sessions(-1, 8), 8);
	ck_assert_int_eq(route_ssm_sessions(100 * per, 0), 1);
	/* Monotone in bytes. */
	for (long long b = 0, last = 1; b < 20 * per; b += per / 3) {
		int n = route_ssm_sessions(b, 8);

		ck_assert_int_ge(n, last);
		last = n;
	}
}
END_TEST

START_TEST(special_default_text)
{
	struct route_input in = { 0 };
	struct route_decision d;

	in.legacy_or_special = true;
	route_decide(&in, &d);
	ck_assert_int_eq(d.kind, ROUTE_STANDARD);
	ck_assert_str_eq(d.reason, "this mode needs the standard route");
}
END_TEST

START_TEST(long_controlpath_truncates)
{
	struct sshcfg cfg;
	struct route_input in = { 0 };
	struct route_decision d;
	char *t, path[400];

	memset(path, 'p', sizeof(path) - 1);
	path[0] = '/';
	path[sizeof(path) - 1] = '\0';
	t = xasprintf("hostname h\ncontrolpath %s\n", path);
	ck_assert_int_eq(sshcfg_parse(t, &cfg), 0);
	in.cfg = &cfg;
	in.master_live = true;
	in.bytes = GiB;
	route_decide(&in, &d);
	ck_assert_int_eq(d.kind, ROUTE_FRESH);
	ck_assert_uint_eq(strlen(d.reason), sizeof(d.reason) - 1);
	sshcfg_free(&cfg);
	free(t);
}
END_TEST

static Suite *
route_suite(void)
{
	Suite *s = suite_create("route");
	TCase *tc = tcase_create("decide");

	tcase_add_loop_test(tc, decide_table, 0, (int)(sizeof(rows) / sizeof(rows[0])));
	tcase_add_test(tc, names);
	tcase_add_loop_test(tc, force_parse, 0,
	    (int)(sizeof(force_rows) / sizeof(force_rows[0])));
	tcase_add_test(tc, format_bytes);
	tcase_add_test(tc, ssm_sessions_model);
	tcase_add_test(tc, inflight_model);
	tcase_add_test(tc, channels_model);
	tcase_add_test(tc, special_default_text);
	tcase_add_test(tc, long_controlpath_truncates);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return check_main(route_suite());
}
