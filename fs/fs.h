/* SPDX-License-Identifier: MIT */
/*
 * timelinefs FUSE daemon: options, mount state and the low-level operations
 * that translate FUSE calls into engine players and store rows.
 */
#ifndef FS_H
#define FS_H

#include <limits.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>

#include <fuse_lowlevel.h>

#include "probe/env.h"
#include "probe/hostfacts.h"
#include "probe/kconfig.h"
#include "ingest/ingest.h"
#include "io/inject.h"
#include "io/io.h"
#include "media/media.h"
#include "media/mov.h"
#include "play/evict.h"
#include "play/metrics.h"
#include "play/movie.h"
#include "play/player.h"
#include "play/status.h"
#include "play/tlmount.h"
#include "util/optdoc.h"
#include "timeline/layout.h"
#include "timeline/load.h"
#include "timeline/model.h"
#include "util/diag.h"
#include "util/values.h"
#include "store.h"

/* Largest read the kernel sends us: passed as -o max_read and used to size
 * each player's ring, so a request always fits in it (the engine's, which
 * timelinefs-gen --for checks the memory with). */
#define FS_MAX_READ ENG_TLM_MAX_REQUEST
/* The smallest -o max_read zero copy halves it to where a pipe for a
 * whole FS_MAX_READ reply is refused (fs_main.c's probe_pipes): eight
 * requests a MiB; where not even its pipe can be had, the mount copies
 * at FS_MAX_READ. */
#define FS_MIN_ZC_READ (128 * 1024)
/* Default -o max_background.  The kernel's own default is 12 background
 * (readahead) requests in flight per mount, and past 3/4 of it
 * fuse_readahead drops the asynchronous part of each window (the kernel's
 * fs/fuse/file.c: "Congested and only async pages left"): 15 paced
 * cached readers then got requests of ~20 KiB instead of 1 MiB, 136000
 * replies in 10 s instead of 2700, and the daemon used 22 % of the
 * machine instead of 10 % (the seed case, docs/performance.md).  A few
 * requests per stream for hundreds of streams; non-root mounts are capped
 * by the kernel at /sys/module/fuse/parameters/max_user_bgreq. */
#define FS_MAX_BACKGROUND 1024
/* Defaults of -o max_idle_threads= and max_threads=, the worker threads
 * of the multi-threaded loop: paced readers sleep in their worker until a
 * frame is due, so every blocked reader holds one thread.  At most
 * FS_THREADS_MAX (a typo, not a machine: each has a stack). */
#define FS_IDLE_THREADS 64
#define FS_MAX_THREADS 512
#define FS_THREADS_MAX 100000
/* Default (play/tlmount.h) and most of -o preroll= (ms); 10 s is a typo's
 * bound. */
#define FS_PREROLL_MS ENG_TLM_PREROLL_MS
#define FS_PREROLL_MAX_MS 10000
/* Iovecs per read reply (play/tlmount.h says why IOV_MAX less one). */
#define FS_IOV_MAX ENG_TLM_IOV_MAX

/* -o record=: which rows a stream writes to the store. */
enum fs_record {
	FS_RECORD_ALL,		/* stream and access rows */
	FS_RECORD_STREAMS,	/* stream rows only */
	FS_RECORD_OFF,		/* neither (the run and timeline rows stay) */
};

/* -o ingest_buffer= and ingest_reserve= defaults (docs/design.md
 * "Ingest": 1 GiB is 7 s of 8 seed recorders), and the most frames a
 * capture buffer may hold. */
#define FS_INGEST_BUFFER 8
#define FS_INGEST_BUFFER_MAX 1024
#define FS_INGEST_RESERVE (1024ULL * 1024 * 1024)

