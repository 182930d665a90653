/* SPDX-License-Identifier: MIT */
/*
 * Low-level FUSE operations: inode 1 is the root, 2 .status, 3+i the i-th
 * timeline's file NAME and 3+n+i its movie NAME.mov (n timelines), where it
 * has one; hidden, .metrics/timelinefs.prom (fs/metrics_file.c).  Each open is
 * one stream: an engine player plus a store stream;
 * a movie's stream reads through the movie layer (play/movie.h).  The
 * folder "ingest" (FS_INGEST_INO, with -o ingest) and its recordings are
 * fs/ingest.c's: a create there is a record stream.
 * Nothing here decides layout or pacing; it unpacks, calls, and replies.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "fs.h"

#define FS_ROOT_INO 1
#define FS_STATUS_INO 2	/* /.status: hidden, not listed */
#define FS_STATUS_NAME ".status"
#define FS_FIRST_INO 3
/* Attributes never change while mounted. */
#define FS_ATTR_TIMEOUT 3600.0

static struct fs *fs_of(fuse_req_t req)
{
	return fuse_req_userdata(req);
}

/* The timeline of inode ino, NULL for none; *movie: ino is its NAME.mov. */
static struct fs_file *file_of(struct fs *fs, fuse_ino_t ino, int *movie)
{
	uint64_t i;

	*movie = 0;
	if (ino < FS_FIRST_INO)
		return NULL;
	i = ino - FS_FIRST_INO;
	if (i < fs->nfiles)
		return &fs->files[i];
	i -= fs->nfiles;
	if (i >= fs->nfiles || !fs->files[i].mov.head)
		return NULL;
	*movie = 1;
	return &fs->files[i];
}

/* The inode of timeline i's file (movie 0) or movie (1). */
static fuse_ino_t ino_of(const struct fs *fs, size_t i, int movie)
{
	return FS_FIRST_INO + (movie ? fs->nfiles : 0) + i;
}

/* The name in the mount of inode ino (the root "/"). */
static const char *name_of(struct fs *fs, fuse_ino_t ino)
{
	int movie;
	struct fs_file *f = file_of(fs, ino, &movie);

	if (f)
		return movie ? f->mov_name : f->tl->name;
	if (fs_ingest_is(ino))
		return ENG_INGEST_DIR;
	if (ino == FS_METRICS_DIR_INO)
		return FS_METRICS_DIR;
	if (ino == FS_METRICS_INO)
		return FS_METRICS_NAME;
	return ino == FS_STATUS_INO ? FS_STATUS_NAME : "/";
}

/* rc: what a fuse_reply_* returned, 0 or -errno when libfuse could not
 * send the reply.  libfuse has freed the request by then (fuse_free_req in
 * send_reply_iov and fuse_reply_data), so nothing can answer it again: a
 * second reply would use freed memory.  The kernel ends a request whose
 * reply it matched to it (with EIO when the reply does not fit); one whose
 * reply it refuses unread (writev of more than IOV_MAX pieces: EINVAL)
 * stays unanswered and its reader waits until the mount goes.  So replies
 * are made to fit before they are sent (FS_IOV_MAX), and a failure is
 * logged.  -ENOENT: the request was interrupted, nobody waits for it. */
static void replied(int rc, const char *op, const char *name)
{
	if (rc == 0 || rc == -ENOENT)
		return;
	fuse_log(FUSE_LOG_ERR, "timelinefs: cannot reply to %s of %s: %s\n",
		 op, name, strerror(-rc));
}

/* fuse_reply_err, checked as replied() says. */
static void reply_err(fuse_req_t req, int err)
{
	replied(fuse_reply_err(req, err), "an error reply", strerror(err));
}

static void fill_attr(struct fs *fs, fuse_ino_t ino, struct stat *st)
{
	int movie;
	struct fs_file *f = file_of(fs, ino, &movie);
	uint64_t size;

	memset(st, 0, sizeof(*st));
	st->st_ino = ino;
	st->st_uid = getuid();
	st->st_gid = getgid();
	st->st_mtime = st->st_ctime = st->st_atime = (time_t)fs->mount_time;
	st->st_blksize = 1 << 20;
	if (ino == FS_STATUS_INO || ino == FS_METRICS_INO) {
		/* generated at open: size 0 like procfs, read with direct_io */
		st->st_mode = S_IFREG | 0444;
		st->st_nlink = 1;
		st->st_mtime = st->st_ctime = st->st_atime = time(NULL);
		return;
	}
	if (!f) {
		st->st_mode = S_IFDIR | 0555;
		st->st_nlink = 2;
		return;
	}
	st->st_mode = S_IFREG | 0444;
	st->st_nlink = 1;
	size = movie ? f->mov.size : f->tl->bytes;
	st->st_size = (off_t)size;
	st->st_blocks = (blkcnt_t)((size + 511) / 512);
}

static void fs_init(void *userdata, struct fuse_conn_info *conn)
{
	struct fs *fs = userdata;

	/* Zero copy needs the kernel's splice to /dev/fuse and a libfuse
	 * pipe big enough for a whole reply: otherwise libfuse copies into
	 * a buffer it allocates per reply, far slower than our own copy. */
	fs->zc = fs->pipe_ok && (conn->capable & FUSE_CAP_SPLICE_WRITE) ?
		 fs->cfg.splice_v : 0;
	if (fs->zc)
		conn->want |= FUSE_CAP_SPLICE_WRITE;
	/* The kernel takes the min of this and the bdi's window; sysfs
	 * raises the latter after mount (fs_set_readahead). */
	conn->max_readahead = UINT32_MAX;
	conn->max_read = (unsigned)fs->max_read; /* as -o max_read */
	conn->want |= FUSE_CAP_ASYNC_READ;
	/* many readers' readahead in flight at once (FS_MAX_BACKGROUND);
	 * the kernel's own threshold is 3/4 of the limit */
	conn->max_background = fs->cfg.max_background;
	/* 0 would mean "not given": the kernel would keep its 9 */
	conn->congestion_threshold = fs->cfg.max_background > 1 ?
				     fs->cfg.max_background * 3 / 4 : 1;
	conn->want &= ~FUSE_CAP_SPLICE_READ;
	/* The files never change while mounted and fs_read drops the pages
	 * itself: no attribute check on every read() of a cached reader. */
	conn->want &= ~FUSE_CAP_AUTO_INVAL_DATA;
	/* a writer's O_TRUNC comes with its open, not as a setattr of a
	 * recording's size (which is refused) */
	if (conn->capable & FUSE_CAP_ATOMIC_O_TRUNC)
		conn->want |= FUSE_CAP_ATOMIC_O_TRUNC;
}

