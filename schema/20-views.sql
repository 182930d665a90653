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
--
-- Ingest (schema version 11): a stream is kind 'play' (a timeline read)
-- or 'record' (a recording written through the ingest folder).  A record
-- stream's late frames are its dropped frames (written after frame k + B
-- arrived); the summaries show them apart, as dropped_frames, beside the
-- play streams' late_frames.  Two operations are waits, not the
-- storage's: a 'receive' row (op 9) lasts as long as the writer takes to
-- hand over a frame, an 'await' row (op 10) as long as a play of a clip
-- being recorded waits for its frame.  They are rows (counted in
-- accesses, late when late) but no latency: the percentiles are of the
-- storage's operations, every op but 9 and 10.

-- access_v: op is the operation's name (op.name: 'read', and for an
-- image sequence 'open', 'header', 'close'), image its image file's
-- number (NULL: not a sequence); schema version 10.  kind is the
-- stream's ('play', 'record'; version 11).
CREATE VIEW IF NOT EXISTS access_v AS
SELECT a.id, a.stream_id, s.run_id, a.frame, a.track, a.clip,
       a.file_offset, a.length, a.sched_ns, a.due_ns, a.issued_ns,
       a.done_ns, a.errno,
       a.done_ns - a.issued_ns AS latency_ns,
       a.done_ns > a.due_ns AS late,
       a.dep,
       coalesce(o.name, a.op) AS op,
       a.image,
       s.kind
FROM access AS a JOIN stream AS s ON s.id = a.stream_id
LEFT JOIN op AS o ON o.id = a.op;

-- Headroom (schema version 16): one row per frame a play stream played
-- (a load of it, as late_frame counts them: played, or a row of an older
-- timelinefs; a frame played twice, as a loop does, is two rows, told by
-- sched_ns), done_ns the completion of its last read (or wait) and
-- headroom_ns = due_ns - done_ns: how early the frame was ready; below 0
-- it was late (late 1).  A storage at 99 % of its capacity and one at
-- 10 % both have no late frame; their headroom tells them apart.
CREATE VIEW IF NOT EXISTS frame_headroom AS
SELECT s.run_id, a.stream_id, a.frame, a.sched_ns,
       min(a.due_ns) AS due_ns, max(a.done_ns) AS done_ns,
       min(a.due_ns) - max(a.done_ns) AS headroom_ns,
       max(a.done_ns > a.due_ns) AS late
FROM access AS a JOIN stream AS s ON s.id = a.stream_id
WHERE s.kind = 'play' AND coalesce(a.played, 1)
GROUP BY a.stream_id, a.frame, a.sched_ns;