struct fs_config {
	char *media_dir;	/* absolute, resolved before daemonizing */
	char *mountpoint;
	char *db;		/* absolute */
	char *label;
	char *timelines;	/* absolute; default MEDIA_DIR/timelines */
	char *pace;
	char *backing;
	char *fps;
	char *edl_origin;
	char *video_rate;
	char *picture;		/* -o picture= as given (none: NULL) */
	char *audio_rate;
	char *record;		/* all, streams or off */
	char *splice;		/* auto or off */
	char *buffer_arg;	/* -o buffer= as given, parsed into buffer */
	char *readahead_arg;
	char *hold_arg;		/* -o hold= as given, parsed into hold */
	char *max_background_arg;
	char *stream_mem_arg;	/* -o stream_mem= as given */
	char *streams_mem_arg;	/* -o streams_mem= as given */
	char *stream_files_arg;
	char *frames_in_flight_arg;
	char *max_threads_arg;
	char *preroll_arg;
	char *max_idle_threads_arg;
	unsigned buffer;
	unsigned readahead_kb;
	unsigned hold;		/* -o hold=: rows held in a database outage */
	unsigned max_background; /* -o max_background=: see fs_init */
	uint64_t stream_mem;	/* -o stream_mem=: bytes a stream may take */
	/* -o streams_mem=: bytes all open streams of the mount may take
	 * together (fs_stream.mem); default half the machine's memory */
	uint64_t streams_mem;
	unsigned stream_files;	/* -o stream_files=: media fds per stream */
	unsigned frames_in_flight; /* -o frames_in_flight=: 1..64 */
	/* -o max_threads=, max_idle_threads=: libfuse's, parsed here and
	 * handed to its loop (fuse_loop_cfg), where its own parser would
	 * take them and the daemon not use them */
	/* -o preroll=: how far a player of NAME.mov may read ahead of its
	 * stream's clock (eng_player_config.preroll), in ms */
	unsigned preroll_ms;
	unsigned max_threads;
	unsigned max_idle_threads;
	int direct_io;
	int strict;
	int show_help;
	int show_version;
	char *show_doc;		/* --doc-options=WHAT */
	int allow_other;	/* given: default_permissions is added */
	/* -o ingest* as given (NULL: not given), parsed below */
	char *ingest;		/* PRESET or off */
	char *ingest_buffer_arg;
	char *ingest_write;	/* frame or BYTES */
	char *ingest_fsync;	/* off, close or N */
	char *ingest_prealloc;	/* off or DURATION */
	char *ingest_on_drop;	/* continue or stop */
	char *ingest_reserve;	/* BYTES or N% */
	int ingest_replace;
	/* The ingest folder's preset (eng_gen_formats()' static name; the
	 * first, the seed, by default): eng_ingest_format_of(it) is the
	 * format of a file whose name ends in no preset.  NULL:
	 * -o ingest=off, no ingest folder. */
	const char *ingest_preset;
	unsigned ingest_buffer;		/* frames, 1..1024 (8) */
	uint64_t ingest_write_bytes;	/* 0: frame */
	enum eng_ingest_fsync ingest_fsync_v;
	unsigned ingest_fsync_every;	/* frames, with ..._EVERY */
	uint64_t ingest_prealloc_ns;	/* 0: off */
	int ingest_stop_on_drop;
	uint64_t ingest_reserve_bytes;	/* with ingest_reserve_pct 0 */
	unsigned ingest_reserve_pct;	/* 1..99: of the file system */
	/* -o experiment=UUID,rank=R (both or neither): the mount is one
	 * rank of a timelinefs-hosts experiment (docs/hosts.md) */
	char *experiment;
	char *rank_arg;
	int rank;		/* -1: none */
	/* TIMELINEFS_TEST_CLOCK_OFFSET_NS (environment, a test hook): ns
	 * added to every realtime clock read (run.t0_unix_ns) */
	int64_t clock_offset_ns;
	char *inject;		/* -o inject= specs joined by ';' */
	struct eng_inject *inject_v; /* parsed; NULL without inject */
	char *options;		/* the -o string as given, for the run row */
	/* parsed values */
	struct eng_pace pace_v;
	enum eng_backing backing_v;
	enum fs_record record_v;
	int splice_v;		/* ENG_SPLICE_AUTO, _PIPES, or 0 (off) */
	struct eng_load_options load;
	struct eng_diag *diag;	/* fs_config_read's, while fuse_opt runs */
};

