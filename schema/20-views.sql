-- SPDX-License-Identifier: MIT
-- timelinefs store: views over the tables (per access, per stream, per run).
--
-- Latency is done_ns - issued_ns of one backing read; a read is late when it
-- completed after its frame's due time (done_ns > due_ns).  Failed reads
-- count too (their latency is the time the read took to fail; errors counts
-- them).  Latencies are reported in microseconds, REAL rounded to 0.1 us.
--
-- Percentiles are nearest-rank: of the n latencies sorted ascending, the
-- p-th percentile is the one at 1-based rank ceil(n * p / 100), computed in
-- integers as (n * p + 99) / 100 over row_number() of a window ordered by
-- latency.  It is always an observed latency (no interpolation); max is
-- rank n.  Example: n = 20 gives p50 = rank 10, p95 = rank 19, p99 = rank 20.
--
-- Throughput mb_s is bytes / 1e6 / duration_s (decimal megabytes per second
-- of wall time) and is NULL while the duration is unknown or zero.

-- access_v: op is the operation's name (op.name: 'read', and for an
-- image sequence 'open', 'header', 'close'), image its image file's
-- number (NULL: not a sequence); schema version 10.
CREATE VIEW IF NOT EXISTS access_v AS
SELECT a.id, a.stream_id, s.run_id, a.frame, a.track, a.clip,
       a.file_offset, a.length, a.sched_ns, a.due_ns, a.issued_ns,
       a.done_ns, a.errno,
       a.done_ns - a.issued_ns AS latency_ns,
       a.done_ns > a.due_ns AS late,
       a.dep,
       coalesce(o.name, a.op) AS op,
       a.image
FROM access AS a JOIN stream AS s ON s.id = a.stream_id
LEFT JOIN op AS o ON o.id = a.op;

-- One row per stream.  late_frames and failed_frames are the player's counts
-- (per frame); late_accesses counts the individual late reads.
-- kib_per_request is the mean size of the reads the daemon answered
-- (bytes / requests / 1024): near the kernel's readahead window (1024 KiB)
-- for a plain dd in cached mode; far below it, the kernel was splitting the
-- stream into small requests.  dep_accesses counts the decoding
-- dependency reads among accesses (access.dep: long-GOP media, where a run
-- of it starts).  opens, header_reads and closes count an image sequence's
-- operations among accesses (access.op; its data reads are the rest).
-- (Schema version 2 added requests, kib_per_request, reloads and seeks,
-- version 4 tid and sid, version 8 dep_accesses, version 10 opens,
-- header_reads and closes; store_open recreates this view in an older
-- file.)
CREATE VIEW IF NOT EXISTS stream_summary AS
WITH ranked AS (
	SELECT stream_id, errno, done_ns > due_ns AS late, dep, op,
	       done_ns - issued_ns AS lat,
	       row_number() OVER (PARTITION BY stream_id
				  ORDER BY done_ns - issued_ns) AS rn,
	       count(*) OVER (PARTITION BY stream_id) AS n
	FROM access
),
pct AS (
	SELECT stream_id, count(*) AS accesses,
	       sum(errno <> 0) AS errors,
	       sum(late) AS late_accesses,
	       sum(dep) AS dep_accesses,
	       sum(op = 1) AS opens, sum(op = 2) AS header_reads,
	       sum(op = 3) AS closes,
	       max(CASE WHEN rn = (n * 50 + 99) / 100 THEN lat END) AS p50,
	       max(CASE WHEN rn = (n * 95 + 99) / 100 THEN lat END) AS p95,
	       max(CASE WHEN rn = (n * 99 + 99) / 100 THEN lat END) AS p99,
	       max(lat) AS pmax
	FROM ranked GROUP BY stream_id
)
SELECT s.id AS stream_id, s.run_id, r.label, t.name AS timeline,
       s.pid, s.comm, s.opened_ns, s.closed_ns,
       round((s.closed_ns - s.opened_ns) / 1e9, 3) AS duration_s,
       s.bytes,
       CASE WHEN s.closed_ns > s.opened_ns
	    THEN round(s.bytes * 1e3 / (s.closed_ns - s.opened_ns), 3)
       END AS mb_s,
       s.frames, s.late_frames, s.failed_frames,
       coalesce(p.accesses, 0) AS accesses,
       coalesce(p.errors, 0) AS errors,
       coalesce(p.late_accesses, 0) AS late_accesses,
       round(p.p50 / 1e3, 1) AS p50_us,
       round(p.p95 / 1e3, 1) AS p95_us,
       round(p.p99 / 1e3, 1) AS p99_us,
       round(p.pmax / 1e3, 1) AS max_us,
       s.requests,
       CASE WHEN s.requests > 0
	    THEN round(s.bytes / 1024.0 / s.requests, 1)
       END AS kib_per_request,
       s.reloads, s.seeks, s.tid, s.sid,
       coalesce(p.dep_accesses, 0) AS dep_accesses,
       coalesce(p.opens, 0) AS opens,
       coalesce(p.header_reads, 0) AS header_reads,
       coalesce(p.closes, 0) AS closes
