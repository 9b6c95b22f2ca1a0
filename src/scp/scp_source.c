/* SPDX-License-Identifier: ISC AND SSH-short AND BSD-2-Clause AND BSD-3-Clause
 * Copyright (c) 2026 The fscp authors.  See LICENSE. */
/* scp_source: scp's source() and rsource() over an scp_wire.
 *
 * Derived from source(), rsource() and do_times() in OpenSSH's scp.c.  Its
 * notice, as its licence requires:
 *
 * 1995 Timo Rinne <tri@iki.fi>, Tatu Ylonen <ylo@cs.hut.fi>
 *
 * As far as I am concerned, the code I have written for this software
 * can be used freely for any purpose.  Any derived versions of this
 * software must be clearly marked as such, and if the derived work is
 * incompatible with the protocol description in the RFC file, it must be
 * called by a name other than "ssh" or "Secure Shell".
 *
 * Copyright (c) 1999 Theo de Raadt.  All rights reserved.
 * Copyright (c) 1999 Aaron Campbell.  All rights reserved.
 *
 * Redistribution and use in source and binary forms, with or without
 * modification, are permitted provided that the following conditions
 * are met:
 * 1. Redistributions of source code must retain the above copyright
 *    notice, this list of conditions and the following disclaimer.
 * 2. Redistributions in binary form must reproduce the above copyright
 *    notice, this list of conditions and the following disclaimer in the
 *    documentation and/or other materials provided with the distribution.
 *
 * THIS SOFTWARE IS PROVIDED BY THE AUTHOR ``AS IS'' AND ANY EXPRESS OR
 * IMPLIED WARRANTIES, INCLUDING, BUT NOT LIMITED TO, THE IMPLIED WARRANTIES
 * OF MERCHANTABILITY AND FITNESS FOR A PARTICULAR PURPOSE ARE DISCLAIMED.
 * IN NO EVENT SHALL THE AUTHOR BE LIABLE FOR ANY DIRECT, INDIRECT,
 * INCIDENTAL, SPECIAL, EXEMPLARY, OR CONSEQUENTIAL DAMAGES (INCLUDING, BUT
 * NOT LIMITED TO, PROCUREMENT OF SUBSTITUTE GOODS OR SERVICES; LOSS OF USE,
 * DATA, OR PROFITS; OR BUSINESS INTERRUPTION) HOWEVER CAUSED AND ON ANY
 * THEORY OF LIABILITY, WHETHER IN CONTRACT, STRICT LIABILITY, OR TORT
 * (INCLUDING NEGLIGENCE OR OTHERWISE) ARISING IN ANY WAY OUT OF THE USE OF
 * THIS SOFTWARE, EVEN IF ADVISED OF THE POSSIBILITY OF SUCH DAMAGE.
 *
 * Parts from:
 *
 * Copyright (c) 1983, 1990, 1992, 1993, 1995
 *	The Regents of the University of California.  All rights reserved.
 *
 * Redistribution and use in source and binary forms, with or without
 * modification, are permitted provided that the following conditions
 * are met:
 * 1. Redistributions of source code must retain the above copyright
 *    notice, this list of conditions and the following disclaimer.
 * 2. Redistributions in binary form must reproduce the above copyright
 *    notice, this list of conditions and the following disclaimer in the
 *    documentation and/or other materials provided with the distribution.
 * 3. Neither the name of the University nor the names of its contributors
 *    may be used to endorse or promote products derived from this software
 *    without specific prior written permission.
 *
 * THIS SOFTWARE IS PROVIDED BY THE REGENTS AND CONTRIBUTORS ``AS IS'' AND
 * ANY EXPRESS OR IMPLIED WARRANTIES, INCLUDING, BUT NOT LIMITED TO, THE
 * IMPLIED WARRANTIES OF MERCHANTABILITY AND FITNESS FOR A PARTICULAR PURPOSE
 * ARE DISCLAIMED.  IN NO EVENT SHALL THE REGENTS OR CONTRIBUTORS BE LIABLE
 * FOR ANY DIRECT, INDIRECT, INCIDENTAL, SPECIAL, EXEMPLARY, OR CONSEQUENTIAL
 * DAMAGES (INCLUDING, BUT NOT LIMITED TO, PROCUREMENT OF SUBSTITUTE GOODS
 * OR SERVICES; LOSS OF USE, DATA, OR PROFITS; OR BUSINESS INTERRUPTION)
 * HOWEVER CAUSED AND ON ANY THEORY OF LIABILITY, WHETHER IN CONTRACT, STRICT
 * LIABILITY, OR TORT (INCLUDING NEGLIGENCE OR OTHERWISE) ARISING IN ANY WAY
 * OUT OF THE USE OF THIS SOFTWARE, EVEN IF ADVISED OF THE POSSIBILITY OF
 * SUCH DAMAGE.
 */
#include "config.h"
#include "scp/scp_source.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/xmalloc.h"
#include "engine/bwlimit.h"
#include "engine/progress.h"
#include "scp/scp_proto.h"

/* scp reads and writes its data in blocks of this size (COPY_BUFLEN). */
#define SOURCE_BLOCK (16u * 1024)

static void source_one(struct scp_wire *w, const char *arg);

/* scp's do_times(): T record, then the peer's reply. */
static int
send_times(struct scp_wire *w, const struct stat *st)
{
	char line[64];
	size_t n = scpp_format_time(line, sizeof(line), (long long)st->st_mtime,
	    (long long)st->st_atime);

	if (w->o.verbose) {
		fprintf(stderr, "File mtime %lld atime %lld\n", (long long)st->st_mtime,
		    (long long)st->st_atime);
		fprintf(stderr, "Sending file timestamps: %s", line);
	}
	scp_wire_write(w, line, n);
	return scp_wire_response(w);
}