/* A recording's size changes while it is recorded: no caching. */
static void ingest_entry(fuse_req_t req, const struct stat *st,
			 const char *name)
{
	struct fuse_entry_param e;

	memset(&e, 0, sizeof(e));
	e.ino = st->st_ino;
	e.attr = *st;
	replied(fuse_reply_entry(req, &e), "lookup", name);
}

static void fs_lookup(fuse_req_t req, fuse_ino_t parent, const char *name)
{
	struct fs *fs = fs_of(req);
	struct fuse_entry_param e;
	size_t i;
	int movie = 0;

	if (parent == FS_INGEST_INO && fs->ingest.on) {
		int rc = fs_ingest_lookup(fs, name, &e.attr);

		if (rc < 0)
			return reply_err(req, -rc);
		return ingest_entry(req, &e.attr, name);
	}
	memset(&e, 0, sizeof(e));
	if (parent == FS_METRICS_DIR_INO && strcmp(name, FS_METRICS_NAME) == 0) {
		e.ino = FS_METRICS_INO;
		fill_attr(fs, e.ino, &e.attr);
		return replied(fuse_reply_entry(req, &e), "lookup", name);
	}
	if (parent != FS_ROOT_INO)
		return reply_err(req, ENOENT);
	if (strcmp(name, FS_METRICS_DIR) == 0) {
		e.ino = FS_METRICS_DIR_INO;
		e.attr_timeout = e.entry_timeout = FS_ATTR_TIMEOUT;
		fill_attr(fs, e.ino, &e.attr);
		return replied(fuse_reply_entry(req, &e), "lookup", name);
	}
	if (fs->ingest.on && strcmp(name, ENG_INGEST_DIR) == 0) {
		e.ino = FS_INGEST_INO;
		e.attr_timeout = e.entry_timeout = FS_ATTR_TIMEOUT;
		fs_ingest_dir_attr(fs, &e.attr);
		return replied(fuse_reply_entry(req, &e), "lookup", name);
	}
	if (strcmp(name, FS_STATUS_NAME) == 0) {
		e.ino = FS_STATUS_INO;
		fill_attr(fs, e.ino, &e.attr);
		return replied(fuse_reply_entry(req, &e), "lookup", name);
	}
	for (i = 0; i < fs->nfiles; i++) {
		if (strcmp(fs->files[i].tl->name, name) == 0)
			break;
		if (fs->files[i].mov_name &&
		    strcmp(fs->files[i].mov_name, name) == 0) {
			movie = 1;
			break;
		}
	}
	if (i == fs->nfiles)
		return reply_err(req, ENOENT);
	e.ino = ino_of(fs, i, movie);
	e.attr_timeout = e.entry_timeout = FS_ATTR_TIMEOUT;
	fill_attr(fs, e.ino, &e.attr);
	replied(fuse_reply_entry(req, &e), "lookup", name);
}

static void fs_getattr(fuse_req_t req, fuse_ino_t ino,
		       struct fuse_file_info *fi)
{
	struct fs *fs = fs_of(req);
	struct stat st;
	int movie;

	(void)fi;
	if (fs_ingest_is(ino) && fs->ingest.on) {
		int rc = fs_ingest_getattr(fs, ino, &st);

		if (rc < 0)
			return reply_err(req, -rc);
		/* a recording's size changes while it is recorded */
		return replied(fuse_reply_attr(req, &st, ino == FS_INGEST_INO ?
					       FS_ATTR_TIMEOUT : 0),
			       "getattr", name_of(fs, ino));
	}
	if (ino != FS_ROOT_INO && ino != FS_STATUS_INO &&
	    ino != FS_METRICS_DIR_INO && ino != FS_METRICS_INO &&
	    !file_of(fs, ino, &movie))
		return reply_err(req, ENOENT);
	fill_attr(fs, ino, &st);
	replied(fuse_reply_attr(req, &st, FS_ATTR_TIMEOUT), "getattr",
		name_of(fs, ino));
}

/* .metrics: ".", "..", timelinefs.prom */
static void metrics_readdir(fuse_req_t req, size_t size, off_t off)
{
	static const char *const names[] = { ".", "..", FS_METRICS_NAME };
	static const fuse_ino_t inos[] = { FS_METRICS_DIR_INO, FS_ROOT_INO,
					   FS_METRICS_INO };
	char *buf = malloc(size);
	size_t used = 0, i, n;

	if (!buf)
		return reply_err(req, ENOMEM);
	for (i = (size_t)off; off >= 0 && i < 3; i++) {
		struct stat st = { 0 };

		st.st_ino = inos[i];
		st.st_mode = i < 2 ? S_IFDIR : S_IFREG;
		n = fuse_add_direntry(req, buf + used, size - used, names[i],
				      &st, (off_t)(i + 1));
		if (n > size - used)
			break;
		used += n;
	}
	replied(fuse_reply_buf(req, buf, used), "readdir", FS_METRICS_DIR);
	free(buf);
}

