/* SPDX-License-Identifier: ISC
 * Copyright (c) 2026 The fscp authors.  See LICENSE. */
/* proc: child processes (spawn with given stdio, capture with a timeout,
 * reap, end), the one place fscp starts programs.
 *
 * Every caller used to fork/exec/wait on its own; they differed only in
 * the child's stdio, PATH search, the message printed when exec fails and
 * the exit status of such a child.  Those are the fields of proc_spec.
 *
 * Every child is registered from its fork to its reap.  Its owner (the
 * code that started it) ends it with proc_wait (it ends on its own) or
 * proc_end; whatever is left when fscp ends, proc_end_all ends: main
 * calls it on the ending signals (through proc_own_children) and at
 * exit.  None outlives fscp, nor does what they leave behind (fscp is
 * their subreaper). */
#ifndef FSCP_PROC_H
#define FSCP_PROC_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#define PROC_KEEP (-1)		/* the child inherits our descriptor */
#define PROC_NULL (-2)		/* the child gets /dev/null */

/* What a child that cannot exec prints on its stderr before exiting. */
enum proc_execmsg {
	PROC_MSG_NONE,		/* nothing */
	PROC_MSG_PERROR,	/* "<file>: <strerror>\n", as scp's perror(program) */
};

struct proc_spec {
	char *const *argv;	/* NULL-terminated */
	const char *file;	/* program to run; NULL: argv[0] */
	bool search_path;	/* execvp (true) or execv */
	int in, out, err;	/* the child's 0/1/2: a descriptor, PROC_KEEP or PROC_NULL */
	enum proc_execmsg msg;
	int exec_status;	/* exit status of a child whose exec failed */
	bool group;		/* the child leads a session (so a process group)
				   of its own, without a terminal, and is ended
				   with its group (a ProxyCommand's `sh -c
				   "aws ..."` and the plugin under it).  Not for
				   ssh: it reads passwords from the terminal. */
};

/* Start a program (posix_spawn; fork and exec where that fails, so that
 * the child says why).  The descriptors given are the child's only
 * inherited ones besides those without close-on-exec; SIGPIPE and the
 * ending signals are reset to default, none blocked.
 * Returns the pid, or -1 with err set ("fork: ..."). */
pid_t proc_spawn(const struct proc_spec *s, char *err, size_t errlen);

/* Wait for pid to end on its own and reap it (retrying on EINTR); a group
 * whose leader ended has what is left of it ended (proc_end).  Returns
 * its exit status as scp and ssh see it: the exit code, or 255 when it
 * died by a signal or cannot be waited for. */
int proc_wait(pid_t pid);

/* End pid as ssh ends its ProxyCommand: sig (SIGHUP for a proxy, SIGTERM
 * for ssh as scp's killchild() sends) to it or to its group, then SIGTERM
 * and SIGKILL to what has not ended after a grace each; then reap it.
 * Returns its status as proc_wait; 255 for a pid that is not ours. */
int proc_end(pid_t pid, int sig);

/* SIGHUP to pid (its group), without waiting: stopping what is still
 * connecting cuts it short.  The owner still reaps it (proc_end). */
void proc_hangup(pid_t pid);

/* End every child still registered (children sharing our group get sig,
 * or SIGTERM for 0; groups of their own SIGHUP; then the ladder) and reap
 * them, then the orphans adopted in our session; no child starts after
 * it.  sig > 0: for that signal, and the caller ends the process: a later
 * call with 0 (at exit) waits for that end instead. */
void proc_end_all(int sig);

/* Make fscp the owner of its descendants: on Linux their subreaper (an
 * orphan comes to fscp, not init: proc_end_all ends it), and SIGINT,
 * SIGTERM and SIGHUP blocked in every thread and taken in one thread of
 * their own, which calls on(sig) (on must end the process: the thread
 * lives until then).  Call before any other thread exists.  Returns -1
 * when the thread cannot start (the signals are not blocked). */
int proc_own_children(void (*on)(int sig));

/* Spawn and wait: the exit status, or 255 when it could not be spawned
 * (err then says why). */
int proc_run(const struct proc_spec *s, char *err, size_t errlen);

struct proc_output {
	char *out;		/* stdout, NUL-terminated (never NULL on success) */
	size_t out_len;
	char *err;		/* stderr when asked for, else NULL */
	size_t err_len;
	int status;		/* as proc_wait */
	bool timed_out;		/* killed (SIGKILL) at the deadline */
};

/* Run s with stdout (and stderr when want_err; s->out and s->err are then
 * ignored) captured, killing the child after timeout_ms (< 0: no limit).
 * Returns 0 with *o filled (free with proc_output_free), or -1 with err
 * set when it could not be started. */
int proc_capture(const struct proc_spec *s, bool want_err, int timeout_ms,
    struct proc_output *o, char *err, size_t errlen);
void proc_output_free(struct proc_output *o);

/* The cores this process may use (at least 1): online, within its CPU
 * affinity and its cgroup's CPU quota (rounded up).  What the route sizes
 * CPU-bound work by. */
int proc_cores(void);
/* A small file's text (a /proc or cgroup file: at most len - 1 bytes),
 * into buf; false when it cannot be read or is empty. */
bool proc_read_text(const char *path, char *buf, size_t len);

#endif
