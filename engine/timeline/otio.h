/* SPDX-License-Identifier: MIT */
/*
 * OpenTimelineIO JSON (otio_parse.c, json-c): text in, finalized timeline
 * out, every problem found in diag.  The mapping is in docs/formats.md.
 */
#ifndef ENG_OTIO_H
#define ENG_OTIO_H

#include <stddef.h>

#include "timeline/load.h"

/* OpenTimelineIO JSON (otio_parse.c); same contract. */
int eng_otio_parse(const char *path, const char *name, const char *text,
		   size_t len, const struct eng_load_options *opt,
		   struct eng_timeline **out, struct eng_diag *diag);

#endif /* ENG_OTIO_H */
