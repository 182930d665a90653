-- SPDX-License-Identifier: MIT
-- The schema of timelinefs at schema version 11 (commit 526e509, before
-- many hosts), for tests/integration/test_merge.sh's database of an older
-- version.  Made by:
--   for f in 10-tables 20-views 30-analysis; do
--     git show 526e509:schema/$f.sql; done
-- plus the user_version the store of that version set.
-- SPDX-License-Identifier: MIT
-- timelinefs store: tables.  Applied at every store_open inside one
-- transaction, so every statement is idempotent: each mount appends a run.
-- Schema version: PRAGMA user_version = 11 (set by the store).
--
-- Times: started_at/ended_at are UTC ISO-8601 with milliseconds
-- (2026-12-02T14:45:26.123Z); every *_ns column is nanoseconds since the
-- run's start (the store subtracts the monotonic epoch of store_run_begin).

-- One row per mount.  queue_full_waits counts producers that found the
-- recorder queue full (they waited; nothing was dropped); rows_lost counts
-- access rows that SQLite refused (the daemon reports the first error).
CREATE TABLE IF NOT EXISTS run (
	id INTEGER PRIMARY KEY,
	label TEXT,
	started_at TEXT NOT NULL,
	ended_at TEXT,
	kernel TEXT,
	config_hz INTEGER,		-- /proc/config.gz, else /boot/config-KERNEL; NULL: neither
	host TEXT,
	options TEXT,
	media_dir TEXT,
	queue_full_waits INTEGER NOT NULL DEFAULT 0,
	rows_lost INTEGER NOT NULL DEFAULT 0,
	duration_ns INTEGER		-- run start to unmount
);

-- What can decide an A/B result, one row per fact about the run's host,
-- kernel, media device and mount (schema version 5): the keys are listed in
-- docs/database.md.  A fact that could not be read has no row.
CREATE TABLE IF NOT EXISTS run_env (
	run_id INTEGER NOT NULL REFERENCES run(id),
	key TEXT NOT NULL,
	value TEXT NOT NULL,
	PRIMARY KEY (run_id, key)
);

