/* SPDX-License-Identifier: MIT */
/*
 * Prometheus's text exposition format: per metric a # HELP and a # TYPE
 * line, then its samples; seconds and bytes as the base units, counters
 * named _total.  Quantiles of the headroom as a summary's.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>

#include "play/metrics.h"

static const char *const kinds[2] = { "play", "record" };

/* snprintf appending at *len, the length counted past cap */
static void put(char *buf, size_t cap, size_t *len, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(*len < cap ? buf + *len : NULL,
		      *len < cap ? cap - *len : 0, fmt, ap);
	va_end(ap);
	if (n > 0)
		*len += (size_t)n;
}

static void head(char *buf, size_t cap, size_t *len, const char *name,
		 const char *type, const char *help)
{
	put(buf, cap, len, "# HELP timelinefs_%s %s\n# TYPE timelinefs_%s %s\n",
	    name, help, name, type);
}

/* One sample per kind of stream. */
static void by_kind(char *buf, size_t cap, size_t *len, const char *name,
		    const uint64_t v[2])
{
	int k;

	for (k = 0; k < 2; k++)
		put(buf, cap, len, "timelinefs_%s{kind=\"%s\"} %" PRIu64 "\n",
		    name, kinds[k], v[k]);
}

void eng_metrics_add_play(struct eng_metrics *m, int64_t frames,
			  uint64_t bytes, const int64_t *late_causes,
			  const struct eng_headroom *headroom)
{
	int c;

	m->frames[0] += frames;
	m->bytes[0] += bytes;
	for (c = 0; c < ENG_CAUSE_N; c++)
		m->late_causes[c] += late_causes[c];
	eng_headroom_merge(&m->headroom, headroom);
}

size_t eng_metrics_format(char *buf, size_t cap, const struct eng_metrics *m)
{
	static const double q[] = { 0, 0.01, 0.05, 0.5 };
	/* the recorder's: one sample each */
	struct {
		const char *name, *type, *help;
		uint64_t v;
	} rec[] = {
		{ "recorder_rows_pending", "gauge",
		  "Access rows handed to the recorder and not yet committed "
		  "(its queue and hold).", 0 },
		{ "recorder_rows_held", "gauge",
		  "Access rows held in memory while the database refuses "
		  "writes.", 0 },
		{ "recorder_rows_written_total", "counter",
		  "Access rows committed to the database.", 0 },
		{ "recorder_rows_lost_total", "counter",
		  "Access rows given up on.", 0 },
		{ "recorder_queue_full_waits_total", "counter",
		  "Times a stream found the recorder's queue full and waited.",
		  0 },
	};
	const uint64_t frames[2] = { (uint64_t)m->frames[0],
				     (uint64_t)m->frames[1] };
	size_t len = 0, i;
	int c;

	if (cap)
		buf[0] = '\0';
	head(buf, cap, &len, "streams", "gauge", "Streams open now.");
	by_kind(buf, cap, &len, "streams", m->streams);
	head(buf, cap, &len, "streams_opened_total", "counter",
	     "Streams opened since the mount.");
	by_kind(buf, cap, &len, "streams_opened_total", m->opened);
	head(buf, cap, &len, "frames_total", "counter",
	     "Frames played (play) or received whole (record) since the mount.");
	by_kind(buf, cap, &len, "frames_total", frames);
	head(buf, cap, &len, "bytes_total", "counter",
	     "Bytes served to readers (play) or taken from writers (record).");
	by_kind(buf, cap, &len, "bytes_total", m->bytes);
	head(buf, cap, &len, "late_frames_total", "counter",
	     "Play streams' frames done after their due time, by cause "
	     "(the database's late_frame rule).");
	for (c = ENG_CAUSE_ISSUE; c < ENG_CAUSE_N; c++)
		put(buf, cap, &len,
		    "timelinefs_late_frames_total{cause=\"%s\"} %" PRId64 "\n",
		    eng_cause_name((enum eng_cause)c), m->late_causes[c]);
	head(buf, cap, &len, "dropped_frames_total", "counter",
	     "Record streams' frames written after their due time.");
	put(buf, cap, &len, "timelinefs_dropped_frames_total %" PRId64 "\n",
	    m->dropped);
	head(buf, cap, &len, "headroom_seconds", "summary",
	     "Due minus done of each played frame's last read (below 0: late); "
	     "quantile 0 exact, the others within 12 %.");
	for (i = 0; m->headroom.n && i < sizeof(q) / sizeof(q[0]); i++)
		put(buf, cap, &len,
		    "timelinefs_headroom_seconds{quantile=\"%g\"} %.9f\n", q[i],
		    (double)eng_headroom_quantile(&m->headroom, q[i]) / 1e9);
	put(buf, cap, &len, "timelinefs_headroom_seconds_sum %.9f\n",
	    (double)m->headroom.sum_ns / 1e9);
	put(buf, cap, &len, "timelinefs_headroom_seconds_count %" PRIu64 "\n",
	    m->headroom.n);
	rec[0].v = m->rows_queued - m->rows_written - m->rows_lost;
	rec[1].v = m->rows_held;
	rec[2].v = m->rows_written;
	rec[3].v = m->rows_lost;
	rec[4].v = m->queue_full_waits;
	for (i = 0; i < sizeof(rec) / sizeof(rec[0]); i++) {
		head(buf, cap, &len, rec[i].name, rec[i].type, rec[i].help);
		put(buf, cap, &len, "timelinefs_%s %" PRIu64 "\n", rec[i].name,
		    rec[i].v);
	}
	return len;
}
