/* SPDX-License-Identifier: ISC
 * Copyright (c) 2026 The fscp authors.  See LICENSE. */
/* ssh -G-like texts (the keys route and proxycmd look at), shared by
 * check_route's route and plan tables. */
#ifndef FSCP_ROUTE_CFGS_H
#define FSCP_ROUTE_CFGS_H

#define BASE "user root\nport 22\nconnecttimeout none\nstricthostkeychecking ask\n"
#define CFG_PLAIN "host web1\nhostname web1.example.org\n" BASE "controlmaster false\n"
#define CFG_CM_AUTO "host db\nhostname db.example.org\n" BASE \
	"controlmaster auto\ncontrolpath /root/.ssh/cm-x\ncontrolpersist 10m\n"
#define CFG_SSM_DOC "host i-0abc\nhostname i-0abc\n" BASE \
	"proxycommand sh -c \"aws ssm start-session --target %h --document-name " \
	"AWS-StartSSHSession --parameters 'portNumber=%p'\"\n"
#define CFG_JUMP "host inner\nhostname 10.0.0.5\n" BASE "proxyjump ssm-bastion\n"
#define CFG_NC "host old\nhostname old.example\n" BASE \
	"proxycommand nc -X connect -x proxy:3128 %h %p\n"
#define CFG_SSH_W "host inner2\nhostname 10.0.0.6\n" BASE \
	"proxycommand exec ssh -W %h:%p bastion\n"
#define CFG_CORKSCREW "host old\nhostname old.example\n" BASE \
	"proxycommand corkscrew proxy.example 8080 %h %p\n" \
	"controlmaster auto\ncontrolpath /tmp/cm-old\n"

#endif