/* One mounted timeline: its file NAME and, where it can be a movie, its
 * movie NAME.mov (fs_movies, at start). */
struct fs_file {
	struct eng_timeline *tl;
	int64_t timeline_id;	/* store row */
	struct eng_mov mov;	/* head NULL: no NAME.mov */
	char *mov_name;		/* "NAME.mov", with mov */
	/* [0] NAME, [1] NAME.mov: a stream holds that inode in cached
	 * mode (each inode has its own page cache); fs->lock */
	int cached_open[2];
};

/* Who opened a file.  FUSE names the thread that sent the request, and a
 * player or ffmpeg reads from a thread of its own: the process is that
 * thread's group. */
struct fs_reader {
	pid_t pid;	/* the process (thread group id), 0 when it is gone */
	pid_t tid;	/* the thread that opened (fuse_ctx pid) */
	pid_t sid;	/* the process's session: 0 when its leader is outside
			 * our PID namespace (getsid(2)), -1 when unknown */
	char comm[64];	/* the process's command name, "?" when gone */
};

/* One open file: a player, its store stream and how it was opened. */
struct fs_stream {
	struct fs *fs;
	struct fs_file *file;
	fuse_ino_t ino;
	int movie;		/* reads NAME.mov: file->mov before NAME */
	const char *name;	/* the file's name in the mount */
	struct eng_player *player;
	struct store_stream *ss;
	int cached;		/* owns the page cache of its inode */
	uint64_t opened_ns;
	struct fs_reader who;
	struct fs_stream *next, *prev; /* fs->streams, under fs->lock */
	/* The reads between their player call and the end of their reply,
	 * under busy, idle signalled at 0: the kernel may send RELEASE as
	 * soon as it has the last reply, and release must not free what a
	 * read still touches.  (A stream's zero-copy replies are written
	 * side by side: the player keeps them apart.) */
	pthread_mutex_t busy;
	pthread_cond_t idle;
	int reading;
	int pipes;		/* zero-copy replies (fs->zc) */
	uint64_t mem;		/* eng_player_mem of its player, counted in
				 * fs->streams_mem until it closes */
};

/* The tick rate measured (config_hz_measured) on a thread of its own, so
 * that the mount does not wait the 200 ms or more it takes: started once
 * the daemon is in the background, recorded after store_run_end (the run's
 * last rows).  fs_env_hz_record joins the thread and returns 0 or the
 * store's -EIO; nothing is recorded where the rate could not be read. */
struct fs_env_hz {
	pthread_t thread;
	int started;
	const struct eng_io *io;
	int rc;		/* the measurement's, written by its thread */
	double hz;
};
void fs_env_hz_start(struct fs_env_hz *h, const struct eng_io *io);
int fs_env_hz_record(struct fs_env_hz *h, struct store *st);

/* A recording the ingest folder knows (fs/ingest.c): found by its note
 * MEDIA_DIR/ingest/NAME.rec, or created through the mount.  Never freed
 * before the store closes: access rows point at its name. */
struct fs_recorder;
struct fs_rec {
	fuse_ino_t ino;			/* FS_INGEST_INO + 1 + its index */
	struct fs_recorder *open;	/* its record stream, while one
					 * writes it; fs_ingest.lock */
	int starting;			/* one is being made; fs_ingest.lock */
	int recorded;			/* recorded by this mount: rows
					 * point at its name; fs_ingest.lock */
	int vacant;			/* a refused create's, no recording:
					 * the next new name takes it (its
					 * name room for FS_INGEST_NAME_MAX);
					 * fs_ingest.lock */
	char name[];			/* fs_ingest.lock: read a copy taken
					 * under it, unless claimed (open,
					 * starting) or recorded */
};

/* A recording repaired at start: its killed run and what was kept. */
struct fs_ingest_fixed {
	char run[40];			/* run.uuid */
	char file[8 + 256];		/* "ingest/NAME" */
	int64_t frames;
	uint64_t bytes;
};