static void fs_readdir(fuse_req_t req, fuse_ino_t ino, size_t size,
		       off_t off, struct fuse_file_info *fi)
{
	struct fs *fs = fs_of(req);
	char *buf;
	size_t used = 0, i;

	(void)fi;
	if (ino == FS_INGEST_INO && fs->ingest.on) {
		buf = malloc(size);
		if (!buf)
			return reply_err(req, ENOMEM);
		fs_ingest_readdir(fs, req, buf, size, off, &used);
		replied(fuse_reply_buf(req, buf, used), "readdir",
			ENG_INGEST_DIR);
		free(buf);
		return;
	}
	if (ino == FS_METRICS_DIR_INO)
		return metrics_readdir(req, size, off);
	if (ino != FS_ROOT_INO)
		return reply_err(req, ENOTDIR);
	buf = malloc(size);
	if (!buf)
		return reply_err(req, ENOMEM);
	/* entry i: 0 ".", 1 "..", then 2 + 2j timeline j's NAME and
	 * 3 + 2j its NAME.mov (none where it has no movie), then with -o
	 * ingest the folder "ingest"; off is the next one */
	for (i = (size_t)off; i < 2 * fs->nfiles + 2 + !!fs->ingest.on;
	     i++) {
		struct stat st = { 0 };
		int dir = i < 2 || i == 2 * fs->nfiles + 2;
		const struct fs_file *f = dir ? NULL : &fs->files[(i - 2) / 2];
		int movie = !dir && (i - 2) % 2;
		const char *name = i == 0 ? "." : i == 1 ? ".." :
				   dir ? ENG_INGEST_DIR :
				   movie ? f->mov_name : f->tl->name;
		size_t n;

		if (!name)
			continue;	/* no movie */
		st.st_ino = i < 2 ? FS_ROOT_INO : dir ? FS_INGEST_INO :
			    ino_of(fs, (i - 2) / 2, movie);
		st.st_mode = dir ? S_IFDIR : S_IFREG;
		n = fuse_add_direntry(req, buf + used, size - used, name, &st,
				      (off_t)(i + 1));
		if (n > size - used)
			break;
		used += n;
	}
	replied(fuse_reply_buf(req, buf, used), "readdir", "/");
	free(buf);
}

static void record_access(void *ctx, const struct eng_access *a)
{
	struct fs_stream *s = ctx;
	const struct eng_timeline *tl = s->file->tl;

	fs_access_add(s->ss, a, tl->tracks[a->track].name,
		      tl->clips[a->clip].name);
}

/* What a stream's player says its rows cannot (an image of a sequence
 * that is not what the mount found: its frame failed). */
static void stream_say(void *ctx, const char *msg)
{
	struct fs_stream *s = ctx;

	fuse_log(FUSE_LOG_WARNING, "timelinefs: a stream of %s: %s\n",
		 s->name, msg);
}

static void stream_close(struct fs_stream *s)
{
	struct fs *fs = s->fs;
	struct eng_player_stats st;

	/* join the filler first: it records accesses of this stream until
	 * then, and none may follow the stream's close row */
	eng_player_stop(s->player);
	eng_player_stats(s->player, &st);
	fs_metrics_closed(fs, &st, NULL);
	/* the process's open file limit bound this stream: its access rows
	 * show only the opens that failed for good, so say it here */
	if (st.open_retries)
		fuse_log(FUSE_LOG_WARNING, "timelinefs: a stream of %s met "
			 "the open file limit %llu times (EMFILE) and closed "
			 "its least recently used clip files to go on; raise "
			 "ulimit -n or lower -o stream_files\n",
			 s->name,
			 (unsigned long long)st.open_retries);
	if (s->ss) {	/* NULL under -o record=off */
		struct store_stream_totals t = {
			.closed_ns = fs->io.now(fs->io.ctx),
			.bytes = st.bytes,
			.frames = st.frames,
			.late_frames = st.late_frames,
			.failed_frames = st.failed_frames,
			.requests = st.requests,
			.reloads = st.reloads,
			.seeks = st.seeks,
			.reader_late_frames = st.reader_late_frames,
			.ring_frames = (int64_t)eng_player_slots(s->player),
		};

		store_stream_close(s->ss, &t);
	}
	eng_player_free(s->player);
	pthread_mutex_lock(&fs->lock);
	fs->streams_mem -= s->mem;
	pthread_mutex_unlock(&fs->lock);
	pthread_cond_destroy(&s->idle);
	pthread_mutex_destroy(&s->busy);
	free(s);
}

/* "1.5 MiB": a log line's figure. */
static void mib(uint64_t n, char *buf, size_t len)
{
	snprintf(buf, len, "%.1f MiB", (double)n / (1 << 20));
}

/*
 * -o streams_mem: reserve the memory of s's player (pc as it will be
 * made) within the mount's budget, under fs->lock (eng_tlm_reserve: a
 * file server's window is given up first, said here).  0, or -ENOMEM
 * (nothing reserved) with a log line (the need without the window where
 * one was given up), at most one a second, counting the opens refused
 * since the last.
 */
static int reserve_mem(struct fs *fs, struct fs_stream *s,
		       struct eng_player_config *pc)
{
	uint64_t full = 0, need, left, win, now;
	char a[32], b[32], c[32];
	int rc = eng_player_mem(s->file->tl, pc, &full, NULL);

