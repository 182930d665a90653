/* SPDX-License-Identifier: MIT */
/*
 * timelinefs store: the only code that talks to SQLite.  One database per
 * experiment, one `run` row per mount, accesses written by one recorder
 * thread in batched transactions from a bounded queue.  No row is dropped:
 * a full queue blocks the producer and the wait is counted in the run row;
 * rows the database refuses are held in memory (up to a bound) and written
 * when it accepts writes again.
 *
 * Times handed to the store are CLOCK_MONOTONIC ns (the engine's now());
 * the store writes them as ns since the run's epoch (store_run_begin).
 */
#ifndef STORE_H
#define STORE_H

#include <stdint.h>
#include <sys/types.h>

struct store;
struct store_stream;

struct store_run_info {
	const char *label;	/* may be NULL */
	const char *kernel;	/* uname release */
	int config_hz;		/* CONFIG_HZ, or -1 when unknown (NULL) */
	const char *host;
	const char *options;	/* the mount options as given */
	const char *media_dir;
	/* schema version 12 (many hosts): */
	const char *uuid;	/* the run's identity (NULL: the store
				 * makes a random one) */
	int64_t t0_unix_ns;	/* CLOCK_REALTIME at epoch_ns (0: NULL) */
	const char *experiment;	/* -o experiment=UUID (NULL: none): with
				 * rank, the host row run.host_id names;
				 * without, the store adds a host row of
				 * its own (name host, machine_id) */
	int rank;		/* -o rank=R, < 0: none */
	const char *machine_id;	/* /etc/machine-id, NULL unreadable */
};

struct store_timeline_info {
	const char *name;
	const char *path;
	uint32_t fps_num;
	uint32_t fps_den;
	int64_t frames;
	uint64_t bytes;
};

/* One access row; track and clip point at strings that outlive the store's
 * use of them (the mounted timeline model). */
struct store_access {
	int64_t frame;
	const char *track;
	const char *clip;
	uint64_t file_offset;
	uint64_t length;
	uint64_t sched_ns;
	uint64_t due_ns;
	uint64_t issued_ns;
	uint64_t done_ns;
	/* (narrow: a held row takes STORE_HOLD_ROW_BYTES) */
	int16_t err;		/* 0 or positive errno (Linux's < 4096) */
	uint16_t injected;	/* faults injected: 1 delay, 2 error (bits) */
	uint8_t played;		/* its frame counted as played (eng_access) */
	uint8_t dep;		/* a decoding dependency read (eng_access) */
	uint8_t op;		/* enum eng_op: access.op */
	uint8_t is_image;	/* image is set: access.image, else NULL */
	int64_t image;		/* an image sequence's file number */
	/* A filled player's issue evidence (eng_access): access.wake_ns
	 * (saturated at STORE_NONE32 - 1, about 4.3 s) and ring_fill;
	 * STORE_NONE32: none (NULL) */
	uint32_t wake_ns;
	uint32_t ring_fill;
};
/* wake_ns, ring_fill of a row without that evidence (NULL) */
#define STORE_NONE32 UINT32_MAX

/* Open (creating if needed) the database at path, mode 0600 when created,
 * WAL mode, schema applied.  ":memory:" works.  queue_cap is the recorder
 * queue's capacity in rows (0: default 65536).  On failure returns -errno
 * style code (-EIO, -ENOMEM, -EACCES, -ENOENT for a missing directory,
 * -ENOTSUP for a database of a newer schema version (PRAGMA user_version
 * above STORE_SCHEMA_VERSION)...) and, if errmsg is not NULL, a malloc'ed
 * message to free ("cannot open database PATH: REASON"). */
/* 13: the calibration table (30-analysis.sql); 14: late_access's cause
 * storage for a read issued late behind the stream's own backlog; 15:
 * stream.reader_late_frames and bench_client; 16: the evidence
 * (access.wake_ns, ring_fill, stream.ring_frames), the causes timer and
 * reader, the frames' headroom; 17: bench_probe, the interactive work
 * timed beside a bench's steps */
#define STORE_SCHEMA_VERSION 17
int store_open(const char *path, unsigned queue_cap, struct store **out,
	       char **errmsg);

/* Insert the run row; epoch_ns is the monotonic time that rows count from.
 * Call once, before store_start().  The run and timeline rows are written
 * in one transaction that store_start() (or store_run_end()) commits:
 * readers of the database see them together or not at all.  Returns 0,
 * -EIO (see store_errmsg) or -EINVAL (called twice). */
int store_run_begin(struct store *st, const struct store_run_info *info,
		    uint64_t epoch_ns);
/* The run's row id (after store_run_begin). */
int64_t store_run_id(const struct store *st);

/* A random (version 4) UUID, lower-case 8-4-4-4-12 (ids.c): a run's
 * identity across databases, an experiment's.  getrandom(2), else
 * /dev/urandom; 0 or -errno. */
int store_uuid_random(char out[37]);

