-- SPDX-License-Identifier: MIT
-- timelinefs store: tables.  Applied at every store_open inside one
-- transaction, so every statement is idempotent: each mount appends a run.
-- Schema version: PRAGMA user_version = 15 (set by the store).
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
	duration_ns INTEGER,		-- run start to unmount
	-- added in schema version 12 (many hosts):
	uuid TEXT,			-- the run's identity across databases:
					-- timelinefs-merge adds a run once
	t0_unix_ns INTEGER,		-- CLOCK_REALTIME (ns since 1970) of
					-- this host at the run's epoch, the 0
					-- of its *_ns columns: with the
					-- host's offset, every time of the run
					-- on one axis (view run_axis)
	host_id INTEGER REFERENCES host(id)	-- the host that ran it
					-- (NULL: a database from before 12)
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
	writer_drops INTEGER,		-- a record stream's dropped frames
					-- that the writer caused (its bytes
					-- came after the frame's due time),
					-- within late_frames; 0 for a play
					-- stream
	-- added in schema version 15:
	reader_late_frames INTEGER,	-- a play stream's frames whose last
					-- byte the reader was handed after
					-- the frame was due (each once): the
					-- reader's side, which a slow network
					-- or client makes late whatever the
					-- storage did; NULL from an older
					-- daemon
	-- added in schema version 16:
	ring_frames INTEGER		-- a play stream's ring, in frames
					-- (written at its close): an access
					-- row's ring_fill of that many was a
					-- full ring
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
	image INTEGER,		-- (version 10) an image sequence's row: the
				-- image file's number (the one in its
				-- name); NULL for other media
	-- (version 16) why the read was issued when it was, for a frame
	-- the stream's filler issued (NULL: a request's own load, a
	-- recording's rows, an older timelinefs):
	wake_ns INTEGER,	-- the daemon's own delay before this read
				-- (the timer, the scheduler): the frame's
				-- first read's issue after the filler
				-- should have run (its timed wait's end,
				-- the signal that woke it, the end of the
				-- frame before, or the frame's schedule if
				-- later), a later read's after the frame's
				-- read before it; 4294967294: 4.3 s or
				-- more
	ring_fill INTEGER	-- the frames of the ring the reader had
				-- not yet taken when the filler last found
				-- no room for this frame, or at its issue
				-- when it had room (stream.ring_frames:
				-- the ring was full, the reader held it)
);
CREATE INDEX IF NOT EXISTS access_stream ON access(stream_id);

-- Many hosts (schema version 12, docs/hosts.md): one experiment
-- is one timelinefs-hosts run, one MPI rank per client host, each with its
-- own mount and database; timelinefs-merge puts them into one.  A database
-- of one host (a mount, timelinefs-bench) has its host row too, with
-- experiment_id and rank NULL.
CREATE TABLE IF NOT EXISTS experiment (
	id INTEGER PRIMARY KEY,
	uuid TEXT NOT NULL UNIQUE,
	started_at TEXT NOT NULL,	-- rank 0's clock, UTC ISO-8601 ms
	ended_at TEXT,
	ranks INTEGER NOT NULL,		-- MPI ranks (hosts) asked for
	machines INTEGER,		-- distinct machines among them
					-- (host.machine_id): 1 is one physical
					-- host, never a scale-out measurement
	command TEXT,			-- the launcher's command line
	plan TEXT NOT NULL,		-- 'list' (--workstations) or 'find-max'
	max_lo INTEGER,			-- find-max: the most workstations that
					-- played with 0 late frames in every
					-- repetition (0: not even 1)
	max_hi INTEGER,			-- the fewest that did not (NULL: none
					-- failed up to the cap)
	verdict TEXT			-- the launcher's last line, in words
);

CREATE TABLE IF NOT EXISTS host (
	id INTEGER PRIMARY KEY,
	experiment_id INTEGER REFERENCES experiment(id),
	rank INTEGER,			-- MPI rank; NULL outside an experiment
	name TEXT NOT NULL,		-- host name (MPI_Get_processor_name)
	machine_id TEXT,		-- /etc/machine-id: ranks with the same
					-- one ran on one machine
	boot_id TEXT,			-- /proc/sys/kernel/random/boot_id
	-- this host's CLOCK_REALTIME minus rank 0's (ns), from the ping-pong
	-- sample with the shortest round trip (rtt), at the experiment's
	-- start and end, each taken at t_*_ns (this host's clock); rank 0: 0
	offset_start_ns INTEGER,
	rtt_start_ns INTEGER,
	t_start_ns INTEGER,
	offset_end_ns INTEGER,		-- NULL: no end measurement (the host
	rtt_end_ns INTEGER,		-- died or was stopped)
	t_end_ns INTEGER,
	sync TEXT,			-- the kernel's clock discipline
					-- (adjtimex): 'synchronized' or
					-- 'unsynchronized'; NULL: unreadable
	sync_error_us INTEGER,		-- adjtimex's estimated error
	complete INTEGER NOT NULL DEFAULT 0,	-- 1: played every step it
					-- was given, stopped cleanly and its
					-- database is merged whole
	reason TEXT,			-- why not complete ("no answer in
					-- step 4 within 60 s", "cannot mount
					-- ...: ...", "stopped by SIGTERM")
	UNIQUE (experiment_id, rank)
);


-- What rank 0 gave each rank in each step of an experiment, written by
-- rank 0 into its own database before it sends the step (a share of 0
-- too: with fewer workstations than live hosts, or a host left out after
-- it died).  The views take the hosts expected in a step from here: a
-- rank given workstations > 0 and without a bench_step row of the step
-- missed it; a rank given 0 neither played nor missed it.  A step with no
-- row here (a database written by hand) expects every host row of its
-- experiment.  timelinefs-merge adds each row once (its key).
CREATE TABLE IF NOT EXISTS experiment_share (
	experiment_id INTEGER NOT NULL REFERENCES experiment(id),
	step_no INTEGER NOT NULL,	-- bench_step.step_no
	rank INTEGER NOT NULL,		-- host.rank
	workstations INTEGER NOT NULL,	-- this rank's share (0: none)
	repetition INTEGER NOT NULL,	-- of the step's total, 1..R (0 a
					-- warm-up), as bench_step's
	total_workstations INTEGER NOT NULL,	-- over all ranks
	planned_unix_ns INTEGER,	-- the start rank 0 set (its clock)
	PRIMARY KEY (experiment_id, step_no, rank)
);
