/* SPDX-License-Identifier: ISC
 * Copyright (c) 2026 The fscp authors.  See LICENSE. */
#include "config.h"
#include "util/log.h"
#include "util/mtext.h"
#include "util/xmalloc.h"

#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>

static const char *progname = "fscp";
static int verbosity;
static bool route_lines;	/* FSCP_VERBOSE=route */
static atomic_int nerrors;
/* Workers report from several threads: one lock keeps lines whole. */
static pthread_mutex_t out_lock = PTHREAD_MUTEX_INITIALIZER;

void
log_init(const char *argv0, int verbose)
{
	if (argv0 != NULL && *argv0 != '\0')
		progname = argv0;
	verbosity = verbose;
}

const char *
log_progname(void)
{
	return progname;
}

int
log_level(void)
{
	return verbosity;
}

int
log_errors(void)
{
	return atomic_load(&nerrors);
}

void
log_count_error(void)
{
	atomic_fetch_add(&nerrors, 1);
}

static void
emit(const char *prefix, const char *eol, const char *fmt, va_list ap)
{
	pthread_mutex_lock(&out_lock);
	if (prefix != NULL)
		fprintf(stderr, "%s: ", prefix);
	vfprintf(stderr, fmt, ap);
	fputs(eol, stderr);
	fflush(stderr);
	pthread_mutex_unlock(&out_lock);
}

/* OpenSSH's log.c buffer (MSGBUFSIZ): the message, its escaped form and
 * the whole line are each cut to fit it. */
#define LOG_MSGBUF 1024

/* One byte as strnvis(VIS_SAFE | VIS_OCTAL) writes it, into out (4 bytes
 * and a NUL at most); returns the length.  Printable ASCII, space, tab,
 * newline, BS, BEL and CR stay; a backslash is doubled; the rest is \ooo. */
static size_t
log_vis_byte(unsigned char c, char *out)
{
	if (c == '\\')
		return (size_t)snprintf(out, 5, "\\\\");
	if ((c > ' ' && c < 0x7f) || c == ' ' || c == '\t' || c == '\n' || c == '\b' ||
	    c == '\a' || c == '\r') {
		out[0] = (char)c;
		out[1] = '\0';
		return 1;
	}
	return (size_t)snprintf(out, 5, "\\%03o", c);
}

/* Append n bytes of s to buf (len so far), cut at cap. */
static void
log_append(char *buf, size_t *len, size_t cap, const char *s, size_t n)
{
	if (n > cap - *len)
		n = cap - *len;
	memcpy(buf + *len, s, n);
	*len += n;
}

/* A log.c line ("argv0: msg\r\n"), as do_log() makes it for stderr. */
static void
emit_logc(const char *fmt, va_list ap)
{
	char msg[LOG_MSGBUF], vis[LOG_MSGBUF], line[LOG_MSGBUF];
	size_t n = 0;

	vsnprintf(msg, sizeof(msg), fmt, ap);
	/* strnvis() stops before an escape that would not fit whole. */
	for (const char *p = msg; *p != '\0'; p++) {
		char e[5];
		size_t el = log_vis_byte((unsigned char)*p, e);

		if (n + el >= sizeof(vis))
			break;
		memcpy(vis + n, e, el);
		n += el;
	}
	/* snprintf(line, "%s: %.*s\r\n", argv0, sizeof(line) - 3, vis). */
	size_t ll = 0, cap = sizeof(line) - 1;

	log_append(line, &ll, cap, progname, strlen(progname));
	log_append(line, &ll, cap, ": ", 2);
	log_append(line, &ll, cap, vis, n < sizeof(line) - 3 ? n : sizeof(line) - 3);
	log_append(line, &ll, cap, "\r\n", 2);
	line[ll] = '\0';
	pthread_mutex_lock(&out_lock);
	fputs(line, stderr);
	fflush(stderr);
	pthread_mutex_unlock(&out_lock);
}

void
log_verror(const char *fmt, va_list ap)
{
	log_count_error();
	emit_logc(fmt, ap);
}

void
log_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_verror(fmt, ap);
	va_end(ap);
}

void
log_warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	emit_logc(fmt, ap);
	va_end(ap);
}

/* The out-of-memory path's end (util/xmalloc.c): the only exit below
 * cli/.  Every other fatal() is carried back to main() as a status. */
void
log_fatal(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	emit_logc(fmt, ap);
	va_end(ap);
	exit(255);
}

void
log_runerr(const char *fmt, ...)
{
	va_list ap;

	char *msg, *vis;

	log_count_error();
	va_start(ap, fmt);
	msg = xvasprintf(fmt, ap);
	va_end(ap);
	/* scp's run_err() prints with vfmprintf(): the whole line escaped
	 * as the locale allows, then a bare newline. */
	vis = mtext_vis(msg);
	pthread_mutex_lock(&out_lock);
	fputs(vis, stderr);
	fputs("\n", stderr);
	fflush(stderr);
	pthread_mutex_unlock(&out_lock);
	free(vis);
	free(msg);
}

void
log_verbose(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	if (verbosity >= 1)
		emit("fscp", "\n", fmt, ap);
	va_end(ap);
}

void
log_debug(int level, const char *fmt, ...)
{
	va_list ap;

	if (verbosity < level)
		return;
	va_start(ap, fmt);
	emit("fscp: debug", "\n", fmt, ap);
	va_end(ap);
}

void
log_set_route(bool on)
{
	route_lines = on;
}

void
log_route(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	if (verbosity >= 1 || route_lines)
		emit("fscp", "\n", fmt, ap);
	va_end(ap);
}
