/* SPDX-License-Identifier: ISC
 * Copyright (c) 2026 The fscp authors.  See LICENSE. */
/* scp_sink: the receiving side of the legacy protocol, scp.c sink().
 *
 * Reads records from the peer and writes files and directories under (or
 * as) targ, acknowledging each record as scp does.  Every name the peer
 * sends is checked first (scp_proto): nothing with '/', no "." or "..", no
 * directory without -r and, when src is given and neither -r nor -T is,
 * only names matching the last component of src's brace expansions.  Used
 * by `fscp -t` (src NULL) and by the -O download (src: the remote path
 * asked for). */
#ifndef FSCP_SCP_SINK_H
#define FSCP_SCP_SINK_H

#include "scp/scp_wire.h"

/* scp's sink(1, &targ, src).  Returns at the peer's EOF, or where scp
 * would exit (a protocol error: 1; an invalid brace pattern: fatal()'s
 * 255): then w has ended with that status (scp_wire_ended()). */
void scp_sink_run(struct scp_wire *w, const char *targ, const char *src);

#endif
