/* SPDX-License-Identifier: MIT */
/*
 * CMX 3600 EDL (edl_parse.c): text in, finalized timeline out, every
 * problem found in diag.  The mapping of events, channels, transitions and
 * speeds onto tracks is in docs/formats.md.
 */
#ifndef ENG_EDL_H
#define ENG_EDL_H

#include <stddef.h>

#include "timeline/load.h"

/* CMX 3600 EDL (edl_parse.c); same contract as eng_tl_parse. */
int eng_edl_parse(const char *path, const char *name, const char *text,
		  size_t len, const struct eng_load_options *opt,
		  struct eng_timeline **out, struct eng_diag *diag);

#endif /* ENG_EDL_H */
