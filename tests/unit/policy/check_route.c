/* SPDX-License-Identifier: ISC
 * Copyright (c) 2026 The fscp authors.  See LICENSE. */
/* Unit tests for route: decisions over realistic ssh -G configurations. */
#include "config.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../check_main.h"
#include "util/xmalloc.h"
#include "policy/route.h"
#include "policy/sshcfg.h"
#include "route_cfgs.h"
#include "policy/ssmcmd.h"

#define KiB 1024LL
#define MiB (1024LL * 1024)
#define GiB (1024LL * 1024 * 1024)

/* ssh -G-like texts (the keys route and proxycmd look at). */
static const char *cfg_plain = CFG_PLAIN;
static const char *cfg_cm_auto = CFG_CM_AUTO;
static const char *cfg_cm_client = "host db\nhostname db.example.org\n" BASE
    "controlmaster false\ncontrolpath /root/.ssh/cm-y\n";
static const char *cfg_ssm_doc = CFG_SSM_DOC;
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
static const char *cfg_jump = CFG_JUMP;
static const char *cfg_jump_bastion = "host ssm-bastion\nhostname i-0bas\n" BASE
    "proxycommand sh -c \"aws ssm start-session --target %h --document-name "
    "AWS-StartSSHSession --parameters 'portNumber=%p'\"\n";
