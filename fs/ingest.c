/* SPDX-License-Identifier: MIT */
/*
 * The mount's ingest folder (docs/design.md "Ingest"): the recordings of
 * MEDIA_DIR/ingest by their NAME.rec notes and those being recorded, the
 * record stream a create there starts (engine/ingest/ingest.h) with its
 * store stream and rows, and the repair of recordings cut short, at start.
 * The FUSE replies stay in ops.c: these return 0 or -errno.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "fs.h"
#include "probe/env.h"
#include "ingest/ingest.h"

/* A record stream: one create in the folder until its release. */
struct fs_recorder {
	struct fs *fs;
	struct fs_rec *rec;
	struct eng_rec *r;
	struct store_stream *ss;	/* NULL under -o record=off */
	struct eng_ingest_format fmt;
	struct fs_reader who;
	uint64_t opened_ns;
	/* the writer's write calls (the stream's requests); under busy */
	int64_t requests;
	/* writes of one stream in the writer's order, and none after the
	 * release began */
	pthread_mutex_t busy;
	char file[8 + FS_INGEST_NAME_MAX];	/* "ingest/NAME" */
	/* the rows of its create, held until it succeeds: a refused create
	 * leaves no stream row (open, header write, fallocate a track and
	 * the failed create's closes) */
	struct eng_access early[4 * ENG_INGEST_TRACKS_MAX];
	size_t nearly;
};

/* The track names rows point at: the store binds a row's track by its
 * pointer and must find the same text there until it closes, after every
 * recorder is freed. */
static const char *const track_names[ENG_INGEST_TRACKS_MAX] = {
	"V", "A1", "A2", "A3", "A4", "A5", "A6", "A7", "A8", "A9", "A10",
	"A11", "A12", "A13", "A14", "A15", "A16",
};

static const char *track_name(const struct eng_ingest_format *f, uint32_t t)
{
	uint32_t i;

	for (i = 0; t < f->ntracks && i < ENG_INGEST_TRACKS_MAX; i++)
		if (strcmp(track_names[i], f->track[t]) == 0)
			return track_names[i];
	return "?";
}

int fs_ingest_is(fuse_ino_t ino)
{
	return ino >= FS_INGEST_INO;
}

/* The recording of inode ino, NULL for none (the folder itself). */
struct fs_rec *fs_ingest_rec(struct fs *fs, fuse_ino_t ino)
{
	struct fs_ingest *ing = &fs->ingest;
	struct fs_rec *r = NULL;

	if (ino <= FS_INGEST_INO)
		return NULL;
	pthread_mutex_lock(&ing->lock);
	if (ino - FS_INGEST_INO - 1 < ing->n &&
	    !ing->recs[ino - FS_INGEST_INO - 1]->vacant)
		r = ing->recs[ino - FS_INGEST_INO - 1];
	pthread_mutex_unlock(&ing->lock);
	return r;
}

/* Under ing->lock: the entry of recording `name`, added when `add` (an
 * entry a refused create left vacant taken first: refused creates of
 * ever new names cost no memory). */
static struct fs_rec *rec_find(struct fs_ingest *ing, const char *name,
			       int add)
{
	struct fs_rec *r = NULL, **p;
	size_t i, len = strlen(name);

	for (i = 0; i < ing->n; i++) {
		if (ing->recs[i]->vacant) {
			if (!r)
				r = ing->recs[i];
		} else if (strcmp(ing->recs[i]->name, name) == 0) {
			return ing->recs[i];
		}
	}
	if (!add || len >= FS_INGEST_NAME_MAX)
		return NULL;
	if (r) {
		memcpy(r->name, name, len + 1);
		r->vacant = 0;
		return r;
	}
	if (ing->n == ing->cap) {
		size_t cap = ing->cap ? 2 * ing->cap : 16;

		p = realloc(ing->recs, cap * sizeof(*p));
		if (!p)
			return NULL;
		ing->recs = p;
		ing->cap = cap;
	}
	/* never freed before the store is closed: rows point at name (a
	 * vacant entry's name had no row; room for any name) */
	r = calloc(1, sizeof(*r) + FS_INGEST_NAME_MAX);
	if (!r)
		return NULL;
	r->ino = FS_INGEST_INO + 1 + ing->n;
	memcpy(r->name, name, len + 1);
	ing->recs[ing->n++] = r;
	return r;
}

/* The media folder's ingest folder, read-only, not through a symlink:
 * an fd, or -errno (-ENOENT: nothing recorded yet). */
static int ingest_dir(struct fs *fs)
{
	int fd = openat(fs->media_fd, ENG_INGEST_DIR, O_RDONLY | O_DIRECTORY |
			O_NOFOLLOW | O_CLOEXEC);

	return fd < 0 ? -errno : fd;
}

/* Read the note of recording `name` (its format); 0 or -errno
 * (-ENOENT: no note). */
