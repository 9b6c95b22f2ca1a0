/* SPDX-License-Identifier: ISC
 * Copyright (c) 2026 The fscp authors.  See LICENSE. */
/* dynlib: a shared library opened the first time something needs it, not
 * at start-up.  libssh and libcrypto cost every process that links them a
 * few milliseconds of mapping and relocation before main(), as much as a
 * small copy through a ControlMaster spends on everything else; only a
 * bypass (and a resume journal's name) uses them. */
#ifndef FSCP_DYNLIB_H
#define FSCP_DYNLIB_H

#include <stdbool.h>
#include <stddef.h>

/* One function to resolve: addr points at the function pointer to fill. */
struct dynlib_sym {
	const char *name;
	void *addr;
};

/* One library, opened at most once for the whole process. */
struct dynlib {
	const char *soname;
	const struct dynlib_sym *syms;
	size_t nsyms;
	/* Filled by dynlib_load. */
	bool ok;
	char err[256];
};

/* Open l->soname and resolve every symbol of l, once: later calls, from
 * any thread, return what the first one did (l->err says why not).  The
 * library stays loaded until the process ends. */
bool dynlib_load(struct dynlib *l);

#endif