static const char *cfg_nc = CFG_NC;
static const char *cfg_corkscrew = CFG_CORKSCREW;
static const char *cfg_ssh_w = CFG_SSH_W;

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
	  ROUTE_FORCE_AUTO, NO, ROUTE_STANDARD, 1,
	  "no ControlMaster or SSM proxy; 64.0 MiB to move, decided again once the target is "
	  "looked at" },
	{ "plain mid, 2 wanted", &cfg_plain, NULL, NO, NO, 16 * MiB, 2, ROUTE_FORCE_AUTO, NO,
	  ROUTE_STANDARD, 1, "no ControlMaster or SSM proxy; 16.0 MiB to move" },
	{ "plain big threshold", &cfg_plain, NULL, NO, NO, 64 * MiB, 0,
	  ROUTE_FORCE_AUTO, NO, ROUTE_FRESH, 4, "64.0 MiB to move" },
	{ "plain unknown size", &cfg_plain, NULL, NO, NO, -1, 0, ROUTE_FORCE_AUTO, NO,
	  ROUTE_STANDARD, 1, "size unknown until listed" },
	{ "plain forced bypass", &cfg_plain, NULL, NO, NO, 10 * KiB, 0,
	  ROUTE_FORCE_BYPASS, NO, ROUTE_FRESH, 4, "(forced)" },
	{ "cm live big", &cfg_cm_auto, NULL, YES, NO, 1 * GiB, 0, ROUTE_FORCE_AUTO, NO,
	  ROUTE_STANDARD, 1,
	  "ControlMaster socket /root/.ssh/cm-x is live; 1.0 GiB to move: the copy starts "
	  "on the master until the round trip is known" },
	{ "cm live mid", &cfg_cm_auto, NULL, YES, NO, 64 * MiB - 1, 0, ROUTE_FORCE_AUTO, NO,
	  ROUTE_STANDARD, 1, "the copy starts on the master until the round trip is known" },
	{ "cm live small", &cfg_cm_auto, NULL, YES, NO, 100 * KiB, 0, ROUTE_FORCE_AUTO,
	  NO, ROUTE_STANDARD, 1, "small copy (100.0 KiB) stays on the live master" },
	{ "cm live just below", &cfg_cm_auto, NULL, YES, NO, 8 * MiB - 1, 0,
	  ROUTE_FORCE_AUTO, NO, ROUTE_STANDARD, 1, "stays on the live master" },
	{ "cm live threshold", &cfg_cm_auto, NULL, YES, NO, 8 * MiB, 0,
	  ROUTE_FORCE_AUTO, NO, ROUTE_STANDARD, 1, "8.0 MiB to move: the copy starts on the "
	  "master until the round trip is known" },
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
	  ROUTE_FORCE_AUTO, NO, ROUTE_STANDARD, 1, "/root/.ssh/cm-y is live; 100.0 MiB to "
	  "move: the copy starts on the master until the round trip is known" },
	{ "cm not live", &cfg_cm_auto, NULL, NO, NO, 1 * GiB, 0, ROUTE_FORCE_AUTO, NO,
	  ROUTE_STANDARD, 1, "ControlPath /root/.ssh/cm-x has no live master" },
	{ "cm live forced standard", &cfg_cm_auto, NULL, YES, NO, 1 * GiB, 0,
	  ROUTE_FORCE_STANDARD, NO, ROUTE_STANDARD, 1, "forced to standard" },
	{ "cm live legacy -O", &cfg_cm_auto, NULL, YES, NO, 1 * GiB, 0,
	  ROUTE_FORCE_AUTO, YES, ROUTE_STANDARD, 1, "-O needs the standard route" },
	{ "ssm doc big no direct", &cfg_ssm_doc, NULL, NO, NO, 649 * MiB, 0,
	  ROUTE_FORCE_AUTO, NO, ROUTE_SSM_PARALLEL, ROUTE_SSM_MAX_SESSIONS,
	  "AWS SSM ProxyCommand, no direct route (no address); 649.0 MiB to move; 32 SSM sessions" },
	{ "ssm doc big direct", &cfg_ssm_doc, NULL, NO, YES, 649 * MiB, 0,
	  ROUTE_FORCE_AUTO, NO, ROUTE_SSM_DIRECT, 4, "presents the instance's host key" },
	{ "ssm direct tiny", &cfg_ssm_doc, NULL, NO, YES, 100, 0, ROUTE_FORCE_AUTO, NO,
	  ROUTE_SSM_DIRECT, 1, "100 B to move; 1 connection" },
	{ "ssm tiny", &cfg_ssm_bare, NULL, NO, NO, 100 * KiB, 0, ROUTE_FORCE_AUTO, NO,
	  ROUTE_STANDARD, 1, "fits one SSM session" },
	{ "ssm 500 KiB", &cfg_ssm_bare, NULL, NO, NO, 500 * KiB, 0, ROUTE_FORCE_AUTO, NO,
	  ROUTE_STANDARD, 1, "fits one SSM session" },
	/* One core (the table's): one CLI start at a time, 0.6 s apart. */
	{ "ssm 3 MiB", &cfg_ssm_bare, NULL, NO, NO, 3 * MiB, 0, ROUTE_FORCE_AUTO, NO,
	  ROUTE_SSM_PARALLEL, 3, "3 SSM sessions" },
	{ "ssm 4 MiB", &cfg_ssm_bare, NULL, NO, NO, 4 * MiB, 0, ROUTE_FORCE_AUTO, NO,
	  ROUTE_SSM_PARALLEL, 4, "4 SSM sessions" },
	{ "ssm 10 MB", &cfg_ssm_env, NULL, NO, NO, 10000000, 0, ROUTE_FORCE_AUTO, NO,
	  ROUTE_SSM_PARALLEL, 6, "6 SSM sessions" },
	{ "ssm unknown size", &cfg_ssm_env, NULL, NO, NO, -1, 0, ROUTE_FORCE_AUTO, NO,
	  ROUTE_SSM_PARALLEL, 16, "unknown size" },
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
	  NO, ROUTE_PROXIED, 1, "ProxyJump host is not reached through AWS SSM; 1.0 GiB "
	  "to move: 1 connection through the same proxy" },
	{ "jump not ssm small", &cfg_jump, &cfg_plain, NO, NO, 1 * MiB, 0,
	  ROUTE_FORCE_AUTO, NO, ROUTE_STANDARD, 1, "ProxyJump host is not reached through "
	  "AWS SSM and no ControlMaster is live; 1.0 MiB to move" },
	{ "nc proxy", &cfg_nc, NULL, NO, NO, 1 * GiB, 0, ROUTE_FORCE_AUTO, NO,
	  ROUTE_PROXIED, 1, "ProxyCommand is not AWS SSM; 1.0 GiB to move: 1 connection "
	  "through the same proxy" },
	{ "nc proxy threshold", &cfg_nc, NULL, NO, NO, 8 * MiB, 0, ROUTE_FORCE_AUTO, NO,
	  ROUTE_PROXIED, 1, "8.0 MiB to move" },
	{ "nc proxy just below", &cfg_nc, NULL, NO, NO, 8 * MiB - 1, 0, ROUTE_FORCE_AUTO,
	  NO, ROUTE_STANDARD, 1, "ProxyCommand is not AWS SSM and no ControlMaster is live" },
	{ "nc proxy unknown size", &cfg_nc, NULL, NO, NO, -1, 0, ROUTE_FORCE_AUTO, NO,
	  ROUTE_STANDARD, 1, "ProxyCommand is not AWS SSM and no ControlMaster is live; "
	  "size unknown until listed" },
	{ "nc proxy forced", &cfg_nc, NULL, NO, NO, 1, 0, ROUTE_FORCE_BYPASS, NO,
	  ROUTE_PROXIED, 1, "(forced)" },
	{ "nc proxy 3 wanted", &cfg_nc, NULL, NO, NO, 1 * GiB, 3, ROUTE_FORCE_AUTO, NO,
	  ROUTE_PROXIED, 3, "3 connections through the same proxy" },
	{ "corkscrew + live master", &cfg_corkscrew, NULL, YES, NO, 1 * GiB, 0,
	  ROUTE_FORCE_AUTO, NO, ROUTE_STANDARD, 1, "/tmp/cm-old is live; 1.0 GiB to move: "
	  "the copy starts on the master until the round trip is known" },
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
		in.ssm = ssmcmd_match(cfg.proxycommand, NULL);
		if (!in.ssm && r->jump_cfg != NULL) {
			/* What the caller does for ProxyJump: the hop's own config. */
			ck_assert_ptr_nonnull(cfg.proxyjump);
			ck_assert_int_eq(sshcfg_parse(*r->jump_cfg, &jcfg), 0);
			in.ssm = in.ssm_via_jump = ssmcmd_match(jcfg.proxycommand, NULL);
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
	/* Decide again after the listing: only a size we do not know yet, or a
	 * round trip (an upload under what fresh connections pay for). */
	ck_assert_msg(d.grow == (strstr(r->reason_has, "size unknown until listed") != NULL ||
	    strstr(r->reason_has, "until the round trip is known") != NULL ||
	    strstr(r->reason_has, "decided again once the target is looked at") != NULL),
	    "%s: grow %d", r->name, d.grow);
	ck_assert_msg(strstr(d.reason, r->reason_has) != NULL,
	    "%s: reason \"%s\" lacks \"%s\"", r->name, d.reason, r->reason_has);
	if (r->cfg != NULL)
		sshcfg_free(&cfg);
}
END_TEST