	if (rc < 0)
		return rc;
	pthread_mutex_lock(&fs->lock);
	left = fs->cfg.streams_mem > fs->streams_mem ?
	       fs->cfg.streams_mem - fs->streams_mem : 0;
	rc = eng_tlm_reserve(s->file->tl, pc, full, left, &need, &win);
	if (win) {
		mib(full, a, sizeof(a));
		mib(left, b, sizeof(b));
		fuse_log(FUSE_LOG_WARNING, "timelinefs: %s by %s[%d]: no %llu "
			 "MiB window of reads in flight (its stream would "
			 "take %s, streams_mem has %s left): served as one "
			 "read at a time\n", s->name, s->who.comm,
			 (int)s->who.pid, (unsigned long long)(win >> 20), a,
			 b);
	}
	if (rc == 0) {
		fs->streams_mem += need;
		s->mem = need;
		pthread_mutex_unlock(&fs->lock);
		return 0;
	}
	fs->mem_refused++;
	now = fs->io.now(fs->io.ctx);
	if (fs->mem_said_ns && now - fs->mem_said_ns < 1000000000ULL) {
		pthread_mutex_unlock(&fs->lock);
		return -ENOMEM;
	}
	mib(need, a, sizeof(a));
	mib(fs->streams_mem, b, sizeof(b));
	mib(fs->cfg.streams_mem, c, sizeof(c));
	fuse_log(FUSE_LOG_ERR, "timelinefs: cannot open %s for %s[%d]: its "
		 "stream needs %s and the open streams take %s of "
		 "streams_mem=%s (ENOMEM; %llu open%s refused so); raise -o "
		 "streams_mem or close a stream\n", s->name, s->who.comm,
		 (int)s->who.pid, a, b, c,
		 (unsigned long long)fs->mem_refused,
		 fs->mem_refused == 1 ? "" : "s");
	fs->mem_refused = 0;
	fs->mem_said_ns = now;
	pthread_mutex_unlock(&fs->lock);
	return -ENOMEM;
}

/* A snapshot of the active streams, taken at open so that one read of
 * the file is consistent (watch -n1 cat reopens it every second). */
struct fs_status {
	size_t len;
	char text[];
};

/* Answer the open of a generated file with its text st (NULL: none,
 * ENOMEM), which its reads serve and its release frees. */
static void text_open(fuse_req_t req, struct fuse_file_info *fi,
		      struct fs_status *st, const char *name)
{
	int rc;

	if (!st)
		return reply_err(req, ENOMEM);
	fi->fh = (uint64_t)(uintptr_t)st;
	fi->direct_io = 1;
	rc = fuse_reply_open(req, fi);
	replied(rc, "open", name);
	if (rc != 0)
		free(st);
}

static void status_open(fuse_req_t req, struct fs *fs,
			struct fuse_file_info *fi)
{
	struct eng_status_row *rows = NULL;
	struct fs_status *st = NULL;
	struct fs_stream *s;
	size_t n = 0, i, need, nrec;
	uint64_t now = fs->io.now(fs->io.ctx);

	pthread_mutex_lock(&fs->lock);
	/* the record streams' rows point into them until formatted */
	pthread_mutex_lock(&fs->ingest.lock);
	for (s = fs->streams.next; s != &fs->streams; s = s->next)
		n++;
	nrec = fs_ingest_status(fs, NULL, 0, now);
	rows = calloc(n + nrec ? n + nrec : 1, sizeof(*rows));
	if (!rows) {
		pthread_mutex_unlock(&fs->ingest.lock);
		pthread_mutex_unlock(&fs->lock);
		return reply_err(req, ENOMEM);
	}
	/* oldest stream first: the list is newest first */
	i = n;
	for (s = fs->streams.next; s != &fs->streams; s = s->next) {
		struct eng_status_row *r = &rows[--i];
		struct eng_player_stats ps;

		eng_player_stats(s->player, &ps);
		r->timeline = s->name;
		r->comm = s->who.comm;
		r->pid = (int)(s->who.pid ? s->who.pid : s->who.tid);
		r->frames_played = ps.head;
		r->frames_total = s->file->tl->frames;
		r->bytes = ps.bytes;
		r->elapsed_ns = now - s->opened_ns;
		r->late_frames = ps.late_frames;
		r->failed_frames = ps.failed_frames;
		r->worst_ns = ps.worst_ns;
	}
	/* the recordings after the players */
	n += fs_ingest_status(fs, rows + n, nrec, now);
	need = eng_status_format(NULL, 0, fs->status_host, rows, n);
	st = malloc(sizeof(*st) + need + 1);
	if (st) {
		st->len = eng_status_format(st->text, need + 1,
					    fs->status_host, rows, n);
	}
	pthread_mutex_unlock(&fs->ingest.lock);
	pthread_mutex_unlock(&fs->lock);
	free(rows);
	text_open(req, fi, st, FS_STATUS_NAME);
}

/* .metrics/timelinefs.prom: the text at open, as .status's */
static void metrics_open(fuse_req_t req, struct fs *fs,
			 struct fuse_file_info *fi)
{
	struct fs_status *st;
	size_t len = 0;
	char *text = fs_metrics_text(fs, &len);

	st = text ? malloc(sizeof(*st) + len + 1) : NULL;
	if (st) {
		st->len = len;
		memcpy(st->text, text, len + 1);
	}
	free(text);
	text_open(req, fi, st, FS_METRICS_NAME);
}

/* Under fs->lock: take s off the streams list, if it is on it, and give
 * its file's cached mode back. */
static void stream_detach(struct fs_stream *s)
{
	if (s->next) {
		s->prev->next = s->next;
		s->next->prev = s->prev;
		s->next = s->prev = NULL;
	}
	if (s->cached)
		s->file->cached_open[s->movie] = 0;
}

/* A stream that will not be: give its file's cached mode and its memory
 * back, free it (its player already freed) and answer the open with
 * err. */
