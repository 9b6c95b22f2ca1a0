/* proc: child processes (spawn with given stdio, capture with a timeout,
 * reap), the one place fscp forks and execs.
 *
 * Every caller used to fork/exec/wait on its own; they differed only in
 * the child's stdio, PATH search, the message printed when exec fails and
 * the exit status of such a child.  Those are the fields of proc_spec. */
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
};

/* Fork and exec.  The descriptors given are the child's only inherited
 * ones besides those without close-on-exec; SIGPIPE is reset to default.
 * Returns the pid, or -1 with err set ("fork: ..."). */
pid_t proc_spawn(const struct proc_spec *s, char *err, size_t errlen);

/* Reap pid (retrying on EINTR).  Returns its exit status as scp and ssh
 * see it: the exit code, or 255 when it died by a signal or cannot be
 * waited for. */
int proc_wait(pid_t pid);

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

/* This machine's online cores (at least 1): what the route sizes CPU-bound
 * work by. */
int proc_cores(void);

#endif