static int read_note(struct fs *fs, const char *name,
		     struct eng_ingest_format *f, char state[16],
		     struct stat *nst)
{
	char file[FS_INGEST_NAME_MAX + 8];
	char text[4096];
	struct eng_diag diag = { 0 };
	ssize_t n;
	int dfd = ingest_dir(fs), fd, rc;

	if (dfd < 0)
		return dfd;
	snprintf(file, sizeof(file), "%s%s", name, ENG_INGEST_NOTE_EXT);
	fd = openat(dfd, file, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	rc = fd < 0 ? -errno : 0;
	close(dfd);
	if (rc < 0)
		return rc;
	if (fstat(fd, nst) < 0 || !S_ISREG(nst->st_mode)) {
		close(fd);
		return -ENOENT;
	}
	n = pread(fd, text, sizeof(text), 0);
	close(fd);
	if (n < 0)
		return -EIO;
	rc = eng_ingest_note_parse(file, text, (size_t)n, f, state, NULL,
				   &diag);
	eng_diag_free(&diag);
	return rc;
}

/* The essence bytes of a track file of a closed recording: a raw file's
 * size, a WAV's data chunk (to its end while the size is unpatched). */
static uint64_t track_essence(int dfd, const char *file)
{
	unsigned char head[ENG_INGEST_WAV_DATA];
	struct stat st;
	ssize_t n;
	int fd = openat(dfd, file, O_RDONLY | O_NOFOLLOW | O_NONBLOCK |
			O_CLOEXEC);

	if (fd < 0)
		return 0;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return 0;
	}
	n = pread(fd, head, sizeof(head), 0);
	close(fd);
	return eng_ingest_track_essence(head, n > 0 ? (size_t)n : 0,
					(uint64_t)st.st_size);
}

/* st of recording r: a regular file of the bytes of the interleave it
 * holds (received so far while it records).  0 or -ENOENT. */
static int rec_attr(struct fs *fs, struct fs_rec *r, struct stat *st)
{
	struct fs_ingest *ing = &fs->ingest;
	struct eng_ingest_format f;
	struct eng_rec_stats rs;
	struct stat nst;
	char state[16], file[FS_INGEST_NAME_MAX + 16];
	char name[FS_INGEST_NAME_MAX];
	uint64_t bytes = 0;
	uint32_t t;
	int dfd, rc = 0, open = 0;

	memset(st, 0, sizeof(*st));
	pthread_mutex_lock(&ing->lock);
	if (r->open) {
		eng_rec_stats(r->open->r, &rs);
		bytes = rs.bytes;
		open = 1;
	}
	/* a copy: a vacant entry's name is another's once taken */
	memcpy(name, r->name, sizeof(name));
	rc = r->vacant ? -ENOENT : 0;
	pthread_mutex_unlock(&ing->lock);
	if (rc < 0)
		return rc;
	if (open) {
		st->st_mtime = st->st_ctime = st->st_atime = time(NULL);
	} else {
		rc = read_note(fs, name, &f, state, &nst);
		if (rc < 0)
			return -ENOENT;
		dfd = ingest_dir(fs);
		for (t = 0; dfd >= 0 && t < f.ntracks; t++) {
			eng_ingest_track_file(&f, t, name, file,
					      sizeof(file));
			/* the name beneath the ingest folder */
			bytes += track_essence(dfd, file +
					       strlen(ENG_INGEST_DIR "/"));
		}
		if (dfd >= 0)
			close(dfd);
		st->st_mtim = st->st_ctim = st->st_atim = nst.st_mtim;
	}
	st->st_ino = r->ino;
	st->st_mode = S_IFREG | 0644;
	st->st_nlink = 1;
	st->st_uid = getuid();
	st->st_gid = getgid();
	st->st_size = (off_t)bytes;
	st->st_blocks = (blkcnt_t)((bytes + 511) / 512);
	st->st_blksize = 1 << 20;
	return 0;
}

void fs_ingest_dir_attr(struct fs *fs, struct stat *st)
{
	memset(st, 0, sizeof(*st));
	st->st_ino = FS_INGEST_INO;
	st->st_mode = S_IFDIR | 0755;
	st->st_nlink = 2;
	st->st_uid = getuid();
	st->st_gid = getgid();
	st->st_mtime = st->st_ctime = st->st_atime = (time_t)fs->mount_time;
}

int fs_ingest_getattr(struct fs *fs, fuse_ino_t ino, struct stat *st)
{
	struct fs_rec *r;

	if (ino == FS_INGEST_INO) {
		fs_ingest_dir_attr(fs, st);
		return 0;
	}
	r = fs_ingest_rec(fs, ino);
	return r ? rec_attr(fs, r, st) : -ENOENT;
}

