/* SPDX-License-Identifier: ISC
 * Copyright (c) 2026 The fscp authors.  See LICENSE. */
/* proc: every child fscp starts is started here and registered from its
 * start to its reap, so that one owner ends them all whichever way fscp
 * ends (proc.h says how).  The registry is process-wide state, as
 * children and signal dispositions are. */
#include "config.h"
#include "util/proc.h"
#include "util/clock.h"
#include "util/proctree.h"
#include "util/xmalloc.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif
#include <time.h>
#include <unistd.h>

/* ---- the registry ------------------------------------------------------- */

struct proc_child {
	pid_t pid;
	bool group;		/* leads a process group of its own */
};

static struct {
	pthread_mutex_t lock;	/* held across fork and registration, and
				   by proc_end_all while it ends them */
	struct proc_child *c;
	size_t n, cap;
	pid_t *sessions;	/* the sessions our group children lead: what
				   they leave is ours to end, even reaped */
	size_t nsessions, capsessions;
	bool spawned;		/* a child was ever started: only then can
				   an orphan be adopted */
	bool ending;		/* proc_end_all ran: no new child */
	bool signalled;		/* ... for a signal, whose end is fscp's */
} proc_reg = { .lock = PTHREAD_MUTEX_INITIALIZER };

/* The signals that end fscp: proc_own_children takes them in a thread. */
static const int proc_end_signals[] = { SIGINT, SIGTERM, SIGHUP };

/* Between two steps of the ladder (hang up, terminate, kill), what a
 * child that ignores the step gets. */
#define PROC_GRACE_S	0.5

/* Under proc_reg.lock. */
static struct proc_child *
proc_find(pid_t pid)
{
	for (size_t i = 0; i < proc_reg.n; i++)
		if (proc_reg.c[i].pid == pid)
			return &proc_reg.c[i];
	return NULL;
}

/* Under proc_reg.lock. */
static void
proc_forget(pid_t pid)
{
	struct proc_child *c = proc_find(pid);

	if (c != NULL)
		*c = proc_reg.c[--proc_reg.n];
}

/* One process as /proc/PID/stat shows it. */
struct proc_stat {
	pid_t pid, ppid, pgrp, sid;
	bool dead;		/* a zombie */
};

/* The stat line's fields, and f's answer. */
struct proc_scan_arg {
	bool (*f)(const struct proc_stat *, void *);
	void *arg;
};

static bool
proc_scan_one(pid_t pid, const char *line, void *arg)
{
	struct proc_scan_arg *a = arg;
	const char *rp;
	char st;
	long ppid, pgrp, sid;

	/* "pid (comm) state ppid pgrp session ...": comm may hold
	 * anything. */
	if ((rp = strrchr(line, ')')) == NULL ||
	    sscanf(rp + 1, " %c %ld %ld %ld", &st, &ppid, &pgrp, &sid) != 4)
		return false;
	return a->f(&(struct proc_stat){ .pid = pid, .ppid = (pid_t)ppid, .pgrp = (pid_t)pgrp,
		.sid = (pid_t)sid, .dead = st == 'Z' || st == 'X' }, a->arg);
}

/* Call f on our descendants down to depth (0: all) until it returns true
 * (then true); false when f never did, or /proc cannot be read (*none
 * set).  Only our tree is read (proctree_each): the cost of a copy's end
 * does not grow with the processes the machine runs. */
static bool
proc_scan(int depth, bool (*f)(const struct proc_stat *, void *), void *arg, bool *none)
{
	struct proc_scan_arg a = { f, arg };

	return proctree_each(depth, proc_scan_one, &a, none);
}

static bool
proc_in_group(const struct proc_stat *p, void *arg)
{
	return p->pgrp == *(pid_t *)arg && !p->dead;
}

/* Does a process of group g other than a zombie live?  (The leader, not
 * reaped yet, keeps g from being reused.)  The group's members were born
 * in the session its leader made: descendants of the leader, and ours
 * (orphans come to us, the subreaper). */
static bool
proc_group_alive(pid_t g)
{
	bool none, alive = proc_scan(0, proc_in_group, &g, &none);

	return none ? kill(-g, 0) == 0 : alive;
}

