/* SPDX-License-Identifier: ISC
 * Copyright (c) 2026 The fscp authors.  See LICENSE. */
/* sshlib: libssh, opened the first time a connection of fscp's own needs
 * it (util/dynlib.h says why not at start-up).  Included instead of
 * libssh's headers, in transport/ only: every libssh call there goes
 * through the table that sshlib_load fills, under libssh's own name.
 * sshconn_open, sshconn_may_log_in, hostkey_scan and version_text load
 * it; whatever else calls libssh runs on a connection or key those made. */
#ifndef FSCP_SSHLIB_H
#define FSCP_SSHLIB_H

#include <stdbool.h>
#include <libssh/libssh.h>
#include <libssh/callbacks.h>
#include <libssh/server.h>	/* ssh_send_keepalive, a client call too */

/* The declarations are libssh's own: a prototype that changed would not
 * build. */
struct sshlib_table {
	__typeof__(ssh_blocking_flush) *ssh_blocking_flush;
	__typeof__(ssh_channel_close) *ssh_channel_close;
	__typeof__(ssh_channel_free) *ssh_channel_free;
	__typeof__(ssh_channel_get_exit_status) *ssh_channel_get_exit_status;
	__typeof__(ssh_channel_get_session) *ssh_channel_get_session;
	__typeof__(ssh_channel_is_closed) *ssh_channel_is_closed;
	__typeof__(ssh_channel_is_eof) *ssh_channel_is_eof;
	__typeof__(ssh_channel_is_open) *ssh_channel_is_open;
	__typeof__(ssh_channel_new) *ssh_channel_new;
	__typeof__(ssh_channel_open_session) *ssh_channel_open_session;
	__typeof__(ssh_channel_poll) *ssh_channel_poll;
	__typeof__(ssh_channel_poll_timeout) *ssh_channel_poll_timeout;
	__typeof__(ssh_channel_read) *ssh_channel_read;
	__typeof__(ssh_channel_read_nonblocking) *ssh_channel_read_nonblocking;
	__typeof__(ssh_channel_request_exec) *ssh_channel_request_exec;
	__typeof__(ssh_channel_request_subsystem) *ssh_channel_request_subsystem;
	__typeof__(ssh_channel_send_eof) *ssh_channel_send_eof;
	__typeof__(ssh_channel_write) *ssh_channel_write;
	__typeof__(ssh_clean_pubkey_hash) *ssh_clean_pubkey_hash;
	__typeof__(ssh_connect) *ssh_connect;
	__typeof__(ssh_disconnect) *ssh_disconnect;
	__typeof__(ssh_free) *ssh_free;
	__typeof__(ssh_get_error) *ssh_get_error;
	__typeof__(ssh_get_fd) *ssh_get_fd;
	__typeof__(ssh_get_fingerprint_hash) *ssh_get_fingerprint_hash;
	__typeof__(ssh_get_issue_banner) *ssh_get_issue_banner;
	__typeof__(ssh_get_openssh_version) *ssh_get_openssh_version;
	__typeof__(ssh_get_publickey_hash) *ssh_get_publickey_hash;
	__typeof__(ssh_get_server_publickey) *ssh_get_server_publickey;
	__typeof__(ssh_get_status) *ssh_get_status;
	__typeof__(ssh_is_connected) *ssh_is_connected;
	__typeof__(ssh_key_cmp) *ssh_key_cmp;
	__typeof__(ssh_key_free) *ssh_key_free;
	__typeof__(ssh_key_type) *ssh_key_type;
	__typeof__(ssh_key_type_from_name) *ssh_key_type_from_name;
	__typeof__(ssh_key_type_to_char) *ssh_key_type_to_char;
	__typeof__(ssh_new) *ssh_new;
	__typeof__(ssh_options_set) *ssh_options_set;
	__typeof__(ssh_pki_export_pubkey_base64) *ssh_pki_export_pubkey_base64;
	__typeof__(ssh_pki_import_privkey_file) *ssh_pki_import_privkey_file;
	__typeof__(ssh_pki_import_pubkey_base64) *ssh_pki_import_pubkey_base64;
	__typeof__(ssh_remove_channel_callbacks) *ssh_remove_channel_callbacks;
	__typeof__(ssh_send_keepalive) *ssh_send_keepalive;
	__typeof__(ssh_service_request) *ssh_service_request;
	__typeof__(ssh_set_blocking) *ssh_set_blocking;
	__typeof__(ssh_set_callbacks) *ssh_set_callbacks;
	__typeof__(ssh_set_channel_callbacks) *ssh_set_channel_callbacks;
	__typeof__(ssh_string_free_char) *ssh_string_free_char;
	__typeof__(ssh_userauth_agent) *ssh_userauth_agent;
	__typeof__(ssh_userauth_none) *ssh_userauth_none;
	__typeof__(ssh_userauth_publickey) *ssh_userauth_publickey;
	__typeof__(ssh_version) *ssh_version;
};
extern struct sshlib_table sshlib_fn;

