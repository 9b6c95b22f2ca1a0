/* SPDX-License-Identifier: ISC
 * Copyright (c) 2026 The fscp authors.  See LICENSE. */
/* scp_source: the sending side of the legacy protocol, scp.c source() and
 * rsource(): for each name a T record (-p), a C record and the data, or
 * with -r a D record, the directory's entries and E; every record waits
 * for the peer's reply.  Used by `fscp -f` and by the -O upload. */
#ifndef FSCP_SCP_SOURCE_H
#define FSCP_SCP_SOURCE_H

#include "scp/scp_wire.h"

/* Send each of names (local paths).  Errors go through run_err; stops
 * where scp would exit (w ended: scp_wire_ended()). */
void scp_source_run(struct scp_wire *w, char **names, int n);

#endif
