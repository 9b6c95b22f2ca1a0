#include "config.h"
#include "util/proc.h"
#include "util/clock.h"
#include "util/xmalloc.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

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
	if (s->search_path)
		execvp(file, s->argv);
	else
		execv(file, s->argv);
	if (s->msg == PROC_MSG_PERROR)
		dprintf(2, "%s: %s\n", file, strerror(errno));
	_exit(s->exec_status);
}

pid_t
proc_spawn(const struct proc_spec *s, char *err, size_t errlen)
{
	pid_t pid;

	/* Buffered output must not be written twice, by us and the child. */
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		if (err != NULL && errlen > 0)
			snprintf(err, errlen, "fork: %s", strerror(errno));
		return -1;
	}
	if (pid == 0)
		proc_child(s);
	return pid;
}

int
proc_wait(pid_t pid)
{
	int status;

	while (waitpid(pid, &status, 0) < 0) {
		if (errno != EINTR)
			return 255;
	}
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	return 255;
}

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
		kill(pid, SIGKILL);
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

int
proc_cores(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	return n < 1 ? 1 : n > 1024 ? 1024 : (int)n;
}