/* A refused create is said in the mount's log at most this often. */
#define FS_INGEST_SAY_NS (10 * 1000000000ULL)
/* The ingest folder: inode FS_INGEST_INO, its recordings after it. */
#define FS_INGEST_INO ((fuse_ino_t)1 << 48)
/* A recording's name and NUL (eng_ingest_name allows 200 bytes). */
#define FS_INGEST_NAME_MAX 256
struct fs_ingest {
	int on;				/* -o ingest= other than off */
	struct eng_ingest_format fmt;	/* -o ingest=PRESET */
	int replace;			/* -o ingest_replace */
	/* what every record stream shares: the -o ingest_* options and
	 * the mount's io; a stream adds its format and rows */
	struct eng_rec_config base;
	char *repaired;			/* "NAME:FRAMES,..." or NULL */
	/* This daemon, as its recordings' notes name it and as the repair
	 * judges other daemons' (self.me.run: this run's uuid, set before
	 * serving); base.owner points at self.me. */
	struct eng_ingest_self self;
	/* The recordings repaired at start, for their killed runs' stream
	 * rows (fs_ingest_repaired_store) */
	struct fs_ingest_fixed *fixed;
	size_t nfixed;
	/* creates refused (a count), the count when one was last said and
	 * when (monotonic ns): said at most every FS_INGEST_SAY_NS; lock */
	uint64_t refused, refused_said, said_ns;
	pthread_mutex_t lock;		/* recs, n, cap and fs_rec's fields */
	struct fs_rec **recs;		/* in inode order */
	size_t n, cap;
};

struct fs {
	struct fs_config cfg;
	const struct fuse_cmdline_opts *fuse_opts; /* libfuse's, main's */
	struct fuse_session *se;
	struct eng_io io;
	struct eng_io_real io_real;
	struct fs_env_hz hz;	/* the tick rate, measured while serving */
	struct eng_io io_base;	/* the real io under -o inject's wrapper */
	int media_fd;
	struct store *store;
	struct fs_file *files;
	size_t nfiles;
	uint64_t mount_time;	/* wall clock seconds, for st_mtime */
	pthread_mutex_t lock;	/* streams list, fs_file.cached_open,
				 * streams_mem and the refusals below */
	struct fs_stream streams; /* list head */
	/* Bytes the open streams take (their fs_stream.mem, reserved
	 * before a player is made), within cfg.streams_mem */
	uint64_t streams_mem;
	/* Opens refused for it since the last log line, and when that line
	 * was said (io.now): one a second at most */
	uint64_t mem_refused;
	uint64_t mem_said_ns;
	/* The live metrics' totals of the streams closed since the mount,
	 * and the opens (fs/metrics_file.c; lock) */
	struct eng_metrics metrics;
	/* A pipe for a whole reply of max_read can be had (main, before
	 * the mount): libfuse's, or it copies through a buffer per reply. */
	int pipe_ok;
	/* The largest read the kernel sends (-o max_read): FS_MAX_READ, or
	 * less on a backing=buffered mount where only a smaller reply's
	 * pipe can be had (probe_pipes); each player's max_request. */
	size_t max_read;
	/* The pieces of files a reply of max_read may splice from
	 * (fs_splice_pieces, set with max_read): eng_answer.fdmax. */
	int fd_pieces;
	/* Replies spliced from the players' pipes (fs_init decides): the
	 * kernel can, and pipe_ok. */
	int zc;
	struct fs_ingest ingest;
	/* .status's first line, the local host (eng_status_host): set
	 * before the mount, read only after; NULL: none */
	char *status_host;
	/* fs/watch.c: the session ended (unmount, SIGTERM): every stream's
	 * requests are cancelled, and so are those of a stream opened
	 * after it (lock) */
	int ending;
	struct {
		pthread_t thread;
		pthread_cond_t cv;	/* with lock */
		int stop;		/* lock */
		int on;
	} watch;
};

/* fs/options.c */
/* Parse argv into cfg and check every value; leaves the arguments meant for
 * libfuse in args (unknown -o options among them: libfuse refuses those).
 * Reads the file system only to resolve MEDIA_DIR, MOUNTPOINT and the
 * timelines folder; no FUSE session.  Each reason is added to diag, one
 * naming the option ("timelinefs: bad pace 'x': ...", "inject:2: ...");
 * fuse_opt's own complaints (a malformed -o) go to fuse_log.  Returns 0 or
 * -1; cfg is always the caller's to fs_config_free(). */