-- Why a mount was refused: one row per problem found in its input (a
-- malformed timeline, a missing or short clip, "FILE:LINE: reason" as the
-- daemon printed it).  Such a run has no timeline or stream rows and ends
-- as it starts.  (Schema version 2.)
CREATE TABLE IF NOT EXISTS problem (
	id INTEGER PRIMARY KEY,
	run_id INTEGER NOT NULL REFERENCES run(id),
	message TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS problem_run ON problem(run_id);

-- The timelines a run exposed.
CREATE TABLE IF NOT EXISTS timeline (
	id INTEGER PRIMARY KEY,
	run_id INTEGER NOT NULL REFERENCES run(id),
	name TEXT NOT NULL,
	path TEXT,
	fps_num INTEGER,
	fps_den INTEGER,
	frames INTEGER,
	bytes INTEGER			-- size of the virtual file
);
CREATE INDEX IF NOT EXISTS timeline_run ON timeline(run_id);

-- The file each (clip, track) of a timeline reads, as the mount resolved
-- it (schema version 9): real media are named in many ways (a clip's one
-- .mov holding every track, an OP-Atom set, the file an EDL comment
-- names), so an access row's clip and track find their file here.  file
-- is inside the run's media_dir; codec is libavcodec's name ("prores",
-- "pcm_s24le"), "raw" for raw essence and "wav" for a WAVE file read by
-- the closed form; stream is the stream's index in its file (NULL: raw).
-- An image sequence's file is its pattern ("A001C003/A001C003.%07d.dpx"),
-- codec its images' ("dpx", "tiff", "exr", "exr-zip", "raw"), stream NULL.
CREATE TABLE IF NOT EXISTS media (
	timeline_id INTEGER NOT NULL REFERENCES timeline(id),
	clip TEXT NOT NULL,
	track TEXT NOT NULL,
	file TEXT NOT NULL,
	codec TEXT,
	stream INTEGER,
	PRIMARY KEY (timeline_id, clip, track)
);

-- One row per open of a timeline (one workstation: kind 'play') or per
-- recording made through the mount's ingest folder (a capture station:
-- kind 'record', schema version 11, timeline_id NULL, file "ingest/NAME");
-- the totals are written at close, so they are NULL for a stream still
-- open (or never closed).  A record stream's frames are the whole frames
-- the writer sent, late_frames the dropped ones (an overrun: written
-- after frame k + B arrived), failed_frames those whose write failed,
-- requests the writer's write calls, reloads and seeks 0.
-- FUSE names the thread that opened; pid and comm are its process's (a
-- player reads from a thread of its own).  Before version 4, pid was that
-- thread's id and comm its name: the upgrade copies pid into tid.
CREATE TABLE IF NOT EXISTS stream (
	id INTEGER PRIMARY KEY,
	run_id INTEGER NOT NULL REFERENCES run(id),
	timeline_id INTEGER REFERENCES timeline(id),
	pid INTEGER,			-- the reader process (thread group
					-- id); NULL when it was gone
	comm TEXT,			-- its command name ('?' when gone)
	opened_ns INTEGER,
	closed_ns INTEGER,
	bytes INTEGER,			-- bytes handed to the reader
	frames INTEGER,
	late_frames INTEGER,		-- frames completed after their due time
	failed_frames INTEGER,		-- frames with a failed backing read
	-- added in schema version 2 (store_open adds them to older files):
	requests INTEGER,		-- reads answered with data: the FUSE
					-- read requests (or the reader's own
					-- reads under -o direct_io)
	reloads INTEGER,		-- played frames read from the storage
					-- again (the reader went back, or the
					-- kernel asked late for a frame the ring
					-- had passed): their reads are in access,
					-- they are not in frames or late_frames
	seeks INTEGER,			-- re-anchorings of the stream's clock
	-- added in schema version 4:
	tid INTEGER,			-- the thread that opened (FUSE's pid)
	sid INTEGER,			-- the reader's session (getsid): all
					-- the processes of a pipeline or
					-- script started in it; NULL unknown
	-- added in schema version 6:
	file TEXT,			-- the file opened: the timeline's name,
					-- NAME.mov for its movie, ingest/NAME
					-- for a recording
	-- added in schema version 11:
	kind TEXT NOT NULL DEFAULT 'play',	-- 'play' or 'record'
	writer_drops INTEGER		-- a record stream's dropped frames
					-- that the writer caused (its bytes
					-- came after the frame's due time),
					-- within late_frames; 0 for a play
					-- stream
);
CREATE INDEX IF NOT EXISTS stream_run ON stream(run_id);

-- The operations an access row records (schema version 10): access.op is
-- an id here, the numbers of engine/play/player.h's enum eng_op, never
-- renumbered (new ones are appended).  'read' is a read of media data
-- (every medium); an image sequence's frame is its image file's 'open',
-- its 'header' reads, its data 'read's and its 'close'; 'stat' is
-- reserved.  Schema version 11, ingest (engine/ingest/ingest.h): a record
-- stream's 'write's (each pwrite of a frame's slice of a track file),
-- 'fsync', 'fallocate', 'truncate', its track files' 'open' and 'close',
-- and per frame one 'receive' (the writer's bytes of the frame: issued
-- at its first byte accepted, done at its last; late: the writer's
-- drop); a play stream's 'await' (a read of a clip still being recorded
-- that came short, waiting for its frame: issued then, done when the
-- bytes were there).
CREATE TABLE IF NOT EXISTS op (
	id INTEGER PRIMARY KEY,
	name TEXT NOT NULL UNIQUE
);
INSERT OR IGNORE INTO op (id, name) VALUES
	(0, 'read'), (1, 'open'), (2, 'header'), (3, 'close'), (4, 'stat'),
	(5, 'write'), (6, 'fsync'), (7, 'fallocate'), (8, 'truncate'),
	(9, 'receive'), (10, 'await');