/* After the listing the round trip is known: near, new connections pay
 * only for big copies; far, they join a running copy and pay sooner. */
START_TEST(decide_after_listing)
{
	static const struct {
		const char **cfg;
		bool master_live;
		long long bytes;
		double rtt;
		enum route_kind kind;
	} t[] = {
		{ &cfg_plain, NO, 16 * MiB, 0.1, ROUTE_STANDARD },
		{ &cfg_plain, NO, 16 * MiB, 50, ROUTE_FRESH },
		{ &cfg_plain, NO, 8 * MiB - 1, 50, ROUTE_STANDARD },
		{ &cfg_plain, NO, 64 * MiB, 0.1, ROUTE_FRESH },
		{ &cfg_cm_auto, YES, 16 * MiB, 0.1, ROUTE_STANDARD },
		{ &cfg_cm_auto, YES, 64 * MiB - 1, 1.5, ROUTE_STANDARD },
		{ &cfg_cm_auto, YES, 64 * MiB, 0.1, ROUTE_STANDARD },
		{ &cfg_cm_auto, YES, 256 * MiB - 1, 0.1, ROUTE_STANDARD },
		/* a near master: the copy stays on it, however big (a fresh
		 * connection's sshd, key exchange and second encryption
		 * stream made a slower machine 0.87-0.91x scp) */
		{ &cfg_cm_auto, YES, 256 * MiB, 0.1, ROUTE_STANDARD },
		{ &cfg_cm_auto, YES, 4096 * MiB, 1.9, ROUTE_STANDARD },
		/* a slow or busy machine measures more through the ssh
		 * processes: still within what the master's window covers */
		{ &cfg_cm_auto, YES, 256 * MiB, 5.0, ROUTE_STANDARD },
		{ &cfg_cm_auto, YES, 256 * MiB, 8.0, ROUTE_STANDARD },
		{ &cfg_cm_auto, YES, 256 * MiB, 10.0, ROUTE_FRESH },
		{ &cfg_cm_auto, YES, 16 * MiB, 50, ROUTE_FRESH },
		/* a near proxy: a second connection through it does not
		 * pay (the listing ssh carries the copy) */
		{ &cfg_nc, NO, 16 * MiB, 0.1, ROUTE_STANDARD },
		{ &cfg_nc, NO, 1024 * MiB, 0.1, ROUTE_STANDARD },
		{ &cfg_nc, NO, 64 * MiB, 2.5, ROUTE_PROXIED },
		{ &cfg_nc, NO, 8 * MiB, 50, ROUTE_PROXIED },
		/* a proxy that is ssh itself (a jump host), not far: the
		 * copy leaves the listing ssh for the connection beside it,
		 * once it pays for that connection's proxy */
		{ &cfg_jump, NO, 1024 * MiB, 0.1, ROUTE_PROXIED },
		{ &cfg_jump, NO, 8 * MiB, 1.9, ROUTE_PROXIED },
		{ &cfg_jump, NO, 8 * MiB - 1, 0.1, ROUTE_STANDARD },
		{ &cfg_ssh_w, NO, 64 * MiB, 0.1, ROUTE_PROXIED },
		{ &cfg_ssh_w, NO, 64 * MiB, 10, ROUTE_PROXIED },
		{ &cfg_jump, NO, 64 * MiB, 30, ROUTE_PROXIED },
		/* far: it joins the copy on ssh */
		{ &cfg_jump, NO, 64 * MiB, 35, ROUTE_PROXIED },
		{ &cfg_jump, NO, 8 * MiB, 50, ROUTE_PROXIED },
	};

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct sshcfg cfg;
		struct route_input in = { 0 };
		struct route_decision d;

		ck_assert_int_eq(sshcfg_parse(*t[i].cfg, &cfg), 0);
		in.cfg = &cfg;
		in.master_live = t[i].master_live;
		in.bytes = t[i].bytes;
		in.rtt_ms = t[i].rtt;
		route_decide(&in, &d);
		ck_assert_msg(d.kind == t[i].kind, "row %zu: got %s (%s)", i,
		    route_name(d.kind), d.reason);
		ck_assert(!d.grow);
		/* Only one through ssh, where ssh's window would allow
		 * ROUTE_WINDOW_SURE_RATE, leaves the listing ssh. */
		ck_assert_msg(d.rest_listing == (t[i].kind == ROUTE_PROXIED &&
		    t[i].rtt < ROUTE_SSH_WINDOW / ROUTE_WINDOW_SURE_RATE * 1000 &&
		    (t[i].cfg == &cfg_jump || t[i].cfg == &cfg_ssh_w)), "row %zu: rest %d (%s)",
		    i, d.rest_listing, d.reason);
		ck_assert_msg(!d.rest_listing || (d.window_Bps == 0 && d.connections == 1 &&
		    strstr(d.reason, "through ssh: the copy") != NULL), "row %zu: %s", i,
		    d.reason);
		sshcfg_free(&cfg);
	}
}
END_TEST

