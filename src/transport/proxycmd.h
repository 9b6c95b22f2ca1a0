/* SPDX-License-Identifier: ISC
 * Copyright (c) 2026 The fscp authors.  See LICENSE. */
/* proxycmd: run a ProxyCommand the way ssh does, and relay its bytes.
 *
 * libssh expands only a few tokens and throws the proxy's stderr away, so
 * fscp expands the command itself (policy/proxytok), runs it under the
 * user's shell with its stdin/stdout on one end of a socketpair (stderr
 * left alone, so SSM errors reach the user), and hands the other end to
 * libssh (SSH_OPTIONS_FD).  As OpenSSH 9.2 does (sshconnect.c), the
 * command becomes "exec <cmd>" and runs as $SHELL -c (or /bin/sh when
 * SHELL is unset or empty).  Reading the command (SSM, ProxyJump) is
 * policy/'s: ssmcmd, proxyjump, shwords. */
#ifndef FSCP_PROXYCMD_H
#define FSCP_PROXYCMD_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* The shell ssh would use: $SHELL if set and non-empty, else /bin/sh. */
const char *proxycmd_shell(const char *shell_env);

/* Run "<shell> -c 'exec <expanded>'" on a socketpair.  Returns the parent's
 * end (close-on-exec) and sets *pid, or -1 with err set.  The child's
 * stderr is fscp's stderr.  The caller reaps *pid (and may SIGHUP it at the
 * end, as ssh does). */
int proxycmd_spawn(const char *expanded, pid_t *pid, char *err, size_t errlen);
/* The same with the child's stderr held (*hold set) until the caller says
 * whether the connection came up: proxycmd_hold_end(hold, true) shows what
 * was held and lets the rest through; false drops it all (ssh's own try,
 * which follows a failed one, prints its proxy's words again). */
struct proxycmd_hold;
int proxycmd_spawn_held(const char *expanded, pid_t *pid, struct proxycmd_hold **hold,
    char *err, size_t errlen);
void proxycmd_hold_end(struct proxycmd_hold *h, bool show);
/* How a proxy's relay runs (all zero: as proxycmd_spawn's).
 * meter: what the relay moves either way is added to it (NULL: none): the
 * bytes several proxies carry, counted where they pass, are what an SSM
 * pool measures its goodput by.  The relays hold it until they end.
 * gather: the child's output comes in small messages (an SSM channel's),
 * and the relay lets a trickle of them gather (the relay's pace, below);
 * any other proxy's output is passed on as it comes, since there a small
 * read is a reply that a request waits for.
 * out_pipe: the child's stdout pipe is asked to hold this many bytes
 * (0: the system's size; a size the system refuses leaves it so). */
struct proxycmd_meter;
struct proxycmd_how {
	struct proxycmd_meter *meter;
	bool gather;
	size_t out_pipe;
};
/* The same as proxycmd_spawn_held, run as how says (NULL: all zero). */
int proxycmd_spawn_metered(const char *expanded, pid_t *pid, struct proxycmd_hold **hold,
    const struct proxycmd_how *how, char *err, size_t errlen);
/* A meter (one reference, the caller's), its count so far, and a
 * reference given up (NULL-safe); the last one frees it. */
struct proxycmd_meter *proxycmd_meter_new(void);
unsigned long long proxycmd_meter_bytes(struct proxycmd_meter *m);
void proxycmd_meter_unref(struct proxycmd_meter *m);
/* Whether what the child wrote so far (and is still held) says what says()
 * recognises (policy/awsmsg: text, len bytes), waiting up to wait_ms for
 * more to come (its last words may trail its exit) unless its stderr is
 * already closed.  NULL-safe (false). */
bool proxycmd_hold_has(struct proxycmd_hold *h, bool (*says)(const char *text, size_t len),
    int wait_ms);

/* ---- the relay's pace (pure) --------------------------------------------
 *
 * An SSM channel hands its data over in 1 KiB messages about 1.2 ms apart.
 * Passed on one by one, each costs two thread wake-ups (the relay's and
 * libssh's), 20,000 for 20 MiB: CPU that the next sessions' aws CLIs are
 * waiting for.  So once the child's output comes as a steady trickle
 * (PROXYCMD_STREAK small reads in a row, each within PROXYCMD_WAIT_S of
 * the last: a handshake's replies come a round trip apart and never are),
 * the relay lets it gather for a moment before the next read.  The wait
 * is what PROXYCMD_BATCH bytes take at the rate just seen, at most
 * PROXYCMD_WAIT_S, so far less than the pipe holds gathers and a fast
 * proxy is not held back.  Only the child's output waits: what libssh
 * sends meanwhile goes on at once.  And none waits while libssh sends more
 * than PROXYCMD_UP_QUIET between two reads (an upload: the trickle is its
 * replies, which the window waits for).  Only SSM's output gathers: any
 * other proxy's small reads are replies a request waits for. */
#define PROXYCMD_BATCH		(32 * 1024)
#define PROXYCMD_WAIT_S		0.008
#define PROXYCMD_STREAK		4
#define PROXYCMD_UP_QUIET	4096

struct proxycmd_trickle {
	bool gather;	/* the caller's: the output may gather at all (SSM) */
	double last;	/* when the child's output was last read */
	double waited;	/* the wait that followed that read */
	int streak;	/* small reads in a row, each soon after the last */
};

/* After a read of n bytes (0: none) from the child at now (seconds), with
 * up bytes sent to it since the read before: how long the child's output
 * is left to gather before the relay reads it again. */
double proxycmd_trickle_wait(struct proxycmd_trickle *t, size_t n, size_t up, double now);

#endif
