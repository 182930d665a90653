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
	reader TEXT,
	-- added in schema version 12: a step of a timelinefs-hosts
	-- experiment is one bench_step row per host that played in it
	experiment_id INTEGER REFERENCES experiment(id),
	step_no INTEGER,		-- the step's number in the experiment,
					-- the same on every host (1, 2, ...)
	total_workstations INTEGER,	-- the step's workstations over all
					-- hosts (workstations: this host's)
	planned_unix_ns INTEGER		-- the start rank 0 set (its clock)
);
CREATE INDEX IF NOT EXISTS bench_step_run ON bench_step(run_id);

-- The streams (opens) of each step.
CREATE TABLE IF NOT EXISTS bench_stream (
	step_id INTEGER NOT NULL REFERENCES bench_step(id),
	stream_id INTEGER NOT NULL REFERENCES stream(id),
	PRIMARY KEY (step_id, stream_id)
);
CREATE INDEX IF NOT EXISTS bench_stream_stream ON bench_stream(stream_id);

-- A workstation's client of a bench step over the network (schema version
-- 15; timelinefs-bench --via smb in timelinefs-lab net): which workstation
-- (its namespace's number, its address) read the stream through which
-- client ('smbclient', 'mpv'), and what the client itself counted: its
-- wall time, bytes, and a player's dropped frames and buffering waits
-- (NULL where the client counts none).  stream_id is the stream smbd
-- opened for it (stream.pid: the smbd process of that connection).
CREATE TABLE IF NOT EXISTS bench_client (
	step_id INTEGER NOT NULL REFERENCES bench_step(id),
	stream_id INTEGER REFERENCES stream(id),
	workstation INTEGER NOT NULL,
	address TEXT,
	via TEXT NOT NULL,		-- 'smb'
	client TEXT NOT NULL,		-- 'smbclient' or 'mpv'
	wall_s REAL,			-- the client's start to its exit
	bytes INTEGER,			-- bytes the client got (smbclient)
	dropped_frames INTEGER,		-- the player's (mpv's "Dropped:")
	buffering_waits INTEGER,	-- the player's stops to buffer
	exit_status INTEGER
);
CREATE INDEX IF NOT EXISTS bench_client_step ON bench_client(step_id);

-- A network client's play, as the workstation sees it: span_s is its
-- stream's, smbd's open of the timeline to its close (after the client's
-- last reply, so a slow link shows in it while the stream's own counts,
-- smbd reading ahead, do not), duration_s its timeline's; in_time 1 where
-- the client exited 0 and the span is within the duration, 10 % and 0.5 s
-- more (0 without a stream or its close).  The client's own start and
-- connection are not its play: in a lab they take the server's CPUs
-- (0.5-0.7 s of a client on a slower 2-core host), where a workstation
-- connects once.  timelinefs-bench --find-max --via smb counts N
-- workstations played where every client is in_time with no late frame
-- (docs/lab.md).
CREATE VIEW IF NOT EXISTS bench_client_play AS
SELECT c.step_id, c.stream_id, c.workstation, c.client, c.exit_status,
       c.wall_s, (s.closed_ns - s.opened_ns) / 1e9 AS span_s,
       1.0 * t.frames * t.fps_den / t.fps_num AS duration_s,
       s.late_frames, s.reader_late_frames,
       coalesce(c.exit_status = 0 AND s.closed_ns IS NOT NULL AND
		(s.closed_ns - s.opened_ns) / 1e9 <=
		1.1 * t.frames * t.fps_den / t.fps_num + 0.5, 0) AS in_time
FROM bench_client AS c LEFT JOIN stream AS s ON s.id = c.stream_id
LEFT JOIN timeline AS t ON t.id = s.timeline_id;

-- What the storage gives, measured in the same bench run (schema version
-- 13; timelinefs-bench --calibrate): fio with `readers` parallel O_DIRECT
-- sequential readers of the media's files, each read block_bytes (the
-- run's mean backing read, rounded up to 4 KiB), for `seconds`.
-- bytes_per_s and reads_per_s are the ground truth a step's late frames
-- and find-max's count are held against (docs/lab.md); run_id is the
-- run whose media and storage it measured.
CREATE TABLE IF NOT EXISTS calibration (
	id INTEGER PRIMARY KEY,
	run_id INTEGER NOT NULL REFERENCES run(id),
	label TEXT,
	readers INTEGER NOT NULL,
	block_bytes INTEGER NOT NULL,
	seconds REAL NOT NULL,
	read_bytes INTEGER NOT NULL,
	bytes_per_s REAL NOT NULL,
	reads_per_s REAL NOT NULL,
	tool TEXT			-- the fio command line
);
CREATE INDEX IF NOT EXISTS calibration_run ON calibration(run_id);