int fs_config_read(struct fuse_args *args, struct fs_config *cfg,
		   struct eng_diag *diag);
/* fs_config_read, printing the reasons on stderr. */
int fs_config_parse(struct fuse_args *args, struct fs_config *cfg);
void fs_config_free(struct fs_config *cfg);
/* The record stream settings of a parsed cfg's -o ingest_* into rc:
 * buffer, pace (-o pace=), write_bytes, fsync, fsync_every,
 * prealloc_frames (-o ingest_prealloc= at rc->fmt's frame rate, rounded
 * up: rc->fmt must be set), stop_on_drop, reserve (an N% of fs_bytes, the
 * media file system's size: statvfs f_blocks * f_frsize) and replace.
 * The rest of rc (fmt, io, record, notice) is the caller's. */
void fs_ingest_rec_config(const struct fs_config *cfg, uint64_t fs_bytes,
			  struct eng_rec_config *rc);
/* Every timelinefs option of a parsed cfg with the value in effect (the
 * default where none was given): fn(ctx, NAME, VALUE) in the order of -h,
 * stopping at fn's first nonzero return, which is returned. */
int fs_config_each(const struct fs_config *cfg,
		   int (*fn)(void *ctx, const char *name, const char *value),
		   void *ctx);
void fs_usage(const char *prog);

/* fs/fs_opttab.c: one row per option (util/optdoc.h), from which -h
 * (fs_usage), the man page's OPTIONS section and the README's list are
 * printed, and whose defaults and ranges fs/options.c parses with. */
extern const struct eng_optdoc fs_optdocs[];
extern const size_t fs_noptdocs;
/* The row of -o NAME, or NULL. */
const struct eng_optdoc *fs_optdoc_find(const char *name);
/* The option list as what says: "man" (the OPTIONS section's items, roff),
 * "readme" (the README's short list, Markdown) or "list" (a line per -o
 * option: NAME TAB DEFAULT-or-"-" TAB 1-if-in-the-README) on f: 0, or -1
 * for another word. */
int fs_optdoc_print(const char *what, FILE *f);
/* The player configuration of the default options (-h's figures). */
void fs_player_config_default(struct eng_player_config *pc);
/* The player configuration cfg's options make (buffer, pace, backing,
 * request size, limits), all but what needs the mount (its io, ingest):
 * fs_player_config's start, and -h's figures from the defaults. */
void fs_player_config_of(const struct fs_config *cfg,
			 struct eng_player_config *pc);

/* fs/rows.c: queue an engine row to the store stream ss, its track and
 * clip named (texts that outlive the store: it binds them by pointer). */
void fs_access_add(struct store_stream *ss, const struct eng_access *a,
		   const char *track, const char *clip);

/* fs/ops.c */
extern const struct fuse_lowlevel_ops fs_ops;
/* The player configuration every stream of the mount shares (buffer,
 * pace, backing, request size, limits); a stream adds its recorder and
 * whether it may use zero copy. */
void fs_player_config(struct fs *fs, struct eng_player_config *pc);
/* ... and of a reader of NAME.mov: its movie's pieces and the preroll. */
void fs_movie_config(const struct fs *fs, const struct eng_timeline *tl,
		     struct eng_player_config *pc);
/* Close every stream still open (unmount with readers active). */
void fs_close_all_streams(struct fs *fs);

/* fs/metrics_file.c: MOUNT/.metrics/timelinefs.prom, the live metrics in
 * Prometheus's text format (engine/play/metrics.h) for node_exporter's
 * textfile collector.  Its inodes are the folder's and the file's. */
#define FS_METRICS_DIR_INO ((fuse_ino_t)1 << 47)
#define FS_METRICS_INO (FS_METRICS_DIR_INO + 1)
#define FS_METRICS_DIR ".metrics"
#define FS_METRICS_NAME "timelinefs.prom"
/* The text now: the closed streams' totals, the open streams' and
 * recordings' stats and the recorder's; malloc'ed (NUL-terminated), its
 * length in *len; NULL: out of memory. */
