/* SPDX-License-Identifier: MIT */
/*
 * Many hosts (docs/design.md "Many hosts"): the pure rules of an
 * experiment that timelinefs-hosts runs on one rank per client host under
 * MPI.  No MPI, no clock, no I/O here: the launcher (launcher/) measures and
 * sends, these decide, so each rule is unit-tested (tests/unit/test_hosts.c)
 * on made-up samples and verdicts.
 *
 * clock.c: a host's clock offset to rank 0 from ping-pong samples, and a
 *   time of one clock put on the other's axis.
 * share.c: a step's workstations spread over the live hosts, the hosts
 *   that straggled.
 * findmax.c: the search for the largest number of workstations that plays
 *   with no late frame in every repetition (doubling, then bisecting),
 *   and a step's verdict by the causes of its late frames.
 *
 * Clocks: every time here is a CLOCK_REALTIME time in ns (int64_t: ns since
 * the epoch), each of its own host.  A host's offset is its clock minus rank
 * 0's: rank 0's time t is this host's t + offset.  Lateness never uses these:
 * it stays per host, on its own monotonic clock.
 */
#ifndef ENG_HOSTS_H
#define ENG_HOSTS_H

#include <stddef.h>
#include <stdint.h>

/* ------------------------------------------------------------ clock.c */

/* One ping-pong exchange, seen from rank 0: rank 0 sent at t_send (its
 * clock), the host read its clock at t_host and answered, rank 0 got the
 * answer at t_recv (its clock). */
struct eng_clock_sample {
	int64_t t_send;
	int64_t t_host;
	int64_t t_recv;
};

/* The offset (host minus rank 0) and round trip of the sample with the
 * shortest round trip (NTP's rule: its midpoint assumption errs by at most
 * half its round trip): offset = t_host - (t_send + t_recv) / 2, rtt =
 * t_recv - t_send.  Samples with t_recv < t_send, or whose round trip or
 * offset overflows int64_t, are ignored; of equal round trips the first
 * (earliest) is taken.  0, or -EINVAL (no usable sample; *offset_ns and
 * *rtt_ns untouched). */
int eng_clock_offset(const struct eng_clock_sample *s, size_t n,
		     int64_t *offset_ns, int64_t *rtt_ns);

/* A host's time t (its clock) on rank 0's axis, the offset interpolated
 * linearly between the one measured at the start (at host time t_start)
 * and at the end (at t_end), so that a drift between them is followed:
 * t - offset(t), rounded to the ns.  Outside [t_start, t_end] the nearer
 * one's offset; with no end measurement (has_end 0, a host that died) the
 * start's, and also when the line is no line: t_end <= t_start, or a drift
 * |offset_end - offset_start| >= t_end - t_start (a clock that does not
 * run forward, which the inverse could not undo). */
struct eng_clock_line {
	int64_t t_start, offset_start;
	int64_t t_end, offset_end;
	int has_end;
};
int64_t eng_clock_axis(const struct eng_clock_line *l, int64_t t);
/* The inverse: rank 0's time t0 (a step's start) on the host's clock:
 * eng_clock_axis(l, eng_clock_local(l, t0)) is t0 to within 1 ns. */
int64_t eng_clock_local(const struct eng_clock_line *l, int64_t t0);

/* ------------------------------------------------------------ share.c */

/* Workstation i of a step of total workstations over live hosts goes to
 * live host i % live: live host k (0-based, in rank order among the live
 * ones) plays total / live, plus one when k < total % live.  0 when live
 * is 0 or k >= live. */
unsigned eng_hosts_share(unsigned total, unsigned live, unsigned k);

/* The stragglers of a step: host i's step ended at end_ns[i] (rank 0's
 * axis; played[i] 0: it played nothing, left out) and began at
 * start_ns[i].  A host straggles when its end is later than the median
 * end of the hosts that played by more than max(min_ns, frac * the median
 * step time (end - start)); a negative min_ns or frac counts as 0.  The
 * median of an even count is the lower middle one, so that of two hosts
 * the later straggles when it ended that much after the other (the mean
 * of the two would halve its lag, and with it the verdict's margin).
 * Sets straggle[i] to 1 or 0 and returns how many straggled; lag_ns[i]
 * gets end_ns[i] - median end (0 for a host that played nothing); either
 * array may be NULL.  A single host never straggles. */
unsigned eng_hosts_stragglers(const int64_t *start_ns, const int64_t *end_ns,
			      const int *played, size_t n, int64_t min_ns,
			      double frac, int *straggle, int64_t *lag_ns);