-- One row per backing operation (one read per frame and track; real media:
-- one per extent of its slice, and per decoding dependency, see dep; an
-- image sequence: per frame its image's open, header reads, data reads and
-- close, see op and image).  errno is 0 or the positive errno of a failed
-- operation; injected says which faults -o inject put into it (a database
-- of an older timelinefs gets the columns added since by store_open).
CREATE TABLE IF NOT EXISTS access (
	id INTEGER PRIMARY KEY,
	stream_id INTEGER NOT NULL REFERENCES stream(id),
	frame INTEGER,
	track TEXT,
	clip TEXT,
	file_offset INTEGER,
	length INTEGER,
	sched_ns INTEGER,		-- when the player meant to issue it
	due_ns INTEGER,			-- the frame's presentation time
	issued_ns INTEGER,
	done_ns INTEGER,
	errno INTEGER NOT NULL DEFAULT 0,
	injected INTEGER NOT NULL DEFAULT 0,	-- -o inject bits: 1 delay, 2 error
	played INTEGER,		-- (version 7) 1: the read's frame counted as
				-- played (in stream.frames, and late_frames
				-- when late); 0: a reload (a played frame
				-- read again) or a load a seek discarded;
				-- NULL: a row of an older timelinefs (taken
				-- as played)
	dep INTEGER NOT NULL DEFAULT 0,	-- (version 8) 1: a decoding
				-- dependency read (long-GOP media: a frame
				-- before the played one that its decoder
				-- needs, where a run of the media starts);
				-- not in the file's bytes, in the frame's
				-- lateness
	op INTEGER NOT NULL DEFAULT 0,	-- (version 10) the operation: op.id
				-- (0 read, 1 open, 2 header, 3 close,
				-- version 11: 5 write .. 10 await);
				-- file_offset and length are 0 for an
				-- open or a close
	image INTEGER		-- (version 10) an image sequence's row: the
				-- image file's number (the one in its
				-- name); NULL for other media
);
CREATE INDEX IF NOT EXISTS access_stream ON access(stream_id);
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
-- (Schema version 2 added requests, kib_per_request, reloads and seeks,
-- version 4 tid and sid, version 8 dep_accesses, version 10 opens,
-- header_reads and closes, version 11 kind, file, writer_drops, writes
-- and awaits; store_open recreates this view in an older file.)
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
       coalesce(p.awaits, 0) AS awaits
FROM stream AS s
JOIN run AS r ON r.id = s.run_id
LEFT JOIN timeline AS t ON t.id = s.timeline_id
LEFT JOIN pct AS p ON p.stream_id = s.id
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
-- streams' (writes, fsyncs ...).
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
	   AS missed_frames
FROM run AS r
LEFT JOIN st ON st.run_id = r.id
LEFT JOIN pct AS p ON p.run_id = r.id
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
-- SPDX-License-Identifier: MIT
-- timelinefs store: benchmark steps (written by timelinefs-bench) and the
-- analysis views behind timelinefs-report and timelinefs-plot.
--
-- Conventions as in 20-views.sql: latency is done_ns - issued_ns, a read is
-- late when done_ns > due_ns, latencies are in microseconds rounded to
-- 0.1 us, and percentiles are nearest-rank: the p-th percentile of n
-- sorted latencies is the one at 1-based rank ceil(n * p / 100), computed
-- as (n * p + 99) / 100 (p99.9: (n * 999 + 999) / 1000).  Example: n = 10
-- gives p50 = rank 5, p90 = rank 9, p95 = p99 = max = rank 10.
-- Ingest (schema version 11, see 20-views.sql): play and record streams
-- (stream.kind); a record stream's late frames are dropped frames; receive
-- and await rows (op 9, 10) are waits, in no latency percentile.