int fs_ingest_lookup(struct fs *fs, const char *name, struct stat *st)
{
	struct fs_ingest *ing = &fs->ingest;
	struct eng_ingest_format f;
	struct stat nst;
	char rname[FS_INGEST_NAME_MAX], state[16];
	const char *why;
	struct fs_rec *r;

	/* "cam1.seed" is the recording cam1, as its create said */
	if (eng_ingest_name(name, &ing->fmt, rname, sizeof(rname), &f,
			    &why) < 0)
		return -ENOENT;
	pthread_mutex_lock(&ing->lock);
	r = rec_find(ing, rname, 0);
	pthread_mutex_unlock(&ing->lock);
	if (!r) {
		/* a recording of an earlier mount, or made meanwhile */
		if (read_note(fs, rname, &f, state, &nst) < 0)
			return -ENOENT;
		pthread_mutex_lock(&ing->lock);
		r = rec_find(ing, rname, 1);
		pthread_mutex_unlock(&ing->lock);
		if (!r)
			return -ENOMEM;
	}
	return rec_attr(fs, r, st);
}

/* A note's name is listed only as lookup finds it: a name lookup takes
 * (no ".", "..", control character ...) that is the recording's own,
 * not NAME.PRESET, which lookup takes as NAME. */
static int listable(struct fs_ingest *ing, const char *name)
{
	struct eng_ingest_format f;
	char rname[FS_INGEST_NAME_MAX];
	const char *why;

	return eng_ingest_name(name, &ing->fmt, rname, sizeof(rname), &f,
			       &why) == 0 &&
	       strcmp(rname, name) == 0;
}

int fs_ingest_readdir(struct fs *fs, fuse_req_t req, char *buf, size_t size,
		      off_t off, size_t *used)
{
	struct fs_ingest *ing = &fs->ingest;
	struct dirent *de;
	size_t i, nl;
	DIR *d;
	int dfd;

	*used = 0;
	/* the recordings of the folder, found anew by each listing */
	dfd = off == 0 ? ingest_dir(fs) : -ENOENT;
	d = dfd >= 0 ? fdopendir(dfd) : NULL;
	if (dfd >= 0 && !d)
		close(dfd);
	while (d && (de = readdir(d))) {
		char name[FS_INGEST_NAME_MAX];

		nl = strlen(de->d_name);
		if (nl <= strlen(ENG_INGEST_NOTE_EXT) ||
		    nl - strlen(ENG_INGEST_NOTE_EXT) >= sizeof(name) ||
		    strcmp(de->d_name + nl - strlen(ENG_INGEST_NOTE_EXT),
			   ENG_INGEST_NOTE_EXT) != 0)
			continue;
		memcpy(name, de->d_name, nl - strlen(ENG_INGEST_NOTE_EXT));
		name[nl - strlen(ENG_INGEST_NOTE_EXT)] = '\0';
		if (!listable(ing, name))
			continue;
		pthread_mutex_lock(&ing->lock);
		rec_find(ing, name, 1);
		pthread_mutex_unlock(&ing->lock);
	}
	if (d)
		closedir(d);
	/* entry 0 ".", 1 "..", 2 + i recording i; off is the next one */
	pthread_mutex_lock(&ing->lock);
	for (i = (size_t)off; i < ing->n + 2; i++) {
		struct stat st = { 0 };
		const char *name = i == 0 ? "." : i == 1 ? ".." :
				   ing->recs[i - 2]->name;
		size_t n;

		if (i >= 2 && ing->recs[i - 2]->vacant)
			continue;
		if (i >= 2 && !ing->recs[i - 2]->open) {
			/* listed while its note is there */
			char note[FS_INGEST_NAME_MAX + 16];

			snprintf(note, sizeof(note), "%s/%s%s", ENG_INGEST_DIR,
				 name, ENG_INGEST_NOTE_EXT);
			if (fstatat(fs->media_fd, note, &st,
				    AT_SYMLINK_NOFOLLOW) < 0 ||
			    !S_ISREG(st.st_mode))
				continue;
			memset(&st, 0, sizeof(st));
		}
		st.st_ino = i == 0 ? FS_INGEST_INO : i == 1 ? 1 :
			    ing->recs[i - 2]->ino;
		st.st_mode = i < 2 ? S_IFDIR : S_IFREG;
		n = fuse_add_direntry(req, buf + *used, size - *used, name,
				      &st, (off_t)(i + 1));
		if (n > size - *used)
			break;
		*used += n;
	}
	pthread_mutex_unlock(&ing->lock);
	return 0;
}

/* A record stream's row, to its store stream; its create's rows held
 * until the create has succeeded (recorder_start: the create's thread
 * alone calls this until then). */
static void record_row(void *ctx, const struct eng_access *a)
{
	struct fs_recorder *w = ctx;

	if (!w->ss) {
		if (w->nearly < sizeof(w->early) / sizeof(w->early[0]))
			w->early[w->nearly++] = *a;
		return;
	}
	fs_access_add(w->ss, a, track_name(&w->fmt, a->track), w->rec->name);
}

/* What a record stream says once (a failed write, the reserve): the
 * mount's log. */
static void recorder_say(void *ctx, const char *msg)
{
	struct fs_recorder *w = ctx;

	fuse_log(FUSE_LOG_WARNING, "timelinefs: %s: %s\n", w->file, msg);
}