char *fs_metrics_text(struct fs *fs, size_t *len);
/* A stream's totals into the metrics as it closes (takes fs->lock);
 * record: a recording's frames, bytes and dropped frames, else a
 * player's stats. */
void fs_metrics_closed(struct fs *fs, const struct eng_player_stats *ps,
		       const struct eng_rec_stats *rs);
/* A stream opened (record: a recording), under fs->lock. */
void fs_metrics_opened(struct fs *fs, int record);

/* fs/ingest.c: the ingest folder (docs/design.md "Ingest").  Each
 * returns 0 or -errno; ops.c replies. */
/* -o ingest*: the record streams' configuration (ing->base) from cfg; 1
 * ingest on, 0 off, -1 with the reasons in diag. */
int fs_ingest_options(struct fs *fs, struct eng_rec_config *rc,
		      struct eng_diag *diag);
/* The options in effect and the ingest folder of the media folder (not a
 * symlink); 0, or -1 said on stderr. */
int fs_ingest_init(struct fs *fs);
/* At start, before serving: repair every recording of MEDIA_DIR/ingest a
 * daemon left unclosed (eng_ingest_repair through io), each said on
 * stderr and listed in fs->ingest.repaired.  0 or -errno (the folder
 * cannot be read). */
int fs_ingest_repair_all(struct fs *fs, const struct eng_io *io);
/* After store_run_begin, beside the run_env rows: each repaired
 * recording's killed run's stream row gets what was kept
 * (store_stream_repaired); one of another database is skipped.  0, or
 * -EIO. */
int fs_ingest_repaired_store(struct fs *fs);
/* The daemon's pid as its notes name it: set once it is in the
 * background (after the fork, another pid), before any recording. */
void fs_ingest_self_pid(struct fs *fs);
/* After the store is closed: the registry. */
void fs_ingest_free(struct fs *fs);
/* At unmount: close every record stream a writer still holds. */
void fs_ingest_close_all(struct fs *fs);
/* Is ino the ingest folder or one of its recordings? */
int fs_ingest_is(fuse_ino_t ino);
struct fs_rec *fs_ingest_rec(struct fs *fs, fuse_ino_t ino);
void fs_ingest_dir_attr(struct fs *fs, struct stat *st);
int fs_ingest_getattr(struct fs *fs, fuse_ino_t ino, struct stat *st);
/* The recording `name` names ("cam1" or "cam1.PRESET"): -ENOENT. */
int fs_ingest_lookup(struct fs *fs, const char *name, struct stat *st);
/* The folder's entries from off into buf (*used bytes). */
int fs_ingest_readdir(struct fs *fs, fuse_req_t req, char *buf, size_t size,
		      off_t off, size_t *used);
/* A writer (thread tid) creates `name`: a record stream in fi->fh, st
 * the new file's.  -EACCES (read-only), -EINVAL (a name refused: said in
 * the log), -EBUSY (being recorded), -EEXIST (recorded, and no
 * ingest_replace), -ENOSPC (under the reserve), the create's -errno. */
int fs_ingest_create(struct fs *fs, const char *name, pid_t tid,
		     struct fuse_file_info *fi, struct stat *st);
/* An open of a recording: -EACCES to read, -EBUSY, -EEXIST unless
 * ingest_replace (then it is recorded again), as create. */
int fs_ingest_open(struct fs *fs, fuse_ino_t ino, pid_t tid,
		   struct fuse_file_info *fi);
/* The writer's bytes to its record stream: size or -errno
 * (eng_rec_write). */
ssize_t fs_ingest_write(struct fs *fs, struct fuse_file_info *fi,
			const char *buf, size_t size, off_t off);
/* setattr's size: only the 0 of an O_TRUNC open before any byte, else
 * -EPERM. */
int fs_ingest_truncate(struct fs *fs, fuse_ino_t ino, uint64_t size,
		       struct fuse_file_info *fi);
