#include "config.h"
#include "util/log.h"

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

void
log_verror(const char *fmt, va_list ap)
{
	log_count_error();
	emit(progname, "\r\n", fmt, ap);
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
	emit(progname, "\r\n", fmt, ap);
	va_end(ap);
}

void
log_fatal(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	emit(progname, "\r\n", fmt, ap);
	va_end(ap);
	exit(255);
}

void
log_runerr(const char *fmt, ...)
{
	va_list ap;

	log_count_error();
	va_start(ap, fmt);
	emit(NULL, "\n", fmt, ap);
	va_end(ap);
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