-- One row per benchmark step: `workstations` readers started together
-- (repetition 1..R of that count), each on its own timeline.  started_ns
-- and ended_ns are the first open and the last close of its streams (ns
-- since the run's start); wall_s is their difference in seconds.  label is
-- the run's label unless the bench was told otherwise; reader is the
-- command that read each timeline.  Repetition 0 is a warm-up
-- (timelinefs-bench --warmup): shown, left out of comparisons.
CREATE TABLE IF NOT EXISTS bench_step (
	id INTEGER PRIMARY KEY,
	run_id INTEGER NOT NULL REFERENCES run(id),
	label TEXT,
	workstations INTEGER NOT NULL,
	repetition INTEGER NOT NULL,
	started_ns INTEGER,
	ended_ns INTEGER,
	wall_s REAL,
	reader TEXT
);
CREATE INDEX IF NOT EXISTS bench_step_run ON bench_step(run_id);

-- The streams (opens) of each step.
CREATE TABLE IF NOT EXISTS bench_stream (
	step_id INTEGER NOT NULL REFERENCES bench_step(id),
	stream_id INTEGER NOT NULL REFERENCES stream(id),
	PRIMARY KEY (step_id, stream_id)
);
CREATE INDEX IF NOT EXISTS bench_stream_stream ON bench_stream(stream_id);

-- One row per step: its totals and the latency percentiles over every
-- access of its streams (the storage's operations).  mb_s is the
-- aggregate throughput delivered to the readers and taken from the
-- writers, bytes / 1e6 / wall_s.  Play and record apart (schema version
-- 11), as in run_summary: streams, bytes, frames and failed_frames both
-- kinds; late_frames the play streams', dropped_frames the record
-- streams' (writer_drops: by their writers); play_mb_s and record_mb_s
-- each kind's bytes over wall_s; play_p99_us and record_p99_us the p99 of
-- each kind's operations: with M players and N recorders, which side
-- misses its deadlines first.
CREATE VIEW IF NOT EXISTS bench_step_summary AS
WITH ranked AS (
	-- each kind's rank counted in the one sort, as run_summary's
	SELECT bs.step_id, s.kind, a.errno, a.done_ns > a.due_ns AS late,
	       a.op IN (9, 10) AS wait,
	       a.done_ns - a.issued_ns AS lat,
	       row_number() OVER w AS rn, count(*) OVER p AS n,
	       sum(s.kind = 'play') OVER (w ROWS UNBOUNDED PRECEDING) AS rp,
	       sum(s.kind = 'play') OVER p AS np,
	       sum(s.kind = 'record') OVER (w ROWS UNBOUNDED PRECEDING) AS rr,
	       sum(s.kind = 'record') OVER p AS nr
	FROM bench_stream AS bs JOIN access AS a ON a.stream_id = bs.stream_id
	JOIN stream AS s ON s.id = bs.stream_id
	WINDOW p AS (PARTITION BY bs.step_id, a.op IN (9, 10)),
	       w AS (p ORDER BY a.done_ns - a.issued_ns)
),
pct AS (
	SELECT step_id, count(*) AS accesses,
	       sum(errno <> 0) AS errors,
	       sum(late) AS late_accesses,
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
	FROM ranked GROUP BY step_id
),
st AS (
	SELECT bs.step_id, count(*) AS streams, sum(s.bytes) AS bytes,
	       sum(s.frames) AS frames,
	       sum(CASE WHEN s.kind = 'play' THEN s.late_frames END)
		   AS late_frames,
	       sum(s.failed_frames) AS failed_frames,
	       sum(s.kind = 'play') AS play_streams,
	       sum(CASE WHEN s.kind = 'play' THEN s.bytes END) AS play_bytes,
	       sum(s.kind = 'record') AS record_streams,
	       sum(CASE WHEN s.kind = 'record' THEN s.frames END)
		   AS record_frames,
	       sum(CASE WHEN s.kind = 'record' THEN s.late_frames END)
		   AS dropped_frames,
	       sum(CASE WHEN s.kind = 'record' THEN s.writer_drops END)
		   AS writer_drops,
	       sum(CASE WHEN s.kind = 'record' THEN s.bytes END)
		   AS record_bytes
	FROM bench_stream AS bs JOIN stream AS s ON s.id = bs.stream_id
	GROUP BY bs.step_id
)
SELECT b.id AS step_id, b.run_id, b.label, b.workstations, b.repetition,
       r.kernel, r.config_hz,
       coalesce(st.streams, 0) AS streams,
       b.wall_s,
       coalesce(st.bytes, 0) AS bytes,
       CASE WHEN b.wall_s > 0 THEN round(st.bytes / 1e6 / b.wall_s, 3)
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
       b.reader,
       coalesce(st.play_streams, 0) AS play_streams,
       CASE WHEN b.wall_s > 0
	    THEN round(coalesce(st.play_bytes, 0) / 1e6 / b.wall_s, 3)
       END AS play_mb_s,
       round(p.play_p99 / 1e3, 1) AS play_p99_us,
       coalesce(st.record_streams, 0) AS record_streams,
       coalesce(st.record_frames, 0) AS record_frames,
       coalesce(st.dropped_frames, 0) AS dropped_frames,
       coalesce(st.writer_drops, 0) AS writer_drops,
       CASE WHEN b.wall_s > 0
	    THEN round(coalesce(st.record_bytes, 0) / 1e6 / b.wall_s, 3)
       END AS record_mb_s,
       round(p.record_p99 / 1e3, 1) AS record_p99_us
FROM bench_step AS b
JOIN run AS r ON r.id = b.run_id
LEFT JOIN st ON st.step_id = b.id
LEFT JOIN pct AS p ON p.step_id = b.id
ORDER BY b.id;

-- Latency percentiles per stream and track (V, A1, ...), of the storage's
-- operations (a record stream's receive rows and a play stream's await
-- rows are waits: left out since schema version 11), and the stream's
-- kind: a track read or written.
CREATE VIEW IF NOT EXISTS track_latency AS
WITH ranked AS (
	SELECT s.run_id, a.stream_id, s.kind, a.track, a.errno,
	       a.done_ns > a.due_ns AS late,
	       a.done_ns - a.issued_ns AS lat,
	       row_number() OVER (PARTITION BY a.stream_id, a.track
				  ORDER BY a.done_ns - a.issued_ns) AS rn,
	       count(*) OVER (PARTITION BY a.stream_id, a.track) AS n
	FROM access AS a JOIN stream AS s ON s.id = a.stream_id
	WHERE a.op NOT IN (9, 10)
)
SELECT run_id, stream_id, track, count(*) AS accesses,
       sum(errno <> 0) AS errors,
       sum(late) AS late_accesses,
       round(avg(lat) / 1e3, 1) AS mean_us,
       round(max(CASE WHEN rn = (n * 50 + 99) / 100 THEN lat END) / 1e3, 1)
	   AS p50_us,
       round(max(CASE WHEN rn = (n * 90 + 99) / 100 THEN lat END) / 1e3, 1)
	   AS p90_us,
       round(max(CASE WHEN rn = (n * 95 + 99) / 100 THEN lat END) / 1e3, 1)
	   AS p95_us,
       round(max(CASE WHEN rn = (n * 99 + 99) / 100 THEN lat END) / 1e3, 1)
	   AS p99_us,
       round(max(CASE WHEN rn = (n * 999 + 999) / 1000 THEN lat END) / 1e3,
	     1) AS p99_9_us,
       round(max(lat) / 1e3, 1) AS max_us,
       kind
FROM ranked GROUP BY stream_id, track
ORDER BY run_id, stream_id, track;

-- Latency percentiles per run and track, over every stream of the run
-- (the storage's operations, as track_latency); a run that recorded has a
-- row per kind and track: a track's reads (kind 'play') apart from its
-- writes ('record').
CREATE VIEW IF NOT EXISTS run_track_latency AS
WITH ranked AS (
	SELECT s.run_id, s.kind, a.track, a.errno,
	       a.done_ns > a.due_ns AS late,
	       a.done_ns - a.issued_ns AS lat,
	       row_number() OVER (PARTITION BY s.run_id, s.kind, a.track
				  ORDER BY a.done_ns - a.issued_ns) AS rn,
	       count(*) OVER (PARTITION BY s.run_id, s.kind, a.track) AS n
	FROM access AS a JOIN stream AS s ON s.id = a.stream_id
	WHERE a.op NOT IN (9, 10)
)
SELECT run_id, track, count(*) AS accesses,
       sum(errno <> 0) AS errors,
       sum(late) AS late_accesses,
       round(avg(lat) / 1e3, 1) AS mean_us,
       round(max(CASE WHEN rn = (n * 50 + 99) / 100 THEN lat END) / 1e3, 1)
	   AS p50_us,
       round(max(CASE WHEN rn = (n * 90 + 99) / 100 THEN lat END) / 1e3, 1)
	   AS p90_us,
       round(max(CASE WHEN rn = (n * 95 + 99) / 100 THEN lat END) / 1e3, 1)
	   AS p95_us,
       round(max(CASE WHEN rn = (n * 99 + 99) / 100 THEN lat END) / 1e3, 1)
	   AS p99_us,
       round(max(CASE WHEN rn = (n * 999 + 999) / 1000 THEN lat END) / 1e3,
	     1) AS p99_9_us,
       round(max(lat) / 1e3, 1) AS max_us,
       kind
FROM ranked GROUP BY run_id, kind, track
ORDER BY run_id, kind, track;

-- Every access with where it sits in the edit.  Within one stream and
-- track, in issue order: new_file is 1 when the read is the first of the
-- track or reads another clip than the read before it (the player changed
-- files); after_cut is 1 when new_file is, or when it reads the same clip
-- at an offset that does not continue the read before it (a cut within
-- one clip, or a seek).  "Continue" allows a jump of up to half a slice:
-- slice lengths follow the timeline's frame numbers and offsets the
-- clip's, so consecutive slices of one clip may overlap or leave a gap of
-- a few bytes (less than the track's alignment).  The waits (receive and
-- await rows, op 9 and 10: their offsets are the writer's or the read's)
-- follow each other apart from the storage's operations; wait is 1 for
-- them, kind the stream's (schema version 11).
CREATE VIEW IF NOT EXISTS access_cut AS
WITH w AS (
	SELECT a.id, a.stream_id, s.run_id, a.frame, a.track, a.clip,
	       a.file_offset, a.length, a.due_ns, a.issued_ns, a.done_ns,
	       a.errno, a.op IN (9, 10) AS wait, s.kind,
	       lag(a.clip) OVER o AS prev_clip,
	       lag(a.file_offset + a.length) OVER o AS prev_end
	FROM access AS a JOIN stream AS s ON s.id = a.stream_id
	WINDOW o AS (PARTITION BY a.stream_id, a.track, a.op IN (9, 10)
		     ORDER BY a.issued_ns, a.id)
)
SELECT id, stream_id, run_id, frame, track, clip, file_offset, length,
       due_ns, issued_ns, done_ns, errno,
       done_ns - issued_ns AS latency_ns,
       done_ns > due_ns AS late,
       prev_clip,
       prev_clip IS NULL OR prev_clip <> clip AS new_file,
       prev_clip IS NULL OR prev_clip <> clip
	   OR abs(file_offset - prev_end) * 2 > length AS after_cut,
       wait, kind
FROM w;

-- One row per late read: its clip and track, how late (done - due),
-- whether it was the first read after a cut (see access_cut), and why:
-- cause is 'storage' when the read took longer than its frame allowed
-- (done - issued > due - sched: it would have been late issued on time),
-- else 'issue': it was issued late, by issue_delay_us (issued - sched),
-- because the reader stopped asking (a pause, a slow consumer: the ring
-- was full) or the daemon was short of CPU.  (Schema version 3; op and
-- image, as in access_v, version 10.)  Schema version 11: a play
-- stream's late await row (a frame of a clip being recorded, not yet
-- written when due) has cause 'recording'; a record stream's late
-- receive row (the writer handed the frame over after its due time) has
-- cause 'writer', its other late rows (writes ...) 'storage'; kind is
-- the stream's.
CREATE VIEW IF NOT EXISTS late_access AS
SELECT c.run_id, c.stream_id, t.name AS timeline, c.frame, c.track,
       c.clip, c.file_offset, c.length, c.due_ns, c.done_ns,
       round(c.latency_ns / 1e3, 1) AS latency_us,
       round((c.done_ns - c.due_ns) / 1e3, 1) AS late_by_us,
       c.new_file, c.after_cut, c.errno,
       round((c.issued_ns - a.sched_ns) / 1e3, 1) AS issue_delay_us,
       a.played, a.sched_ns,
       CASE WHEN s.kind = 'record'
	    THEN CASE WHEN a.op = 9 THEN 'writer' ELSE 'storage' END
	    WHEN a.op = 10 THEN 'recording'
	    WHEN c.latency_ns > c.due_ns - a.sched_ns THEN 'storage'
	    ELSE 'issue' END AS cause,
       a.dep,
       coalesce(o.name, a.op) AS op,
       a.image,
       s.kind
FROM access_cut AS c
JOIN access AS a ON a.id = c.id
LEFT JOIN op AS o ON o.id = a.op
JOIN stream AS s ON s.id = c.stream_id
LEFT JOIN timeline AS t ON t.id = s.timeline_id
WHERE c.late
ORDER BY c.stream_id, c.frame, c.track;

-- One row per late frame played (a frame with at least one late read
-- where it counted as played: the player's stream.late_frames counts the
-- same frames; a reload's reads, or a load a seek discarded, are late
-- reads in late_access but no late frame; a frame played twice, as a
-- loop does, is two rows, one per load, told by its sched_ns): the late
-- tracks and their clips, how late its last read was, whether any late
-- read was the first after a cut, and the cause: 'storage' when any late
-- read was the storage's, else 'issue' (see late_access).  (Schema version 7: before,
-- it counted every late read's frame once, and a stream read through
-- smbd listed 86 late frames where its row said 0.)  Schema version 11:
-- a record stream's dropped frames too (kind 'record': a whole frame
-- (played) whose write or receive row is late, as the recorder counts it
-- in the stream's late_frames; a late fsync, open or close is no dropped
-- frame, nor is a last partial frame, played 0), cause 'writer' when its
-- receive was late, else 'storage'; a
-- play frame with a late await row has cause 'recording' (over
-- 'storage' and 'issue': it waited for the recording).
CREATE VIEW IF NOT EXISTS late_frame AS
SELECT run_id, stream_id, timeline, frame, min(due_ns) AS due_ns,
       group_concat(track, ',') AS tracks,
       group_concat(DISTINCT clip) AS clips,
       max(late_by_us) AS late_by_us,
       max(new_file) AS new_file,
       max(after_cut) AS after_cut,
       max(issue_delay_us) AS issue_delay_us,
       CASE max(CASE cause WHEN 'writer' THEN 4 WHEN 'recording' THEN 3
			   WHEN 'storage' THEN 2 ELSE 1 END)
	    WHEN 4 THEN 'writer' WHEN 3 THEN 'recording'
	    WHEN 2 THEN 'storage' ELSE 'issue' END AS cause,
       max(kind) AS kind