/* Close the record stream of fi->fh: its files, its stream's totals. */
void fs_ingest_release(struct fs *fs, struct fuse_file_info *fi);
/* After store_run_end: the run_env row ingest_refused, the creates the
 * folder refused (none: no row).  0 or the store's -errno. */
int fs_ingest_record_end(struct fs *fs);
/* A writer's flush (durable 0) or fsync (1) of its recording: every byte
 * it was told was written is on the track files (eng_rec_sync); 0 or the
 * recording's failure (-ENOSPC, -EIO ...), which close(2) and fsync(2)
 * return to the writer. */
int fs_ingest_sync(struct fs *fs, struct fuse_file_info *fi, int durable);
/* cfg.growing (ctx: fs): is the media file `file` a track being
 * recorded now? */
int fs_ingest_growing(void *ctx, const char *file);
/* Under fs->ingest.lock: .status rows of the record streams (at most cap
 * filled, pointing into them until the lock is let go); their count. */
size_t fs_ingest_status(struct fs *fs, struct eng_status_row *rows,
			size_t cap, uint64_t now);

/* fs/watch.c: a thread that cancels every stream's requests
 * (eng_player_cancel) once the session has ended, so that libfuse's join
 * of its workers does not wait for a paced read's next frame.  Start
 * before the session loop (0, or -errno said in the log: reads then
 * wait for their frames at the end, as they would without it); stop
 * after it. */
int fs_watch_start(struct fs *fs);
void fs_watch_stop(struct fs *fs);

/* fs/daemon.c: unless foreground, fork; the parent waits and exits 0 once
 * the child calls fs_daemon_ready (1 if the child exits first).  -1 with a
 * message on stderr. */
int fs_daemon_start(int foreground);
/* The child is mounted and recording: chdir /, stdio to /dev/null, and let
 * the parent exit 0.  In foreground only the chdir. */
void fs_daemon_ready(void);

/* fs/sys.c: facts about the host for the run row */
char *fs_kernel_release(void);
char *fs_host_name(void);
/* The machine's id (eng_probe_machine_id: one per installed system, so
 * ranks with the same one share a machine), malloc'ed, NULL when none. */
char *fs_machine_id(void);
/* The running kernel's config as eng_probe_kernel_config read it, once at
 * start for the run row and run_env (/proc/config.gz is inflated each
 * time it is read); text NULL where there is none. */
struct fs_kconfig {
	char *text;
	size_t len;
	char from[512];
};
/* Who the thread tid (a request's fuse_ctx pid) belongs to: its process,
 * session and the process's command name (eng_probe_tgid, getsid(),
 * eng_probe_comm); what cannot be read (the thread is gone) is 0 or "?". */
void fs_reader_of(pid_t tid, struct fs_reader *r);

/* fs/run_env.c: the run environment, one run_env row per fact
 * (docs/database.md; the host's from eng_probe_facts), between
 * store_run_begin and store_start; the tick rate is measured apart
 * (fs_env_hz_start).  0 or store_env_add's error. */
int fs_env_record(struct store *st, const struct fs_config *cfg,
		  const struct fuse_cmdline_opts *fo,
		  const char *release,
		  const struct fs_kconfig *kc);


/* Raise the mount's readahead window; 0 or -errno. */
int fs_set_readahead(const char *mountpoint, unsigned kb);
/* /proc/sys/fs/pipe-max-size in bytes, 0 when unknown. */
unsigned long fs_pipe_max(void);
/* Soft RLIMIT_NOFILE up to the hard one; *soft is the soft limit then
 * (raised or not).  0, or -1 with errno set. */
int fs_raise_nofile(uint64_t *soft);
/* Largest pipe libfuse needs to splice a reply of len bytes (header and
 * slack pages, rounded up to a power of two pages as the kernel does). */
unsigned long fs_splice_pipe_need(size_t len);
/* The pieces of files a reply of up to len bytes may splice from
 * through that pipe, at most ENG_FD_PIECES (eng_answer.fdmax). */
int fs_splice_pieces(size_t len);

#endif /* FS_H */