/* A writer's create refused: counted; said (why, the name escaped; NULL:
 * not said, the writer's EEXIST) at most every FS_INGEST_SAY_NS, with
 * the count refused since the last said, so that a writer refused in a
 * loop fills neither the log nor the memory. */
static void say_refused(struct fs *fs, const char *name, const char *why)
{
	struct fs_ingest *ing = &fs->ingest;
	struct eng_diag d = { 0 };
	uint64_t t = fs->io.now(fs->io.ctx), quiet = 0;
	int say = 0;

	pthread_mutex_lock(&ing->lock);
	ing->refused++;
	if (why && (!ing->said_ns || t - ing->said_ns >= FS_INGEST_SAY_NS)) {
		say = 1;
		quiet = ing->refused - ing->refused_said - 1;
		ing->refused_said = ing->refused;
		ing->said_ns = t;
	}
	pthread_mutex_unlock(&ing->lock);
	if (!say)
		return;
	eng_diag_add(&d, ENG_INGEST_DIR, 0, "cannot record '%s': %s", name,
		     why);
	if (d.n && quiet)
		fuse_log(FUSE_LOG_WARNING, "timelinefs: %s (and %llu more "
			 "creates refused since the last said)\n", d.msgs[0],
			 (unsigned long long)quiet);
	else if (d.n)
		fuse_log(FUSE_LOG_WARNING, "timelinefs: %s\n", d.msgs[0]);
	eng_diag_free(&d);
}

/* The stream row of w, once its create has succeeded, and the rows the
 * create made.  Without one (-o record=off, or the store refused it) the
 * recording goes on: what the writer sends matters more than its rows. */
static void recorder_stream(struct fs_recorder *w)
{
	struct fs *fs = w->fs;
	struct store_stream *ss = NULL;
	size_t i;
	int rc;

	if (fs->cfg.record_v == FS_RECORD_OFF)
		return;
	rc = store_stream_open(fs->store, 0,
			       &(struct store_reader){ .pid = w->who.pid,
						       .tid = w->who.tid,
						       .sid = w->who.sid,
						       .comm = w->who.comm,
						       .file = w->file,
						       .record = 1 },
			       w->opened_ns, &ss);
	if (rc < 0) {
		fuse_log(FUSE_LOG_WARNING, "timelinefs: %s: recorded without "
			 "its stream row: %s\n", w->file, strerror(-rc));
		return;
	}
	for (i = 0; i < w->nearly; i++)
		fs_access_add(ss, &w->early[i],
			      track_name(&w->fmt, w->early[i].track),
			      w->rec->name);
	w->ss = ss;
}

/* Start recording r in format f for the writer of request ctx.  Under
 * nothing; r->open is claimed by the caller.  0 or -errno; a refusal
 * costs a count and a log line at most (say_refused). */
static int recorder_start(struct fs *fs, struct fs_rec *r,
			  const struct eng_ingest_format *f, int replace,
			  pid_t tid, struct fs_recorder **out)
{
	struct fs_ingest *ing = &fs->ingest;
	struct eng_rec_config c = ing->base;
	struct eng_diag diag = { 0 };
	struct fs_recorder *w;
	int rc;

	w = calloc(1, sizeof(*w));
	if (!w)
		return -ENOMEM;
	w->fs = fs;
	w->rec = r;
	w->fmt = *f;
	pthread_mutex_init(&w->busy, NULL);
	snprintf(w->file, sizeof(w->file), "%s/%s", ENG_INGEST_DIR, r->name);
	fs_reader_of(tid, &w->who);
	c.fmt = *f;
	c.replace = replace;
	c.record = fs->cfg.record_v == FS_RECORD_ALL ? record_row : NULL;
	c.record_ctx = w;
	c.notice = recorder_say;
	c.notice_ctx = w;
	w->opened_ns = fs->io.now(fs->io.ctx);
	rc = eng_rec_new(&c, r->name, &w->r, &diag);
	if (rc < 0) {
		say_refused(fs, r->name, rc == -EEXIST ? NULL :
				diag.n ? diag.msgs[0] : strerror(-rc));
		eng_diag_free(&diag);
		pthread_mutex_destroy(&w->busy);
		free(w);
		return rc;
	}
	eng_diag_free(&diag);
	recorder_stream(w);
	*out = w;
	return 0;
}

/* Claim r for a new record stream (EBUSY: one is writing it) and start
 * it; fi->fh gets it.  0 or -errno. */
