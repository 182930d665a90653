/* SPDX-License-Identifier: MIT */
/*
 * The live metrics of the mount's hidden .metrics/timelinefs.prom, in
 * Prometheus's text exposition format (version 0.0.4), for
 * node_exporter's textfile collector: from the counters the daemon has
 * (players' and recordings' stats, the recorder's), no query.
 */
#ifndef ENG_METRICS_H
#define ENG_METRICS_H

#include <stddef.h>
#include <stdint.h>

#include "play/cause.h"

/* Kinds of stream: [0] play (a timeline read), [1] record (ingest). */
struct eng_metrics {
	uint64_t streams[2];	/* open now */
	uint64_t opened[2];	/* opened since the mount */
	int64_t frames[2];	/* played / received whole, since the mount */
	uint64_t bytes[2];	/* served / received, since the mount */
	/* the play streams' late frames by cause, since the mount */
	int64_t late_causes[ENG_CAUSE_N];
	int64_t dropped;	/* the record streams' dropped frames */
	struct eng_headroom headroom;	/* every played frame's */
	/* the recorder (the store's queue of access rows) */
	uint64_t rows_queued, rows_written, rows_lost, rows_held;
	uint64_t queue_full_waits;
};

/* Add a play stream's totals (its player's late_causes, headroom,
 * frames and bytes) to m. */
void eng_metrics_add_play(struct eng_metrics *m, int64_t frames,
			  uint64_t bytes, const int64_t *late_causes,
			  const struct eng_headroom *headroom);

/* The exposition text of m into buf (NUL-terminated when cap > 0):
 * its length, like snprintf (format again with a buffer that large). */
size_t eng_metrics_format(char *buf, size_t cap, const struct eng_metrics *m);

#endif /* ENG_METRICS_H */