/* Load libssh once; false with why (its soname and the loader's message)
 * when it cannot be: the copy then keeps to ssh's standard route. */
bool sshlib_load(const char **why);
/* libssh's version ("0.10.6/openssl/zlib"), NULL with why when it cannot
 * be loaded. */
const char *sshlib_version(const char **why);

/* sshlib.c fills the table by name, and its fields keep their names. */
#ifndef SSHLIB_TABLE_ONLY
#define ssh_blocking_flush (*sshlib_fn.ssh_blocking_flush)
#define ssh_channel_close (*sshlib_fn.ssh_channel_close)
#define ssh_channel_free (*sshlib_fn.ssh_channel_free)
#define ssh_channel_get_exit_status (*sshlib_fn.ssh_channel_get_exit_status)
#define ssh_channel_get_session (*sshlib_fn.ssh_channel_get_session)
#define ssh_channel_is_closed (*sshlib_fn.ssh_channel_is_closed)
#define ssh_channel_is_eof (*sshlib_fn.ssh_channel_is_eof)
#define ssh_channel_is_open (*sshlib_fn.ssh_channel_is_open)
#define ssh_channel_new (*sshlib_fn.ssh_channel_new)
#define ssh_channel_open_session (*sshlib_fn.ssh_channel_open_session)
#define ssh_channel_poll (*sshlib_fn.ssh_channel_poll)
#define ssh_channel_poll_timeout (*sshlib_fn.ssh_channel_poll_timeout)
#define ssh_channel_read (*sshlib_fn.ssh_channel_read)
#define ssh_channel_read_nonblocking (*sshlib_fn.ssh_channel_read_nonblocking)
#define ssh_channel_request_exec (*sshlib_fn.ssh_channel_request_exec)
#define ssh_channel_request_subsystem (*sshlib_fn.ssh_channel_request_subsystem)
#define ssh_channel_send_eof (*sshlib_fn.ssh_channel_send_eof)
#define ssh_channel_write (*sshlib_fn.ssh_channel_write)
#define ssh_clean_pubkey_hash (*sshlib_fn.ssh_clean_pubkey_hash)
#define ssh_connect (*sshlib_fn.ssh_connect)
#define ssh_disconnect (*sshlib_fn.ssh_disconnect)
#define ssh_free (*sshlib_fn.ssh_free)
#define ssh_get_error (*sshlib_fn.ssh_get_error)
#define ssh_get_fd (*sshlib_fn.ssh_get_fd)
#define ssh_get_fingerprint_hash (*sshlib_fn.ssh_get_fingerprint_hash)
#define ssh_get_issue_banner (*sshlib_fn.ssh_get_issue_banner)
#define ssh_get_openssh_version (*sshlib_fn.ssh_get_openssh_version)
#define ssh_get_publickey_hash (*sshlib_fn.ssh_get_publickey_hash)
#define ssh_get_server_publickey (*sshlib_fn.ssh_get_server_publickey)
#define ssh_get_status (*sshlib_fn.ssh_get_status)
#define ssh_is_connected (*sshlib_fn.ssh_is_connected)
#define ssh_key_cmp (*sshlib_fn.ssh_key_cmp)
#define ssh_key_free (*sshlib_fn.ssh_key_free)
#define ssh_key_type (*sshlib_fn.ssh_key_type)
#define ssh_key_type_from_name (*sshlib_fn.ssh_key_type_from_name)
#define ssh_key_type_to_char (*sshlib_fn.ssh_key_type_to_char)
#define ssh_new (*sshlib_fn.ssh_new)
#define ssh_options_set (*sshlib_fn.ssh_options_set)
#define ssh_pki_export_pubkey_base64 (*sshlib_fn.ssh_pki_export_pubkey_base64)
#define ssh_pki_import_privkey_file (*sshlib_fn.ssh_pki_import_privkey_file)
#define ssh_pki_import_pubkey_base64 (*sshlib_fn.ssh_pki_import_pubkey_base64)
#define ssh_remove_channel_callbacks (*sshlib_fn.ssh_remove_channel_callbacks)
#define ssh_send_keepalive (*sshlib_fn.ssh_send_keepalive)
#define ssh_service_request (*sshlib_fn.ssh_service_request)
#define ssh_set_blocking (*sshlib_fn.ssh_set_blocking)
#define ssh_set_callbacks (*sshlib_fn.ssh_set_callbacks)
#define ssh_set_channel_callbacks (*sshlib_fn.ssh_set_channel_callbacks)
#define ssh_string_free_char (*sshlib_fn.ssh_string_free_char)
#define ssh_userauth_agent (*sshlib_fn.ssh_userauth_agent)
#define ssh_userauth_none (*sshlib_fn.ssh_userauth_none)
#define ssh_userauth_publickey (*sshlib_fn.ssh_userauth_publickey)
#define ssh_version (*sshlib_fn.ssh_version)
#endif

#endif