static int rec_open(struct fs *fs, struct fs_rec *r,
		    const struct eng_ingest_format *f, int replace,
		    pid_t tid, struct fuse_file_info *fi)
{
	struct fs_ingest *ing = &fs->ingest;
	struct fs_recorder *w = NULL;
	int rc;

	pthread_mutex_lock(&ing->lock);
	if (r->open || r->starting) {
		pthread_mutex_unlock(&ing->lock);
		return -EBUSY;
	}
	r->starting = 1;
	pthread_mutex_unlock(&ing->lock);
	rc = recorder_start(fs, r, f, replace, tid, &w);
	pthread_mutex_lock(&ing->lock);
	r->starting = 0;
	r->open = w;
	r->recorded |= w != NULL;
	pthread_mutex_unlock(&ing->lock);
	if (rc < 0)
		return rc;
	pthread_mutex_lock(&fs->lock);
	fs_metrics_opened(fs, 1);
	pthread_mutex_unlock(&fs->lock);
	fi->fh = (uint64_t)(uintptr_t)w;
	/* each write(2) its own request, in the writer's order and size,
	 * none held in a page cache */
	fi->direct_io = 1;
	fi->keep_cache = 0;
	return 0;
}

/* After a refused create: an entry with no recording behind it (no note,
 * nothing recording it) is left for the next new name to take. */
static void rec_vacate(struct fs *fs, struct fs_rec *r)
{
	struct fs_ingest *ing = &fs->ingest;
	struct eng_ingest_format f;
	struct stat nst;
	char state[16], name[FS_INGEST_NAME_MAX];

	pthread_mutex_lock(&ing->lock);
	memcpy(name, r->name, sizeof(name));
	pthread_mutex_unlock(&ing->lock);
	if (read_note(fs, name, &f, state, &nst) != -ENOENT)
		return;
	pthread_mutex_lock(&ing->lock);
	if (!r->open && !r->starting && !r->recorded && !r->vacant &&
	    strcmp(r->name, name) == 0) {
		r->vacant = 1;
		r->name[0] = '\0';
	}
	pthread_mutex_unlock(&ing->lock);
}

int fs_ingest_create(struct fs *fs, const char *name, pid_t tid,
		     struct fuse_file_info *fi, struct stat *st)
{
	struct fs_ingest *ing = &fs->ingest;
	struct eng_ingest_format f;
	char rname[FS_INGEST_NAME_MAX];
	const char *why;
	struct fs_rec *r;
	int rc;

	if ((fi->flags & O_ACCMODE) == O_RDONLY)
		return -EACCES;
	rc = eng_ingest_name(name, &ing->fmt, rname, sizeof(rname), &f, &why);
	if (rc < 0) {
		say_refused(fs, name, why);
		return rc;
	}
	pthread_mutex_lock(&ing->lock);
	r = rec_find(ing, rname, 1);
	pthread_mutex_unlock(&ing->lock);
	if (!r)
		return -ENOMEM;
	/* O_EXCL or not, an existing recording is not overwritten unless
	 * -o ingest_replace: eng_rec_new's create says EEXIST */
	rc = rec_open(fs, r, &f, ing->replace, tid, fi);
	if (rc < 0) {
		rec_vacate(fs, r);
		return rc;
	}
	return rec_attr(fs, r, st);
}

int fs_ingest_open(struct fs *fs, fuse_ino_t ino, pid_t tid,
		   struct fuse_file_info *fi)
{
	struct fs_ingest *ing = &fs->ingest;
	struct eng_ingest_format f;
	struct stat nst;
	char state[16], name[FS_INGEST_NAME_MAX];
	struct fs_rec *r;

	if (ino == FS_INGEST_INO)
		return -EISDIR;
	r = fs_ingest_rec(fs, ino);
	if (!r)
		return -ENOENT;
	/* a timeline plays a recording: its file here only takes one */
	if ((fi->flags & O_ACCMODE) == O_RDONLY)
		return -EACCES;
	pthread_mutex_lock(&ing->lock);
	if (r->open || r->starting) {
		pthread_mutex_unlock(&ing->lock);
		return -EBUSY;
	}
	memcpy(name, r->name, sizeof(name));
	pthread_mutex_unlock(&ing->lock);
	/* writing an existing recording is recording it again, never
	 * appending to it: only with -o ingest_replace, in its format */
	if (!ing->replace)
		return -EEXIST;
	if (read_note(fs, name, &f, state, &nst) < 0)
		f = ing->fmt;
	return rec_open(fs, r, &f, 1, tid, fi);
}

ssize_t fs_ingest_write(struct fs *fs, struct fuse_file_info *fi,
			const char *buf, size_t size, off_t off)
{
	struct fs_recorder *w = (struct fs_recorder *)(uintptr_t)fi->fh;
	ssize_t n;

	(void)fs;
	if (off < 0)
		return -EINVAL;
	pthread_mutex_lock(&w->busy);
	w->requests++;
	n = eng_rec_write(w->r, buf, size, (uint64_t)off);
	pthread_mutex_unlock(&w->busy);
	return n;
}

int fs_ingest_truncate(struct fs *fs, fuse_ino_t ino, uint64_t size,
		       struct fuse_file_info *fi)
{
	struct fs_ingest *ing = &fs->ingest;
	struct fs_rec *r = fs_ingest_rec(fs, ino);
	struct eng_rec_stats rs = { 0 };
	int busy = 0;