-- One row per stream.  late_frames and failed_frames are the player's counts
-- (per frame); late_accesses counts the individual late reads.
-- kib_per_request is the mean size of the reads the daemon answered
-- (bytes / requests / 1024): near the kernel's readahead window (1024 KiB)
-- for a plain dd in cached mode; far below it, the kernel was splitting the
-- stream into small requests.  dep_accesses counts the decoding
-- dependency reads among accesses (access.dep: long-GOP media, where a run
-- of it starts).  opens, header_reads and closes count an image sequence's
-- operations among accesses (access.op; its data reads are the rest).
-- kind is 'play' or 'record'; a record stream's late_frames are its
-- dropped frames, writer_drops those of them its writer caused (its bytes
-- came late), writes its pwrites and file its "ingest/NAME" (timeline
-- NULL); awaits counts a play stream's waits for a clip being recorded.
-- The percentiles are of the storage's operations (receive and await rows
-- are waits: see above).
-- headroom_min_us, headroom_p1_us, headroom_p5_us and headroom_p50_us
-- are the least headroom of its played frames (frame_headroom) and its
-- 1st, 5th and 50th percentiles, nearest-rank from the least (the p1 of
-- 1000 frames is the 10th least); NULL for a record stream.
-- (Schema version 2 added requests, kib_per_request, reloads and seeks,
-- version 4 tid and sid, version 8 dep_accesses, version 10 opens,
-- header_reads and closes, version 11 kind, file, writer_drops, writes
-- and awaits, version 15 reader_late_frames: the frames handed to the
-- reader after they were due, NULL from an older daemon and for a record
-- stream, version 16 the headroom; store_open recreates this view in an
-- older file.)
CREATE VIEW IF NOT EXISTS stream_summary AS
WITH ranked AS (
	SELECT stream_id, errno, done_ns > due_ns AS late, dep, op,
	       op IN (9, 10) AS wait,
	       done_ns - issued_ns AS lat,
	       row_number() OVER (PARTITION BY stream_id, op IN (9, 10)
				  ORDER BY done_ns - issued_ns) AS rn,
	       count(*) OVER (PARTITION BY stream_id, op IN (9, 10)) AS n
	FROM access
),
pct AS (
	SELECT stream_id, count(*) AS accesses,
	       sum(errno <> 0) AS errors,
	       sum(late) AS late_accesses,
	       sum(dep) AS dep_accesses,
	       sum(op = 1) AS opens, sum(op = 2) AS header_reads,
	       sum(op = 3) AS closes, sum(op = 5) AS writes,
	       sum(op = 10) AS awaits,
	       max(CASE WHEN NOT wait AND rn = (n * 50 + 99) / 100
			THEN lat END) AS p50,
	       max(CASE WHEN NOT wait AND rn = (n * 95 + 99) / 100
			THEN lat END) AS p95,
	       max(CASE WHEN NOT wait AND rn = (n * 99 + 99) / 100
			THEN lat END) AS p99,
	       max(CASE WHEN NOT wait THEN lat END) AS pmax
	FROM ranked GROUP BY stream_id
),
hr AS (
	SELECT stream_id, headroom_ns AS h,
	       row_number() OVER (PARTITION BY stream_id
				  ORDER BY headroom_ns) AS rn,
	       count(*) OVER (PARTITION BY stream_id) AS n
	FROM frame_headroom
),
hp AS (
	SELECT stream_id, min(h) AS hmin,
	       max(CASE WHEN rn = (n + 99) / 100 THEN h END) AS h1,
	       max(CASE WHEN rn = (n * 5 + 99) / 100 THEN h END) AS h5,
	       max(CASE WHEN rn = (n * 50 + 99) / 100 THEN h END) AS h50
	FROM hr GROUP BY stream_id
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
       coalesce(p.closes, 0) AS closes,
       s.kind, s.file,
       CASE WHEN s.closed_ns IS NOT NULL
	    THEN coalesce(s.writer_drops, 0) END AS writer_drops,
       coalesce(p.writes, 0) AS writes,
       coalesce(p.awaits, 0) AS awaits,
       CASE WHEN s.kind = 'play' THEN s.reader_late_frames
       END AS reader_late_frames,
       round(hp.hmin / 1e3, 1) AS headroom_min_us,
       round(hp.h1 / 1e3, 1) AS headroom_p1_us,
       round(hp.h5 / 1e3, 1) AS headroom_p5_us,
       round(hp.h50 / 1e3, 1) AS headroom_p50_us
FROM stream AS s
JOIN run AS r ON r.id = s.run_id
LEFT JOIN timeline AS t ON t.id = s.timeline_id
LEFT JOIN pct AS p ON p.stream_id = s.id
LEFT JOIN hp ON hp.stream_id = s.id
ORDER BY s.id;

-- One row per run; duration_s runs from the first open to the last close,
-- mb_s is the aggregate throughput of all its streams over that time, and
-- the percentiles are over every access of the run (the storage's
-- operations: receive and await rows are waits).  problems counts the
-- problem rows of a refused mount (0 for a run that mounted; the column
-- came with schema version 2, like stream_summary's requests .. seeks);
-- dep_accesses, opens, header_reads and closes as in stream_summary.
-- Play and record apart (schema version 11): streams, frames, bytes and
-- failed_frames are of both kinds together; late_frames are the play
-- streams' (a frame that came late to its reader), dropped_frames the
-- record streams' (a frame written after its due time), writer_drops
-- those of them their writers caused, missed_frames both, late or
-- dropped.  play_mb_s and record_mb_s are each kind's bytes over its own
-- span (its first open to its last close), play_p99_us the p99 of the
-- play streams' operations (reads ...), record_p99_us of the record
-- streams' (writes, fsyncs ...).  headroom_min_us .. headroom_p50_us as
-- stream_summary's, over every frame the run's play streams played
-- (schema version 16).
CREATE VIEW IF NOT EXISTS run_summary AS
WITH ranked AS (
	-- each kind's rank is counted in the one sort by latency (rp, rr):
	-- a window partitioned by kind too was a second sort, twice the
	-- view's time on 300 k rows
	SELECT s.run_id, s.kind, a.errno, a.done_ns > a.due_ns AS late,
	       a.dep, a.op, a.op IN (9, 10) AS wait,
	       a.done_ns - a.issued_ns AS lat,
	       row_number() OVER w AS rn, count(*) OVER p AS n,
	       sum(s.kind = 'play') OVER (w ROWS UNBOUNDED PRECEDING) AS rp,
	       sum(s.kind = 'play') OVER p AS np,
	       sum(s.kind = 'record') OVER (w ROWS UNBOUNDED PRECEDING) AS rr,
	       sum(s.kind = 'record') OVER p AS nr
	FROM access AS a JOIN stream AS s ON s.id = a.stream_id
	WINDOW p AS (PARTITION BY s.run_id, a.op IN (9, 10)),
	       w AS (p ORDER BY a.done_ns - a.issued_ns)
),
pct AS (
	SELECT run_id, count(*) AS accesses,
	       sum(errno <> 0) AS errors,
	       sum(late) AS late_accesses,
	       sum(dep) AS dep_accesses,
	       sum(op = 1) AS opens, sum(op = 2) AS header_reads,
	       sum(op = 3) AS closes,
	       max(CASE WHEN NOT wait AND rn = (n * 50 + 99) / 100
			THEN lat END) AS p50,
	       max(CASE WHEN NOT wait AND rn = (n * 95 + 99) / 100
			THEN lat END) AS p95,
	       max(CASE WHEN NOT wait AND rn = (n * 99 + 99) / 100
			THEN lat END) AS p99,
	       max(CASE WHEN NOT wait THEN lat END) AS pmax,
	       max(CASE WHEN NOT wait AND kind = 'play'
			 AND rp = (np * 99 + 99) / 100 THEN lat END)
		   AS play_p99,
	       max(CASE WHEN NOT wait AND kind = 'record'
			 AND rr = (nr * 99 + 99) / 100 THEN lat END)
		   AS record_p99
	FROM ranked GROUP BY run_id
),
st AS (
	SELECT run_id, count(*) AS streams, sum(bytes) AS bytes,
	       min(opened_ns) AS first_open, max(closed_ns) AS last_close,
	       sum(frames) AS frames, sum(failed_frames) AS failed_frames,
	       sum(kind = 'play') AS play_streams,
	       sum(CASE WHEN kind = 'play' THEN frames END) AS play_frames,
	       sum(CASE WHEN kind = 'play' THEN late_frames END)
		   AS late_frames,
	       sum(CASE WHEN kind = 'play' THEN bytes END) AS play_bytes,
	       min(CASE WHEN kind = 'play' THEN opened_ns END) AS play_open,
	       max(CASE WHEN kind = 'play' THEN closed_ns END) AS play_close,
	       sum(kind = 'record') AS record_streams,
	       sum(CASE WHEN kind = 'record' THEN frames END)
		   AS record_frames,
	       sum(CASE WHEN kind = 'record' THEN late_frames END)
		   AS dropped_frames,
	       sum(CASE WHEN kind = 'record' THEN writer_drops END)
		   AS writer_drops,
	       sum(CASE WHEN kind = 'record' THEN bytes END) AS record_bytes,
	       min(CASE WHEN kind = 'record' THEN opened_ns END)
		   AS record_open,
	       max(CASE WHEN kind = 'record' THEN closed_ns END)
		   AS record_close
	FROM stream GROUP BY run_id
),
hr AS (
	SELECT run_id, headroom_ns AS h,
	       row_number() OVER (PARTITION BY run_id
				  ORDER BY headroom_ns) AS rn,
	       count(*) OVER (PARTITION BY run_id) AS n
	FROM frame_headroom
),
hp AS (
	SELECT run_id, min(h) AS hmin,
	       max(CASE WHEN rn = (n + 99) / 100 THEN h END) AS h1,
	       max(CASE WHEN rn = (n * 5 + 99) / 100 THEN h END) AS h5,
	       max(CASE WHEN rn = (n * 50 + 99) / 100 THEN h END) AS h50
	FROM hr GROUP BY run_id
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
       coalesce(p.closes, 0) AS closes,
       coalesce(st.play_streams, 0) AS play_streams,
       coalesce(st.play_frames, 0) AS play_frames,
       CASE WHEN st.play_close > st.play_open
	    THEN round(st.play_bytes * 1e3 / (st.play_close - st.play_open),
		       3)
       END AS play_mb_s,
       round(p.play_p99 / 1e3, 1) AS play_p99_us,
       coalesce(st.record_streams, 0) AS record_streams,
       coalesce(st.record_frames, 0) AS record_frames,
       coalesce(st.dropped_frames, 0) AS dropped_frames,
       coalesce(st.writer_drops, 0) AS writer_drops,
       CASE WHEN st.record_close > st.record_open
	    THEN round(st.record_bytes * 1e3 /
		       (st.record_close - st.record_open), 3)
       END AS record_mb_s,
       round(p.record_p99 / 1e3, 1) AS record_p99_us,
       coalesce(st.late_frames, 0) + coalesce(st.dropped_frames, 0)
	   AS missed_frames,
       round(hp.hmin / 1e3, 1) AS headroom_min_us,
       round(hp.h1 / 1e3, 1) AS headroom_p1_us,
       round(hp.h5 / 1e3, 1) AS headroom_p5_us,
       round(hp.h50 / 1e3, 1) AS headroom_p50_us
FROM run AS r
LEFT JOIN st ON st.run_id = r.id
LEFT JOIN pct AS p ON p.run_id = r.id
LEFT JOIN hp ON hp.run_id = r.id
ORDER BY r.id;

-- One row per stream and operation (schema version 10): op's name (see the
-- op table), how many the stream made, their bytes (header and data
-- reads, writes, a receive's: the writer's), errors, late ones (done
-- after their frame's due time) and latency, mean and max: an image
-- sequence's frames made late by the storage's metadata (opens, closes)
-- or by its data (reads) tell apart, and a recording's writes, fsyncs
-- and the writer's receives (schema version 11, with the stream's kind).
CREATE VIEW IF NOT EXISTS op_summary AS
SELECT s.run_id, a.stream_id, coalesce(o.name, a.op) AS op,
       count(*) AS accesses,
       sum(a.length) AS bytes,
       sum(a.errno <> 0) AS errors,
       sum(a.done_ns > a.due_ns) AS late_accesses,
       round(avg(a.done_ns - a.issued_ns) / 1e3, 1) AS mean_us,
       round(max(a.done_ns - a.issued_ns) / 1e3, 1) AS max_us,
       s.kind
FROM access AS a
JOIN stream AS s ON s.id = a.stream_id
LEFT JOIN op AS o ON o.id = a.op
GROUP BY a.stream_id, a.op
ORDER BY a.stream_id, a.op;

-- Many hosts (schema version 12, docs/hosts.md): each run's
-- epoch on one time axis, rank 0's clock.  t0_unix_ns is the host's
-- CLOCK_REALTIME at the run's epoch (the 0 of its *_ns columns);
-- offset_ns the host's clock minus rank 0's at that time, interpolated as
-- engine/hosts/hosts.h's eng_clock_axis does: linear between the offset
-- measured at the start (host time t_start_ns) and at the end (t_end_ns),
-- the nearer one's outside them, the start's alone when the host has no
-- end measurement (it died) or its interval is empty or implausible (a
-- drift as fast as the clock itself), rounded to the nearest ns (halves
-- away from 0).  A host without a measurement (a database of one host,
-- rank 0) has offset 0: its own clock is the axis.  t0_axis_ns =
-- t0_unix_ns - offset_ns; a time x_ns of the run is t0_axis_ns + x_ns on
-- the axis.  NULL where the run has no t0_unix_ns (a database from before
-- schema version 12).
CREATE VIEW IF NOT EXISTS run_axis AS
WITH l AS (
	SELECT r.id AS run_id, r.host_id, h.experiment_id, h.rank,
	       h.name AS host, r.t0_unix_ns AS t,
	       coalesce(h.offset_start_ns, 0) AS os, h.t_start_ns AS ts,
	       h.offset_end_ns AS oe, h.t_end_ns AS te,
	       h.t_start_ns IS NOT NULL AND h.offset_end_ns IS NOT NULL
	       AND h.t_end_ns IS NOT NULL AND h.t_end_ns > h.t_start_ns
	       AND abs(h.offset_end_ns - coalesce(h.offset_start_ns, 0))
		   < h.t_end_ns - h.t_start_ns AS line
	FROM run AS r LEFT JOIN host AS h ON h.id = r.host_id
),
o AS (
	-- 1.0 *: the product of a drift and a span passes 64 bits (a ms
	-- over an hour is 3.6e21); in a double its quotient is exact to far
	-- below a ns
	SELECT *, CASE WHEN NOT line OR t <= ts THEN os
		       WHEN t >= te THEN oe
		       ELSE os + CAST(round(1.0 * (oe - os) * (t - ts)
					    / (te - ts)) AS INTEGER)
		  END AS offset_ns
	FROM l
)
SELECT run_id, host_id, experiment_id, rank, host, t AS t0_unix_ns,
       offset_ns, t - offset_ns AS t0_axis_ns
FROM o
ORDER BY run_id;
