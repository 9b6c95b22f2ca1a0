/* SPDX-License-Identifier: ISC
 * Copyright (c) 2026 The fscp authors.  See LICENSE. */
/* Unit tests for the engine's retire (xfer.c, xfer_worker.c): connections
 * that joined since the time a tick hands back take no more work, and
 * the copy still ends whole over the ones left.  The peers are real:
 * OpenSSH's sftp-server on pipes, one per connection, and each stream
 * counts what it carried. */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../check_main.h"
#include "engine/xfer.h"
#include "sftp/sftp.h"
#include "transport/stream.h"
#include "util/clock.h"

#ifndef SFTP_SERVER
#define SFTP_SERVER "/usr/lib/openssh/sftp-server"
#endif

#define MiB (1024u * 1024)
#define FILE_BYTES (24 * MiB)
#define CHUNK (256u * 1024)

struct pipe_peer {
	int in, out;		/* the server's stdout, its stdin */
	pid_t pid;
	uint64_t wrote;		/* bytes this connection sent */
	uint64_t got;		/* ... and received */
	bool slow;		/* a millisecond a read or write: the joined
				   ones find work whatever the machine's load */
};

static void
peer_pace(const struct pipe_peer *p)
{
	if (p->slow)
		nanosleep(&(struct timespec){ 0, 1000000 }, NULL);
}

static ssize_t
peer_read(void *ctx, void *buf, size_t n)
{
	struct pipe_peer *p = ctx;
	ssize_t r;

	peer_pace(p);
	while ((r = read(p->in, buf, n)) < 0 && errno == EINTR)
		;
	if (r > 0)
		__atomic_add_fetch(&p->got, (uint64_t)r, __ATOMIC_RELAXED);
	return r;
}

static ssize_t
peer_write(void *ctx, const void *buf, size_t n)
{
	struct pipe_peer *p = ctx;
	const char *b = buf;

	peer_pace(p);
	for (size_t left = n; left > 0;) {
		ssize_t w = write(p->out, b, left);

		if (w > 0) {
			b += w;
			left -= (size_t)w;
		} else if (w == 0 || errno != EINTR) {
			return -1;
		}
	}
	__atomic_add_fetch(&p->wrote, n, __ATOMIC_RELAXED);
	return (ssize_t)n;
}

static int
peer_close(void *ctx)
{
	struct pipe_peer *p = ctx;
	int st = 0;

	close(p->out);
	close(p->in);
	while (waitpid(p->pid, &st, 0) < 0 && errno == EINTR)
		;
	return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : -1;
}

static const struct fscp_stream_ops peer_ops = { peer_read, peer_write, peer_close, NULL };

static struct sftp_conn *
peer_open(struct pipe_peer *p)
{
	int to[2], from[2];
	char err[256];
	struct sftp_conn *c;

	/* Close-on-exec: another connection's server must not hold this
	 * one's stdin open (it would never see the end). */
	ck_assert_int_eq(pipe2(to, O_CLOEXEC), 0);
	ck_assert_int_eq(pipe2(from, O_CLOEXEC), 0);
	p->pid = fork();
	ck_assert_int_ge(p->pid, 0);
	if (p->pid == 0) {
		dup2(to[0], 0);
		dup2(from[1], 1);
		execl(SFTP_SERVER, "sftp-server", (char *)NULL);
		_exit(127);
	}
	close(to[0]);
	close(from[1]);
	p->out = to[1];
	p->in = from[0];
	p->wrote = p->got = 0;
	p->slow = false;
	c = sftp_open((struct fscp_stream){ &peer_ops, p, "sftp-server pipes" }, 0, NULL, err,
	    sizeof(err));
	ck_assert_msg(c != NULL, "sftp-server: %s", err);
	return c;
}

/* The joiner hands out the prepared connections, one a call. */
struct joiner {
	struct sftp_conn **c;
	int n, next;
	int ticks;
	double retire_at;	/* what every tick hands back */
};

static struct sftp_conn *
join_next(void *ctx)
{
	struct joiner *j = ctx;

	return j->next < j->n ? j->c[j->next++] : NULL;
}

static void
join_stop(void *ctx)
{
	(void)ctx;
}

static double
join_tick(void *ctx, uint64_t moved, uint64_t total)
{
	struct joiner *j = ctx;

	(void)moved;
	(void)total;
	j->ticks++;
	return j->retire_at;
}

static char dir[32];

static void
make_source(const char *path)
{
	FILE *f = fopen(path, "wb");
	unsigned char buf[65536];
	unsigned seed = 12345;

	ck_assert_ptr_nonnull(f);
	for (size_t done = 0; done < FILE_BYTES; done += sizeof(buf)) {
		for (size_t i = 0; i < sizeof(buf); i++)
			buf[i] = (unsigned char)((seed = seed * 1103515245u + 12345u) >> 16);
		ck_assert_uint_eq(fwrite(buf, 1, sizeof(buf), f), sizeof(buf));
	}
	ck_assert_int_eq(fclose(f), 0);
}