	(void)fi;
	if (!r)
		return -EPERM;
	/* the size 0 an open's O_TRUNC asks of a recording it has just
	 * started: there is nothing to cut */
	pthread_mutex_lock(&ing->lock);
	if (r->open)
		eng_rec_stats(r->open->r, &rs);
	else
		busy = 1;
	pthread_mutex_unlock(&ing->lock);
	if (busy || size != 0 || rs.bytes != 0)
		return -EPERM;
	return 0;
}

/* Close w's recording and its store stream, and free w. */
static void recorder_close(struct fs_recorder *w)
{
	struct fs *fs = w->fs;
	struct fs_ingest *ing = &fs->ingest;
	struct eng_rec_stats st;
	int rc;

	pthread_mutex_lock(&w->busy);
	rc = eng_rec_close(w->r, &st);
	pthread_mutex_unlock(&w->busy);
	if (rc < 0)
		fuse_log(FUSE_LOG_WARNING, "timelinefs: %s: the recording "
			 "was not closed whole: %s\n", w->file,
			 strerror(-rc));
	if (w->ss) {
		struct store_stream_totals t = {
			.closed_ns = fs->io.now(fs->io.ctx),
			.bytes = st.bytes,
			.frames = st.frames,
			.late_frames = st.dropped,
			.failed_frames = st.failed,
			.requests = w->requests,
			.writer_drops = st.dropped_writer,
		};

		store_stream_close(w->ss, &t);
	}
	fs_metrics_closed(fs, NULL, &st);
	pthread_mutex_lock(&ing->lock);
	w->rec->open = NULL;
	pthread_mutex_unlock(&ing->lock);
	eng_rec_free(w->r);
	pthread_mutex_destroy(&w->busy);
	free(w);
}

void fs_ingest_release(struct fs *fs, struct fuse_file_info *fi)
{
	(void)fs;
	recorder_close((struct fs_recorder *)(uintptr_t)fi->fh);
}

int fs_ingest_sync(struct fs *fs, struct fuse_file_info *fi, int durable)
{
	struct fs_recorder *w = (struct fs_recorder *)(uintptr_t)fi->fh;
	int rc;

	(void)fs;
	pthread_mutex_lock(&w->busy);
	rc = eng_rec_sync(w->r, durable);
	pthread_mutex_unlock(&w->busy);
	return rc;
}

void fs_ingest_close_all(struct fs *fs)
{
	struct fs_ingest *ing = &fs->ingest;
	struct fs_recorder *w;
	size_t i;

	/* one at a time, each found under the lock (a lookup may grow the
	 * list meanwhile); recorder_close takes it off */
	for (;;) {
		w = NULL;
		pthread_mutex_lock(&ing->lock);
		for (i = 0; !w && i < ing->n; i++)
			w = ing->recs[i]->open;
		pthread_mutex_unlock(&ing->lock);
		if (!w)
			break;
		recorder_close(w);
	}
	if (ing->refused)
		fuse_log(FUSE_LOG_WARNING, "timelinefs: %s: %llu creates "
			 "refused\n", ENG_INGEST_DIR,
			 (unsigned long long)ing->refused);
}

int fs_ingest_record_end(struct fs *fs)
{
	char v[24];

	if (!fs->ingest.refused)
		return 0;
	snprintf(v, sizeof(v), "%llu", (unsigned long long)fs->ingest.refused);
	return store_env_add_ended(fs->store, "ingest_refused", v);
}

int fs_ingest_growing(void *ctx, const char *file)
{
	struct fs *fs = ctx;
	struct fs_ingest *ing = &fs->ingest;
	char track[FS_INGEST_NAME_MAX + 32];
	size_t i;
	uint32_t t;
	int yes = 0;

	pthread_mutex_lock(&ing->lock);
	for (i = 0; !yes && i < ing->n; i++) {
		struct fs_recorder *w = ing->recs[i]->open;

		for (t = 0; w && !yes && t < w->fmt.ntracks; t++) {
			eng_ingest_track_file(&w->fmt, t, w->rec->name, track,
					      sizeof(track));
			yes = strcmp(track, file) == 0;
		}
	}
	pthread_mutex_unlock(&ing->lock);
	return yes;
}

size_t fs_ingest_status(struct fs *fs, struct eng_status_row *rows,
			size_t cap, uint64_t now)
{
	struct fs_ingest *ing = &fs->ingest;
	size_t i, n = 0;

	for (i = 0; i < ing->n; i++) {
		struct fs_recorder *w = ing->recs[i]->open;
		struct eng_rec_stats rs;
		struct eng_status_row *r;

		if (!w)
			continue;
		if (n++ >= cap)
			continue;
		r = &rows[n - 1];
		eng_rec_stats(w->r, &rs);
		memset(r, 0, sizeof(*r));
		r->record = 1;
		r->timeline = w->file;
		r->comm = w->who.comm;
		r->pid = (int)(w->who.pid ? w->who.pid : w->who.tid);
		r->frames_played = rs.frames;
		r->frames_total = rs.written;
		r->bytes = rs.bytes;
		r->elapsed_ns = now - w->opened_ns;
		r->late_frames = rs.dropped;
		r->failed_frames = rs.failed;
		r->worst_ns = rs.max_write_ns;
	}
	return n;
}