/* A jump host whose listing a connection of fscp's own made (no ssh ran):
 * near, that one carries the copy; far, it is one of the connections, and
 * there is no listing ssh to leave. */
START_TEST(decide_jump_listed_by_bypass)
{
	static const struct {
		double rtt;
		enum route_kind kind;
		const char *why;
	} t[] = {
		{ 0.1, ROUTE_STANDARD, "the server answers within" },
		{ 20, ROUTE_PROXIED, "1 connection through the same proxy" },
		{ 50, ROUTE_PROXIED, "1 connection through the same proxy" },
	};

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct sshcfg cfg;
		struct route_input in = { 0 };
		struct route_decision d;

		ck_assert_int_eq(sshcfg_parse(cfg_jump, &cfg), 0);
		in.cfg = &cfg;
		in.bytes = 64 * MiB;
		in.rtt_ms = t[i].rtt;
		in.listed_bypass = true;
		route_decide(&in, &d);
		ck_assert_msg(d.kind == t[i].kind, "row %zu: got %s (%s)", i,
		    route_name(d.kind), d.reason);
		ck_assert_msg(!d.rest_listing && d.connections == 1 &&
		    strstr(d.reason, t[i].why) != NULL, "row %zu: %s", i, d.reason);
		sshcfg_free(&cfg);
	}
}
END_TEST

START_TEST(names)
{
	ck_assert_str_eq(route_name(ROUTE_STANDARD), "standard");
	ck_assert_str_eq(route_name(ROUTE_FRESH), "fresh");
	ck_assert_str_eq(route_name(ROUTE_SSM_DIRECT), "ssm-direct");
	ck_assert_str_eq(route_name(ROUTE_SSM_PARALLEL), "ssm-parallel");
	ck_assert_str_eq(route_name(ROUTE_PROXIED), "proxied");
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
	ck_assert_int_eq(route_channels(-1, ROUTE_FRESH_CONNS, ROUTE_MAX_CHANNELS), 1);
	ck_assert_int_eq(route_channels(0.0 / 0.0, ROUTE_FRESH_CONNS, ROUTE_MAX_CHANNELS), 1);
	ck_assert_int_eq(route_channels(0.1, ROUTE_FRESH_CONNS, ROUTE_MAX_CHANNELS), 1);
	ck_assert_int_eq(route_channels(10, ROUTE_FRESH_CONNS, ROUTE_MAX_CHANNELS), 1);
	/* One per ROUTE_CHANNEL_MS of round trip, up to the cap. */
	ck_assert_int_eq(route_channels(50, ROUTE_FRESH_CONNS, ROUTE_MAX_CHANNELS), 4);
	ck_assert_int_eq(route_channels(150, ROUTE_FRESH_CONNS, ROUTE_MAX_CHANNELS), ROUTE_MAX_CHANNELS);
	ck_assert_int_eq(route_channels(150, ROUTE_FRESH_CONNS, 3), 3);
	ck_assert_int_eq(route_channels(150, ROUTE_FRESH_CONNS, 0), 1);
	/* A lone connection (through a bastion) gets the channels of four. */
	ck_assert_int_eq(route_channels(25, 1, ROUTE_MAX_CHANNELS), 8);
	ck_assert_int_eq(route_channels(50, 1, ROUTE_MAX_CHANNELS), ROUTE_MAX_CHANNELS);
	ck_assert_int_eq(route_channels(50, 8, ROUTE_MAX_CHANNELS), 2);
	ck_assert_int_eq(route_channels(50, 0, ROUTE_MAX_CHANNELS), ROUTE_MAX_CHANNELS);
	/* Below sshd's default MaxSessions (10). */
	ck_assert_int_le(ROUTE_MAX_CHANNELS, 10);
	for (double ms = 0, last = 1; ms < 400; ms += 0.7) {
		int n = route_channels(ms, ROUTE_FRESH_CONNS, ROUTE_MAX_CHANNELS);

		ck_assert(n >= last);
		last = n;
	}
}
END_TEST