static bool
same_files(const char *a, const char *b)
{
	char cmd[400];

	snprintf(cmd, sizeof(cmd), "cmp -s '%s' '%s'", a, b);
	return system(cmd) == 0;
}

/* Copy over one connection and two that join; retire_at says from when
 * joined ones take no more work.  Back: the bytes of data the joined
 * ones carried (sent up, or received down). */
static uint64_t
copy(enum xfer_dir dir_, double retire_at, const char *name)
{
	struct pipe_peer peers[3];
	struct sftp_conn *c[3];
	char src[160], dst[160];
	/* One piece in flight a connection: a joined one holds little when
	 * the tick retires it. */
	struct xfer_params p = { .chunk_size = CHUNK, .chunk_max = CHUNK,
		.upload_inflight_bytes = CHUNK, .inflight_bytes = CHUNK };
	struct joiner j = { .c = c + 1, .n = 2, .retire_at = retire_at };
	struct xfer_joiner jr = { .next = join_next, .stop = join_stop, .tick = join_tick,
		.tick_s = 0.002, .ctx = &j, .max = 2, .planned = 2 };
	struct xfer *x;
	uint64_t joined;

	snprintf(src, sizeof(src), "%s/source", dir);
	snprintf(dst, sizeof(dst), "%s/%s", dir, name);
	for (int i = 0; i < 3; i++)
		c[i] = peer_open(&peers[i]);
	/* The first connection is the slow one, so that how much the joined
	 * ones carry depends on retiring, not on how soon they came up on a
	 * loaded machine. */
	peers[0].slow = true;
	x = xfer_new(&p, c, 1);
	xfer_set_joiner(x, &jr);
	if (dir_ == XFER_UP)
		xfer_add(x, &(struct xfer_item){ .dir = XFER_UP, .local = src, .remote = dst,
		    .size = FILE_BYTES, .perm = 0644 }, NULL);
	else
		xfer_add(x, &(struct xfer_item){ .dir = XFER_DOWN, .local = dst, .remote = src,
		    .size = FILE_BYTES, .perm = 0644 }, NULL);
	ck_assert_int_eq(xfer_run(x), 0);
	xfer_free(x);
	ck_assert_msg(j.ticks > 0, "no tick came");
	ck_assert_msg(same_files(src, dst), "%s differs from the source", dst);
	joined = dir_ == XFER_UP ? peers[1].wrote + peers[2].wrote :
	    peers[1].got + peers[2].got;
	for (int i = 0; i < 3; i++)
		ck_assert_int_eq(sftp_close(c[i]), 0);
	return joined;
}

static void
retire_check(enum xfer_dir d)
{
	/* Every joined connection retires as soon as a tick sees it: each
	 * keeps at most the pieces it took before, and the first carries
	 * the rest. */
	uint64_t retired = copy(d, 0, d == XFER_UP ? "up-retired" : "down-retired");
	/* None retires: the joined ones share the work. */
	uint64_t shared = copy(d, -1, d == XFER_UP ? "up-shared" : "down-shared");

	fprintf(stderr, "check_retire: %s: the joined connections carried %llu bytes "
	    "retired, %llu not\n", d == XFER_UP ? "up" : "down", (unsigned long long)retired,
	    (unsigned long long)shared);
	ck_assert_msg(retired < FILE_BYTES / 4, "retired connections carried %llu of %u bytes",
	    (unsigned long long)retired, FILE_BYTES);
	ck_assert_msg(shared > 2 * retired, "joined connections carried %llu, retired %llu",
	    (unsigned long long)shared, (unsigned long long)retired);
}

START_TEST(retired_take_no_more_work_up)
{
	retire_check(XFER_UP);
}
END_TEST

START_TEST(retired_take_no_more_work_down)
{
	retire_check(XFER_DOWN);
}
END_TEST

static void
setup(void)
{
	char src[128];

	signal(SIGPIPE, SIG_IGN);
	snprintf(dir, sizeof(dir), "/tmp/fscp-retire.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(src, sizeof(src), "%s/source", dir);
	make_source(src);
}

static void
teardown(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	(void)system(cmd);
}

static Suite *
retire_suite(void)
{
	Suite *s = suite_create("retire");
	TCase *tc = tcase_create("retire");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, retired_take_no_more_work_up);
	tcase_add_test(tc, retired_take_no_more_work_down);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	if (access(SFTP_SERVER, X_OK) != 0) {
		/* A unit that cannot run here fails (the runner says why). */
		fprintf(stderr, "check_retire: %s is not here (openssh-sftp-server)\n",
		    SFTP_SERVER);
		return EXIT_FAILURE;
	}
	return check_main(retire_suite());
}