static void open_failed(fuse_req_t req, struct fs_stream *s, int err)
{
	struct fs *fs = s->fs;

	pthread_mutex_lock(&fs->lock);
	stream_detach(s);
	fs->streams_mem -= s->mem;
	s->mem = 0;
	pthread_mutex_unlock(&fs->lock);
	pthread_cond_destroy(&s->idle);
	pthread_mutex_destroy(&s->busy);
	free(s);
	reply_err(req, err);
}

/* A reader of NAME.mov's player: a player (the movie's reader) prerolls,
 * dd of NAME reads on the clock. */
void fs_movie_config(const struct fs *fs, const struct eng_timeline *tl,
		     struct eng_player_config *pc)
{
	eng_tlm_movie_config(tl, (uint64_t)fs->cfg.preroll_ms * 1000000, pc);
}

void fs_player_config(struct fs *fs, struct eng_player_config *pc)
{
	fs_player_config_of(&fs->cfg, pc);
	pc->max_request = fs->max_read;
	pc->io = &fs->io;
	/* edit while ingest: a short read of a track being recorded waits */
	if (fs->ingest.on) {
		pc->growing = fs_ingest_growing;
		pc->growing_ctx = fs;
	}
}

static void fs_open(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	struct fs *fs = fs_of(req);
	int movie;
	struct fs_file *f = file_of(fs, ino, &movie);
	const struct fuse_ctx *ctx = fuse_req_ctx(req);
	struct eng_player_config pc;
	struct eng_open_mode mode;
	struct fs_stream *s;
	int rc;

	if (fs_ingest_is(ino) && fs->ingest.on) {
		rc = fs_ingest_open(fs, ino, ctx->pid, fi);
		if (rc < 0)
			return reply_err(req, -rc);
		rc = fuse_reply_open(req, fi);
		replied(rc, "open", name_of(fs, ino));
		/* the opener is gone: no release will come */
		if (rc != 0)
			fs_ingest_release(fs, fi);
		return;
	}
	if ((fi->flags & O_ACCMODE) != O_RDONLY ||
	    (fi->flags & (O_TRUNC | O_APPEND)))
		return reply_err(req, EROFS);
	if (ino == FS_STATUS_INO)
		return status_open(req, fs, fi);
	if (ino == FS_METRICS_INO)
		return metrics_open(req, fs, fi);
	if (!f)
		return reply_err(req, ino == FS_ROOT_INO ||
				      ino == FS_METRICS_DIR_INO ? EISDIR : ENOENT);
	s = calloc(1, sizeof(*s));
	if (!s)
		return reply_err(req, ENOMEM);
	s->fs = fs;
	s->file = f;
	s->ino = ino;
	s->movie = movie;
	s->name = name_of(fs, ino);
	pthread_mutex_init(&s->busy, NULL);
	pthread_cond_init(&s->idle, NULL);
	fs_reader_of(ctx->pid, &s->who);
	/* cached or direct (eng_open_mode), under the lock of the file's
	 * cached_open; undone by open_failed() if the open fails */
	pthread_mutex_lock(&fs->lock);
	eng_open_mode(fs->cfg.direct_io, &f->cached_open[movie], fs->zc,
		      s->who.comm, &mode);
	pthread_mutex_unlock(&fs->lock);
	s->cached = mode.cached;
	fi->direct_io = mode.direct_io;
	fi->keep_cache = mode.keep_cache;
	fs_player_config(fs, &pc);
	if (!mode.cached)
		pc.readahead = 0;	/* its reads bypass the page cache */
	pc.window = mode.window;
	/* record=streams/off: no callback at all, so the read path does not
	 * even build the row it would drop */
	pc.record = fs->cfg.record_v == FS_RECORD_ALL ? record_access : NULL;
	pc.record_ctx = s;
	pc.say = stream_say;
	pc.say_ctx = s;
	pc.zero_copy = mode.zero_copy;
	/* a cached stream drops the page cache its reader passed, never a
	 * movie's header */
	pc.drop_passed = s->cached;
	pc.keep_head = movie ? f->mov.head_len : 0;
	if (movie)
		fs_movie_config(fs, f->tl, &pc);
	rc = reserve_mem(fs, s, &pc);
	if (rc < 0)
		return open_failed(req, s, -rc);
	s->pipes = pc.zero_copy != 0;
	rc = eng_player_new(f->tl, &pc, &s->player);
	if (rc < 0)
		return open_failed(req, s, -rc);
	s->opened_ns = fs->io.now(fs->io.ctx);
	rc = fs->cfg.record_v == FS_RECORD_OFF ? 0 :
	     store_stream_open(fs->store, f->timeline_id,
			       &(struct store_reader){ .pid = s->who.pid,
						       .tid = s->who.tid,
						       .sid = s->who.sid,
						       .comm = s->who.comm,
						       .file = s->name },
			       s->opened_ns, &s->ss);
	if (rc == 0) {
		rc = eng_player_start(s->player);
		if (rc < 0 && s->ss) {
			/* a stream that never played: closed as it opened */
			struct store_stream_totals t = {
				.closed_ns = s->opened_ns,
			};

			store_stream_close(s->ss, &t);
		}
	}
	if (rc < 0) {
		eng_player_free(s->player);
		return open_failed(req, s, -rc);
	}
	pthread_mutex_lock(&fs->lock);
	s->next = fs->streams.next;
	s->prev = &fs->streams;
	fs->streams.next->prev = s;
	fs->streams.next = s;
	fs_metrics_opened(fs, 0);
	/* an open served as the session ended (fs/watch.c) */
	if (fs->ending)
		eng_player_cancel(s->player);
	pthread_mutex_unlock(&fs->lock);
	fi->fh = (uint64_t)(uintptr_t)s;
	rc = fuse_reply_open(req, fi);
	/* not s->name: once replied, a release may have freed s */
	replied(rc, "open", name_of(fs, ino));
	if (rc != 0) {
		/* the opener is gone: no release will come */
		pthread_mutex_lock(&fs->lock);
		stream_detach(s);
		pthread_mutex_unlock(&fs->lock);
		stream_close(s);
	}
}

