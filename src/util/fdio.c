/* SPDX-License-Identifier: ISC
 * Copyright (c) 2026 The fscp authors.  See LICENSE. */
#include "config.h"
#include "util/fdio.h"

#include <errno.h>
#include <unistd.h>

ssize_t
fdio_read(int fd, void *buf, size_t n)
{
	ssize_t r;

	do
		r = read(fd, buf, n);
	while (r < 0 && errno == EINTR);
	return r;
}

int
fdio_read_all(int fd, void *buf, size_t n)
{
	char *s = buf;

	while (n > 0) {
		ssize_t r = fdio_read(fd, s, n);

		if (r == 0)
			errno = 0;
		if (r <= 0)
			return -1;
		s += r;
		n -= (size_t)r;
	}
	return 0;
}

int
fdio_write_all(int fd, const void *buf, size_t n)
{
	const char *s = buf;

	while (n > 0) {
		ssize_t r = write(fd, s, n);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -1;
		s += r;
		n -= (size_t)r;
	}
	return 0;
}