FROM late_access
WHERE coalesce(played, 1)
  AND (kind = 'play' OR op IN ('write', 'receive'))
GROUP BY stream_id, frame, sched_ns
ORDER BY stream_id, frame, sched_ns;

-- The cost of cuts: per run and track, reads right after a cut against the
-- others (after_cut 1 / 0): their count, late reads and latency (the play
-- streams' storage operations: no waits, no recording's writes, schema
-- version 11).
CREATE VIEW IF NOT EXISTS cut_latency AS
WITH ranked AS (
	SELECT run_id, track, after_cut, late, latency_ns AS lat,
	       row_number() OVER (PARTITION BY run_id, track, after_cut
				  ORDER BY latency_ns) AS rn,
	       count(*) OVER (PARTITION BY run_id, track, after_cut) AS n
	FROM access_cut WHERE kind = 'play' AND NOT wait
)
SELECT run_id, track, after_cut, count(*) AS accesses,
       sum(late) AS late_accesses,
       round(100.0 * sum(late) / count(*), 3) AS late_pct,
       round(avg(lat) / 1e3, 1) AS mean_us,
       round(max(CASE WHEN rn = (n * 50 + 99) / 100 THEN lat END) / 1e3, 1)
	   AS p50_us,
       round(max(CASE WHEN rn = (n * 99 + 99) / 100 THEN lat END) / 1e3, 1)
	   AS p99_us,
       round(max(lat) / 1e3, 1) AS max_us