/* Has the child exited (not reaped yet)?  A child reaped by someone else
 * counts as exited. */
static bool
proc_exited(pid_t pid)
{
	siginfo_t si = { 0 };

	if (waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG | WNOWAIT) < 0)
		return errno != EINTR;
	return si.si_pid == pid;
}

static void
proc_signal(const struct proc_child *c, int sig)
{
	if (c->group) {
		/* Until the child's setsid() it is alone in our group. */
		if (kill(-c->pid, sig) < 0 && errno == ESRCH) {
			kill(c->pid, sig);
			return;
		}
		/* A stopped member would keep a hang-up pending. */
		if (sig != SIGKILL)
			kill(-c->pid, SIGCONT);
	} else {
		kill(c->pid, sig);
	}
}

static bool
proc_over(const struct proc_child *c)
{
	return proc_exited(c->pid) && (!c->group || !proc_group_alive(c->pid));
}

/* Reap pid, which has exited; its status as proc_wait returns it. */
static int
proc_reap(pid_t pid)
{
	int status;

	while (waitpid(pid, &status, 0) < 0) {
		if (errno != EINTR)
			return 255;
	}
	return WIFEXITED(status) ? WEXITSTATUS(status) : 255;
}

static void
proc_nap(void)
{
	struct timespec ts = { 0, 5 * 1000000L };

	nanosleep(&ts, NULL);
}

/* ---- spawning ------------------------------------------------------------ */

/* In the child: make want (a descriptor, PROC_KEEP or PROC_NULL) its fd
 * target.  Descriptors below 3 were moved out of the way first, so dup2
 * never overwrites one still needed. */
static int
proc_child_fd(int want, int target)
{
	if (want == PROC_KEEP)
		return 0;
	if (want == PROC_NULL) {
		want = open("/dev/null", target == 0 ? O_RDONLY : O_WRONLY);
		if (want < 0)
			return -1;
		if (want == target)
			return 0;
		if (dup2(want, target) < 0)
			return -1;
		close(want);
		return 0;
	}
	/* dup2 clears close-on-exec on the copy. */
	return dup2(want, target) < 0 ? -1 : 0;
}

/* The forked child until its exec.  Its _exit calls end the child that
 * could not become the program (exec_status, as the caller asked), not
 * fscp: only main() ends fscp (src/README, THREADS). */
