/* SPDX-License-Identifier: ISC
 * Copyright (c) 2026 The fscp authors.  See LICENSE. */
/* fdio: read and write on a descriptor through signals (EINTR retried):
 * the byte streams of the standard route (ssh's pipes, a master's
 * session) and the messages of the mux protocol. */
#ifndef FSCP_FDIO_H
#define FSCP_FDIO_H

#include <stddef.h>
#include <sys/types.h>

/* read(): at most n bytes, 0 at EOF, -1 on error. */
ssize_t fdio_read(int fd, void *buf, size_t n);
/* All n bytes read; 0, or -1 at EOF (errno 0) or on error. */
int fdio_read_all(int fd, void *buf, size_t n);
/* All n bytes written; 0, or -1 on error. */
int fdio_write_all(int fd, const void *buf, size_t n);

#endif