static const char *
last_component(const char *name)
{
	const char *s = strrchr(name, '/');

	return s != NULL ? s + 1 : name;
}

/* rsource(): D, each entry (readdir order, no . and ..), E. */
static void
send_dir(struct scp_wire *w, const char *name, const struct stat *st)
{
	DIR *d = opendir(name);
	struct dirent *de;
	char line[1100];

	if (d == NULL) {
		scp_wire_run_err(w, "%s: %s", name, strerror(errno));
		return;
	}
	if (w->o.preserve && send_times(w, st) < 0) {
		closedir(d);
		return;
	}
	size_t n = scpp_format_dir(line, sizeof(line), st->st_mode, last_component(name));

	scp_wire_verbose(w, "Entering directory: %s", line);
	scp_wire_write(w, line, n);
	if (scp_wire_response(w) < 0) {
		closedir(d);
		return;
	}
	while ((de = readdir(d)) != NULL) {
		if (de->d_ino == 0 || strcmp(de->d_name, ".") == 0 ||
		    strcmp(de->d_name, "..") == 0)
			continue;
		/* scp builds the path in a PATH_MAX buffer. */
		if (strlen(name) + 1 + strlen(de->d_name) >= PATH_MAX - 1) {
			scp_wire_run_err(w, "%s/%s: name too long", name, de->d_name);
			continue;
		}
		char *path = xasprintf("%s/%s", name, de->d_name);

		source_one(w, path);
		free(path);
		if (scp_wire_ended(w))
			break;
	}
	closedir(d);
	scp_wire_write(w, "E\n", 2);
	(void)scp_wire_response(w);
}

/* The data of an open file: size bytes whatever happens, zeros after a
 * read error so the peer stays in step; returns the read error or 0.
 * A failed write ends the copy (lost connection), as in scp. */
static int
send_data(struct scp_wire *w, int fd, off_t size)
{
	static char block[SOURCE_BLOCK];
	int err = 0;

	for (off_t done = 0; done < size;) {
		size_t amt = size - done < (off_t)sizeof(block) ? (size_t)(size - done) : sizeof(block);
		size_t got = 0;

		while (err == 0 && got < amt) {
			ssize_t r = read(fd, block + got, amt - got);

			if (r < 0 && errno == EINTR)
				continue;
			if (r <= 0) {
				/* scp's atomicio() calls EOF EPIPE: a file that
				 * shrank is "Broken pipe". */
				err = r < 0 ? errno : EPIPE;
				break;
			}
			got += (size_t)r;
		}
		if (err != 0)
			memset(block + got, 0, amt - got);
		scp_wire_write(w, block, amt);
		if (scp_wire_ended(w))
			break;
		done += (off_t)amt;
		if (err == 0) {
			bwlimit_account(w->o.bw, amt);
			progress_update(w->o.pm, done);
		}
	}
	return err;
}

/* T (with -p), C, the data, the status byte.  Closes fd. */
static void
send_file(struct scp_wire *w, const char *name, int fd, const struct stat *st)
{
	char line[PATH_MAX + 128];
	const char *last = last_component(name);

	if (w->o.preserve && send_times(w, st) < 0) {
		close(fd);
		return;
	}
	size_t n = scpp_format_file(line, sizeof(line), st->st_mode, (long long)st->st_size, last);

	scp_wire_verbose(w, "Sending file modes: %s", line);
	scp_wire_write(w, line, n);
	if (scp_wire_response(w) < 0) {
		close(fd);
		return;
	}
	progress_start(w->o.pm, last, st->st_size);
	int err = send_data(w, fd, st->st_size);

	if (scp_wire_ended(w)) {
		close(fd);
		return;
	}
	scp_wire_debug_unblock(w, STDOUT_FILENO);

	if (close(fd) < 0 && err == 0)
		err = errno;
	if (err == 0)
		scp_wire_ack(w);
	else
		scp_wire_run_err(w, "%s: %s", name, strerror(err));
	if (scp_wire_response(w) < 0 && scp_wire_ended(w))
		return;
	progress_finish(w->o.pm);
}

static void
source_one(struct scp_wire *w, const char *arg)
{
	char *name;
	size_t len;
	struct stat st;
	int fd;

	if (scp_wire_ended(w))
		return;
	name = xstrdup(arg);
	len = strlen(name);
	while (len > 1 && name[len - 1] == '/')
		name[--len] = '\0';
	/* Non-blocking so a FIFO does not hang the open, as in scp. */
	fd = open(name, O_RDONLY | O_NONBLOCK);
	if (fd < 0 || fstat(fd, &st) < 0) {
		scp_wire_run_err(w, "%s: %s", name, strerror(errno));
		goto out;
	}
	if (strchr(name, '\n') != NULL) {
		char *vis = scpp_vis_nl(name);

		free(name);
		name = vis;
	}
	(void)fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
	scp_wire_debug_unblock(w, fd);
	if (S_ISDIR(st.st_mode) && w->o.recursive) {
		send_dir(w, name, &st);
	} else if (!S_ISREG(st.st_mode)) {
		scp_wire_run_err(w, "%s: not a regular file", name);
	} else {
		send_file(w, name, fd, &st);
		fd = -1;
	}
out:
	if (fd >= 0)
		close(fd);
	free(name);
}

void
scp_source_run(struct scp_wire *w, char **names, int n)
{
	for (int i = 0; i < n && !scp_wire_ended(w); i++)
		source_one(w, names[i]);
}
