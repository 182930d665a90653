/* SPDX-License-Identifier: MIT */
/*
 * Why a frame was late, live: the rule of the database's late_access and
 * late_frame views (schema/30-analysis.sql, docs/database.md) applied to
 * a stream's rows as the player records them, so that the mount's live
 * metrics count late frames by cause without a query.  Pure: the rows
 * in, the causes out.
 */
#ifndef ENG_CAUSE_H
#define ENG_CAUSE_H

#include <stdint.h>

struct eng_access;	/* play/player.h */

/* The causes, in the order a frame with late rows of several takes the
 * greatest (late_frame's: recording over storage over reader ...). */
enum eng_cause {
	ENG_CAUSE_NONE = 0,	/* on time */
	ENG_CAUSE_ISSUE,	/* issued late, no evidence why */
	ENG_CAUSE_TIMER,	/* the filler woke late (wake_ns) */
	ENG_CAUSE_READER,	/* the ring was full (ring_fill) */
	ENG_CAUSE_STORAGE,	/* its reads, or the storage's backlog */
	ENG_CAUSE_RECORDING,	/* waited for a clip being recorded */
	ENG_CAUSE_N
};

/* The name late_frame.cause gives it ("storage" ...; "" for NONE). */
const char *eng_cause_name(enum eng_cause c);

/* Headroom (due - done of a frame's last read) of many frames: its
 * count, its least exactly and a histogram of 10 bins a decade of
 * microseconds each side of 0 (from 1 us to 1000 s; beyond, the last
 * bin; within 1 us of 0, the middle one), for quantiles within 12 %. */
#define ENG_HR_DECADES 9
#define ENG_HR_SIDE (10 * ENG_HR_DECADES)
#define ENG_HR_BINS (2 * ENG_HR_SIDE + 1)
struct eng_headroom {
	uint64_t n;
	int64_t sum_ns;
	int64_t min_ns;			/* valid when n > 0 */
	uint64_t bins[ENG_HR_BINS];	/* the most negative first */
};
/* Count one frame's headroom of ns. */
void eng_headroom_add(struct eng_headroom *h, int64_t ns);
/* Add src's frames to dst's. */
void eng_headroom_merge(struct eng_headroom *dst,
			const struct eng_headroom *src);
/* The q-quantile (0 <= q <= 1), nearest-rank from the least as the
 * database's (rank ceil(n q), at least 1): the least exactly for rank 1,
 * else its bin's geometric middle.  0 when n is 0. */
int64_t eng_headroom_quantile(const struct eng_headroom *h, double q);

/* One play stream's backlog (zeroed to start; no allocation). */
struct eng_cause_state {
	uint64_t max_done;	/* the latest completion of its reads */
	uint64_t idle_ns, timer_ns, reader_ns;	/* the backlog's so far */
};

/* Row a of the stream, in issue order (waits, ENG_OP_AWAIT, apart: a
 * late one is ENG_CAUSE_RECORDING, and they leave the backlog alone),
 * its ring of ring_frames slots: the backlog updated, and the row's
 * cause (ENG_CAUSE_NONE when it was done by its due time). */
enum eng_cause eng_cause_row(struct eng_cause_state *c,
			     const struct eng_access *a, uint64_t ring_frames);

#endif /* ENG_CAUSE_H */