FROM ranked GROUP BY run_id, track, after_cut
ORDER BY run_id, track, after_cut;

-- Per run and second (of done_ns since the run's start): backing reads
-- completed in that second, their bytes (mb_s: decimal MB in that second),
-- the late ones, the distinct plays of frames they made late (as
-- late_frame: reads of played frames, schema version 7), and the streams
-- that completed a read.  Seconds without any completed read have no row.
-- Schema version 11: bytes and mb_s are the storage's (reads, header
-- reads and writes: a receive row's bytes are the writer's, written
-- again by its writes), read_bytes and write_bytes apart; late_frames
-- are the play streams', dropped_frames the record streams' (as
-- late_frame counts them); record_streams are those of streams that
-- were recordings.
CREATE VIEW IF NOT EXISTS timeseries AS
SELECT s.run_id, a.done_ns / 1000000000 AS second,
       count(*) AS accesses,
       sum(CASE WHEN a.op NOT IN (9, 10) THEN a.length ELSE 0 END)
	   AS bytes,
       round(sum(CASE WHEN a.op NOT IN (9, 10) THEN a.length ELSE 0 END)
	     / 1e6, 3) AS mb_s,
       sum(a.done_ns > a.due_ns) AS late_accesses,
       count(DISTINCT CASE WHEN a.done_ns > a.due_ns AND s.kind = 'play'
				AND coalesce(a.played, 1)
			   THEN a.stream_id || ':' || a.frame || ':' ||
				a.sched_ns END)
	   AS late_frames,
       count(DISTINCT a.stream_id) AS streams,
       sum(CASE WHEN a.op IN (0, 2) THEN a.length ELSE 0 END)
	   AS read_bytes,
       sum(CASE WHEN a.op = 5 THEN a.length ELSE 0 END) AS write_bytes,
       count(DISTINCT CASE WHEN a.done_ns > a.due_ns AND s.kind = 'record'
				AND a.op IN (5, 9) AND coalesce(a.played, 1)
			   THEN a.stream_id || ':' || a.frame || ':' ||
				a.sched_ns END)
	   AS dropped_frames,
       count(DISTINCT CASE WHEN s.kind = 'record' THEN a.stream_id END)
	   AS record_streams
FROM access AS a JOIN stream AS s ON s.id = a.stream_id
GROUP BY s.run_id, a.done_ns / 1000000000
ORDER BY s.run_id, second;
PRAGMA user_version = 11;