-- Interactive work beside a step's streams (schema version 17;
-- timelinefs-bench runs timelinefs-probe beside each step unless --probe
-- off): every 100 ms a small program started and waited for (kind
-- 'spawn': fork, exec, exit) and a metadata walk of a project folder
-- (kind 'walk': readdir and stat of its `items` files), one row each with
-- its latency, so that an A/B says what a change did to the host's
-- interactive work as well as to playback.  start_ns is the sample's
-- start, ns since the run's start (NULL for a run without t0_unix_ns);
-- ok 0: the program did not exit 0 or a file could not be stat'ed.
CREATE TABLE IF NOT EXISTS bench_probe (
	step_id INTEGER NOT NULL REFERENCES bench_step(id),
	kind TEXT NOT NULL,		-- 'spawn' or 'walk'
	start_ns INTEGER,
	latency_ns INTEGER NOT NULL,	-- CLOCK_MONOTONIC, start to end
	items INTEGER NOT NULL,		-- files stat'ed (walk); 1 (spawn)
	ok INTEGER NOT NULL		-- 1, or 0: failed
);
CREATE INDEX IF NOT EXISTS bench_probe_step ON bench_probe(step_id);

-- One row per step and probe kind: its samples, the failed ones, samples
-- a second ((samples - 1) over the span of their starts: 10.0 for a
-- probe that kept its 100 ms), the mean files a walk stat'ed, and the
-- nearest-rank p50, p99 and max of the latencies of the samples that did
-- not fail, in us rounded to 0.1 us, as the reads' (see the top).
CREATE VIEW IF NOT EXISTS bench_probe_summary AS
WITH ranked AS (
	SELECT step_id, kind, latency_ns AS lat,
	       row_number() OVER w AS rn, count(*) OVER p AS n
	FROM bench_probe WHERE ok
	WINDOW p AS (PARTITION BY step_id, kind), w AS (p ORDER BY latency_ns)
),
pct AS (
	SELECT step_id, kind,
	       max(CASE WHEN rn = (n * 50 + 99) / 100 THEN lat END) AS p50,
	       max(CASE WHEN rn = (n * 99 + 99) / 100 THEN lat END) AS p99,
	       max(lat) AS pmax
	FROM ranked GROUP BY step_id, kind
),
cnt AS (
	SELECT step_id, kind, count(*) AS samples, sum(NOT ok) AS failed,
	       CASE WHEN max(start_ns) > min(start_ns)
		    THEN round((count(*) - 1) * 1e9
			       / (max(start_ns) - min(start_ns)), 2)
	       END AS per_s,
	       round(avg(items), 1) AS items
	FROM bench_probe GROUP BY step_id, kind
)
SELECT b.id AS step_id, b.run_id, b.label, b.workstations, b.repetition,
       c.kind, c.samples, c.failed, c.per_s, c.items,
       round(p.p50 / 1e3, 1) AS p50_us,
       round(p.p99 / 1e3, 1) AS p99_us,
       round(p.pmax / 1e3, 1) AS max_us
FROM bench_step AS b JOIN cnt AS c ON c.step_id = b.id
LEFT JOIN pct AS p ON p.step_id = c.step_id AND p.kind = c.kind;