static void FSCP_NORETURN
proc_child(const struct proc_spec *s)
{
	int fds[3] = { s->in, s->out, s->err };
	const char *file = s->file != NULL ? s->file : s->argv[0];

	for (int i = 0; i < 3; i++)
		if (fds[i] >= 0 && fds[i] < 3 && fds[i] != i)
			fds[i] = fcntl(fds[i], F_DUPFD_CLOEXEC, 3);
	for (int i = 0; i < 3; i++) {
		if (fds[i] == i) {
			(void)fcntl(i, F_SETFD, 0);
			continue;
		}
		if (proc_child_fd(fds[i], i) != 0)
			_exit(s->exec_status);
	}
	signal(SIGPIPE, SIG_DFL);
	/* fscp takes its ending signals in a thread: the child must not
	 * inherit them blocked, nor (ended before its exec) run a handler
	 * of ours. */
	sigset_t none;

	for (size_t i = 0; i < sizeof(proc_end_signals) / sizeof(proc_end_signals[0]); i++)
		signal(proc_end_signals[i], SIG_DFL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	if (s->search_path)
		execvp(file, s->argv);
	else
		execv(file, s->argv);
	if (s->msg == PROC_MSG_PERROR)
		dprintf(2, "%s: %s\n", file, strerror(errno));
	_exit(s->exec_status);
}

/* A dup2 action onto the descriptor itself clears its close-on-exec flag
 * (POSIX 2024) only from glibc 2.29; before, such a child forks. */
#if defined(__GLIBC__) && (__GLIBC__ < 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ < 29))
#define PROC_SPAWN_DUP2_SAME 0
#else
#define PROC_SPAWN_DUP2_SAME 1
#endif

/* The usual way: posix_spawn shares fscp's memory with the child until
 * its exec (glibc clones with CLONE_VM | CLONE_VFORK), so the copy's
 * threads pay neither for a copy of the page tables nor for the
 * copy-on-write faults that follow a fork, once per page they write.
 * Does what proc_child does, in the same order.  Any failure, an exec
 * that failed among them, returns -1 with no child left: the caller then
 * forks, and that child says what failed as scp's would. */
static pid_t
proc_spawn_shared(const struct proc_spec *s)
{
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t at;
	sigset_t none, dfl;
	int fds[3] = { s->in, s->out, s->err }, moved[3] = { -1, -1, -1 }, rc = -1;
	short flags = POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK;
	const char *file = s->file != NULL ? s->file : s->argv[0];
	pid_t pid = -1;

	if (s->group) {
#ifdef POSIX_SPAWN_SETSID
		flags |= POSIX_SPAWN_SETSID;
#else
		return -1;
#endif
	}
	if (posix_spawn_file_actions_init(&fa) != 0)
		return -1;
	if (posix_spawnattr_init(&at) != 0) {
		posix_spawn_file_actions_destroy(&fa);
		return -1;
	}
	/* A descriptor below 3 that another target needs is copied out of
	 * the way first (close-on-exec: only its dup2 reaches the child). */
	for (int i = 0; i < 3; i++)
		if (fds[i] >= 0 && fds[i] < 3 && fds[i] != i &&
		    (fds[i] = moved[i] = fcntl(fds[i], F_DUPFD_CLOEXEC, 3)) < 0)
			goto out;
	for (int i = 0; i < 3; i++) {
		int r = 0;

		if (fds[i] == PROC_NULL)
			r = posix_spawn_file_actions_addopen(&fa, i, "/dev/null",
			    i == 0 ? O_RDONLY : O_WRONLY, 0);
		else if (fds[i] == i && !PROC_SPAWN_DUP2_SAME)
			r = -1;
		else if (fds[i] != PROC_KEEP)	/* fds[i] == i: clears close-on-exec */
			r = posix_spawn_file_actions_adddup2(&fa, fds[i], i);
		if (r != 0)
			goto out;
	}
	sigemptyset(&none);
	sigemptyset(&dfl);
	sigaddset(&dfl, SIGPIPE);
	for (size_t i = 0; i < sizeof(proc_end_signals) / sizeof(proc_end_signals[0]); i++)
		sigaddset(&dfl, proc_end_signals[i]);
	if (posix_spawnattr_setflags(&at, flags) != 0 ||
	    posix_spawnattr_setsigmask(&at, &none) != 0 ||
	    posix_spawnattr_setsigdefault(&at, &dfl) != 0)
		goto out;
	rc = s->search_path ? posix_spawnp(&pid, file, &fa, &at, s->argv, environ) :
	    posix_spawn(&pid, file, &fa, &at, s->argv, environ);
out:
	for (int i = 0; i < 3; i++)
		if (moved[i] >= 0)
			close(moved[i]);
	posix_spawnattr_destroy(&at);
	posix_spawn_file_actions_destroy(&fa);
	return rc == 0 ? pid : -1;
}

pid_t
proc_spawn(const struct proc_spec *s, char *err, size_t errlen)
{
	pid_t pid;

	/* Buffered output must not be written twice, by us and the child. */
	fflush(NULL);
	/* Fork and registration under the lock: proc_end_all never misses
	 * a child, nor starts one after it ended them. */
	pthread_mutex_lock(&proc_reg.lock);
	if (proc_reg.ending) {
		pthread_mutex_unlock(&proc_reg.lock);
		if (err != NULL && errlen > 0)
			snprintf(err, errlen, "fork: fscp is ending");
		return -1;
	}
	if (proc_reg.n == proc_reg.cap) {
		proc_reg.cap = proc_reg.cap ? proc_reg.cap * 2 : 16;
		proc_reg.c = xrealloc(proc_reg.c, proc_reg.cap * sizeof(*proc_reg.c));
	}
	if ((pid = proc_spawn_shared(s)) < 0)
		pid = fork();
	if (pid < 0) {
		pthread_mutex_unlock(&proc_reg.lock);
		if (err != NULL && errlen > 0)
			snprintf(err, errlen, "fork: %s", strerror(errno));
		return -1;
	}
	if (pid == 0) {
		/* A session of its own, not only a group: a background group
		 * that reads the terminal (a proxy's ssh asking a password, an
		 * MFA prompt) would stop there for good; without a terminal it
		 * fails at once, and the copy falls back to ssh, which asks. */
		if (s->group)
			(void)setsid();
		proc_child(s);
	}
	if (s->group) {
		if (proc_reg.nsessions == proc_reg.capsessions) {
			proc_reg.capsessions = proc_reg.capsessions ? proc_reg.capsessions * 2 : 16;
			proc_reg.sessions = xrealloc(proc_reg.sessions,
			    proc_reg.capsessions * sizeof(*proc_reg.sessions));
		}
		proc_reg.sessions[proc_reg.nsessions++] = pid;
	}
	proc_reg.c[proc_reg.n++] = (struct proc_child){ .pid = pid, .group = s->group };
	proc_reg.spawned = true;
	pthread_mutex_unlock(&proc_reg.lock);
	return pid;
}

/* ---- ending ---------------------------------------------------------------- */

int
proc_wait(pid_t pid)
{
	siginfo_t si;
	bool group;
	int rc;

	/* Wait without reaping, so that pid stays ours (and so does its
	 * group) until it is out of the registry. */
	while (waitid(P_PID, (id_t)pid, &si, WEXITED | WNOWAIT) < 0) {
		if (errno != EINTR)
			break;
	}
	pthread_mutex_lock(&proc_reg.lock);
	struct proc_child *c = proc_find(pid);

	group = c != NULL && c->group;
	pthread_mutex_unlock(&proc_reg.lock);
	/* A leader that is gone takes its group with it: what it left
	 * (the plugin under `sh -c "aws ..."`) is ended as the leader
	 * would have been. */
	if (group && proc_group_alive(pid))
		return proc_end(pid, SIGHUP);
	pthread_mutex_lock(&proc_reg.lock);
	proc_forget(pid);
	rc = proc_reap(pid);
	pthread_mutex_unlock(&proc_reg.lock);
	return rc;
}

int
proc_end(pid_t pid, int sig)
{
	struct proc_child c;
	static const int ladder[] = { SIGTERM, SIGKILL };

	if (pid <= 0)
		return 255;
	pthread_mutex_lock(&proc_reg.lock);
	struct proc_child *p = proc_find(pid);

	c = p != NULL ? *p : (struct proc_child){ .pid = pid };
	pthread_mutex_unlock(&proc_reg.lock);
	if (p == NULL)		/* not ours, or reaped already */
		return 255;
	for (size_t step = 0; step <= sizeof(ladder) / sizeof(ladder[0]); step++) {
		double due = clock_now() + PROC_GRACE_S;

		proc_signal(&c, step == 0 ? sig : ladder[step - 1]);
		while (!proc_over(&c) && clock_now() < due)
			proc_nap();
		if (proc_over(&c))
			break;
	}
	pthread_mutex_lock(&proc_reg.lock);
	bool mine = proc_find(pid) != NULL;
	int rc = 255;

	if (mine) {
		proc_forget(pid);
		rc = proc_reap(pid);
	}
	pthread_mutex_unlock(&proc_reg.lock);
	return rc;
}

void
proc_hangup(pid_t pid)
{
	pthread_mutex_lock(&proc_reg.lock);
	struct proc_child *c = proc_find(pid);

	if (c != NULL)
		proc_signal(c, SIGHUP);
	pthread_mutex_unlock(&proc_reg.lock);
}

/* Under proc_reg.lock: did one of our group children lead session sid? */
static bool
proc_our_session(pid_t sid)
{
	for (size_t i = 0; i < proc_reg.nsessions; i++)
		if (proc_reg.sessions[i] == sid)
			return true;
	return false;
}

/* Orphans fscp adopted (proc_own_children): what ssh's ProxyCommand
 * left when ssh hung up on it, say.  Zombies are reaped; live ones of
 * our session or of one our children lead are collected (a daemon, such
 * as a ControlPersist master, made a session of its own and is left to
 * live). */
struct proc_adopted {
	pid_t me, sid;
	pid_t *live;
	size_t n, cap;
};

/* Under proc_reg.lock (so no registered child is taken for one). */
static bool
proc_adopted_one(const struct proc_stat *p, void *arg)
{
	struct proc_adopted *a = arg;

	if (p->ppid != a->me || proc_find(p->pid) != NULL)
		return false;
	if (p->dead) {
		(void)waitpid(p->pid, NULL, WNOHANG);
	} else if (p->sid == a->sid || proc_our_session(p->sid)) {
		if (a->n == a->cap) {
			a->cap = a->cap ? a->cap * 2 : 8;
			a->live = xrealloc(a->live, a->cap * sizeof(*a->live));
		}
		a->live[a->n++] = p->pid;
	}
	return false;
}

/* Under proc_reg.lock: end the adopted orphans of our session, with the
 * ladder; more are adopted as their parents die, so it looks again. */
static void
proc_end_adopted(void)
{
	struct proc_adopted a = { .me = getpid(), .sid = getsid(0) };
	static const int ladder[] = { SIGHUP, SIGHUP, SIGTERM, SIGKILL, SIGKILL };
	bool none, ended = false;

	for (size_t step = 0; step < sizeof(ladder) / sizeof(ladder[0]); step++) {
		double due = clock_now() + PROC_GRACE_S / 2;

		a.n = 0;
		(void)proc_scan(1, proc_adopted_one, &a, &none);
		if (a.n == 0)
			break;
		ended = true;
		for (size_t i = 0; i < a.n; i++)
			kill(a.live[i], ladder[step]);
		for (size_t i = 0; i < a.n; i++) {
			while (!proc_exited(a.live[i]) && clock_now() < due)
				proc_nap();
			if (proc_exited(a.live[i]))
				(void)waitpid(a.live[i], NULL, WNOHANG);
		}
	}
	/* The last zombies; a scan that found none alive reaped its own. */
	a.n = 0;
	if (ended)
		(void)proc_scan(1, proc_adopted_one, &a, &none);
	free(a.live);
}

void
proc_end_all(int sig)
{
	double due;

	pthread_mutex_lock(&proc_reg.lock);
	if (sig == 0 && proc_reg.signalled) {
		/* An exit that follows what the signal's end did (a
		 * connection it closed): the signal's end exits, as scp's
		 * killchild() would have, before anything else. */
		pthread_mutex_unlock(&proc_reg.lock);
		for (;;)
			pause();
	}
	proc_reg.ending = true;
	proc_reg.signalled = sig > 0;
	for (int step = 0; step < 3 && proc_reg.n > 0; step++) {
		for (size_t i = 0; i < proc_reg.n; i++) {
			const struct proc_child *c = &proc_reg.c[i];
			/* ssh as scp's killchild() ends it (it shares our
			 * group and ends its own ProxyCommand); a group of its
			 * own as ssh ends its ProxyCommand. */
			int first = c->group ? SIGHUP : sig > 0 ? sig : SIGTERM;

			proc_signal(c, step == 0 ? first : step == 1 ? SIGTERM : SIGKILL);
		}
		due = clock_now() + PROC_GRACE_S;
		for (;;) {
			size_t left = 0;

			for (size_t i = 0; i < proc_reg.n; i++)
				left += !proc_over(&proc_reg.c[i]);
			if (left == 0 || clock_now() >= due)
				break;
			proc_nap();
		}
		for (size_t i = 0; i < proc_reg.n;) {
			if (proc_over(&proc_reg.c[i])) {
				(void)proc_reap(proc_reg.c[i].pid);
				proc_reg.c[i] = proc_reg.c[--proc_reg.n];
			} else {
				i++;
			}
		}
	}
	if (proc_reg.spawned)
		proc_end_adopted();
	pthread_mutex_unlock(&proc_reg.lock);
}

struct proc_watcher {
	void (*on)(int sig);
};

static void *
proc_watch(void *arg)
{
	struct proc_watcher *w = arg;
	sigset_t set;
	int sig;

	sigemptyset(&set);
	for (size_t i = 0; i < sizeof(proc_end_signals) / sizeof(proc_end_signals[0]); i++)
		sigaddset(&set, proc_end_signals[i]);
	for (;;) {
		if (sigwait(&set, &sig) == 0)
			w->on(sig);
	}
	return NULL;
}

int
proc_own_children(void (*on)(int sig))
{
	sigset_t set;
	pthread_t tid;
	struct proc_watcher *w = xmalloc(sizeof(*w));

	w->on = on;
	sigemptyset(&set);
	for (size_t i = 0; i < sizeof(proc_end_signals) / sizeof(proc_end_signals[0]); i++)
		sigaddset(&set, proc_end_signals[i]);
	/* Blocked here before any other thread exists: every thread
	 * inherits the mask, and only the watcher takes them. */
	if (pthread_sigmask(SIG_BLOCK, &set, NULL) != 0) {
		free(w);
		return -1;
	}
#if defined(__linux__) && defined(PR_SET_CHILD_SUBREAPER)
	/* What our children leave behind is ours: ssh hangs up on its
	 * ProxyCommand's shell, and the shell's children come to us. */
	(void)prctl(PR_SET_CHILD_SUBREAPER, 1);
#endif
	if (pthread_create(&tid, NULL, proc_watch, w) != 0) {
		free(w);
		pthread_sigmask(SIG_UNBLOCK, &set, NULL);
		return -1;
	}
	pthread_detach(tid);
	return 0;
}

/* ---- running and capturing --------------------------------------------- */

int
proc_run(const struct proc_spec *s, char *err, size_t errlen)
{
	pid_t pid = proc_spawn(s, err, errlen);

	return pid < 0 ? 255 : proc_wait(pid);
}

/* ---- capture ------------------------------------------------------------ */

struct proc_buf {
	char *p;
	size_t n, cap;
};

static void
proc_buf_add(struct proc_buf *b, const char *s, size_t n)
{
	if (b->n + n + 1 > b->cap) {
		b->cap = (b->n + n + 1) * 2;
		b->p = xrealloc(b->p, b->cap);
	}
	memcpy(b->p + b->n, s, n);
	b->n += n;
	b->p[b->n] = '\0';
}

/* Read both pipes (rd[1] may be -1) until EOF or the deadline (< 0: none).
 * Returns false when the deadline passed. */
static bool
proc_drain(int rd[2], struct proc_buf b[2], long long deadline)
{
	while (rd[0] != -1 || rd[1] != -1) {
		struct pollfd pf[2] = { { rd[0], POLLIN, 0 }, { rd[1], POLLIN, 0 } };
		long long left = deadline < 0 ? -1 : deadline - clock_now_ms();
		char tmp[4096];
		int r;

		if (deadline >= 0 && left <= 0)
			return false;
		r = poll(pf, 2, (int)left);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			break;
		for (int i = 0; i < 2; i++) {
			ssize_t n;

			if (rd[i] == -1 || pf[i].revents == 0)
				continue;
			n = read(rd[i], tmp, sizeof(tmp));
			if (n > 0)
				proc_buf_add(&b[i], tmp, (size_t)n);
			else if (n == 0 || (errno != EINTR && errno != EAGAIN)) {
				close(rd[i]);
				rd[i] = -1;
			}
		}
	}
	return true;
}

int
proc_capture(const struct proc_spec *s, bool want_err, int timeout_ms,
    struct proc_output *o, char *err, size_t errlen)
{
	int po[2] = { -1, -1 }, pe[2] = { -1, -1 }, rd[2];
	struct proc_buf b[2] = { { 0 }, { 0 } };
	struct proc_spec cs = *s;
	pid_t pid;

	memset(o, 0, sizeof(*o));
	if (pipe2(po, O_CLOEXEC) != 0 || (want_err && pipe2(pe, O_CLOEXEC) != 0)) {
		if (err != NULL && errlen > 0)
			snprintf(err, errlen, "pipe: %s", strerror(errno));
		for (int i = 0; i < 2; i++) {
			if (po[i] >= 0)
				close(po[i]);
			if (pe[i] >= 0)
				close(pe[i]);
		}
		return -1;
	}
	cs.out = po[1];
	if (want_err)
		cs.err = pe[1];
	pid = proc_spawn(&cs, err, errlen);
	close(po[1]);
	if (want_err)
		close(pe[1]);
	rd[0] = po[0];
	rd[1] = pe[0];
	if (pid < 0) {
		close(rd[0]);
		if (rd[1] >= 0)
			close(rd[1]);
		return -1;
	}
	if (!proc_drain(rd, b, timeout_ms < 0 ? -1 : clock_now_ms() + timeout_ms)) {
		o->timed_out = true;
		kill(s->group ? -pid : pid, SIGKILL);
	}
	for (int i = 0; i < 2; i++)
		if (rd[i] >= 0)
			close(rd[i]);
	o->status = proc_wait(pid);
	if (b[0].p == NULL)
		proc_buf_add(&b[0], "", 0);
	o->out = b[0].p;
	o->out_len = b[0].n;
	if (want_err) {
		if (b[1].p == NULL)
			proc_buf_add(&b[1], "", 0);
		o->err = b[1].p;
		o->err_len = b[1].n;
	}
	return 0;
}

void
proc_output_free(struct proc_output *o)
{
	free(o->out);
	free(o->err);
	memset(o, 0, sizeof(*o));
}

bool
proc_read_text(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "re");
	size_t n;

	if (f == NULL)
		return false;
	n = fread(buf, 1, len - 1, f);
	buf[n] = '\0';
	fclose(f);
	return n > 0;
}