START_TEST(ssm_sessions_model)
{
	/* The machine: 2 cores, 0.6 s of CPU and 1.4 s of wall time per
	 * start; scp takes one session: 2 s + bytes / rate. */
	const struct route_ssm_cost two = { .cores = 2, .start_cpu_s = 0.6, .setup_s = 1.4 };
	const struct route_ssm_cost one = { .cores = 1, .start_cpu_s = 0.6, .setup_s = 1.4 };
	const struct route_ssm_cost dear = { .cores = 2, .start_cpu_s = 3.0, .setup_s = 1.4 };
	double t, scp;

	ck_assert_int_eq(route_ssm_sessions(0, &two, 32, NULL), 1);
	ck_assert_int_eq(route_ssm_sessions(100 * KiB, &two, 32, &t), 1);
	ck_assert(t > 2.0 && t < 2.2);
	/* 20 MiB: 12 sessions, ~4.8x scp's time; 100 MiB: 28, ~12x. */
	ck_assert_int_eq(route_ssm_sessions(20 * MiB, &two, 32, &t), 12);
	scp = 2.0 + 20.0 * MiB / ROUTE_SSM_RATE;
	ck_assert_msg(scp / t >= 4.5, "20 MiB: %.1fx", scp / t);
	ck_assert_int_eq(route_ssm_sessions(100 * MiB, &two, 32, &t), 28);
	scp = 2.0 + 100.0 * MiB / ROUTE_SSM_RATE;
	ck_assert_msg(scp / t >= 10, "100 MiB: %.1fx", scp / t);
	/* Fewer cores or dearer starts: fewer sessions. */
	ck_assert_int_lt(route_ssm_sessions(20 * MiB, &one, 32, NULL), 12);
	ck_assert_int_lt(route_ssm_sessions(20 * MiB, &dear, 32, NULL), 12);
	/* Never more than max; at least one; unknown counts as 64 MiB. */
	ck_assert_int_eq(route_ssm_sessions(1 * GiB, &two, 32, NULL), 32);
	ck_assert_int_eq(route_ssm_sessions(1 * GiB, &two, 0, NULL), 1);
	ck_assert_int_eq(route_ssm_sessions(-1, &two, 32, NULL),
	    route_ssm_sessions(ROUTE_SSM_UNKNOWN_BYTES, &two, 32, NULL));
	/* NULL cost: the defaults, one core. */
	ck_assert_int_eq(route_ssm_sessions(20 * MiB, NULL, 32, NULL),
	    route_ssm_sessions(20 * MiB, &one, 32, NULL));
	/* Monotone in bytes, and each session added shortens the copy. */
	for (long long b = 0, last = 1; b < 200 * MiB; b += 700 * KiB) {
		double t1, t2;
		int n = route_ssm_sessions(b, &two, 32, &t1);

		ck_assert_int_ge(n, last);
		last = n;
		if (n > 1) {
			(void)route_ssm_sessions(b, &two, n - 1, &t2);
			ck_assert(t1 < t2);
		}
	}
}
END_TEST

/* The legacy protocol's one stream cannot grow later: beside a master it
 * decides at once (a fresh exec channel from 8 MiB, as before). */
START_TEST(decide_one_stream)
{
	struct sshcfg cfg;
	struct route_input in = { 0 };
	struct route_decision d;

	ck_assert_int_eq(sshcfg_parse(cfg_cm_auto, &cfg), 0);
	in.cfg = &cfg;
	in.master_live = true;
	in.bytes = 16 * MiB;
	in.one_stream = true;
	route_decide(&in, &d);
	ck_assert_int_eq(d.kind, ROUTE_FRESH);
	ck_assert(!d.grow);
	in.one_stream = false;
	route_decide(&in, &d);
	ck_assert_int_eq(d.kind, ROUTE_STANDARD);
	ck_assert(d.grow);
	sshcfg_free(&cfg);
}
END_TEST