-- One row per step: its totals and the latency percentiles over every
-- access of its streams (the storage's operations).  mb_s is the
-- aggregate throughput delivered to the readers and taken from the
-- writers, bytes / 1e6 / wall_s.  Play and record apart (schema version
-- 11), as in run_summary: streams, bytes, frames and failed_frames both
-- kinds; late_frames the play streams', dropped_frames the record
-- streams' (writer_drops: by their writers); play_mb_s and record_mb_s
-- each kind's bytes over wall_s; play_p99_us and record_p99_us the p99 of
-- each kind's operations: with M players and N recorders, which side
-- misses its deadlines first.  headroom_min_us .. headroom_p50_us as
-- run_summary's, over the step's played frames (schema version 16): how
-- the margin shrinks as workstations are added.
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
),
hr AS (
	SELECT bs.step_id, f.headroom_ns AS h,
	       row_number() OVER (PARTITION BY bs.step_id
				  ORDER BY f.headroom_ns) AS rn,
	       count(*) OVER (PARTITION BY bs.step_id) AS n
	FROM bench_stream AS bs
	JOIN frame_headroom AS f ON f.stream_id = bs.stream_id
),
hp AS (
	SELECT step_id, min(h) AS hmin,
	       max(CASE WHEN rn = (n + 99) / 100 THEN h END) AS h1,
	       max(CASE WHEN rn = (n * 5 + 99) / 100 THEN h END) AS h5,
	       max(CASE WHEN rn = (n * 50 + 99) / 100 THEN h END) AS h50
	FROM hr GROUP BY step_id
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
       round(p.record_p99 / 1e3, 1) AS record_p99_us,
       round(hp.hmin / 1e3, 1) AS headroom_min_us,
       round(hp.h1 / 1e3, 1) AS headroom_p1_us,
       round(hp.h5 / 1e3, 1) AS headroom_p5_us,
       round(hp.h50 / 1e3, 1) AS headroom_p50_us
FROM bench_step AS b
JOIN run AS r ON r.id = b.run_id
LEFT JOIN st ON st.step_id = b.id
LEFT JOIN pct AS p ON p.step_id = b.id
LEFT JOIN hp ON hp.step_id = b.id
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
-- or when it was late only because the storage had fallen behind
-- (schema version 14): a stream's reads follow one another, so on a
-- storage that runs out each read waits for the one before, and the
-- stream falls further behind with every read though none alone took
-- its frame's time.  A backlog is a run of the stream's reads (in issue
-- order; waits apart) from one issued on time up to the next issued on
-- time; on time is within 1 ms of its schedule (schema version 16:
-- before, at or before it, which a filler's wake-up never quite is, so
-- a stream's whole play was one backlog; a read issued within that 1 ms
-- still counts its issue delay as idle time).  A read of it issued late after the stream's last completion
-- before its issue (last_done, of any of its reads: with
-- frames_in_flight, the loader that freed) waited for the storage until
-- then; the rest of its issue delay is idle: issued - last_done when more
-- than 1 ms (less is the player's own step from one read to the next),
-- or all of issued - sched when nothing completed since its schedule.
-- Idle is the time the stream was behind but waited for no read (the
-- filler woke late, the reader stopped asking: the ring was full, the
-- daemon short of CPU).  idle_ns sums the backlog's idle times so far;
-- a read is 'storage' when done - idle_ns > due: it would have been late
-- without them (a row without sched_ns, of an old timelinefs, is
-- 'issue' as before).
-- Else it was issued late, by issue_delay_us (issued - sched), and the
-- idle time's evidence says why (schema version 16): each read's idle
-- is split into the timer's share, min(idle, wake_ns) (the filler issued
-- the frame that late after its timed wait for it: the timer, the
-- scheduler), the reader's, the rest of it where ring_fill reached the
-- stream's ring_frames (the ring was full of frames the reader had not
-- taken: a pause, a slow consumer), and the rest, without evidence;
-- summed over the backlog so far as idle is (timer_ns, reader_ns), the
-- cause is 'timer' when the timer's share is the largest, else 'reader'
-- when the reader's is not below the rest, else 'issue'.  A row without
-- the evidence (NULL: a request's own load, an older timelinefs) counts
-- none.
-- (Schema version 3; op and image, as in access_v, version 10.)  Schema version 11: a play
-- stream's late await row (a frame of a clip being recorded, not yet
-- written when due) has cause 'recording'; a record stream's late
-- receive row (the writer handed the frame over after its due time) has
-- cause 'writer', its other late rows (writes ...) 'storage'; kind is
-- the stream's.
CREATE VIEW IF NOT EXISTS late_access AS
WITH ev AS (
	SELECT c.id, c.stream_id, c.wait, c.issued_ns AS t, 1 AS is_issue,
	       a.sched_ns, c.issued_ns, c.done_ns, c.due_ns, c.run_id,
	       c.frame, c.track, c.clip, c.file_offset, c.length,
	       c.latency_ns, c.late, c.new_file, c.after_cut, c.errno,
	       a.played, a.dep, a.op, a.image, c.kind,
	       a.wake_ns, a.ring_fill, s.ring_frames
	FROM access_cut AS c JOIN access AS a ON a.id = c.id
	JOIN stream AS s ON s.id = c.stream_id
	UNION ALL
	SELECT id, stream_id, op IN (9, 10), done_ns, 0, NULL, NULL, NULL,
	       NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
	       NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL
	FROM access
), q AS (
	SELECT *,
	       max(CASE WHEN NOT is_issue THEN t END)
		   OVER (PARTITION BY stream_id, wait
			 ORDER BY t, id, is_issue DESC
			 ROWS UNBOUNDED PRECEDING) AS last_done
	FROM ev
), r AS (
	SELECT *,
	       -- within 1 ms: a filler's wake-up is never exact (its
	       -- own delay still idle time)
	       coalesce(issued_ns - sched_ns <= 1000000, 1) AS on_time,
	       CASE WHEN issued_ns <= sched_ns THEN 0
		    WHEN last_done > sched_ns
		    THEN CASE WHEN issued_ns - last_done > 1000000
			      THEN issued_ns - last_done ELSE 0 END
		    ELSE issued_ns - sched_ns END AS idle
	FROM q WHERE is_issue
), ev2 AS (
	-- the idle time's share of each evidence: the filler's late wake
	-- (up to the idle time), the rest of it where the ring was full
	SELECT *,
	       CASE WHEN wake_ns > 0 THEN min(idle, wake_ns) ELSE 0 END
		   AS timer_idle,
	       CASE WHEN ring_fill >= ring_frames
		    THEN idle - CASE WHEN wake_ns > 0 THEN min(idle, wake_ns)
				     ELSE 0 END
		    ELSE 0 END AS reader_idle
	FROM r
), bl AS (
	SELECT *,
	       sum(on_time) OVER (PARTITION BY stream_id, wait
				  ORDER BY issued_ns, id
				  ROWS UNBOUNDED PRECEDING) AS backlog
	FROM ev2
), c AS (
	SELECT *,
	       sum(idle) OVER b AS idle_ns,
	       sum(timer_idle) OVER b AS timer_ns,
	       sum(reader_idle) OVER b AS reader_ns
	FROM bl
	WINDOW b AS (PARTITION BY stream_id, wait, backlog
		     ORDER BY issued_ns, id ROWS UNBOUNDED PRECEDING)
)
SELECT c.run_id, c.stream_id, t.name AS timeline, c.frame, c.track,
       c.clip, c.file_offset, c.length, c.due_ns, c.done_ns,
       round(c.latency_ns / 1e3, 1) AS latency_us,
       round((c.done_ns - c.due_ns) / 1e3, 1) AS late_by_us,
       c.new_file, c.after_cut, c.errno,
       round((c.issued_ns - c.sched_ns) / 1e3, 1) AS issue_delay_us,
       c.played, c.sched_ns,
       CASE WHEN s.kind = 'record'
	    THEN CASE WHEN c.op = 9 THEN 'writer' ELSE 'storage' END
	    WHEN c.op = 10 THEN 'recording'
	    WHEN c.latency_ns > c.due_ns - c.sched_ns THEN 'storage'
	    WHEN c.sched_ns IS NOT NULL
		 AND c.done_ns - c.idle_ns > c.due_ns THEN 'storage'
	    WHEN c.timer_ns > 0 AND c.timer_ns >= c.reader_ns
		 AND c.timer_ns >= c.idle_ns - c.timer_ns - c.reader_ns
	    THEN 'timer'
	    WHEN c.reader_ns > 0
		 AND c.reader_ns >= c.idle_ns - c.timer_ns - c.reader_ns
	    THEN 'reader'
	    ELSE 'issue' END AS cause,
       c.dep,
       coalesce(o.name, c.op) AS op,
       c.image,
       s.kind,
       round(c.wake_ns / 1e3, 1) AS wake_delay_us,
       c.ring_fill, c.ring_frames,
       round(c.idle_ns / 1e3, 1) AS idle_us,
       round(c.timer_ns / 1e3, 1) AS timer_idle_us,
       round(c.reader_ns / 1e3, 1) AS reader_idle_us