/* The reply of a player's answer: a movie's header bytes first (head,
 * into iov[0], which the player leaves free), then the player's pipe
 * (spliced by libfuse) or its ring's iov[1..]. */
static int reply_answer(fuse_req_t req, const struct eng_answer *ans,
			struct iovec *iov)
{
	/* a fuse_bufvec of the header's buffer and the pipe's */
	union {
		struct fuse_bufvec v;
		char room[sizeof(struct fuse_bufvec) +
			  ENG_FD_PIECES * sizeof(struct fuse_buf)];
	} bv;
	struct fuse_buf *b;
	int h = ans->head.iov_len != 0, i;

	if (ans->nfd) {
		/* pieces of the clips' files, spliced by libfuse from where
		 * each is; a gap's from zero memory (b: buf is declared of
		 * one, the union gives the room) */
		b = bv.v.buf;
		for (i = 0; i < ans->nfd; i++) {
			const struct eng_fdpiece *pc = &ans->fdp[i];

			b[i] = pc->fd < 0 ?
				(struct fuse_buf){ .size = pc->len,
						   .mem = (void *)pc->mem,
						   .fd = -1 } :
				(struct fuse_buf){ .size = pc->len,
						   .flags = FUSE_BUF_IS_FD |
							    FUSE_BUF_FD_SEEK,
						   .fd = pc->fd,
						   .pos = (off_t)pc->off };
		}
		bv.v.count = (size_t)ans->nfd;
		bv.v.idx = 0;
		bv.v.off = 0;
		return fuse_reply_data(req, &bv.v, 0);
	}
	if (ans->pipe >= 0) {
		b = bv.v.buf;
		if (h) {
			/* memory before the pipe's bytes */
			*b++ = (struct fuse_buf){ .size = ans->head.iov_len,
						  .mem = ans->head.iov_base,
						  .fd = -1 };
		}
		*b++ = (struct fuse_buf){ .size = ans->pipe_len,
					  .flags = FUSE_BUF_IS_FD,
					  .fd = ans->pipe };
		bv.v.count = (size_t)(b - bv.v.buf);
		bv.v.idx = 0;
		bv.v.off = 0;
		return fuse_reply_data(req, &bv.v, 0);
	}
	iov[0] = ans->head;
	/* at most FS_IOV_MAX pieces in all (fs_read's iovmax): the kernel
	 * takes them */
	if (ans->iovcnt + h == 0)
		return fuse_reply_buf(req, NULL, 0);
	if (ans->iovcnt + h == 1)
		return fuse_reply_buf(req, iov[!h].iov_base, iov[!h].iov_len);
	return fuse_reply_iov(req, iov + !h, ans->iovcnt + h);
}

/* A read of .status replies with a copy.  Once the reply is written the
 * reader may close, and another thread's RELEASE free st while
 * fuse_reply_buf is still returning: ASan checks writev's buffers after
 * the write, found st freed, and the daemon died under SANITIZE=1.  st
 * itself is safe to read until the reply: the read holds the file open. */
static void status_read(fuse_req_t req, const struct fs_status *st,
			size_t size, off_t off)
{
	size_t o = (uint64_t)off < st->len ? (size_t)off : st->len;
	size_t m = st->len - o < size ? st->len - o : size;
	char *copy = malloc(m ? m : 1);

	if (!copy)
		return reply_err(req, ENOMEM);
	memcpy(copy, st->text + o, m);
	replied(fuse_reply_buf(req, copy, m), "read", FS_STATUS_NAME);
	free(copy);
}

/* A read of s begins, or ends (its reply written, the player told). */
static void stream_enter(struct fs_stream *s)
{
	pthread_mutex_lock(&s->busy);
	s->reading++;
	pthread_mutex_unlock(&s->busy);
}

static void stream_leave(struct fs_stream *s)
{
	pthread_mutex_lock(&s->busy);
	if (--s->reading == 0)
		pthread_cond_broadcast(&s->idle);
	pthread_mutex_unlock(&s->busy);
}

static void fs_read(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
		    struct fuse_file_info *fi)
{
	struct fs_stream *s = (struct fs_stream *)(uintptr_t)fi->fh;
	struct fuse_session *se = fs_of(req)->se;
	struct iovec iov[1 + FS_IOV_MAX];
	struct eng_fdpiece fdp[ENG_FD_PIECES];
	struct eng_answer ans = { .iov = iov + 1 };
	ssize_t n;
	int rc;

	if (off < 0)
		return reply_err(req, EINVAL);
	/* a recording is played through a timeline, not read here */
	if (fs_ingest_is(ino))
		return reply_err(req, EACCES);
	if (ino == FS_STATUS_INO || ino == FS_METRICS_INO)
		return status_read(req, (struct fs_status *)(uintptr_t)fi->fh,
				   size, off);
	/* fi->fh is a stream from here on; a movie's player keeps a piece
	 * for the header (eng_movie_config) */
	ans.iovmax = FS_IOV_MAX - s->movie;
	ans.pipes = s->pipes;
	/* a movie's answers begin with its header: from pipes or the ring */
	ans.fdp = s->pipes && !s->movie ? fdp : NULL;
	ans.fdmax = fs_of(req)->fd_pieces;
	stream_enter(s);
	if (s->movie)
		n = eng_movie_serve(s->player, &s->file->mov, (uint64_t)off,
				    size, &ans);
	else
		n = eng_player_serve(s->player, (uint64_t)off, size, &ans);
	if (n < 0) {
		stream_leave(s);
		return reply_err(req, (int)-n);
	}
	rc = reply_answer(req, &ans, iov);
	replied(rc, "read", s->name);
	/* a failed reply (the reader interrupted) may have taken part of
	 * a pipe's bytes: the player empties that pipe */
	eng_player_answered(s->player, &ans, rc == 0);
	/* With no lock held: the kernel waits here for pages under read,
	 * whose requests may be queued behind this stream's lock (seen as
	 * a deadlock with 64 unpaced readers).  Before the read ends: the
	 * release waits for it, and only then gives the file's cached mode
	 * to the next open; dropped later, the range fell on that stream's
	 * fresh pages, read again and counted twice. */
	if (ans.drop_len)
		fuse_lowlevel_notify_inval_inode(se, ino, (off_t)ans.drop_off,
						 (off_t)ans.drop_len);
	stream_leave(s);
}