START_TEST(tuning_model)
{
	struct route_tuning t;

	/* Without the server's limits scp's pipeline (64 x 32 KiB, one ssh
	 * window) is the floor on the standard route, far ... */
	route_tuning(ROUTE_STANDARD, 50, false, false, 0, &t);
	ck_assert_int_eq(t.channels, 1);
	ck_assert_uint_ge(t.write_inflight, ROUTE_SSH_WINDOW);
	ck_assert_uint_ge(t.read_inflight, ROUTE_SSH_WINDOW);
	/* ... and near (a master's buffers between), and unmeasured. */
	route_tuning(ROUTE_STANDARD, 0.1, false, false, 0, &t);
	ck_assert_uint_eq(t.write_inflight, ROUTE_SSH_WINDOW);
	ck_assert_uint_eq(t.read_inflight, ROUTE_SSH_WINDOW);
	route_tuning(ROUTE_STANDARD, -1, false, false, 0, &t);
	ck_assert_uint_ge(t.write_inflight, ROUTE_SSH_WINDOW);
	/* scp's pipeline of READs is 64 requests of what the server allows
	 * (OpenSSH's sftp-server: 255 KiB), near and far alike; WRITEs keep
	 * ssh's window (what --resume sends again after a kill). */
	route_tuning(ROUTE_STANDARD, 0.1, false, false, 261120, &t);
	ck_assert_uint_eq(t.read_inflight, 64 * 261120);
	ck_assert_uint_eq(t.write_inflight, ROUTE_SSH_WINDOW);
	route_tuning(ROUTE_STANDARD, 50, false, false, 261120, &t);
	ck_assert_uint_eq(t.read_inflight, 64 * 261120);
	ck_assert_uint_eq(t.write_inflight, ROUTE_SSH_WINDOW);
	/* Through a proxy a bypass keeps ssh's window, not scp's pipeline:
	 * nc's small requests wait behind Nagle. */
	route_tuning(ROUTE_PROXIED, 0.1, false, false, 261120, &t);
	ck_assert_uint_eq(t.read_inflight, ROUTE_SSH_WINDOW);
	/* Far bypass with channels (an upload): reads shared, writes per
	 * channel. */
	route_tuning(ROUTE_FRESH, 50, false, false, 0, &t);
	ck_assert_int_eq(t.channels, 4);
	ck_assert_uint_eq(t.read_inflight, route_inflight_bytes(50, false) / 4);
	ck_assert_uint_eq(t.write_inflight, ROUTE_UPLOAD_INFLIGHT_MAX);
	ck_assert_uint_eq(t.chunk, ROUTE_CHUNK_FAST);
	ck_assert_uint_eq(t.chunk_max, 0);
	route_tuning(ROUTE_PROXIED, 0.1, false, false, 0, &t);
	ck_assert_int_eq(t.channels, 1);
	/* Through a relay near: reads keep scp's pipeline at least, but
	 * writes only a direct upload's round trip's worth (sshd copies
	 * its channel buffer as a burst grows it) ... */
	ck_assert_uint_eq(t.read_inflight, ROUTE_SSH_WINDOW);
	ck_assert_uint_eq(t.write_inflight, route_inflight_bytes(0.1, true));
	ck_assert_uint_lt(t.write_inflight, ROUTE_SSH_WINDOW);
	/* ... and through ssh near, writes keep scp's window too. */
	route_tuning(ROUTE_PROXIED, 0.1, false, true, 0, &t);
	ck_assert_uint_eq(t.write_inflight, ROUTE_SSH_WINDOW);
	/* Through a relay: scp's pipeline at least per channel, and more
	 * the farther ... */
	route_tuning(ROUTE_PROXIED, 50, false, false, 0, &t);
	ck_assert_uint_ge(t.read_inflight, ROUTE_SSH_WINDOW);
	/* ... but through ssh (a jump host) a few of its windows per
	 * connection, near or far: its window holds the rate per round
	 * trip.  A fresh pool through the jump (beside a master) too. */
	route_tuning(ROUTE_PROXIED, 50, false, true, 0, &t);
	ck_assert_uint_eq(t.read_inflight,
	    ROUTE_VIA_SSH_WINDOWS * ROUTE_SSH_WINDOW / ROUTE_MAX_CHANNELS);
	ck_assert_uint_lt(t.read_inflight, ROUTE_SSH_WINDOW);
	route_tuning(ROUTE_PROXIED, 150, false, true, 0, &t);
	ck_assert_uint_eq(t.read_inflight,
	    ROUTE_VIA_SSH_WINDOWS * ROUTE_SSH_WINDOW / ROUTE_MAX_CHANNELS);
	route_tuning(ROUTE_PROXIED, 0.5, false, true, 0, &t);
	ck_assert_uint_eq(t.read_inflight,
	    ROUTE_VIA_SSH_WINDOWS * ROUTE_SSH_WINDOW / ROUTE_MAX_CHANNELS);
	route_tuning(ROUTE_FRESH, 50, false, true, 0, &t);
	ck_assert_uint_eq(t.read_inflight,
	    ROUTE_VIA_SSH_WINDOWS * ROUTE_SSH_WINDOW / ROUTE_MAX_CHANNELS);
	/* Writes are what they were: held to the server's window. */
	ck_assert_uint_eq(t.write_inflight, ROUTE_UPLOAD_INFLIGHT_MAX);
	/* The pipe from ssh -W is deepened; any other proxy's is the
	 * system's (nc near was slower with it). */
	ck_assert_uint_eq(route_proxy_pipe("ssh -W 10.0.0.5:22 bastion"), ROUTE_VIA_SSH_PIPE);
	ck_assert_uint_eq(route_proxy_pipe("exec /usr/bin/ssh -W [10.0.0.5]:22 bastion"),
	    ROUTE_VIA_SSH_PIPE);
	ck_assert_uint_gt(ROUTE_VIA_SSH_PIPE, 64u << 10);
	ck_assert_uint_eq(route_proxy_pipe("nc 10.0.0.5 22"), 0);
	ck_assert_uint_eq(route_proxy_pipe(NULL), 0);
	/* SSM: the session's own budget and small pieces, however big the
	 * file: a session that comes up late still finds work. */
	route_tuning(ROUTE_SSM_PARALLEL, 50, false, false, 0, &t);
	ck_assert_uint_eq(t.read_inflight, ROUTE_SSM_INFLIGHT);
	ck_assert_uint_eq(t.write_inflight, ROUTE_SSM_INFLIGHT);
	ck_assert_uint_eq(t.chunk, ROUTE_CHUNK_SSM);
	ck_assert_uint_eq(t.chunk_max, ROUTE_CHUNK_SSM);
	ck_assert_int_eq(route_near_connections(0.1, 2), 1);
	ck_assert_int_eq(route_near_connections(0.1, 8), 4);
	ck_assert_int_eq(route_near_connections(2.0, 8), 0);
	ck_assert_int_eq(route_near_connections(-1, 8), 0);
}
END_TEST