/* Record why the run's mount is refused: one problem row ("FILE:LINE:
 * reason"), at the same point as store_timeline_add(); then end the run.
 * Returns 0, -EIO (see store_errmsg) or -EINVAL (out of order). */
int store_problem_add(struct store *st, const char *message);

/* Insert a timeline row for the current run; synchronous, after
 * store_run_begin() and before store_start() (the recorder owns the
 * connection after that).  Returns 0, -EIO (see store_errmsg) or -EINVAL
 * (out of order); *id is its row id. */
int store_timeline_add(struct store *st, const struct store_timeline_info *tl,
		       int64_t *id);

/* The file one (clip, track) of timeline timeline_id reads (a media row),
 * at the same point as store_timeline_add(): file inside the run's
 * media_dir, codec ("raw" for raw essence), stream its index in the file
 * or -1 (NULL: raw).  Returns 0, -EIO (see store_errmsg) or -EINVAL (out
 * of order, or NULL). */
struct store_media_info {
	const char *clip;
	const char *track;
	const char *file;
	const char *codec;
	int stream;
};
int store_media_add(struct store *st, int64_t timeline_id,
		    const struct store_media_info *m);

/* Record one fact of the run's environment (a run_env row: key, value;
 * a key given again replaces its value), at the same point as
 * store_timeline_add().  Returns 0, -EIO (see store_errmsg) or -EINVAL
 * (out of order, or NULL). */
int store_env_add(struct store *st, const char *key, const char *value);

/* A run_env row of a fact known only at the end (measured while the run
 * played), after store_run_end() and before store_close().  Returns 0,
 * -EIO (see store_errmsg) or -EINVAL (out of order, or NULL). */
int store_env_add_ended(struct store *st, const char *key, const char *value);

/* The version of the SQLite library linked at run time ("3.40.1"), for
 * the run_env row and timelinefs -V; static storage. */
const char *store_sqlite_version(void);

/*
 * Commit interval: the recorder commits at most this long after the first
 * row of a batch was queued (plus the time the commit itself takes), or as
 * soon as it has a full batch.  It bounds what a kill -9 of the daemon or a
 * crash can lose: the rows of the last STORE_COMMIT_INTERVAL_MS.  (An
 * unmount loses nothing: store_run_end drains the queue.)
 */
#define STORE_COMMIT_INTERVAL_MS 50

/*
 * The hold.  When a commit fails (disk full, I/O error, read-only or
 * vanished file, a lock held beyond the busy timeout, a dropped table...)
 * the batch is rolled back and its entries kept in memory, in order; every
 * STORE_COMMIT_INTERVAL_MS the recorder writes them again (first a few,
 * then whole batches) ahead of anything newer, so once the database takes
 * writes again every row arrives once, in queue order, and the streams
 * closed meanwhile get their totals.  Stream open and close rows are always
 * held; access rows up to the bound set here (default STORE_DEFAULT_HOLD,
 * 0: none), beyond which they are counted in rows_lost.  What is still held
 * at store_run_end, after one last attempt, is lost and counted too.
 * Producers never wait on an outage: the recorder keeps emptying the queue
 * into the hold.  Each entry costs STORE_HOLD_ROW_BYTES (about 100 bytes),
 * allocated only during an outage.  Call before store_start(); 0 or
 * -EINVAL.
 */
#define STORE_DEFAULT_HOLD 1000000
#define STORE_HOLD_ROW_BYTES 112
int store_set_hold(struct store *st, uint64_t rows);

/*
 * Messages about outages, handed to fn(ctx, msg) from the recorder thread
 * (msg is valid during the call): once when the database first refuses a
 * commit ("timelinefs: PATH: the database refuses writes (cannot commit:
 * database or disk is full): holding up to N access rows ..."), once if the
 * hold overflows, and once when it accepts writes again, with how many held
 * rows were written and lost.  Call before store_start(); 0 or -EINVAL.
 */
typedef void store_notify_fn(void *ctx, const char *msg);
int store_set_notify(struct store *st, store_notify_fn *fn, void *ctx);

/* A recording that the mount repaired at start (engine/ingest/ingest.h):
 * the record stream row of `file` ("ingest/NAME") that the killed run of
 * uuid run_uuid left open (closed_ns NULL: its last such row) gets frames
 * and bytes, the repair's, and closed_ns, that of its last access row
 * committed (its opened_ns without one).  At the same point as
 * store_timeline_add().  0, -ENOENT (no such row: the run recorded into
 * another database), -EIO (see store_errmsg) or -EINVAL (out of order, or
 * NULL). */
int store_stream_repaired(struct store *st, const char *run_uuid,
			  const char *file, int64_t frames, uint64_t bytes);

/* Commit the run and timeline rows and start the recorder thread.  0,
 * -EINVAL (no store_run_begin, or already started), -EIO (the commit
 * failed: see store_errmsg), -ENOMEM, or -errno from pthread_create. */
int store_start(struct store *st);