static void fs_release(fuse_req_t req, fuse_ino_t ino,
		       struct fuse_file_info *fi)
{
	struct fs_stream *s = (struct fs_stream *)(uintptr_t)fi->fh;
	struct fs *fs = fs_of(req);

	if (ino == FS_STATUS_INO || ino == FS_METRICS_INO) {
		free((void *)(uintptr_t)fi->fh);
		return reply_err(req, 0);
	}
	if (fs_ingest_is(ino)) {
		fs_ingest_release(fs, fi);
		return reply_err(req, 0);
	}
	/* wait out reads that have replied but not yet let go (their
	 * drops of passed page cache among them), and only then let the
	 * file's cached mode go to another open */
	pthread_mutex_lock(&s->busy);
	while (s->reading)
		pthread_cond_wait(&s->idle, &s->busy);
	pthread_mutex_unlock(&s->busy);
	pthread_mutex_lock(&fs->lock);
	stream_detach(s);
	pthread_mutex_unlock(&fs->lock);
	stream_close(s);
	reply_err(req, 0);
}

void fs_close_all_streams(struct fs *fs)
{
	pthread_mutex_lock(&fs->lock);
	while (fs->streams.next != &fs->streams) {
		struct fs_stream *s = fs->streams.next;

		stream_detach(s);
		/* stream_close takes fs->lock itself (the memory it gives
		 * back): held here, a stream still open at the session's end
		 * (its release not yet come) hung the daemon's exit */
		pthread_mutex_unlock(&fs->lock);
		stream_close(s);
		pthread_mutex_lock(&fs->lock);
	}
	pthread_mutex_unlock(&fs->lock);
	fs_ingest_close_all(fs);
}

static void fs_statfs(fuse_req_t req, fuse_ino_t ino)
{
	struct fs *fs = fs_of(req);
	struct statvfs sv;
	uint64_t total = 0, space;
	size_t i;

	(void)ino;
	for (i = 0; i < fs->nfiles; i++)
		total += fs->files[i].tl->bytes + fs->files[i].mov.size;
	memset(&sv, 0, sizeof(sv));
	sv.f_bsize = sv.f_frsize = 4096;
	sv.f_blocks = (total + 4095) / 4096;
	sv.f_files = 1;
	for (i = 0; i < fs->nfiles; i++)
		sv.f_files += fs->files[i].mov.head ? 2 : 1;
	sv.f_namemax = 255;
	sv.f_flag = ST_RDONLY;
	/* what a recording may still take: a capture application that
	 * checks the free space first (OBS stops under 50 MiB) must not see
	 * 0 */
	if (fs->ingest.on && fs->io.space &&
	    fs->io.space(fs->io.ctx, &space) == 0) {
		space = space > fs->ingest.base.reserve ?
			space - fs->ingest.base.reserve : 0;
		sv.f_bfree = sv.f_bavail = space / 4096;
		sv.f_blocks += sv.f_bfree;
	}
	replied(fuse_reply_statfs(req, &sv), "statfs", "/");
}

/* Every write-side operation: the file system is read-only but for the
 * ingest folder, where a create records and nothing else is allowed
 * (EPERM). */
static int write_err(struct fs *fs, fuse_ino_t ino)
{
	return fs->ingest.on && fs_ingest_is(ino) ? EPERM : EROFS;
}

#define TIMES_SET                                                        \
	(FUSE_SET_ATTR_ATIME | FUSE_SET_ATTR_MTIME | FUSE_SET_ATTR_ATIME_NOW | \
	 FUSE_SET_ATTR_MTIME_NOW | FUSE_SET_ATTR_CTIME)

/* Times set to now only (touch(1) without -d, -r or -t): each of atime
 * and mtime set comes with its _NOW. */
static int times_now(int to_set)
{
	if (!to_set || (to_set & ~TIMES_SET))
		return 0;
	if ((to_set & FUSE_SET_ATTR_ATIME) &&
	    !(to_set & FUSE_SET_ATTR_ATIME_NOW))
		return 0;
	return !(to_set & FUSE_SET_ATTR_MTIME) ||
	       (to_set & FUSE_SET_ATTR_MTIME_NOW);
}

static void fs_setattr(fuse_req_t req, fuse_ino_t ino, struct stat *attr,
		       int to_set, struct fuse_file_info *fi)
{
	struct fs *fs = fs_of(req);
	struct stat st;
	int rc;

	if (!fs->ingest.on || !fs_ingest_is(ino))
		return reply_err(req, EROFS);
	/* a recording's times are its own (the note's): "now", what touch(1)
	 * sets after its create, is taken and left as it is; a time given
	 * (utime to the past) would be a success that did nothing: EPERM */
	if (ino != FS_INGEST_INO && times_now(to_set)) {
		rc = fs_ingest_getattr(fs, ino, &st);
	} else if (to_set != FUSE_SET_ATTR_SIZE) {
		return reply_err(req, EPERM);
	} else {
		rc = fs_ingest_truncate(fs, ino, (uint64_t)attr->st_size, fi);
		if (rc == 0)
			rc = fs_ingest_getattr(fs, ino, &st);
	}
	if (rc < 0)
		return reply_err(req, -rc);
	replied(fuse_reply_attr(req, &st, 0), "setattr", name_of(fs, ino));
}

