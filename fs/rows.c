/* SPDX-License-Identifier: MIT */
/*
 * An engine access row as the store's: what a player's reads (fs/ops.c)
 * and a recording's writes (fs/ingest.c) both record, kept below both so
 * that neither calls the other.
 */
#include "fs.h"

void fs_access_add(struct store_stream *ss, const struct eng_access *a,
		   const char *track, const char *clip)
{
	struct store_access r = {
		.frame = a->frame,
		.track = track,
		.clip = clip,
		.file_offset = a->file_offset,
		.length = a->length,
		.sched_ns = a->sched_ns,
		.due_ns = a->due_ns,
		.issued_ns = a->issued_ns,
		.done_ns = a->done_ns,
		.err = (int16_t)a->err,
		.injected = (uint16_t)a->injected,
		.played = a->played != 0,
		.dep = a->dep != 0,
		.op = (uint8_t)a->op,
		.is_image = a->is_image != 0,
		.image = a->image,
		.wake_ns = STORE_NONE32,
		.ring_fill = STORE_NONE32,
	};

	if (a->filled) {
		r.wake_ns = a->wake_ns < STORE_NONE32 ?
			    (uint32_t)a->wake_ns : STORE_NONE32 - 1;
		r.ring_fill = a->ring_fill < STORE_NONE32 ?
			      (uint32_t)a->ring_fill : STORE_NONE32 - 1;
	}
	store_access_add(ss, &r);
}
