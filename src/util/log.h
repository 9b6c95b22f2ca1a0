/* SPDX-License-Identifier: ISC
 * Copyright (c) 2026 The fscp authors.  See LICENSE. */
/* log: messages in scp's styles, by severity.
 *
 * scp writes three kinds of message and fscp must match each byte for byte:
 *  - log_error/log_fatal: log.c style, "<argv0>: msg\r\n" (CR LF, as OpenSSH's
 *    log.c does on stderr, with msg escaped as its strnvis(VIS_SAFE|VIS_OCTAL)
 *    does and cut at its 1 KiB buffer); fatal exits 255.  log_warn: the same line,
 *    not counted, for scp's error() calls after which the file still
 *    counts as copied.  log_fatal exits: only xmalloc's out of memory
 *    calls it; every other fatal() is a message carried back to main(),
 *    which says it with log_warn once everything is closed.
 *  - log_runerr: scp's run_err(), "msg\n" with no prefix, escaped as
 *    fmprintf() escapes; counts an error.
 *  - log_verbose: only with -v, "fscp: msg\n" for fscp's own decisions.
 *    log_route: the same for the route and its reason, also shown without
 *    -v when log_set_route(true) (FSCP_VERBOSE=route).
 */
#ifndef FSCP_LOG_H
#define FSCP_LOG_H

#include <stdarg.h>
#include <stdbool.h>

#if defined(__GNUC__)
#define FSCP_PRINTF(a, b) __attribute__((format(printf, a, b)))
#define FSCP_NORETURN __attribute__((noreturn))
#else
#define FSCP_PRINTF(a, b)
#define FSCP_NORETURN
#endif

void log_init(const char *argv0, int verbose);
const char *log_progname(void);
int log_level(void);

void log_error(const char *fmt, ...) FSCP_PRINTF(1, 2);
void log_warn(const char *fmt, ...) FSCP_PRINTF(1, 2);
void log_verror(const char *fmt, va_list ap) FSCP_PRINTF(1, 0);
void log_fatal(const char *fmt, ...) FSCP_PRINTF(1, 2) FSCP_NORETURN;
void log_runerr(const char *fmt, ...) FSCP_PRINTF(1, 2);
void log_verbose(const char *fmt, ...) FSCP_PRINTF(1, 2);
void log_route(const char *fmt, ...) FSCP_PRINTF(1, 2);
void log_set_route(bool on);
void log_debug(int level, const char *fmt, ...) FSCP_PRINTF(2, 3);

/* Number of errors counted so far (log_error and log_runerr count). */
int log_errors(void);
void log_count_error(void);

#endif