START_TEST(ssm_waves)
{
	struct route_input in = { 0 };
	struct route_decision d;
	struct sshcfg cfg;

	ck_assert_int_eq(sshcfg_parse(cfg_ssm_doc, &cfg), 0);
	in.cfg = &cfg;
	in.ssm = true;
	in.bytes = 20 * MiB;
	in.cores = 2;
	route_decide(&in, &d);
	ck_assert_int_eq(d.kind, ROUTE_SSM_PARALLEL);
	ck_assert_int_eq(d.connections, 12);
	ck_assert_int_eq(d.wave, 2);
	in.ssm_start_cpu_s = 1.5;
	route_decide(&in, &d);
	ck_assert_int_eq(d.wave, 2);
	ck_assert_int_lt(d.connections, 12);
	/* A size known: every wave may start. */
	ck_assert_int_eq(d.before_size, 0);
	/* Before the listing: the session that lists and one more, whatever
	 * the sessions planned for an unknown size; a count the user asked
	 * for is theirs. */
	in.bytes = -1;
	route_decide(&in, &d);
	ck_assert_int_eq(d.kind, ROUTE_SSM_PARALLEL);
	ck_assert_int_gt(d.connections, ROUTE_SSM_BEFORE_SIZE);
	ck_assert_int_eq(d.before_size, 2);
	in.cores = 1;
	route_decide(&in, &d);
	ck_assert_int_eq(d.before_size, 1);
	in.cores = 2;
	in.connections_wanted = 8;
	route_decide(&in, &d);
	ck_assert_int_eq(d.connections, 8);
	ck_assert_int_eq(d.before_size, 0);
	sshcfg_free(&cfg);
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
	in.rtt_ms = 50;
	route_decide(&in, &d);
	ck_assert_int_eq(d.kind, ROUTE_FRESH);
	ck_assert_uint_eq(strlen(d.reason), sizeof(d.reason) - 1);
	sshcfg_free(&cfg);
	free(t);
}
END_TEST

/* When an SSM host's direct address is looked for: beside the first
 * session only for a download of unknown size whose lookup runs the CLI,
 * with a second core; its CLI starts beside only once a core has stayed
 * idle for a while. */
START_TEST(ssm_lookup_when)
{
	const char *why;

	ck_assert_int_eq(route_ssm_lookup(6, false, true, 2, &why), ROUTE_LOOKUP_NONE);
	ck_assert_str_eq(why, "copy too small to look for a direct route");
	ck_assert_int_eq(route_ssm_lookup(MiB, false, true, 2, &why), ROUTE_LOOKUP_FIRST);
	ck_assert_int_eq(route_ssm_lookup(-1, false, true, 2, &why), ROUTE_LOOKUP_BESIDE);
	ck_assert_ptr_nonnull(why);
	ck_assert_int_eq(route_ssm_lookup(-1, false, true, 8, &why), ROUTE_LOOKUP_BESIDE);
	/* One core: the CLIs would share it. */
	ck_assert_int_eq(route_ssm_lookup(-1, false, true, 1, &why), ROUTE_LOOKUP_FIRST);
	/* An address given (no CLI), or one stream: first. */
	ck_assert_int_eq(route_ssm_lookup(-1, false, false, 2, &why), ROUTE_LOOKUP_FIRST);
	ck_assert_int_eq(route_ssm_lookup(-1, true, true, 2, &why), ROUTE_LOOKUP_FIRST);
	ck_assert(route_lookup_beside_now(1.0, 0.1));
	ck_assert(route_lookup_beside_now(1.5, 0.3));
	ck_assert(!route_lookup_beside_now(1.0, 0.05));
	ck_assert(!route_lookup_beside_now(0.7, 0.3));
	ck_assert(!route_lookup_beside_now(-1, 1));
}
END_TEST

/* Below ROUTE_LEAST_BYTES every route decides standard, whatever the
 * host, the machine, the CLI's cost and the round trip: a copy of known
 * size there skips ssh -G (facts_gather) and says why; the bar is tight
 * (a second SSM session pays from it with two cores). */
