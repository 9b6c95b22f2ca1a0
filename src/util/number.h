/* SPDX-License-Identifier: ISC
 * Copyright (c) 2026 The fscp authors.  See LICENSE. */
/* number: numbers and ports read as OpenSSH reads them. */
#ifndef FSCP_NUMBER_H
#define FSCP_NUMBER_H

/* OpenBSD strtonum(): base 10, whole string; *errstr is NULL or one of
 * "invalid", "too small", "too large" (scp prints these words). */
long long number_strtonum(const char *s, long long lo, long long hi,
    const char **errstr);
/* misc.c a2port(): 0..65535 or a tcp service name; -1 when neither. */
int number_a2port(const char *s);
/* OpenBSD scan_scaled(): "64K", "1.5M", ...; 0 on success, else -1 with
 * *err set to EINVAL or ERANGE. */
int number_scan_scaled(const char *s, long long *result, int *err);

#endif
