/* SPDX-License-Identifier: ISC
 * Copyright (c) 2026 The fscp authors.  See LICENSE. */
/* sshconn-try: open one sshconn session from options given on the command
 * line (no ssh -G involved) and push bytes through a channel.
 *
 *   sshconn-try [options] HOST
 *     -p PORT  -l USER  -k KNOWN_HOSTS (repeat)  -g GLOBAL_KNOWN_HOSTS (repeat)
 *     -a HOSTKEYALIAS  -s yes|ask|accept-new|no  -B (BatchMode)
 *     -i IDENTITY (repeat)  -I (IdentitiesOnly)  -A AGENT|none
 *     -c CONNECT_HOST  -P CONNECT_PORT  -C (compress)  -x (probe only)
 *     -t CONNECT_TIMEOUT  -r READ_BUF_BYTES  -H (hash added names)
 *     -y CIPHERS  -K KEXALGORITHMS  -v (say what sshconn decides)
 *     -X MS  MS ms after the socket is up, shut it down (as fscp stops a
 *            connection it no longer wants); say how long the open took
 *     -c/-P: connect there, verify under HOST/alias
 *   actions (after connecting):
 *     -S        sftp subsystem: send INIT, print "VERSION n"
 *     -e CMD    exec CMD, read all output, print "BYTES n MB/s x"
 *     -n CHUNK  caller's read size for -e (default 32768)
 *
 * Exit status: 0 ok, 2 connect, 3 host key refused, 4 auth, 5 channel,
 * 6 host key left to ssh (it would ask), 1 other. */
#include "config.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/socket.h>

#include "util/log.h"
#include "util/strv.h"
#include "util/xmalloc.h"
#include "policy/sshcfg.h"
#include "transport/sshconn.h"

static double
now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int
read_full(struct fscp_stream *st, unsigned char *b, size_t n)
{
	size_t got = 0;

	while (got < n) {
		ssize_t r = st->ops->read(st->ctx, b + got, n - got);
		if (r <= 0)
			return -1;
		got += (size_t)r;
	}
	return 0;
}

static int
do_sftp_init(struct fscp_stream *st)
{
	/* uint32 length 5, byte SSH_FXP_INIT (1), uint32 version 3 */
	static const unsigned char init[9] = { 0, 0, 0, 5, 1, 0, 0, 0, 3 };
	unsigned char hdr[5], *rest;
	unsigned len;

	if (st->ops->write(st->ctx, init, sizeof(init)) != (ssize_t)sizeof(init))
		return -1;
	if (read_full(st, hdr, 5) < 0)
		return -1;
	len = (unsigned)hdr[0] << 24 | hdr[1] << 16 | hdr[2] << 8 | hdr[3];
	if (hdr[4] != 2 || len < 5 || len > 65536)
		return -1;
	rest = malloc(len - 1);
	if (rest == NULL || read_full(st, rest, len - 1) < 0) {
		free(rest);
		return -1;
	}
	printf("VERSION %u\n", (unsigned)rest[0] << 24 | rest[1] << 16 | rest[2] << 8 | rest[3]);
	free(rest);
	return 0;
}

static int
do_exec(struct fscp_stream *st, size_t chunk)
{
	unsigned char *b = xmalloc(chunk);
	unsigned long long total = 0;
	double t0 = now_s(), dt;
	ssize_t r;

	while ((r = st->ops->read(st->ctx, b, chunk)) > 0)
		total += (unsigned long long)r;
	dt = now_s() - t0;
	free(b);
	if (r < 0)
		return -1;
	printf("BYTES %llu MB/s %.1f\n", total, dt > 0 ? total / dt / 1e6 : 0.0);
	return 0;
}

/* -X: the socket's dup, shut down from a thread after ms. */
struct cut {
	int ms, fd;
	double t0;
	bool started;
	pthread_t tid;
};

