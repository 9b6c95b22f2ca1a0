/* SPDX-License-Identifier: ISC
 * Copyright (c) 2026 The fscp authors.  See LICENSE. */
#include "config.h"
#include "util/dynlib.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

static pthread_mutex_t dynlib_lock = PTHREAD_MUTEX_INITIALIZER;

/* Opened, or failed: a library is tried once. */
static bool
dynlib_tried(const struct dynlib *l)
{
	return l->ok || l->err[0] != '\0';
}

bool
dynlib_load(struct dynlib *l)
{
	void *h;
	bool ok;

	pthread_mutex_lock(&dynlib_lock);
	if (dynlib_tried(l)) {
		ok = l->ok;
		pthread_mutex_unlock(&dynlib_lock);
		return ok;
	}
	/* Local: its symbols bind only through the table, never to another
	 * library's by accident. */
	if ((h = dlopen(l->soname, RTLD_NOW | RTLD_LOCAL)) == NULL) {
		const char *e = dlerror();

		snprintf(l->err, sizeof(l->err), "%s", e != NULL ? e : l->soname);
		pthread_mutex_unlock(&dynlib_lock);
		return false;
	}
	for (size_t i = 0; i < l->nsyms; i++) {
		void *p = dlsym(h, l->syms[i].name);

		if (p == NULL) {
			snprintf(l->err, sizeof(l->err), "%s: no %s", l->soname,
			    l->syms[i].name);
			/* What was resolved stays pointing into the library,
			 * which stays loaded; nothing calls it (ok is false). */
			pthread_mutex_unlock(&dynlib_lock);
			return false;
		}
		/* POSIX: a function's address comes back as a void *. */
		memcpy(l->syms[i].addr, &p, sizeof(p));
	}
	l->ok = true;
	pthread_mutex_unlock(&dynlib_lock);
	return true;
}