/* The CPUs this process's cgroup may use (its CPU quota, rounded up),
 * cgroup v2 or v1; 0 when it has no quota or none can be read. */
static int
proc_cgroup_cpus(void)
{
	FILE *f = fopen("/proc/self/cgroup", "re");
	char line[512], path[1024], val[128];
	long long quota = -1, period = 0;

	if (f == NULL)
		return 0;
	while (quota < 0 && fgets(line, sizeof(line), f) != NULL) {
		char *ctl = strchr(line, ':'), *cg = ctl ? strchr(ctl + 1, ':') : NULL;

		if (cg == NULL)
			continue;
		*cg++ = '\0';
		cg[strcspn(cg, "\n")] = '\0';
		if (strcmp(cg, "/") == 0)
			cg = (char *)"";
		if (strcmp(ctl + 1, "") == 0) {		/* v2: "0::/path" */
			static const char *roots[] = { "/sys/fs/cgroup", "/sys/fs/cgroup/unified" };

			for (size_t i = 0; i < 2 && quota < 0; i++) {
				snprintf(path, sizeof(path), "%s%s/cpu.max", roots[i], cg);
				if (proc_read_text(path, val, sizeof(val)) &&
				    sscanf(val, "%lld %lld", &quota, &period) != 2)
					quota = -1;
			}
		} else if (strstr(ctl + 1, "cpu") != NULL && strstr(ctl + 1, "cpuset") == NULL) {
			static const char *roots[] = { "/sys/fs/cgroup/cpu", "/sys/fs/cgroup/cpu,cpuacct" };

			for (size_t i = 0; i < 2 && quota < 0; i++) {
				snprintf(path, sizeof(path), "%s%s/cpu.cfs_quota_us", roots[i], cg);
				if (!proc_read_text(path, val, sizeof(val)) ||
				    sscanf(val, "%lld", &quota) != 1)
					continue;
				snprintf(path, sizeof(path), "%s%s/cpu.cfs_period_us", roots[i], cg);
				if (!proc_read_text(path, val, sizeof(val)) ||
				    sscanf(val, "%lld", &period) != 1)
					quota = -1;
			}
		}
	}
	fclose(f);
	if (quota <= 0 || period <= 0)
		return 0;
	return (int)((quota + period - 1) / period);
}

int
proc_cores(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	cpu_set_t set;
	int quota = proc_cgroup_cpus();

	/* What this process may run on: its affinity and its cgroup's CPU
	 * quota count, not only what the machine has. */
	if (sched_getaffinity(0, sizeof(set), &set) == 0 && CPU_COUNT(&set) < n)
		n = CPU_COUNT(&set);
	if (quota > 0 && quota < n)
		n = quota;
	return n < 1 ? 1 : n > 1024 ? 1024 : (int)n;
}