static void fs_mknod(fuse_req_t req, fuse_ino_t parent, const char *name,
		     mode_t mode, dev_t rdev)
{
	(void)name, (void)mode, (void)rdev;
	reply_err(req, write_err(fs_of(req), parent));
}

static void fs_mkdir(fuse_req_t req, fuse_ino_t parent, const char *name,
		     mode_t mode)
{
	(void)name, (void)mode;
	reply_err(req, write_err(fs_of(req), parent));
}

static void fs_unlink(fuse_req_t req, fuse_ino_t parent, const char *name)
{
	(void)name;
	reply_err(req, write_err(fs_of(req), parent));
}

static void fs_symlink(fuse_req_t req, const char *link, fuse_ino_t parent,
		       const char *name)
{
	(void)link, (void)name;
	reply_err(req, write_err(fs_of(req), parent));
}

static void fs_rename(fuse_req_t req, fuse_ino_t parent, const char *name,
		      fuse_ino_t newparent, const char *newname,
		      unsigned int flags)
{
	(void)name, (void)newname, (void)flags;
	reply_err(req, write_err(fs_of(req), fs_ingest_is(parent) ? parent :
						 newparent));
}

static void fs_link(fuse_req_t req, fuse_ino_t ino, fuse_ino_t newparent,
		    const char *newname)
{
	(void)newname;
	reply_err(req, write_err(fs_of(req), fs_ingest_is(ino) ? ino :
						 newparent));
}

/* Only a recording is ever open for writing (fs_open refuses others). */
static void fs_write(fuse_req_t req, fuse_ino_t ino, const char *buf,
		     size_t size, off_t off, struct fuse_file_info *fi)
{
	struct fs *fs = fs_of(req);
	ssize_t n;

	if (!fs->ingest.on || !fs_ingest_is(ino))
		return reply_err(req, EROFS);
	n = fs_ingest_write(fs, fi, buf, size, off);
	if (n < 0)
		return reply_err(req, (int)-n);
	replied(fuse_reply_write(req, (size_t)n), "write", name_of(fs, ino));
}

static void fs_create(fuse_req_t req, fuse_ino_t parent, const char *name,
		      mode_t mode, struct fuse_file_info *fi)
{
	struct fs *fs = fs_of(req);
	struct fuse_entry_param e;
	int rc;

	(void)mode;
	if (parent != FS_INGEST_INO || !fs->ingest.on)
		return reply_err(req, EROFS);
	memset(&e, 0, sizeof(e));
	rc = fs_ingest_create(fs, name, fuse_req_ctx(req)->pid, fi, &e.attr);
	if (rc < 0)
		return reply_err(req, -rc);
	e.ino = e.attr.st_ino;
	rc = fuse_reply_create(req, &e, fi);
	replied(rc, "create", name);
	/* the creator is gone: no release will come */
	if (rc != 0)
		fs_ingest_release(fs, fi);
}

/* A writer's fsync and flush (every close(2) sends one; its error is
 * what close returns, the release's is nobody's): the writer's bytes are
 * on the track files, or it is told the recording's failure; fsync
 * fsyncs them too.  Nothing to do for a timeline's reader. */
static void fs_sync(fuse_req_t req, fuse_ino_t ino, int durable,
		    struct fuse_file_info *fi)
{
	struct fs *fs = fs_of(req);

	if (!fs->ingest.on || !fs_ingest_is(ino) || ino == FS_INGEST_INO ||
	    !fi || !fi->fh)
		return reply_err(req, 0);
	reply_err(req, -fs_ingest_sync(fs, fi, durable));
}

static void fs_fsync(fuse_req_t req, fuse_ino_t ino, int datasync,
		     struct fuse_file_info *fi)
{
	(void)datasync;
	fs_sync(req, ino, 1, fi);
}

static void fs_flush(fuse_req_t req, fuse_ino_t ino,
		     struct fuse_file_info *fi)
{
	fs_sync(req, ino, 0, fi);
}

static void fs_setxattr(fuse_req_t req, fuse_ino_t ino, const char *name,
			const char *value, size_t size, int flags)
{
	(void)name, (void)value, (void)size, (void)flags;
	reply_err(req, write_err(fs_of(req), ino));
}

static void fs_removexattr(fuse_req_t req, fuse_ino_t ino, const char *name)
{
	(void)name;
	reply_err(req, write_err(fs_of(req), ino));
}

static void fs_fallocate(fuse_req_t req, fuse_ino_t ino, int mode,
			 off_t offset, off_t length, struct fuse_file_info *fi)
{
	(void)mode, (void)offset, (void)length, (void)fi;
	reply_err(req, write_err(fs_of(req), ino));
}

const struct fuse_lowlevel_ops fs_ops = {
	.init = fs_init,
	.lookup = fs_lookup,
	.getattr = fs_getattr,
	.readdir = fs_readdir,
	.open = fs_open,
	.read = fs_read,
	.release = fs_release,
	.statfs = fs_statfs,
	.setattr = fs_setattr,
	.mknod = fs_mknod,
	.mkdir = fs_mkdir,
	.unlink = fs_unlink,
	.rmdir = fs_unlink,
	.symlink = fs_symlink,
	.rename = fs_rename,
	.link = fs_link,
	.write = fs_write,
	.create = fs_create,
	.fsync = fs_fsync,
	.flush = fs_flush,
	.setxattr = fs_setxattr,
	.removexattr = fs_removexattr,
	.fallocate = fs_fallocate,
};