/* A fixed-size text field of a message from another rank (a host name,
 * a reason) made a string that ends within its size bytes, each control
 * character (a newline, an escape) made a blank, so that it prints as one
 * line of plain text: a rank's message is not trusted to end.  Nothing
 * for size 0. */
void eng_hosts_text(char *field, size_t size);

/* ------------------------------------------------------------ findmax.c */

/* The search for the most workstations (in total) that play with 0 late
 * (and 0 dropped, 0 failed) frames in every repetition (late: of the
 * causes judged, eng_findmax_judge).  From `from`, the
 * count doubles while it passes (capped at `cap`), then the interval
 * between the largest that passed (lo) and the smallest that failed (hi)
 * is bisected until hi - lo <= 1.  A count that failed once is not
 * repeated (eng_findmax_result with passed 0 after any repetition).
 *
 * Ends: lo = the answer, hi = lo + 1 (bracket [lo, hi]); hi = 0 when even
 * `cap` passed (the answer is "at least cap": more need more timelines or
 * hosts); lo = 0 when 1 failed (no count plays). */
struct eng_findmax {
	unsigned from, cap;
	unsigned lo;	 /* largest count that passed; 0: none yet */
	unsigned hi;	 /* smallest count that failed; 0: none yet */
	unsigned next;	 /* the count to play next; 0: done */
	unsigned probes; /* counts decided so far */
};

/* A step's verdict may weigh only some causes of a late frame (the
 * late_frame view's cause, docs/database.md): on a loaded machine a few
 * frames its own CPU made late (issue, timer) would make find-max
 * measure the host, not the storage.  The causes, in late_frame's
 * words: */
enum eng_cause {
	ENG_CAUSE_STORAGE,
	ENG_CAUSE_ISSUE,
	ENG_CAUSE_TIMER,
	ENG_CAUSE_READER,
	ENG_CAUSE_RECORDING,
	ENG_CAUSE_WRITER,
	ENG_CAUSE_N
};
#define ENG_CAUSES_ALL ((1u << ENG_CAUSE_N) - 1)
/* "storage", "issue", ...: late_frame's cause of each enum value. */
extern const char *const eng_cause_names[ENG_CAUSE_N];

/* A list of causes ("all", or names joined by commas, each once, in any
 * order) into a mask of 1u << enum eng_cause bits: 0, or -EINVAL (an
 * unknown or repeated name, an empty one, "all" beside a name; *mask
 * untouched). */
int eng_late_causes_parse(const char *list, unsigned *mask);
/* The mask in words, as parsed: "all" for ENG_CAUSES_ALL, else the names
 * in enum order joined by commas ("" for 0).  snprintf's return. */
int eng_late_causes_text(unsigned mask, char *buf, size_t len);

/* What one host's share of a step played: its play streams' late frames
 * (stream.late_frames), late_frame's rows of them by cause (all 0 when
 * not asked: with every cause judged they do not matter), and the frames
 * a recording dropped and the frames whose reads failed. */
struct eng_step_late {
	int64_t late;
	int64_t by_cause[ENG_CAUSE_N];
	int64_t dropped, failed;
};
/* The step's verdict by the causes of mask: *judged gets its late frames
 * of those causes, and those late_frame gives no cause (a stream whose
 * access rows were not recorded: a frame of unknown cause is never
 * waved through), *other (may be NULL) those of the other causes.  1
 * (passed) when judged, dropped and failed frames are all 0, else 0.
 * With ENG_CAUSES_ALL: judged = late, as before causes were weighed. */
int eng_findmax_judge(const struct eng_step_late *s, unsigned mask,
		      int64_t *judged, int64_t *other);

/* from >= 1, cap >= from: 0, else -EINVAL. */
int eng_findmax_init(struct eng_findmax *f, unsigned from, unsigned cap);
/* The count to play next, 0 when the search is done (or f is NULL). */
unsigned eng_findmax_next(const struct eng_findmax *f);
/* The verdict on the count eng_findmax_next() gave (all its repetitions
 * passed: 1; a repetition failed: 0).  0, or -EINVAL (count is not the
 * next one, the search is done, or f is NULL; f unchanged).  The doubling
 * stops at cap (never past it, nor wraps); the probes are logarithmic:
 * at most 2 * ceil(log2(cap)) + 2. */
int eng_findmax_result(struct eng_findmax *f, unsigned count, int passed);
/* The bracket found so far (see above; lo or hi may be NULL); 1 when
 * done, else 0. */
int eng_findmax_bracket(const struct eng_findmax *f, unsigned *lo,
			unsigned *hi);

#endif