/* ------------------------------------------------------------ start */

int fs_ingest_options(struct fs *fs, struct eng_rec_config *rc,
		      struct eng_diag *diag)
{
	struct statvfs sv;
	uint64_t fs_bytes = 0;

	memset(rc, 0, sizeof(*rc));
	if (!fs->cfg.ingest_preset)
		return 0;	/* -o ingest=off */
	if (eng_ingest_format_of(fs->cfg.ingest_preset, &rc->fmt, diag) < 0)
		return -1;
	/* ingest_reserve=N% is of the media file system's size */
	if (fstatvfs(fs->media_fd, &sv) == 0)
		fs_bytes = (uint64_t)sv.f_blocks * sv.f_frsize;
	fs_ingest_rec_config(&fs->cfg, fs_bytes, rc);
	return 1;
}

/* Process pid's start (eng_probe_proc_start): 0, or -errno (-ENOENT: no
 * such process). */
static int proc_start(int64_t pid, uint64_t *start)
{
	struct eng_probe_io io;

	eng_probe_io_real(&io);
	return eng_probe_proc_start(&io, pid, start);
}

/* eng_ingest_self.running: the process pid started at `start` runs. */
static int proc_running(void *ctx, int64_t pid, uint64_t start)
{
	uint64_t now = 0;
	int rc;

	(void)ctx;
	if (pid <= 0 || pid > INT32_MAX)
		return 0;
	rc = proc_start(pid, &now);
	if (rc == -ENOENT)
		return 0;
	return rc < 0 ? rc : now == start;
}

void fs_ingest_self_pid(struct fs *fs)
{
	struct eng_ingest_owner *me = &fs->ingest.self.me;

	me->pid = getpid();
	if (proc_start(me->pid, &me->pid_start) < 0)
		me->pid_start = 0;
}

/* This daemon as its notes name it, and what it judges others by. */
static void self_init(struct fs *fs)
{
	struct eng_ingest_self *self = &fs->ingest.self;
	struct eng_ingest_owner *me = &self->me;
	struct eng_mount *m = malloc(sizeof(*m));
	char *host = fs_host_name(), *machine = fs_machine_id(), *t;
	struct eng_probe_io io;

	snprintf(me->host, sizeof(me->host), "%s", host ? host : "?");
	/* one word of one line of the note, whatever the host is named */
	for (t = me->host; *t; t++)
		if ((unsigned char)*t <= ' ' || *t == 0x7f)
			*t = '?';
	snprintf(me->machine, sizeof(me->machine), "%s",
		 machine ? machine : "");
	free(host);
	free(machine);
	eng_probe_io_real(&io);
	if (eng_probe_boot_id(&io, me->boot, sizeof(me->boot)) < 0)
		me->boot[0] = '\0';
	/* its pid: fs_ingest_self_pid, after the fork */
	/* whether this mount's locks reach the storage, where other hosts
	 * see them: the media folder's file system says */
	if (m && eng_probe_mount_of(&io, fs->cfg.media_dir, m) == 0)
		self->locks_shared =
			eng_ingest_locks_shared(m->fstype, m->options);
	free(m);
	me->lock_shared = self->locks_shared;
	self->running = proc_running;
	fs->ingest.base.owner = me;
}

int fs_ingest_init(struct fs *fs)
{
	struct fs_ingest *ing = &fs->ingest;
	struct eng_diag diag = { 0 };
	struct stat st;
	size_t i;

	ing->on = fs_ingest_options(fs, &ing->base, &diag);
	if (ing->on <= 0)
		goto out;
	ing->fmt = ing->base.fmt;
	ing->replace = ing->base.replace;
	ing->base.io = &fs->io;
	self_init(fs);
	if (eng_ingest_space_new(&ing->base.space) < 0) {
		eng_diag_add(&diag, fs->cfg.media_dir, 0, "cannot record: "
			     "out of memory");
		ing->on = -1;
		goto out;
	}
	/* never through a symlink: the recordings stay in the media folder
	 * (the creates refuse one too; said here, once, before serving) */
	if (fstatat(fs->media_fd, ENG_INGEST_DIR, &st, AT_SYMLINK_NOFOLLOW) ==
	    0 && !S_ISDIR(st.st_mode)) {
		eng_diag_add(&diag, fs->cfg.media_dir, 0, "%s is not a folder "
			     "(a symlink?): nowhere to record; -o ingest=off "
			     "mounts without the ingest folder",
			     ENG_INGEST_DIR);
		ing->on = -1;
	}
out:
	for (i = 0; i < diag.n; i++)
		fprintf(stderr, "timelinefs: %s\n", diag.msgs[i]);
	eng_diag_free(&diag);
	return ing->on < 0 ? -1 : 0;
}

/* What the repair did to one recording (or why it left it), on stderr;
 * names escaped. */