/* Take back a run that never served a stream (its mount failed): stop the
 * recorder and delete the run and timeline rows, or roll them back before
 * store_start().  The run is ended after.  0, -EBUSY (a stream was opened:
 * nothing is deleted), -EINVAL (no run, or ended) or -EIO. */
int store_run_discard(struct store *st);

/* Who opened a stream (the stream table's columns of that name); a pid or
 * tid of 0 is unknown (NULL); a sid of -1 is unknown (NULL), 0 a session
 * whose leader is outside the daemon's PID namespace (getsid(2)). */
struct store_reader {
	pid_t pid;		/* the process (thread group id) */
	pid_t tid;		/* the thread that opened */
	pid_t sid;		/* the process's session, -1: unknown */
	const char *comm;	/* the process's command name; NULL: "" */
	/* and what it opened: the file's name in the mount, NAME or
	 * NAME.mov (the stream table's file); NULL: none recorded */
	const char *file;
	/* 1: a record stream (ingest: stream.kind 'record', file
	 * "ingest/NAME", timeline_id NULL), 0: a play stream ('play') */
	int record;
};

/* Queue a new stream row (timeline row id, who opened it, open time).  The
 * handle is valid until store_stream_close().  who->comm and who->file are
 * copied.
 * Thread-safe, like the two calls below; call them after store_start()
 * (before it, rows only queue up, and a full queue blocks until the
 * recorder starts) and before store_run_end().  0, -ENOMEM, or -ESHUTDOWN
 * after store_run_end() (no handle then). */
int store_stream_open(struct store *st, int64_t timeline_id,
		      const struct store_reader *who, uint64_t opened_ns,
		      struct store_stream **out);
/* Queue one access of the stream.  Blocks while the queue is full (the
 * first wait of each call counts in queue_full_waits); never drops the row,
 * except after store_run_end(), where it counts in rows_lost. */
void store_access_add(struct store_stream *ss, const struct store_access *a);
/* A stream's totals at close (the stream table's columns of that name). */
struct store_stream_totals {
	uint64_t closed_ns;	/* monotonic, like every time given */
	uint64_t bytes;
	int64_t frames;
	int64_t late_frames;
	int64_t failed_frames;
	int64_t requests;
	int64_t reloads;
	int64_t seeks;
	/* A record stream's: frames are the whole frames received,
	 * late_frames the dropped ones (written after their due time),
	 * failed_frames those whose write failed, requests the writer's
	 * write calls; writer_drops the dropped frames the writer caused
	 * (stream.writer_drops, schema 11); 0 for a play stream. */
	int64_t writer_drops;
	/* A play stream's frames handed to the reader after they were due
	 * (stream.reader_late_frames, schema 15; eng_player_stats) */
	int64_t reader_late_frames;
	/* A play stream's ring, in frames (stream.ring_frames, schema 16:
	 * an access row's ring_fill of that many was a full ring); 0 for a
	 * record stream (NULL). */
	int64_t ring_frames;
};
/* Queue the stream's close with its totals; the handle is gone after. */
void store_stream_close(struct store_stream *ss,
			const struct store_stream_totals *t);

/* Drain the queue and the hold (one last attempt), stop the recorder,
 * write the run's end time and counts.  Safe to call once after
 * store_start() or without it (it then writes the queued rows itself);
 * later calls return 0.  Returns 0 (also after an outage the hold bridged),
 * or -EIO when the run row could not be updated or rows were lost (see
 * store_get_stats and store_errmsg). */
int store_run_end(struct store *st, uint64_t end_ns);

/*
 * A SQLite failure in the recorder rolls back that batch into the hold (see
 * store_set_hold); it never blocks a reader.  After store_run_end(),
 * rows_written + rows_lost == rows_queued.
 */
struct store_stats {
	uint64_t rows_queued;	/* access rows handed to the store */
	uint64_t rows_written;	/* access rows committed */
	uint64_t rows_lost;	/* access rows given up on (hold full, or
				 * still refused at the run's end) */
	uint64_t rows_held;	/* access rows in the hold now */
	uint64_t stream_rows_lost; /* stream rows or totals given up on */
	uint64_t queue_full_waits; /* producers that found the queue full */
	uint64_t commits;	/* recorder transactions committed */
	uint64_t outages;	/* times the database began refusing writes */
	int in_outage;		/* the database refuses writes now */
	int last_error;		/* 0, or -EIO once a row was lost or the run
				 * row could not be written */
};
/* Thread-safe snapshot of the counters. */
void store_get_stats(struct store *st, struct store_stats *out);

/* The message of the first failure since store_open ("cannot insert access
 * row: no such table: access"), even one the hold bridged, or NULL.  Owned by the store, valid until
 * store_close(); read it after the failing call returned, or for recorder
 * failures after store_run_end(). */
const char *store_errmsg(const struct store *st);

/* The schema (the .sql files of schema/ in name order), applied by
 * store_open(). */
extern const char store_schema_sql[];

/* Close the database (calls store_run_end if the run is still open). */
void store_close(struct store *st);

#endif /* STORE_H */