FROM stream AS s
JOIN run AS r ON r.id = s.run_id
LEFT JOIN timeline AS t ON t.id = s.timeline_id
LEFT JOIN pct AS p ON p.stream_id = s.id
ORDER BY s.id;

-- One row per run; duration_s runs from the first open to the last close,
-- mb_s is the aggregate throughput of all its streams over that time, and
-- the percentiles are over every access of the run.  problems counts the
-- problem rows of a refused mount (0 for a run that mounted; the column
-- came with schema version 2, like stream_summary's requests .. seeks);
-- dep_accesses, opens, header_reads and closes as in stream_summary.
CREATE VIEW IF NOT EXISTS run_summary AS
WITH ranked AS (
	SELECT s.run_id, a.errno, a.done_ns > a.due_ns AS late, a.dep, a.op,
	       a.done_ns - a.issued_ns AS lat,
	       row_number() OVER (PARTITION BY s.run_id
				  ORDER BY a.done_ns - a.issued_ns) AS rn,
	       count(*) OVER (PARTITION BY s.run_id) AS n
	FROM access AS a JOIN stream AS s ON s.id = a.stream_id
),
pct AS (
	SELECT run_id, count(*) AS accesses,
	       sum(errno <> 0) AS errors,
	       sum(late) AS late_accesses,
	       sum(dep) AS dep_accesses,
	       sum(op = 1) AS opens, sum(op = 2) AS header_reads,
	       sum(op = 3) AS closes,
	       max(CASE WHEN rn = (n * 50 + 99) / 100 THEN lat END) AS p50,
	       max(CASE WHEN rn = (n * 95 + 99) / 100 THEN lat END) AS p95,
	       max(CASE WHEN rn = (n * 99 + 99) / 100 THEN lat END) AS p99,
	       max(lat) AS pmax
	FROM ranked GROUP BY run_id
),
st AS (
	SELECT run_id, count(*) AS streams, sum(bytes) AS bytes,
	       min(opened_ns) AS first_open, max(closed_ns) AS last_close,
	       sum(frames) AS frames, sum(late_frames) AS late_frames,
	       sum(failed_frames) AS failed_frames
	FROM stream GROUP BY run_id
)
SELECT r.id, r.label, r.started_at, r.kernel, r.config_hz,
       coalesce(st.streams, 0) AS streams,
       coalesce(st.bytes, 0) AS bytes,
       round((st.last_close - st.first_open) / 1e9, 3) AS duration_s,
       CASE WHEN st.last_close > st.first_open
	    THEN round(st.bytes * 1e3 / (st.last_close - st.first_open), 3)
       END AS mb_s,
       coalesce(st.frames, 0) AS frames,
       coalesce(st.late_frames, 0) AS late_frames,
       coalesce(st.failed_frames, 0) AS failed_frames,
       coalesce(p.accesses, 0) AS accesses,
       coalesce(p.errors, 0) AS errors,
       coalesce(p.late_accesses, 0) AS late_accesses,
       round(p.p50 / 1e3, 1) AS p50_us,
       round(p.p95 / 1e3, 1) AS p95_us,
       round(p.p99 / 1e3, 1) AS p99_us,
       round(p.pmax / 1e3, 1) AS max_us,
       r.queue_full_waits, r.rows_lost,
       (SELECT count(*) FROM problem AS x WHERE x.run_id = r.id) AS problems,
       coalesce(p.dep_accesses, 0) AS dep_accesses,
       coalesce(p.opens, 0) AS opens,
       coalesce(p.header_reads, 0) AS header_reads,
       coalesce(p.closes, 0) AS closes
FROM run AS r
LEFT JOIN st ON st.run_id = r.id
LEFT JOIN pct AS p ON p.run_id = r.id
ORDER BY r.id;

-- One row per stream and operation (schema version 10): op's name (see the
-- op table), how many the stream made, their bytes (header and data
-- reads), errors, late ones (done after their frame's due time) and
-- latency, mean and max: an image sequence's frames made late by the
-- storage's metadata (opens, closes) or by its data (reads) tell apart.
CREATE VIEW IF NOT EXISTS op_summary AS
SELECT s.run_id, a.stream_id, coalesce(o.name, a.op) AS op,
       count(*) AS accesses,
       sum(a.length) AS bytes,
       sum(a.errno <> 0) AS errors,
       sum(a.done_ns > a.due_ns) AS late_accesses,
       round(avg(a.done_ns - a.issued_ns) / 1e3, 1) AS mean_us,
       round(max(a.done_ns - a.issued_ns) / 1e3, 1) AS max_us
FROM access AS a
JOIN stream AS s ON s.id = a.stream_id
LEFT JOIN op AS o ON o.id = a.op
GROUP BY a.stream_id, a.op
ORDER BY a.stream_id, a.op;