FROM c
LEFT JOIN op AS o ON o.id = c.op
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
-- read was the storage's, else 'reader', 'timer' or 'issue', the first
-- of them any late read had (see late_access), with the evidence: the
-- largest wake delay, ring fill and shares of the backlog's idle time
-- of its late reads (schema version 16).  (Schema version 7: before,
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
       CASE max(CASE cause WHEN 'writer' THEN 6 WHEN 'recording' THEN 5
			   WHEN 'storage' THEN 4 WHEN 'reader' THEN 3
			   WHEN 'timer' THEN 2 ELSE 1 END)
	    WHEN 6 THEN 'writer' WHEN 5 THEN 'recording'
	    WHEN 4 THEN 'storage' WHEN 3 THEN 'reader'
	    WHEN 2 THEN 'timer' ELSE 'issue' END AS cause,
       max(kind) AS kind,
       max(wake_delay_us) AS wake_delay_us,
       max(ring_fill) AS ring_fill, max(ring_frames) AS ring_frames,
       max(idle_us) AS idle_us,
       max(timer_idle_us) AS timer_idle_us,
       max(reader_idle_us) AS reader_idle_us
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

-- Many hosts (schema version 12, docs/hosts.md).  A step of a
-- timelinefs-hosts experiment is one bench_step row per host that played
-- it, tagged with the experiment and the step's number (step_no);
-- bench_step_summary keeps its row per host and step.  Times on the
-- common axis (rank 0's clock, view run_axis) are the host's run epoch on
-- that axis plus the step's started_ns / ended_ns.

-- One row per host: its experiment and rank (NULL for a database of one
-- host), name and machine, the clock offsets (its clock minus rank 0's)
-- measured at the start and the end in ms and the drift between them in
-- ppm (parts per million of the time between the measurements), the
-- round trips of those measurements (us), the clock discipline, complete
-- or not and why; then what its runs hold: runs, streams, bench steps
-- (every bench_step row of its runs, warm-ups too), the frames of those
-- steps' streams (late_frames the play streams', dropped_frames the
-- record streams'), their bytes, and mb_s: those bytes over the sum of
-- its steps' wall_s; in an experiment, missed_steps: the steps it was
-- expected to play and did not (experiment_step_expected), and
-- out_since_step: the first of them after the last step it played (it
-- missed every step it was given from there on: it died, or was stopped;
-- NULL when it played the last step it was given).
CREATE VIEW IF NOT EXISTS host_summary AS
WITH ex AS (
	SELECT host_id, step_no, played,
	       max(CASE WHEN played THEN step_no END)
		   OVER (PARTITION BY host_id) AS last_played
	FROM experiment_step_expected WHERE host_id IS NOT NULL
),
ms AS (
	SELECT host_id, sum(NOT played) AS missed_steps,
	       min(CASE WHEN NOT played AND step_no > coalesce(last_played, -1)
		   THEN step_no END) AS out_since_step
	FROM ex GROUP BY host_id
),
ru AS (
	SELECT host_id, count(*) AS runs FROM run
	WHERE host_id IS NOT NULL GROUP BY host_id
),
sr AS (
	SELECT r.host_id, count(*) AS streams
	FROM stream AS s JOIN run AS r ON r.id = s.run_id
	WHERE r.host_id IS NOT NULL GROUP BY r.host_id
),
bs AS (
	SELECT r.host_id, count(*) AS steps, sum(b.wall_s) AS wall_s
	FROM bench_step AS b JOIN run AS r ON r.id = b.run_id
	WHERE r.host_id IS NOT NULL GROUP BY r.host_id
),
bf AS (
	SELECT r.host_id, sum(s.frames) AS frames,
	       sum(CASE WHEN s.kind = 'play' THEN s.late_frames END)
		   AS late_frames,
	       sum(CASE WHEN s.kind = 'record' THEN s.late_frames END)
		   AS dropped_frames,
	       sum(s.failed_frames) AS failed_frames, sum(s.bytes) AS bytes
	FROM bench_step AS b JOIN run AS r ON r.id = b.run_id
	JOIN bench_stream AS x ON x.step_id = b.id
	JOIN stream AS s ON s.id = x.stream_id
	WHERE r.host_id IS NOT NULL GROUP BY r.host_id
)
SELECT h.id AS host_id, h.experiment_id, h.rank, h.name AS host,
       h.machine_id,
       round(h.offset_start_ns / 1e6, 3) AS offset_start_ms,
       round(h.offset_end_ns / 1e6, 3) AS offset_end_ms,
       CASE WHEN h.t_end_ns > h.t_start_ns
	    THEN round((h.offset_end_ns - coalesce(h.offset_start_ns, 0))
		       * 1e6 / (h.t_end_ns - h.t_start_ns), 3)
       END AS drift_ppm,
       round(h.rtt_start_ns / 1e3, 1) AS rtt_start_us,
       round(h.rtt_end_ns / 1e3, 1) AS rtt_end_us,
       h.sync, h.sync_error_us, h.complete, h.reason,
       coalesce(ru.runs, 0) AS runs,
       coalesce(sr.streams, 0) AS streams,
       coalesce(bs.steps, 0) AS steps,
       coalesce(bf.frames, 0) AS frames,
       coalesce(bf.late_frames, 0) AS late_frames,
       coalesce(bf.dropped_frames, 0) AS dropped_frames,
       coalesce(bf.failed_frames, 0) AS failed_frames,
       coalesce(bf.bytes, 0) AS bytes,
       CASE WHEN bs.wall_s > 0 THEN round(bf.bytes / 1e6 / bs.wall_s, 3)
       END AS mb_s,
       CASE WHEN h.experiment_id IS NOT NULL
	    THEN coalesce(ms.missed_steps, 0) END AS missed_steps,
       ms.out_since_step
FROM host AS h
LEFT JOIN ms ON ms.host_id = h.id
LEFT JOIN ru ON ru.host_id = h.id
LEFT JOIN sr ON sr.host_id = h.id
LEFT JOIN bs ON bs.host_id = h.id
LEFT JOIN bf ON bf.host_id = h.id
ORDER BY h.experiment_id, h.rank, h.id;

-- One row per experiment step and host that played it: the host's share
-- (workstations) of the step's total_workstations, its streams, frames
-- (late: play, dropped: record), bytes, its own wall_s and mb_s (its
-- bench_step's), and on the common axis: its first open and last close
-- (started_axis_ns, ended_axis_ns), start_ms its first open after the
-- start rank 0 planned (planned_unix_ns: rank 0's clock, the axis), and
-- lag_ms its last close after the step's median end (the lower median of
-- the ends of the hosts that played, as engine/hosts eng_hosts_stragglers
-- takes it; 0 for the median host).  A host whose bench call wrote
-- several rows for one step has them summed, first open to last close.
CREATE VIEW IF NOT EXISTS experiment_host_step AS
WITH st AS (
	SELECT x.step_id, count(*) AS streams, sum(s.bytes) AS bytes,
	       sum(s.frames) AS frames,
	       sum(CASE WHEN s.kind = 'play' THEN s.late_frames END)
		   AS late_frames,
	       sum(CASE WHEN s.kind = 'record' THEN s.late_frames END)
		   AS dropped_frames,
	       sum(s.failed_frames) AS failed_frames
	FROM bench_stream AS x JOIN stream AS s ON s.id = x.stream_id
	GROUP BY x.step_id
),
hs AS (
	SELECT b.experiment_id, b.step_no,
	       coalesce(ax.host_id, -b.run_id) AS hkey, ax.host_id,
	       ax.rank, ax.host, max(b.label) AS label,
	       max(b.total_workstations) AS total_workstations,
	       sum(b.workstations) AS workstations,
	       max(b.repetition) AS repetition,
	       sum(coalesce(st.streams, 0)) AS streams,
	       sum(coalesce(st.frames, 0)) AS frames,
	       sum(coalesce(st.late_frames, 0)) AS late_frames,
	       sum(coalesce(st.dropped_frames, 0)) AS dropped_frames,
	       sum(coalesce(st.failed_frames, 0)) AS failed_frames,
	       sum(coalesce(st.bytes, 0)) AS bytes,
	       sum(b.wall_s) AS wall_s,
	       max(b.planned_unix_ns) AS planned_unix_ns,
	       min(ax.t0_axis_ns + b.started_ns) AS started_axis_ns,
	       max(ax.t0_axis_ns + b.ended_ns) AS ended_axis_ns
	FROM bench_step AS b
	JOIN run_axis AS ax ON ax.run_id = b.run_id
	LEFT JOIN st ON st.step_id = b.id
	WHERE b.experiment_id IS NOT NULL AND b.step_no IS NOT NULL
	GROUP BY b.experiment_id, b.step_no, coalesce(ax.host_id, -b.run_id)
),
ranked AS (
	SELECT *,
	       row_number() OVER (PARTITION BY experiment_id, step_no
				  ORDER BY ended_axis_ns IS NULL,
					   ended_axis_ns) AS rn,
	       count(ended_axis_ns) OVER (PARTITION BY experiment_id, step_no)
		   AS n
	FROM hs
),
med AS (
	SELECT *, max(CASE WHEN rn = (n + 1) / 2 THEN ended_axis_ns END)
		      OVER (PARTITION BY experiment_id, step_no) AS median_end
	FROM ranked
)
SELECT experiment_id, step_no, host_id, rank, host, label,
       total_workstations, workstations, repetition, streams, frames,
       late_frames, dropped_frames, failed_frames, bytes,
       round(wall_s, 3) AS wall_s,
       CASE WHEN wall_s > 0 THEN round(bytes / 1e6 / wall_s, 3) END AS mb_s,
       planned_unix_ns, started_axis_ns, ended_axis_ns,
       round((started_axis_ns - planned_unix_ns) / 1e6, 3) AS start_ms,
       round((ended_axis_ns - median_end) / 1e6, 3) AS lag_ms
FROM med
ORDER BY experiment_id, step_no, rank, host_id;

-- One row per experiment step and host expected to play it, and whether
-- it did (played: a bench_step row of the step on that host; 0: it missed
-- the step).  Expected: in a step with experiment_share rows, the ranks
-- rank 0 gave workstations > 0 (workstations: that share; a rank given 0
-- neither played nor missed it, as after its host died or when the step
-- has fewer workstations than hosts); in a step without (a database
-- written by hand), every host row of the experiment (workstations NULL).
-- The steps are those some host played or rank 0 shared out; host_id,
-- host: the rank's host row, NULL if the merged database has none.
CREATE VIEW IF NOT EXISTS experiment_step_expected AS
WITH played AS (
	SELECT DISTINCT b.experiment_id, b.step_no, h.rank, h.id AS host_id
	FROM bench_step AS b
	JOIN run AS r ON r.id = b.run_id
	JOIN host AS h ON h.id = r.host_id
	WHERE b.experiment_id IS NOT NULL AND b.step_no IS NOT NULL
),
steps AS (
	SELECT experiment_id, step_no FROM played
	UNION
	SELECT experiment_id, step_no FROM experiment_share
),
given AS (
	SELECT x.experiment_id, x.step_no, x.rank, h.id AS host_id,
	       h.name AS host, x.workstations
	FROM experiment_share AS x
	LEFT JOIN host AS h ON h.experiment_id = x.experiment_id
	 AND h.rank = x.rank
	WHERE x.workstations > 0
	UNION ALL
	SELECT t.experiment_id, t.step_no, h.rank, h.id, h.name, NULL
	FROM steps AS t JOIN host AS h ON h.experiment_id = t.experiment_id
	WHERE NOT EXISTS (SELECT 1 FROM experiment_share AS x
			  WHERE x.experiment_id = t.experiment_id
			    AND x.step_no = t.step_no)
)
SELECT g.experiment_id, g.step_no, g.rank, g.host_id, g.host,
       g.workstations,
       EXISTS (SELECT 1 FROM played AS p
	       WHERE p.experiment_id = g.experiment_id
		 AND p.step_no = g.step_no
		 AND (p.host_id = g.host_id OR p.rank = g.rank)) AS played
FROM given AS g
ORDER BY g.experiment_id, g.step_no, g.rank;

-- One row per experiment step (experiment_id, step_no), in total over
-- its hosts: total_workstations (the step's, over all hosts),
-- hosts_expected (experiment_step_expected's: the ranks rank 0 gave
-- workstations, or without its shares every host row of the experiment),
-- hosts_played (those with a bench_step row of the step) and
-- hosts_missed (expected, not played); complete is 1 when no host missed
-- it and some host played it (a step a host missed is incomplete, and a
-- mean of a count's steps leaves it out; a step shared out that no host
-- played has its row, incomplete, its totals NULL); streams, frames, late (play), dropped
-- (record) and failed frames and bytes summed over the hosts; on the
-- common axis the step's wall time wall_s (the last close of any host
-- minus the first open of any) and mb_s (bytes / 1e6 / that wall time),
-- start_spread_ms (the latest host's first open minus the earliest's)
-- and start_ms (the earliest first open after the planned start); the
-- straggler (the host whose last close is latest: straggler_host_id, its
-- rank and name) and lag_ms, its end after the median end (see
-- experiment_host_step).  Its latency percentiles over every host are
-- experiment_step_latency's: apart, since they sort every access of the
-- steps, which the totals do not need.
CREATE VIEW IF NOT EXISTS experiment_step_summary AS
WITH hs AS (
	SELECT *, row_number() OVER (PARTITION BY experiment_id, step_no
				     ORDER BY ended_axis_ns IS NULL,
					      ended_axis_ns DESC, rank)
		  AS last
	FROM experiment_host_step
),
tot AS (
	SELECT experiment_id, step_no, max(label) AS label,
	       max(total_workstations) AS total_workstations,
	       sum(workstations) AS workstations,
	       max(repetition) AS repetition,
	       count(*) AS hosts_played,
	       sum(streams) AS streams, sum(frames) AS frames,
	       sum(late_frames) AS late_frames,
	       sum(dropped_frames) AS dropped_frames,
	       sum(failed_frames) AS failed_frames, sum(bytes) AS bytes,
	       max(planned_unix_ns) AS planned_unix_ns,
	       min(started_axis_ns) AS first_start,
	       max(started_axis_ns) AS last_start,
	       max(ended_axis_ns) AS last_end,
	       max(CASE WHEN last = 1 THEN host_id END) AS straggler_host_id,
	       max(CASE WHEN last = 1 THEN rank END) AS straggler_rank,
	       max(CASE WHEN last = 1 THEN host END) AS straggler,
	       max(CASE WHEN last = 1 THEN lag_ms END) AS lag_ms
	FROM hs GROUP BY experiment_id, step_no
),
ex AS (
	SELECT experiment_id, step_no, count(*) AS hosts_expected,
	       sum(NOT played) AS hosts_missed
	FROM experiment_step_expected GROUP BY experiment_id, step_no
),
sh AS (
	SELECT experiment_id, step_no,
	       max(total_workstations) AS total_workstations,
	       max(repetition) AS repetition
	FROM experiment_share GROUP BY experiment_id, step_no
),
steps AS (
	SELECT experiment_id, step_no FROM tot
	UNION
	SELECT experiment_id, step_no FROM sh
)
SELECT k.experiment_id, k.step_no, t.label,
       coalesce(t.total_workstations, sh.total_workstations)
	   AS total_workstations,
       t.workstations, coalesce(t.repetition, sh.repetition) AS repetition,
       coalesce(ex.hosts_expected, 0) AS hosts_expected,
       coalesce(t.hosts_played, 0) AS hosts_played,
       coalesce(ex.hosts_missed, 0) AS hosts_missed,
       coalesce(ex.hosts_missed, 0) = 0 AND t.hosts_played > 0 AS complete,
       t.streams, t.frames, t.late_frames, t.dropped_frames,
       t.failed_frames, t.bytes,
       round((t.last_end - t.first_start) / 1e9, 3) AS wall_s,
       CASE WHEN t.last_end > t.first_start
	    THEN round(t.bytes * 1e3 / (t.last_end - t.first_start), 3)
       END AS mb_s,
       round((t.last_start - t.first_start) / 1e6, 3) AS start_spread_ms,
       round((t.first_start - t.planned_unix_ns) / 1e6, 3) AS start_ms,
       t.straggler_host_id, t.straggler_rank, t.straggler, t.lag_ms,
       t.first_start AS started_axis_ns, t.last_end AS ended_axis_ns
FROM steps AS k
LEFT JOIN tot AS t ON t.experiment_id = k.experiment_id
 AND t.step_no = k.step_no
LEFT JOIN ex ON ex.experiment_id = k.experiment_id AND ex.step_no = k.step_no
LEFT JOIN sh ON sh.experiment_id = k.experiment_id AND sh.step_no = k.step_no
ORDER BY k.experiment_id, k.step_no;

-- One row per experiment step: the latency percentiles p50/p99/max (us)
-- over every host's operations of the step (nearest-rank, as
-- bench_step_summary's; no waits), and how many (accesses).
CREATE VIEW IF NOT EXISTS experiment_step_latency AS
WITH ranked AS (
	SELECT b.experiment_id, b.step_no, a.done_ns - a.issued_ns AS lat,
	       row_number() OVER p AS rn, count(*) OVER (PARTITION BY
		   b.experiment_id, b.step_no) AS n
	FROM bench_step AS b
	JOIN bench_stream AS x ON x.step_id = b.id
	JOIN access AS a ON a.stream_id = x.stream_id
	WHERE b.experiment_id IS NOT NULL AND b.step_no IS NOT NULL
	  AND a.op NOT IN (9, 10)
	WINDOW p AS (PARTITION BY b.experiment_id, b.step_no
		     ORDER BY a.done_ns - a.issued_ns)
)
SELECT experiment_id, step_no, count(*) AS accesses,
       round(max(CASE WHEN rn = (n * 50 + 99) / 100 THEN lat END) / 1e3, 1)
	   AS p50_us,
       round(max(CASE WHEN rn = (n * 99 + 99) / 100 THEN lat END) / 1e3, 1)
	   AS p99_us,
       round(max(lat) / 1e3, 1) AS max_us
FROM ranked GROUP BY experiment_id, step_no
ORDER BY experiment_id, step_no;

-- One row per experiment: its uuid, start and end (rank 0's clock), the
-- ranks asked for, machines (distinct machines among them: the launcher's
-- count, else the host rows' distinct machine_id), note 'one physical
-- host' when machines = 1 (never a scale-out measurement), the host rows
-- and the complete ones, the plan ('list' or 'find-max'), its steps
-- and the complete ones (no host missed them: experiment_step_summary's
-- rows and complete), find-max's bracket
-- (max_lo: the most workstations that played with 0 late frames in every
-- repetition; max_hi: the fewest that did not, NULL when none failed up
-- to the cap), the launcher's verdict and command line.
CREATE VIEW IF NOT EXISTS experiment_summary AS
WITH m AS (
	SELECT e.*, coalesce(e.machines,
			     (SELECT nullif(count(DISTINCT h.machine_id), 0)
			      FROM host AS h WHERE h.experiment_id = e.id))
		    AS nmachines
	FROM experiment AS e
),
st AS (
	SELECT experiment_id, count(*) AS steps, sum(complete) AS complete_steps
	FROM experiment_step_summary GROUP BY experiment_id
)
SELECT m.id AS experiment_id, m.uuid, m.started_at, m.ended_at, m.ranks,
       m.nmachines AS machines,
       CASE WHEN m.nmachines = 1 THEN 'one physical host' END AS note,
       (SELECT count(*) FROM host AS h WHERE h.experiment_id = m.id)
	   AS hosts,
       (SELECT count(*) FROM host AS h WHERE h.experiment_id = m.id
	AND h.complete) AS complete_hosts,
       m.plan,
       coalesce(st.steps, 0) AS steps,
       coalesce(st.complete_steps, 0) AS complete_steps,
       m.max_lo, m.max_hi, m.verdict, m.command
FROM m LEFT JOIN st ON st.experiment_id = m.id
ORDER BY m.id;