static void say_repair(const char *note, const struct eng_ingest_repair *out)
{
	struct eng_diag diag = { 0 };
	char miss[128] = "";
	uint32_t t;

	for (t = 0; t < ENG_INGEST_TRACKS_MAX; t++)
		if (out->missing & 1u << t)
			snprintf(miss + strlen(miss), sizeof(miss) - strlen(miss),
				 t ? "%sA%u" : "%sV", miss[0] ? ", " :
				 " (track files missing: ", t);
	if (out->left)
		eng_diag_add(&diag, note, 0, "left as it is: %s", out->why);
	else if (out->repaired)
		eng_diag_add(&diag, note, 0, "repaired after an unclean stop: "
			     "%lld whole frames kept, %llu bytes past them set "
			     "aside in NAME.TRACK.partial%s%s",
			     (long long)out->frames,
			     (unsigned long long)out->cut, miss,
			     miss[0] ? ")" : "");
	if (diag.n)
		fprintf(stderr, "timelinefs: %s\n", diag.msgs[0]);
	eng_diag_free(&diag);
}

/* A repaired recording whose note names its run, for the store. */
static void keep_fixed(struct fs_ingest *ing,
		       const struct eng_ingest_repair *out)
{
	struct fs_ingest_fixed *p;

	if (!out->run[0])
		return;
	p = realloc(ing->fixed, (ing->nfixed + 1) * sizeof(*p));
	if (!p)
		return;
	ing->fixed = p;
	p += ing->nfixed++;
	snprintf(p->run, sizeof(p->run), "%s", out->run);
	snprintf(p->file, sizeof(p->file), "%s/%s", ENG_INGEST_DIR,
		 out->name);
	p->frames = out->frames;
	p->bytes = out->bytes;
}

int fs_ingest_repaired_store(struct fs *fs)
{
	struct fs_ingest *ing = &fs->ingest;
	size_t i;
	int rc;

	for (i = 0; i < ing->nfixed; i++) {
		rc = store_stream_repaired(fs->store, ing->fixed[i].run,
					   ing->fixed[i].file,
					   ing->fixed[i].frames,
					   ing->fixed[i].bytes);
		/* -ENOENT: the killed run recorded elsewhere */
		if (rc < 0 && rc != -ENOENT)
			return rc;
	}
	return 0;
}

int fs_ingest_repair_all(struct fs *fs, const struct eng_io *io)
{
	struct fs_ingest *ing = &fs->ingest;
	struct dirent *de;
	size_t nl, len = 0;
	DIR *d;
	int dfd;

	if (!ing->on)
		return 0;
	dfd = ingest_dir(fs);
	if (dfd < 0)
		return dfd == -ENOENT ? 0 : dfd;
	d = fdopendir(dfd);
	if (!d) {
		close(dfd);
		return -errno;
	}
	while ((de = readdir(d))) {
		struct eng_ingest_repair out;
		struct eng_diag diag = { 0 };
		char note[FS_INGEST_NAME_MAX + 16], item[FS_INGEST_NAME_MAX + 32];
		char *p;
		int rc;

		nl = strlen(de->d_name);
		if (nl <= strlen(ENG_INGEST_NOTE_EXT) ||
		    nl >= FS_INGEST_NAME_MAX ||
		    strcmp(de->d_name + nl - strlen(ENG_INGEST_NOTE_EXT),
			   ENG_INGEST_NOTE_EXT) != 0)
			continue;
		snprintf(note, sizeof(note), "%s/%s", ENG_INGEST_DIR,
			 de->d_name);
		memset(&out, 0, sizeof(out));
		rc = eng_ingest_repair(io, &ing->self, note, &out, &diag);
		if (rc < 0) {
			fprintf(stderr, "timelinefs: cannot repair %s: %s\n",
				note, diag.n ? diag.msgs[0] : strerror(-rc));
			eng_diag_free(&diag);
			continue;
		}
		eng_diag_free(&diag);
		say_repair(note, &out);
		if (!out.repaired)
			continue;
		keep_fixed(ing, &out);
		/* the run_env row: NAME:FRAMES,... */
		snprintf(item, sizeof(item), "%s%s:%lld", len ? "," : "",
			 out.name, (long long)out.frames);
		p = realloc(ing->repaired, len + strlen(item) + 1);
		if (!p)
			break;
		memcpy(p + len, item, strlen(item) + 1);
		len += strlen(item);
		ing->repaired = p;
	}
	closedir(d);
	return 0;
}

void fs_ingest_free(struct fs *fs)
{
	struct fs_ingest *ing = &fs->ingest;
	size_t i;

	for (i = 0; i < ing->n; i++)
		free(ing->recs[i]);
	free(ing->recs);
	free(ing->repaired);
	free(ing->fixed);
	ing->fixed = NULL;
	ing->nfixed = 0;
	eng_ingest_space_free(ing->base.space);
	ing->base.space = NULL;
	ing->recs = NULL;
	ing->repaired = NULL;
	ing->n = ing->cap = 0;
}