START_TEST(small_skips_config)
{
	static const char **cfgs[] = { &cfg_plain, &cfg_cm_auto, &cfg_cm_client,
		&cfg_ssm_doc, &cfg_ssm_bare, &cfg_ssm_env, &cfg_ssm_cm, &cfg_jump, &cfg_nc,
		&cfg_corkscrew, &cfg_ssh_w };
	static const long long sizes[] = { 0, 1, 100 * KiB, ROUTE_LEAST_BYTES - 1 };
	static const int cores[] = { 1, 2, 64 };
	static const double cpu_s[] = { 0, 0.01, 3 }, rtt_ms[] = { 0, 0.5, 50, 300 };
	struct route_input in = { 0 };
	struct route_decision d;
	struct sshcfg cfg, jcfg;
	const char *why;

	for (size_t c = 0; c < sizeof(cfgs) / sizeof(cfgs[0]); c++) {
		ck_assert_int_eq(sshcfg_parse(*cfgs[c], &cfg), 0);
		memset(&in, 0, sizeof(in));
		in.cfg = &cfg;
		in.ssm = ssmcmd_match(cfg.proxycommand, NULL);
		if (!in.ssm && cfg.proxyjump != NULL) {
			ck_assert_int_eq(sshcfg_parse(cfg_jump_bastion, &jcfg), 0);
			in.ssm = in.ssm_via_jump = ssmcmd_match(jcfg.proxycommand, NULL);
			sshcfg_free(&jcfg);
		}
		for (size_t b = 0; b < sizeof(sizes) / sizeof(sizes[0]); b++)
		for (int live = 0; live < 2; live++)
		for (size_t k = 0; k < sizeof(cores) / sizeof(cores[0]); k++)
		for (size_t u = 0; u < sizeof(cpu_s) / sizeof(cpu_s[0]); u++)
		for (size_t r = 0; r < sizeof(rtt_ms) / sizeof(rtt_ms[0]); r++) {
			in.bytes = sizes[b];
			in.master_live = live;
			in.cores = cores[k];
			in.ssm_start_cpu_s = cpu_s[u];
			in.rtt_ms = rtt_ms[r];
			route_decide(&in, &d);
			ck_assert_msg(d.kind == ROUTE_STANDARD && !d.grow, "config %zu, %lld B, live %d, "
			    "%d cores, %.2f s CLI, %.1f ms: %s (%s)", c, in.bytes, live,
			    in.cores, in.ssm_start_cpu_s, in.rtt_ms, route_name(d.kind), d.reason);
			/* A direct address is not even looked for there. */
			ck_assert_int_eq(route_ssm_lookup(in.bytes, false, true, in.cores, &why),
			    ROUTE_LOOKUP_NONE);
		}
		sshcfg_free(&cfg);
	}
	for (size_t b = 0; b < sizeof(sizes) / sizeof(sizes[0]); b++) {
		ck_assert(!route_wants_config(sizes[b], ROUTE_FORCE_AUTO, 0));
		ck_assert(route_wants_config(sizes[b], ROUTE_FORCE_BYPASS, 0));
		ck_assert(route_wants_config(sizes[b], ROUTE_FORCE_AUTO, 1));
	}
	ck_assert(route_wants_config(-1, ROUTE_FORCE_AUTO, 0));
	ck_assert(route_wants_config(ROUTE_LEAST_BYTES, ROUTE_FORCE_AUTO, 0));

	/* What facts_gather hands over when it skipped ssh -G; a copy it
	 * asked for whose ssh -G failed says that instead. */
	memset(&in, 0, sizeof(in));
	in.bytes = 100 * KiB;
	route_decide(&in, &d);
	ck_assert_int_eq(d.kind, ROUTE_STANDARD);
	ck_assert_str_eq(d.reason, "100.0 KiB to move, under the 166.7 KiB from which any "
	    "other route pays: ssh reads its own configuration");
	in.bytes = ROUTE_LEAST_BYTES;
	route_decide(&in, &d);
	ck_assert_msg(strstr(d.reason, "ssh -G failed") != NULL, "%s", d.reason);
	in.bytes = 100 * KiB;
	in.connections_wanted = 2;
	route_decide(&in, &d);
	ck_assert_msg(strstr(d.reason, "ssh -G failed") != NULL, "%s", d.reason);

	/* Tight: at the bar a second SSM session pays. */
	ck_assert_int_eq(sshcfg_parse(cfg_ssm_bare, &cfg), 0);
	memset(&in, 0, sizeof(in));
	in.cfg = &cfg;
	in.ssm = true;
	in.cores = 2;
	in.bytes = ROUTE_LEAST_BYTES;
	route_decide(&in, &d);
	ck_assert_msg(d.kind == ROUTE_SSM_PARALLEL && d.connections == 2, "%s", d.reason);
	sshcfg_free(&cfg);
}
END_TEST

/* check_route_plan.c: the plan's tables. */
TCase *route_plan_tcase(void);
TCase *route_wave_tcase(void);

static Suite *
route_suite(void)
{
	Suite *s = suite_create("route");
	TCase *tc = tcase_create("decide");

	tcase_add_loop_test(tc, decide_table, 0, (int)(sizeof(rows) / sizeof(rows[0])));
	tcase_add_test(tc, decide_jump_listed_by_bypass);
	tcase_add_test(tc, names);
	tcase_add_loop_test(tc, force_parse, 0,
	    (int)(sizeof(force_rows) / sizeof(force_rows[0])));
	tcase_add_test(tc, format_bytes);
	tcase_add_test(tc, ssm_sessions_model);
	tcase_add_test(tc, inflight_model);
	tcase_add_test(tc, channels_model);
	tcase_add_test(tc, decide_after_listing);
	tcase_add_test(tc, tuning_model);
	tcase_add_test(tc, decide_one_stream);
	tcase_add_test(tc, ssm_waves);
	tcase_add_test(tc, special_default_text);
	tcase_add_test(tc, long_controlpath_truncates);
	tcase_add_test(tc, ssm_lookup_when);
	tcase_add_test(tc, small_skips_config);
	suite_add_tcase(s, tc);
	suite_add_tcase(s, route_plan_tcase());
	suite_add_tcase(s, route_wave_tcase());
	return s;
}

int
main(void)
{
	return check_main(route_suite());
}