static void *
cut_run(void *arg)
{
	struct cut *k = arg;
	struct timespec ts = { k->ms / 1000, (long)(k->ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
	shutdown(k->fd, SHUT_RDWR);
	return NULL;
}

static void
cut_socket(void *arg, int fd)
{
	struct cut *k = arg;

	k->fd = dup(fd);
	k->started = pthread_create(&k->tid, NULL, cut_run, k) == 0;
}

int
main(int argc, char **argv)
{
	struct cut cut = { .fd = -1 };
	struct sshcfg cfg;
	struct sshconn_params p;
	struct sshconn *c = NULL;
	struct fscp_stream st;
	const char *cmd = NULL;
	bool sftp = false;
	size_t chunk = 32768;
	char err[2048];
	int opt, rc = 0;
	enum sshconn_err e;

	log_init("sshconn-try", 0);
	memset(&cfg, 0, sizeof(cfg));
	memset(&p, 0, sizeof(p));
	cfg.port = 22;
	cfg.stricthostkeychecking = SHK_ASK;
	cfg.connecttimeout = -1;
	cfg.pubkeyauthentication = true;
	p.cfg = &cfg;
	p.proxy_fd = -1;

	while ((opt = getopt(argc, argv, "p:l:k:g:a:s:Bi:IA:c:P:Cxt:r:HSe:n:vy:K:X:")) != -1) {
		switch (opt) {
		case 'p': cfg.port = atoi(optarg); break;
		case 'l': cfg.user = xstrdup(optarg); break;
		case 'k': strv_push(&cfg.userknownhostsfiles, optarg); break;
		case 'g': strv_push(&cfg.globalknownhostsfiles, optarg); break;
		case 'a': cfg.hostkeyalias = xstrdup(optarg); break;
		case 's':
			cfg.stricthostkeychecking = !strcmp(optarg, "yes") ? SHK_YES :
			    !strcmp(optarg, "accept-new") ? SHK_ACCEPT_NEW :
			    !strcmp(optarg, "no") ? SHK_NO : SHK_ASK;
			break;
		case 'B': cfg.batchmode = true; break;
		case 'i': strv_push(&cfg.identityfiles, optarg); break;
		case 'I': cfg.identitiesonly = true; break;
		case 'A': cfg.identityagent = xstrdup(optarg); break;
		case 'c': p.connect_host = optarg; break;
		case 'P': p.connect_port = atoi(optarg); break;
		case 'C': p.compress = true; break;
		case 'x': p.probe_only = true; break;
		case 't': cfg.connecttimeout = atoi(optarg); break;
		case 'r': p.read_buf = strtoul(optarg, NULL, 0); break;
		case 'H': cfg.hashknownhosts = true; break;
		case 'S': sftp = true; break;
		case 'e': cmd = optarg; break;
		case 'n': chunk = strtoul(optarg, NULL, 0); break;
		case 'v': log_init("sshconn-try", 1); break;
		case 'y': cfg.ciphers = xstrdup(optarg); break;
		case 'K': cfg.kexalgorithms = xstrdup(optarg); break;
		case 'X': cut.ms = atoi(optarg); break;
		default:
			fprintf(stderr, "usage: sshconn-try [options] HOST (see the source)\n");
			return 1;
		}
	}
	if (optind != argc - 1) {
		fprintf(stderr, "usage: sshconn-try [options] HOST\n");
		return 1;
	}
	cfg.hostname = xstrdup(argv[optind]);
	cfg.host_arg = xstrdup(argv[optind]);

	if (cut.ms > 0) {
		p.on_socket = cut_socket;
		p.cb_arg = &cut;
	}
	cut.t0 = now_s();
	e = sshconn_open(&p, &c, err, sizeof(err));
	if (cut.started) {
		pthread_join(cut.tid, NULL);
		fprintf(stderr, "sshconn-try: open returned %.2f s after the cut\n",
		    now_s() - cut.t0 - cut.ms / 1000.0);
	}
	if (e != SSHCONN_OK) {
		fprintf(stderr, "sshconn-try: open failed (%d): %s\n", (int)e, err);
		rc = 1 + (int)e;
		goto out;
	}
	printf("CONNECTED hostkey %s\n", sshconn_hostkey_desc(c));
	if (sftp) {
		e = sshconn_sftp_stream(c, &st, err, sizeof(err));
		if (e != SSHCONN_OK) {
			fprintf(stderr, "sshconn-try: %s\n", err);
			rc = 5;
			goto out;
		}
		if (do_sftp_init(&st) < 0) {
			fprintf(stderr, "sshconn-try: sftp INIT/VERSION exchange failed\n");
			rc = 5;
		}
		printf("CLOSE %d\n", st.ops->close(st.ctx));
	}
	if (cmd != NULL && rc == 0) {
		e = sshconn_exec_stream(c, cmd, &st, err, sizeof(err));
		if (e != SSHCONN_OK) {
			fprintf(stderr, "sshconn-try: %s\n", err);
			rc = 5;
			goto out;
		}
		if (do_exec(&st, chunk) < 0) {
			fprintf(stderr, "sshconn-try: read failed\n");
			rc = 5;
		}
		printf("CLOSE %d\n", st.ops->close(st.ctx));
	}
out:
	sshconn_close(c);
	free(cfg.user);
	free(cfg.hostkeyalias);
	free(cfg.identityagent);
	free(cfg.ciphers);
	free(cfg.kexalgorithms);
	free(cfg.hostname);
	free(cfg.host_arg);
	strv_free(&cfg.userknownhostsfiles);
	strv_free(&cfg.globalknownhostsfiles);
	strv_free(&cfg.identityfiles);
	return rc;
}
