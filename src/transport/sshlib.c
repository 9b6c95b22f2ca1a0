/* SPDX-License-Identifier: ISC
 * Copyright (c) 2026 The fscp authors.  See LICENSE. */
#include "config.h"
#define SSHLIB_TABLE_ONLY
#include "transport/sshlib.h"
#include "util/dynlib.h"

struct sshlib_table sshlib_fn;

static const struct dynlib_sym sshlib_syms[] = {
	{ "ssh_blocking_flush", &sshlib_fn.ssh_blocking_flush },
	{ "ssh_channel_close", &sshlib_fn.ssh_channel_close },
	{ "ssh_channel_free", &sshlib_fn.ssh_channel_free },
	{ "ssh_channel_get_exit_status", &sshlib_fn.ssh_channel_get_exit_status },
	{ "ssh_channel_get_session", &sshlib_fn.ssh_channel_get_session },
	{ "ssh_channel_is_closed", &sshlib_fn.ssh_channel_is_closed },
	{ "ssh_channel_is_eof", &sshlib_fn.ssh_channel_is_eof },
	{ "ssh_channel_is_open", &sshlib_fn.ssh_channel_is_open },
	{ "ssh_channel_new", &sshlib_fn.ssh_channel_new },
	{ "ssh_channel_open_session", &sshlib_fn.ssh_channel_open_session },
	{ "ssh_channel_poll", &sshlib_fn.ssh_channel_poll },
	{ "ssh_channel_poll_timeout", &sshlib_fn.ssh_channel_poll_timeout },
	{ "ssh_channel_read", &sshlib_fn.ssh_channel_read },
	{ "ssh_channel_read_nonblocking", &sshlib_fn.ssh_channel_read_nonblocking },
	{ "ssh_channel_request_exec", &sshlib_fn.ssh_channel_request_exec },
	{ "ssh_channel_request_subsystem", &sshlib_fn.ssh_channel_request_subsystem },
	{ "ssh_channel_send_eof", &sshlib_fn.ssh_channel_send_eof },
	{ "ssh_channel_write", &sshlib_fn.ssh_channel_write },
	{ "ssh_clean_pubkey_hash", &sshlib_fn.ssh_clean_pubkey_hash },
	{ "ssh_connect", &sshlib_fn.ssh_connect },
	{ "ssh_disconnect", &sshlib_fn.ssh_disconnect },
	{ "ssh_free", &sshlib_fn.ssh_free },
	{ "ssh_get_error", &sshlib_fn.ssh_get_error },
	{ "ssh_get_fd", &sshlib_fn.ssh_get_fd },
	{ "ssh_get_fingerprint_hash", &sshlib_fn.ssh_get_fingerprint_hash },
	{ "ssh_get_issue_banner", &sshlib_fn.ssh_get_issue_banner },
	{ "ssh_get_openssh_version", &sshlib_fn.ssh_get_openssh_version },
	{ "ssh_get_publickey_hash", &sshlib_fn.ssh_get_publickey_hash },
	{ "ssh_get_server_publickey", &sshlib_fn.ssh_get_server_publickey },
	{ "ssh_get_status", &sshlib_fn.ssh_get_status },
	{ "ssh_is_connected", &sshlib_fn.ssh_is_connected },
	{ "ssh_key_cmp", &sshlib_fn.ssh_key_cmp },
	{ "ssh_key_free", &sshlib_fn.ssh_key_free },
	{ "ssh_key_type", &sshlib_fn.ssh_key_type },
	{ "ssh_key_type_from_name", &sshlib_fn.ssh_key_type_from_name },
	{ "ssh_key_type_to_char", &sshlib_fn.ssh_key_type_to_char },
	{ "ssh_new", &sshlib_fn.ssh_new },
	{ "ssh_options_set", &sshlib_fn.ssh_options_set },
	{ "ssh_pki_export_pubkey_base64", &sshlib_fn.ssh_pki_export_pubkey_base64 },
	{ "ssh_pki_import_privkey_file", &sshlib_fn.ssh_pki_import_privkey_file },
	{ "ssh_pki_import_pubkey_base64", &sshlib_fn.ssh_pki_import_pubkey_base64 },
	{ "ssh_remove_channel_callbacks", &sshlib_fn.ssh_remove_channel_callbacks },
	{ "ssh_send_keepalive", &sshlib_fn.ssh_send_keepalive },
	{ "ssh_service_request", &sshlib_fn.ssh_service_request },
	{ "ssh_set_blocking", &sshlib_fn.ssh_set_blocking },
	{ "ssh_set_callbacks", &sshlib_fn.ssh_set_callbacks },
	{ "ssh_set_channel_callbacks", &sshlib_fn.ssh_set_channel_callbacks },
	{ "ssh_string_free_char", &sshlib_fn.ssh_string_free_char },
	{ "ssh_userauth_agent", &sshlib_fn.ssh_userauth_agent },
	{ "ssh_userauth_none", &sshlib_fn.ssh_userauth_none },
	{ "ssh_userauth_publickey", &sshlib_fn.ssh_userauth_publickey },
	{ "ssh_version", &sshlib_fn.ssh_version },
};

static struct dynlib sshlib_lib = {
	.soname = FSCP_LIBSSH_SONAME,
	.syms = sshlib_syms,
	.nsyms = sizeof(sshlib_syms) / sizeof(sshlib_syms[0]),
};

bool
sshlib_load(const char **why)
{
	if (dynlib_load(&sshlib_lib))
		return true;
	if (why != NULL)
		*why = sshlib_lib.err;
	return false;
}

const char *
sshlib_version(const char **why)
{
	return sshlib_load(why) ? sshlib_fn.ssh_version(0) : NULL;
}
