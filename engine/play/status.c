/* SPDX-License-Identifier: MIT */
/* The text of the live .status file: what `watch -n1 cat` shows. */
#include <stdarg.h>
#include <stdio.h>

#include "play/status.h"

struct out {
	char *buf;
	size_t cap;
	size_t len;
};

static void put(struct out *o, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void put(struct out *o, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(o->len < o->cap ? o->buf + o->len : NULL,
		      o->len < o->cap ? o->cap - o->len : 0, fmt, ap);
	va_end(ap);
	if (n > 0)
		o->len += (size_t)n;
}

static double mb_s(uint64_t bytes, uint64_t ns)
{
	return ns ? (double)bytes * 1e3 / (double)ns : 0.0;
}

size_t eng_status_host(char *buf, size_t cap, const char *name,
		       const char *machine_id, const char *experiment,
		       int rank)
{
	struct out o = { buf, cap, 0 };

	if (cap)
		buf[0] = '\0';
	/* 8 digits tell machines apart at a glance, as git's short ids */
	put(&o, "host %s, machine %.8s", name ? name : "?",
	    machine_id && machine_id[0] ? machine_id : "?");
	if (experiment)
		put(&o, ", rank %d of experiment %s", rank, experiment);
	return o.len;
}

size_t eng_status_format(char *buf, size_t cap, const char *host,
			 const struct eng_status_row *rows, size_t n)
{
	struct out o = { buf, cap, 0 };
	uint64_t bytes = 0, worst = 0, rbytes = 0;
	int64_t late = 0, failed = 0, rframes = 0, dropped = 0;
	double rate = 0, rrate = 0;
	size_t i, nrec = 0;

	if (cap)
		buf[0] = '\0';
	if (host)
		put(&o, "%s\n", host);
	put(&o, "%-24s %-18s %17s %8s %6s %6s %9s\n", "timeline", "reader",
	    "frames", "MB/s", "late", "failed", "worst_ms");
	for (i = 0; i < n; i++) {
		const struct eng_status_row *r = &rows[i];
		char reader[64], frames[40];

		snprintf(reader, sizeof(reader), "%s[%d]", r->comm, r->pid);
		/* a recording has no total: frames received, and "record" */
		if (r->record)
			snprintf(frames, sizeof(frames), "record %lld",
				 (long long)r->frames_played);
		else
			snprintf(frames, sizeof(frames), "%lld/%lld",
				 (long long)r->frames_played,
				 (long long)r->frames_total);
		put(&o, "%-24s %-18s %17s %8.2f %6lld %6lld %9.2f\n",
		    r->timeline, reader, frames, mb_s(r->bytes, r->elapsed_ns),
		    (long long)r->late_frames, (long long)r->failed_frames,
		    (double)r->worst_ns / 1e6);
		if (r->worst_ns > worst)
			worst = r->worst_ns;
		if (r->record) {
			nrec++;
			rbytes += r->bytes;
			rframes += r->frames_played;
			dropped += r->late_frames;
			rrate += mb_s(r->bytes, r->elapsed_ns);
			failed += r->failed_frames;
			continue;
		}
		bytes += r->bytes;
		late += r->late_frames;
		failed += r->failed_frames;
		rate += mb_s(r->bytes, r->elapsed_ns);
	}
	if (!nrec) {
		put(&o, "total: %zu stream%s, %.2f MB/s, %.1f MB served, "
		    "%lld late, %lld failed, worst %.2f ms\n", n,
		    n == 1 ? "" : "s", rate, (double)bytes / 1e6,
		    (long long)late, (long long)failed, (double)worst / 1e6);
		return o.len;
	}
	/* a record row's "late" is its dropped frames: said apart */
	put(&o, "total: %zu stream%s (%zu play, %zu record), play %.2f MB/s, "
	    "%.1f MB served, %lld late; record %.2f MB/s, %.1f MB, %lld "
	    "frames, %lld dropped; %lld failed, worst %.2f ms\n", n,
	    n == 1 ? "" : "s", n - nrec, nrec, rate, (double)bytes / 1e6,
	    (long long)late, rrate, (double)rbytes / 1e6, (long long)rframes,
	    (long long)dropped, (long long)failed, (double)worst / 1e6);
	return o.len;
}
