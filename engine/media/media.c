/* SPDX-License-Identifier: MIT */
/*
 * Media resolution: each played (clip, track) to one file of the media
 * folder by the naming rules (NAME.T.*, the clip's one file NAME.mov or the
 * one the timeline names, an OP-Atom set), the real files read once through
 * the readers of mfile.h, and the checks that every edit is in its media.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "media/mfile.h"
#include "media/imgseq.h"
#include "media/media.h"
#include "timeline/layout.h"
#include "timeline/load.h"
#include "timeline/model.h"
#include "util/diag.h"
#include "util/values.h"

#define WAV_HEAD_MAX ENG_WAV_HEAD_MAX
#define INGEST_DIR ENG_MEDIA_INGEST_DIR
#define INGEST_WAV_DATA ENG_MEDIA_INGEST_WAV_DATA
#define INGEST_NOTE_EXT ENG_MEDIA_INGEST_NOTE_EXT
/* A note is a few short lines (ingest.h): more is no recording's. */
#define INGEST_NOTE_MAX 4096

static uint32_t le32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

int eng_wav_data(const unsigned char *buf, size_t len, uint64_t *offset,
		 uint64_t *size)
{
	uint64_t pos = 12;

	/* RF64 is RIFF with 64-bit sizes in a ds64 chunk and 0xFFFFFFFF in
	 * the 32-bit fields: the "to end of file" rule below covers it. */
	if (len < 12 ||
	    (memcmp(buf, "RIFF", 4) != 0 && memcmp(buf, "RF64", 4) != 0) ||
	    memcmp(buf + 8, "WAVE", 4) != 0)
		return -EINVAL;
	while (pos + 8 <= len) {
		uint32_t csize = le32(buf + pos + 4);

		if (memcmp(buf + pos, "data", 4) == 0) {
			*offset = pos + 8;
			/* streaming writers leave the size 0 or all ones */
			*size = csize == 0 || csize == UINT32_MAX ? UINT64_MAX
								  : csize;
			return 0;
		}
		/* chunks are padded to an even length */
		pos += 8 + (uint64_t)csize + (csize & 1);
	}
	return -EINVAL;
}

/* What the media folder holds for one (clip, track) that is played. */
struct pair {
	int used;
	unsigned line;		/* first line that plays it */
	unsigned nreg;		/* regular files NAME.T.* */
	char *reg[2];		/* the two smallest names, for messages */
	char *other;		/* a matching name that is not a regular file */
	mode_t other_mode;
	uint64_t need;		/* essence bytes the worst segment needs */
	unsigned need_line;
	const struct eng_mfile *mf; /* the real media file chosen, or NULL */
	/* a recording's track file (MEDIA_DIR/ingest): it may be short or
	 * absent, sized from the timeline (use_recording) */
	int recording;
};

/* What the folder holds for one clip as a whole: NAME.mov, NAME.mxf ... */
struct whole {
	unsigned n;
	char *name[2];		/* the two smallest names */
	char *hint;		/* an entry named as the timeline names the
				 * clip's file (eng_clip.file) */
};

/* A media file read (or refused) once, however many (clip, track)s use
 * it. */
struct mread {
	char *name;
	struct eng_mfile *mf;	/* NULL: refused */
	char *why;		/* the reader's message when refused */
	int told;		/* the refusal was reported */
};

struct resolver {
	struct eng_timeline *tl;
	const char *media_dir;
	const struct eng_media_readers *rd;
	struct eng_diag *diag;
	struct pair *pairs;	/* [clip * ntracks + track] */
	struct whole *wholes;	/* [clip] */
	size_t *by_name;	/* clip indices sorted by name */
	size_t *by_file;	/* those of clips naming a file, by file */
	size_t nby_file;
	char **mxf;		/* the folder's *.mxf regular files */
	size_t nmxf;
	size_t *mxf_read;	/* [nmxf] their index in reads[], once read
				 * (NULL before) */
	struct mread *reads;
	size_t nreads;
	int dfd;
	/* MEDIA_DIR/ingest open, once looked for: -2 not yet, -1 none
	 * (ingest_err: why) */
	int ingest_fd;
	int ingest_err;
	unsigned nerr;
	/* every clip's video was of one other rate than the timeline's:
	 * told once (one_other_rate), not per clip */
	int rate_told;
	/* the media folder's real path for sequence clips' folders, asked
	 * once a resolve: "" before, or where it has none */
	int real_asked;
	char media_real[PATH_MAX];
};

static int cmp_clip_idx(const void *a, const void *b, void *ctx)
{
	const struct eng_timeline *tl = ctx;

	return strcmp(tl->clips[*(const size_t *)a].name,
		      tl->clips[*(const size_t *)b].name);
}

static int cmp_clip_file(const void *a, const void *b, void *ctx)
{
	const struct eng_timeline *tl = ctx;

	return strcmp(tl->clips[*(const size_t *)a].file,
		      tl->clips[*(const size_t *)b].file);
}

/* The clip named exactly key[0..n), or -1. */
static long find_clip(const struct resolver *r, const char *key, size_t n)
{
	size_t lo = 0, hi = r->tl->nclips;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const char *cn = r->tl->clips[r->by_name[mid]].name;
		int c = strncmp(cn, key, n);

		if (c == 0 && cn[n])
			c = 1;
		if (c == 0)
			return (long)r->by_name[mid];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

/* The next track at or after `from` whose media files are named `key`
 * (a transition track shares its main track's files), or -1. */
static long find_track(const struct resolver *r, const char *key, size_t n,
		       size_t from)
{
	size_t t;

	for (t = from; t < r->tl->ntracks; t++)
		if (strncmp(r->tl->tracks[t].media, key, n) == 0 &&
		    !r->tl->tracks[t].media[n])
			return (long)t;
	return -1;
}

/* Keep the two lexicographically smallest names so that an "ambiguous"
 * message does not depend on readdir order. */
static int keep_smallest(char *names[2], unsigned *n, const char *name)
{
	char *dup = strdup(name), *t;

	if (!dup)
		return -ENOMEM;
	(*n)++;
	if (!names[0] || strcmp(dup, names[0]) < 0) {
		t = names[0];
		names[0] = dup;
		dup = t;
	}
	if (dup && (!names[1] || strcmp(dup, names[1]) < 0)) {
		t = names[1];
		names[1] = dup;
		dup = t;
	}
	free(dup);
	return 0;
}

/* The extensions of files a reader takes (mfile.h), any case: a
 * NAME.T.EXT of another extension is raw essence. */
static const char *const real_ext[] = {
	"mov", "qt", "mp4", "m4v", "m4a", "mxf", "wav", "wave", "bwf",
	"aif", "aiff", "aifc",
};
/* Those of files that hold a whole clip (video and audio): NAME.EXT. */
static const char *const whole_ext[] = { "mov", "qt", "mp4", "m4v", "mxf" };

static int ext_in(const char *name, const char *const *set, size_t n)
{
	const char *dot = strrchr(name, '.');
	size_t i;

	if (!dot)
		return 0;
	for (i = 0; i < n; i++)
		if (strcasecmp(dot + 1, set[i]) == 0)
			return 1;
	return 0;
}

static int is_real(const char *name)
{
	return ext_in(name, real_ext, sizeof(real_ext) / sizeof(*real_ext));
}

static int is_wav(const char *name)
{
	static const char *const wav[] = { "wav", "wave", "bwf" };

	return ext_in(name, wav, sizeof(wav) / sizeof(*wav));
}

static int regular_at(struct resolver *r, const char *name, struct stat *sb)
{
	/* never follow a link: paths must not leave MEDIA_DIR */
	return fstatat(r->dfd, name, sb, AT_SYMLINK_NOFOLLOW) == 0;
}

/*
 * One directory entry.  It matches (clip, track) when it is
 * "CLIP.TRACK.REST" with REST non-empty.  A clip name may hold dots, a
 * track name cannot, so each dot of the name is a candidate end of CLIP
 * and TRACK is what follows up to the next dot.  It is a clip's whole
 * file when it is "CLIP.EXT" of a container holding video and audio, or
 * the file the timeline names for the clip; and a candidate OP-Atom file
 * when it is "*.mxf".
 */
static int match_entry(struct resolver *r, const char *name)
{
	const char *dot, *tend, *last = strrchr(name, '.');
	struct stat sb;
	int stated = 0;
	size_t c;

	for (dot = strchr(name, '.'); dot; dot = strchr(dot + 1, '.')) {
		long ci, t;
		struct pair *p;

		tend = strchr(dot + 1, '.');
		if (!tend || tend == dot + 1 || !tend[1])
			continue;
		ci = find_clip(r, name, (size_t)(dot - name));
		if (ci < 0)
			continue;
		for (t = find_track(r, dot + 1, (size_t)(tend - dot - 1), 0);
		     t >= 0; t = find_track(r, dot + 1,
					    (size_t)(tend - dot - 1),
					    (size_t)t + 1)) {
			p = &r->pairs[(size_t)ci * r->tl->ntracks + (size_t)t];
			if (!p->used)
				continue;
			if (!stated) {
				if (!regular_at(r, name, &sb))
					return 0; /* gone since readdir */
				stated = 1;
			}
			if (S_ISREG(sb.st_mode)) {
				if (keep_smallest(p->reg, &p->nreg, name) < 0)
					return -ENOMEM;
			} else if (!p->other) {
				p->other = strdup(name);
				if (!p->other)
					return -ENOMEM;
				p->other_mode = sb.st_mode;
			}
		}
	}
	if (!last)
		return 0;
	if (!stated && !regular_at(r, name, &sb))
		return 0;
	if (!S_ISREG(sb.st_mode))
		return 0;
	if (ext_in(name, whole_ext, sizeof(whole_ext) / sizeof(*whole_ext))) {
		long ci = find_clip(r, name, (size_t)(last - name));

		if (ci >= 0 && keep_smallest(r->wholes[ci].name,
					     &r->wholes[ci].n, name) < 0)
			return -ENOMEM;
		if (strcasecmp(last, ".mxf") == 0) {
			char **v = realloc(r->mxf, (r->nmxf + 1) * sizeof(*v));

			if (!v)
				return -ENOMEM;
			r->mxf = v;
			v[r->nmxf] = strdup(name);
			if (!v[r->nmxf])
				return -ENOMEM;
			r->nmxf++;
		}
	}
	/* the clips that name this file (by_file is sorted by it) */
	{
		size_t lo = 0, hi = r->nby_file;

		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;

			if (strcmp(r->tl->clips[r->by_file[mid]].file, name) < 0)
				lo = mid + 1;
			else
				hi = mid;
		}
		for (; lo < r->nby_file &&
		       strcmp(r->tl->clips[r->by_file[lo]].file, name) == 0;
		     lo++) {
			c = r->by_file[lo];
			r->wholes[c].hint = strdup(name);
			if (!r->wholes[c].hint)
				return -ENOMEM;
		}
	}
	return 0;
}

static int scan_dir(struct resolver *r)
{
	struct dirent *de;
	DIR *d;
	int fd, rc = 0;

	/* A fresh open file description: reading it leaves the caller's
	 * dirfd (and its position) alone. */
	fd = openat(r->dfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	d = fdopendir(fd);
	if (!d) {
		rc = -errno;
		close(fd);
		return rc;
	}
	for (;;) {
		errno = 0;
		de = readdir(d);
		if (!de) {
			rc = errno ? -errno : 0;
			break;
		}
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		rc = match_entry(r, de->d_name);
		if (rc < 0)
			break;
	}
	closedir(d);
	return rc;
}

void eng_media_vproblem(struct eng_diag *diag, unsigned *nerr,
			const struct eng_timeline *tl, unsigned line,
			size_t clip, size_t track, const char *fmt, va_list ap)
{
	char reason[1024];

	vsnprintf(reason, sizeof(reason), fmt, ap);
	(*nerr)++;
	eng_diag_add(diag, tl->path, line, "clip %s track %s: %s",
		     tl->clips[clip].name, tl->tracks[track].name, reason);
}

static void __attribute__((format(printf, 5, 6)))
problem(struct resolver *r, unsigned line, size_t clip, size_t track,
	const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	eng_media_vproblem(r->diag, &r->nerr, r->tl, line, clip, track, fmt,
			   ap);
	va_end(ap);
}

/* Open `name` of folder dfd, the raw or WAV file of (clip, track) (file:
 * its name in the media folder, owned, moved to the media), and find its
 * essence: header and size. */
static int probe(struct resolver *r, size_t c, size_t t, struct pair *p,
		 int dfd, const char *name, char **file)
{
	struct eng_media *m = &r->tl->clips[c].media[t];
	unsigned char *head = NULL;
	struct stat sb;
	uint64_t off, size;
	ssize_t n;
	int fd, rc = 0;

	fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &sb) < 0) {
		problem(r, p->line, c, t, "cannot open %s/%s: %s", r->media_dir,
			*file, strerror(errno));
		goto out;
	}
	if (!S_ISREG(sb.st_mode)) {
		problem(r, p->line, c, t, "%s/%s is not a regular file",
			r->media_dir, *file);
		goto out;
	}
	m->file = *file;
	*file = NULL;
	m->header = 0;
	m->size = (uint64_t)sb.st_size;
	if (!is_wav(m->file))
		goto out;
	head = malloc(WAV_HEAD_MAX);
	if (!head) {
		rc = -ENOMEM;
		goto out;
	}
	n = pread(fd, head, WAV_HEAD_MAX, 0);
	if (n < 0) {
		problem(r, p->line, c, t, "cannot read %s/%s: %s", r->media_dir,
			m->file, strerror(errno));
		goto out;
	}
	if (eng_wav_data(head, (size_t)n, &off, &size) < 0) {
		problem(r, p->line, c, t,
			"%s/%s is not a RIFF/WAVE file with a data chunk in its first %d KiB",
			r->media_dir, m->file, WAV_HEAD_MAX / 1024);
		goto out;
	}
	if (off > m->size) {
		problem(r, p->line, c, t,
			"%s/%s: data chunk starts past the end of the file",
			r->media_dir, m->file);
		goto out;
	}
	m->header = off;
	/* a header may promise more than was written: trust the file size */
	m->size = size < m->size - off ? size : m->size - off;
out:
	free(head);
	if (fd >= 0)
		close(fd);
	return rc;
}

/* ------------------------------------------------------------------ */
/* Edit while ingest: the mount's recordings                          */

/* MEDIA_DIR/ingest, opened once (never through a link: a name must not
 * leave the media folder), or -1 when there is none (r->ingest_err the
 * open's errno). */
static int ingest_dir(struct resolver *r)
{
	struct stat sb;

	if (r->ingest_fd == -2) {
		r->ingest_fd = openat(r->dfd, INGEST_DIR,
				      O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
				      O_CLOEXEC);
		r->ingest_err = r->ingest_fd < 0 ? errno : 0;
		/* O_NOFOLLOW with O_DIRECTORY says ENOTDIR for a link */
		if (r->ingest_err == ENOTDIR &&
		    fstatat(r->dfd, INGEST_DIR, &sb, AT_SYMLINK_NOFOLLOW) == 0 &&
		    S_ISLNK(sb.st_mode))
			r->ingest_err = ELOOP;
	}
	return r->ingest_fd < 0 ? -1 : r->ingest_fd;
}

/* Is clip `name` being recorded: does its note NAME.rec, a regular file,
 * say "state recording" (ingest.h's line; its other lines are ingest's)? */
static int note_recording(struct resolver *r, const char *name)
{
	char note[NAME_MAX + 1], text[INGEST_NOTE_MAX];
	const char *line, *end;
	struct stat sb;
	ssize_t n = -1;
	int fd;

	if ((size_t)snprintf(note, sizeof(note), "%s%s", name,
			     INGEST_NOTE_EXT) >= sizeof(note))
		return 0;
	fd = openat(r->ingest_fd, note,
		    O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return 0;
	if (fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode))
		n = pread(fd, text, sizeof(text), 0);
	close(fd);
	for (line = text; n > 0 && line < text + n; line = end + 1) {
		end = memchr(line, '\n', (size_t)(text + n - line));
		if (!end)
			end = text + n;
		if (end - line == 15 && memcmp(line, "state recording", 15) == 0)
			return 1;
	}
	return 0;
}

/* A recorded clip's (a .tl record line) recording where it is not yet
 * there, no folder ingest or no file: where its recorder will write it,
 * sized from the timeline.  1, -ENOMEM. */
static int recording_absent(struct resolver *r, size_t c, size_t t,
			    struct pair *p, char *file)
{
	struct eng_media *m = &r->tl->clips[c].media[t];

	p->recording = 1;
	m->file = file;
	m->header = r->tl->tracks[t].media[0] == 'A' ? INGEST_WAV_DATA : 0;
	m->size = 0;
	return 1;
}

/*
 * Edit while ingest (docs/formats.md "Media files", rule 4): (c, t) that
 * nothing in MEDIA_DIR plays is looked for among the mount's recordings,
 * MEDIA_DIR/ingest/NAME.V.raw (raw video from byte 0) or NAME.An.wav (raw
 * PCM from its data chunk: a recording's header says 0xFFFFFFFF, "to the
 * end", until it is closed).  Such a file may be shorter than the edit
 * needs, and may be absent while the recording's note says it is being
 * recorded: the media is then sized from the timeline, and the player
 * waits for a frame not yet written while the mount records it
 * (cfg.growing).  A recorded clip (eng_clip.record: its .tl says the
 * mount will record it) is looked for there only, and may be absent
 * without a note (the folder too): its recording starts after the mount
 * does; what cannot be its recording is told.  1: (c, t) resolved or its
 * problem said, 0: no recording (never for a recorded clip), -ENOMEM.
 */
static int use_recording(struct resolver *r, size_t c, size_t t,
			 struct pair *p)
{
	const char *tn = r->tl->tracks[t].media;
	const char *clip = r->tl->clips[c].name;
	int audio = tn[0] == 'A', record = r->tl->clips[c].record != 0;
	char name[NAME_MAX + 1], *file;
	struct stat sb;
	int present, rc, err, ok = 1;
	size_t i;

	/* a recording's tracks: V, A1 .. An */
	if (strcmp(tn, "V") != 0 && !(audio && tn[1] >= '1' && tn[1] <= '9'))
		ok = 0;
	for (i = 2; ok && audio && tn[i]; i++)
		if (tn[i] < '0' || tn[i] > '9')
			ok = 0;
	if (!ok || (size_t)snprintf(name, sizeof(name), "%s.%s.%s", clip, tn,
				    audio ? "wav" : "raw") >= sizeof(name)) {
		if (record)
			problem(r, p->line, c, t, "a recorded clip (record on "
				"line %u) plays a recording's files, %s/%s/"
				"%s.V.raw and .A1.wav ..: %s",
				r->tl->clips[c].record, r->media_dir,
				INGEST_DIR, clip, ok ? "the name is too long"
				: "no track of that name");
		return record;
	}
	if (asprintf(&file, "%s/%s", INGEST_DIR, name) < 0)
		return -ENOMEM;
	if (ingest_dir(r) < 0) {
		if (record && r->ingest_err == ENOENT)
			return recording_absent(r, c, t, p, file);
		if (record)
			problem(r, p->line, c, t, "a recorded clip (record on "
				"line %u): cannot open the folder %s/%s: %s",
				r->tl->clips[c].record, r->media_dir,
				INGEST_DIR, r->ingest_err == ELOOP ?
				"a symbolic link (not followed)" :
				strerror(r->ingest_err));
		free(file);
		return record;
	}
	present = fstatat(r->ingest_fd, name, &sb, AT_SYMLINK_NOFOLLOW) == 0;
	err = present ? 0 : errno;
	if (!present && err == ENOENT &&
	    (record || note_recording(r, clip)))
		return recording_absent(r, c, t, p, file);
	if (!present) {
		if (record)
			problem(r, p->line, c, t, "cannot open %s/%s: %s",
				r->media_dir, file, strerror(err));
		free(file);
		return record;
	}
	p->recording = 1;
	rc = probe(r, c, t, p, r->ingest_fd, name, &file);
	free(file);
	return rc < 0 ? rc : 1;
}

/* ------------------------------------------------------------------ */
/* Real media files                                                    */

static long src_pread(void *ctx, uint64_t off, void *buf, size_t len)
{
	ssize_t n = pread(*(int *)ctx, buf, len, (off_t)off);

	return n < 0 ? -errno : (long)n;
}

void eng_src_fd(struct eng_src *src, int *fd, const char *name,
		uint64_t size)
{
	memset(src, 0, sizeof(*src));
	src->name = name;
	src->size = size;
	src->read_at = src_pread;
	src->ctx = fd;
}

static void media_free(struct eng_timeline *tl)
{
	size_t i, t;

	/* the sequences are the media's own (eng_media.seq), their ess
	 * too: nothing may point at them after this */
	for (i = 0; i < tl->nclips; i++) {
		struct eng_media *m = tl->clips[i].media;

		for (t = 0; m && t < tl->ntracks; t++) {
			if (!m[t].seq)
				continue;
			eng_seqmedia_free((struct eng_seqmedia *)m[t].seq);
			m[t].seq = NULL;
			m[t].ess = NULL;
		}
	}

	for (i = 0; i < tl->nmfiles; i++)
		eng_mfile_free(tl->mfiles[i]);
	free(tl->mfiles);
	tl->mfiles = NULL;
	tl->nmfiles = 0;
}

/* The file `name` of the folder, read once through the readers: its
 * streams, or NULL with the reason in ->why.  -ENOMEM only. */
static int read_media(struct resolver *r, const char *name,
		      struct mread **out)
{
	struct eng_diag d = {0};
	struct eng_mfile *mf = NULL, **v;
	struct mread *m;
	struct stat sb;
	char path[PATH_MAX + 256];
	int fd = -1, rc = 0;
	size_t i;

	for (i = 0; i < r->nreads; i++)
		if (strcmp(r->reads[i].name, name) == 0) {
			*out = &r->reads[i];
			return 0;
		}
	m = realloc(r->reads, (r->nreads + 1) * sizeof(*m));
	if (!m)
		return -ENOMEM;
	r->reads = m;
	m = &r->reads[r->nreads];
	memset(m, 0, sizeof(*m));
	m->name = strdup(name);
	if (!m->name)
		return -ENOMEM;
	r->nreads++;
	*out = m;
	snprintf(path, sizeof(path), "%s/%s", r->media_dir, name);
	errno = 0;
	/* openat in the folder, no link followed: never leaves it; a FIFO
	 * swapped in since the scan must not block the mount */
	fd = openat(r->dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK |
		    O_CLOEXEC);
	if (fd < 0 || fstat(fd, &sb) < 0 || !S_ISREG(sb.st_mode)) {
		const char *why = fd >= 0 && errno == 0 ? "not a regular file"
							 : strerror(errno);

		/* escaped as the readers' messages are */
		eng_diag_add(&d, path, 0, "cannot open: %s", why);
		m->why = d.n ? strdup(d.msgs[0]) : NULL;
		if (!m->why)
			rc = -ENOMEM;
		goto out;
	}
	mf = calloc(1, sizeof(*mf));
	if (!mf) {
		rc = -ENOMEM;
		goto out;
	}
	{
		struct eng_src src;

		eng_src_fd(&src, &fd, path, (uint64_t)sb.st_size);
		rc = r->rd->read(&src, mf, &d);
	}
	if (rc == -ENOMEM)
		goto out;
	if (rc < 0) {
		if (!d.n)
			eng_diag_add(&d, path, 0, "refused by its reader");
		m->why = d.n ? strdup(d.msgs[0]) : NULL;
		rc = m->why ? 0 : -ENOMEM;
		goto out;
	}
	v = realloc(r->tl->mfiles, (r->tl->nmfiles + 1) * sizeof(*v));
	if (!v) {
		rc = -ENOMEM;
		goto out;
	}
	r->tl->mfiles = v;
	v[r->tl->nmfiles++] = mf;
	r->tl->media_free = media_free;
	m->mf = mf;
	mf = NULL;
out:
	eng_mfile_free(mf);
	eng_diag_free(&d);
	if (fd >= 0)
		close(fd);
	return rc;
}

/* The kind of stream a track plays, by its media name: V* video, A*
 * audio, 0 for another name (any one stream). */
static uint32_t track_kind(const char *media)
{
	if (media[0] == 'V')
		return ENG_ESS_VIDEO;
	if (media[0] == 'A')
		return ENG_ESS_AUDIO;
	return 0;
}

/* Which audio stream An is: n, 1 for "A" alone; 0 when not A<digits>. */
static unsigned audio_number(const char *media)
{
	unsigned n = 0;
	const char *p;

	if (media[0] != 'A')
		return 0;
	if (!media[1])
		return 1;
	for (p = media + 1; *p; p++) {
		if (*p < '0' || *p > '9' || n > 1000)
			return 0;
		n = n * 10 + (unsigned)(*p - '0');
	}
	return n;
}

static const char *kind_name(uint32_t kind)
{
	return kind == ENG_ESS_VIDEO ? "video" :
	       kind == ENG_ESS_AUDIO ? "audio" : "other";
}

static size_t count_kind(const struct eng_mfile *mf, uint32_t kind)
{
	size_t i, n = 0;

	for (i = 0; i < mf->nstreams; i++)
		n += mf->streams[i].kind == kind;
	return n;
}

/* "1 video, 2 audio": what a file holds, for messages. */
static void streams_said(const struct eng_mfile *mf, char *buf, size_t len)
{
	size_t v = count_kind(mf, ENG_ESS_VIDEO);
	size_t a = count_kind(mf, ENG_ESS_AUDIO);

	if (!v && !a)
		snprintf(buf, len, "no video or audio stream");
	else
		snprintf(buf, len, "%zu video and %zu audio stream%s", v, a,
			 a == 1 ? "" : "s");
}

/* The stream of a per-track file NAME.T.EXT: its one stream of the
 * track's kind.  NULL with a message. */
static const struct eng_essence *one_stream(struct resolver *r, size_t c,
					    size_t t, unsigned line,
					    const char *file,
					    const struct eng_mfile *mf)
{
	uint32_t kind = track_kind(r->tl->tracks[t].media);
	const struct eng_essence *e = NULL;
	size_t i, n = 0;
	char what[96];

	for (i = 0; i < mf->nstreams; i++)
		if (!kind || mf->streams[i].kind == kind) {
			n++;
			if (!e)
				e = &mf->streams[i];
		}
	if (n == 1)
		return e;
	streams_said(mf, what, sizeof(what));
	if (n == 0)
		problem(r, line, c, t, "%s/%s holds %s: none of the %s a "
			"track %s plays%s%s%s", r->media_dir, file, what,
			kind_name(kind), r->tl->tracks[t].name,
			mf->skipped[0] ? " (left out: " : "", mf->skipped,
			mf->skipped[0] ? ")" : "");
	else
		problem(r, line, c, t, "%s/%s holds %s: which one track %s "
			"plays is ambiguous (a file of several tracks is "
			"named %s.EXT)", r->media_dir, file, what,
			r->tl->tracks[t].name, r->tl->clips[c].name);
	return NULL;
}

/* The stream of a clip's whole file for track t: V its first video
 * stream, An its n-th audio stream.  NULL with a message. */
static const struct eng_essence *track_stream(struct resolver *r, size_t c,
					      size_t t, unsigned line,
					      const char *file,
					      const struct eng_mfile *mf)
{
	const char *tn = r->tl->tracks[t].media;
	uint32_t kind = track_kind(tn);
	unsigned want = kind == ENG_ESS_AUDIO ? audio_number(tn) : 1, seen = 0;
	size_t i;
	char what[96];

	if (!kind || !want) {
		problem(r, line, c, t, "%s/%s holds several tracks: only "
			"V and A1..An tracks are read from it", r->media_dir,
			file);
		return NULL;
	}
	for (i = 0; i < mf->nstreams; i++)
		if (mf->streams[i].kind == kind && ++seen == want)
			return &mf->streams[i];
	streams_said(mf, what, sizeof(what));
	problem(r, line, c, t, "%s/%s holds %s: none for track %s%s%s%s%s",
		r->media_dir, file, what, r->tl->tracks[t].name,
		kind == ENG_ESS_AUDIO && seen
			? " (an audio track is a stream, of however many "
			  "channels)"
			: "",
		mf->skipped[0] ? " (left out: " : "", mf->skipped,
		mf->skipped[0] ? ")" : "");
	return NULL;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Whether OP-Atom file mf belongs to clip `name`: its material package
 * name is the clip's name, or its package UMID (hex, any case) is. */
static int opatom_of(const struct eng_mfile *mf, const char *name)
{
	return strcmp(mf->format, "mxf-opatom") == 0 &&
	       (strcmp(mf->clip_name, name) == 0 ||
		(mf->package[0] && strcasecmp(mf->package, name) == 0));
}

/*
 * An OP-Atom set: the folder's MXF files of clip c, one per track (by
 * package name or UMID).  V is its one file holding video, An the n-th
 * file holding audio in file-name order (Avid's NAME.V1, NAME.A1,
 * NAME.A2 and ffmpeg's names sort so).  0 with *file and *e set, 0 with
 * *file NULL when the clip has no OP-Atom file, -ENOMEM.
 */
static int opatom_stream(struct resolver *r, size_t c, size_t t,
			 unsigned line, const char **file,
			 const struct eng_mfile **mfo,
			 const struct eng_essence **e)
{
	const char *name = r->tl->clips[c].name, *tn = r->tl->tracks[t].media;
	uint32_t kind = track_kind(tn);
	unsigned want = kind == ENG_ESS_AUDIO ? audio_number(tn) : 1;
	size_t i, n = 0, nset = 0;
	const char *hit = NULL, *second = NULL;
	const struct eng_mfile *hmf = NULL;
	struct mread *m;
	int rc;

	*file = NULL;
	*e = NULL;
	if (!r->mxf_read) {
		/* every MXF file of the folder, once: the sets of all
		 * clips are among them */
		r->mxf_read = calloc(r->nmxf + 1, sizeof(*r->mxf_read));
		if (!r->mxf_read)
			return -ENOMEM;
		if (r->nmxf)
			qsort(r->mxf, r->nmxf, sizeof(*r->mxf), cmp_str);
		for (i = 0; i < r->nmxf; i++) {
			rc = read_media(r, r->mxf[i], &m);
			if (rc < 0)
				return rc;
			r->mxf_read[i] = (size_t)(m - r->reads);
		}
	}
	for (i = 0; i < r->nmxf; i++) {
		m = &r->reads[r->mxf_read[i]];
		if (!m->mf || !opatom_of(m->mf, name))
			continue;
		nset++;
		if (!count_kind(m->mf, kind))
			continue;
		if (++n == want) {
			hit = m->name;
			hmf = m->mf;
		} else if (kind == ENG_ESS_VIDEO && n == 2) {
			second = m->name;
		}
	}
	if (!nset)
		return 0;
	*file = hit ? hit : "";
	if (second) {
		problem(r, line, c, t, "ambiguous: %s/%s, %s/%s are both "
			"OP-Atom video of clip %s", r->media_dir, hit,
			r->media_dir, second, name);
		return 0;
	}
	if (!hit || !want) {
		problem(r, line, c, t, "the OP-Atom files of clip %s in %s "
			"hold %zu %s track%s: none for track %s", name,
			r->media_dir, n, kind_name(kind), n == 1 ? "" : "s",
			r->tl->tracks[t].name);
		return 0;
	}
	*mfo = hmf;
	*e = one_stream(r, c, t, line, hit, hmf);
	return 0;
}

/* Tell a file's refusal once, at its first user. */
static void refused(struct resolver *r, size_t c, size_t t, unsigned line,
		    struct mread *m)
{
	if (m->told)
		return;
	m->told = 1;
	r->nerr++;
	/* The reader's message ("FILE: reason") is escaped already (diag.h):
	 * added through eng_diag_add it would be escaped twice, a
	 * backslash in a file name shown as four. */
	eng_diag_add_escaped(r->diag, r->tl->path, line, m->why,
			     "clip %s track %s:", r->tl->clips[c].name,
			     r->tl->tracks[t].name);
}

/* Frames per second rounded: a timecode's nominal rate (30 at 29.97). */
static uint64_t nominal(struct eng_fps f)
{
	return f.den ? ((uint64_t)f.num + f.den / 2) / f.den : 0;
}

/* floor(a * num / den) for den > 0, a of either sign. */
static __int128 floor_mul(__int128 a, uint64_t num, uint64_t den)
{
	__int128 p = a * (__int128)num, q = p / (__int128)den;

	if (p % (__int128)den && p < 0)
		q--;
	return q;
}

/* The start timecode that a stream's frames are numbered by: the
 * stream's own, else its file's; NULL without one (or with no rate). */
static const struct eng_start_tc *start_tc_of(const struct eng_mfile *mf,
					      const struct eng_essence *e)
{
	const struct eng_start_tc *tc = e->tc.present ? &e->tc : &mf->tc;

	if (!tc->present || !tc->rate.num || !tc->rate.den)
		return NULL;
	return tc;
}

int eng_media_tc(const struct eng_media *m, struct eng_fps fps, int64_t pos,
		 char *buf, size_t len)
{
	const struct eng_start_tc *tc = m->start_tc;
	const struct eng_essence *e = m->ess;
	struct eng_fps at;
	uint64_t un, ud;	/* the stream's units per second: un / ud */
	__int128 n;
	int drop;

	if (len < 16)
		return -EINVAL;
	buf[0] = '\0';
	if (!tc || !e || (e->kind == ENG_ESS_AUDIO && !e->sample_rate))
		return -ENOENT;
	/* a time reference in samples (BWF) is no rate to write a
	 * timecode at: the timeline's is */
	at = nominal(tc->rate) <= 1000 ? tc->rate : fps;
	drop = nominal(tc->rate) <= 1000 && tc->drop;
	if (!at.num || !at.den)
		return -ENOENT;
	if (e->kind == ENG_ESS_AUDIO) {
		un = e->sample_rate;
		ud = 1;
	} else {
		un = e->fps.num && e->fps.den ? e->fps.num : at.num;
		ud = e->fps.num && e->fps.den ? e->fps.den : at.den;
	}
	/* the start plus pos, in seconds over tc->rate.num * un, counted
	 * in frames of `at` */
	n = (__int128)tc->frame * tc->rate.den * un +
	    (__int128)pos * ud * tc->rate.num;
	n = floor_mul(n, at.num, (uint64_t)at.den * tc->rate.num * un);
	if (n < 0 || n > INT64_MAX / 2 ||
	    eng_tc_format((int64_t)n, at, drop, buf, len) < 0) {
		buf[0] = '\0';
		return -ENOENT;
	}
	return 0;
}

int eng_media_picture_unused(const struct eng_timeline *tl)
{
	size_t t, i;

	for (t = 0; t < tl->ntracks; t++) {
		const struct eng_track *tr = &tl->tracks[t];

		if (tr->pic.pix == ENG_PIX_NONE)
			continue;
		for (i = 0; i < tr->nsegs; i++) {
			const struct eng_clip *c = &tl->clips[tr->segs[i].clip];

			if (c->media && c->media[t].ess)
				return 1;
		}
	}
	return 0;
}

void eng_media_tc_span(const struct eng_media *m, struct eng_fps fps,
		       int64_t lo, int64_t hi, char *buf, size_t len)
{
	char a[16], b[16];

	if (len)
		buf[0] = '\0';
	if (eng_media_tc(m, fps, lo, a, sizeof(a)) < 0)
		return;
	if (hi == lo || eng_media_tc(m, fps, hi, b, sizeof(b)) < 0)
		snprintf(buf, len, " (%s)", a);
	else
		snprintf(buf, len, " (%s..%s)", a, b);
}

/*
 * eng_media.origin: the stream's frame (video) or sample frame (audio)
 * that the clip's source frame 0 is.  The timeline counts source frames
 * in timecode from eng_clip.tc; the media's first frame is its start timecode.
 * Timecodes of one nominal rate (the timeline's, the media's tmcd or
 * material package) subtract as frame counts, drop frame applied on both
 * sides; a time reference in samples (BWF) or another rate is compared
 * in time.  0 without a timecode on either side (-o edl_origin= rules).
 */
static int64_t origin_of(const struct eng_timeline *tl,
			 const struct eng_clip *cl,
			 const struct eng_start_tc *tc,
			 const struct eng_essence *e)
{
	uint64_t un, ud;	/* units per second: un / ud */
	__int128 o;

	if (!cl->tc_set || !tc || !tl->fps.num)
		return 0;
	if (e->kind == ENG_ESS_AUDIO) {
		un = e->sample_rate;
		ud = 1;
	} else {
		un = e->fps.num ? e->fps.num : tl->fps.num;
		ud = e->fps.num ? e->fps.den : tl->fps.den;
	}
	if (nominal(tc->rate) == nominal(tl->fps))
		o = floor_mul((__int128)cl->tc - tc->frame,
			      (uint64_t)tl->fps.den * un,
			      (uint64_t)tl->fps.num * ud);
	else
		o = floor_mul(cl->tc, (uint64_t)tl->fps.den * un,
			      (uint64_t)tl->fps.num * ud) -
		    floor_mul(tc->frame, (uint64_t)tc->rate.den * un,
			      (uint64_t)tc->rate.num * ud);
	if (o > INT64_MAX / 2 || o < -(INT64_MAX / 2))
		return 0;
	return (int64_t)o;
}

/* Use stream e of file `file` (read as mf) for (c, t). */
static int take_stream(struct resolver *r, size_t c, size_t t,
		       const char *file, const struct eng_mfile *mf,
		       const struct eng_essence *e)
{
	struct eng_media *m = &r->tl->clips[c].media[t];
	struct pair *p = &r->pairs[c * r->tl->ntracks + t];

	free(m->file);
	m->file = strdup(file);
	if (!m->file)
		return -ENOMEM;
	m->ess = e;
	p->mf = mf;
	m->start_tc = start_tc_of(mf, e);
	m->origin = origin_of(r->tl, &r->tl->clips[c], m->start_tc, e);
	if (e->kind == ENG_ESS_AUDIO && e->nchunks == 1 &&
	    e->chunks[0].first == 0) {
		/* one run of samples (WAV, AIFF, OP-Atom): the closed form
		 * of layout.h reads it from its first byte */
		m->header = e->chunks[0].off;
		m->size = (uint64_t)e->chunks[0].count * e->block;
	} else {
		m->header = 0;
		m->size = 0;
	}
	return 0;
}

/* A real file for (c, t) by name: its stream (one_stream for a per-track
 * file, track_stream for a whole clip's), or a message. */
static int use_file(struct resolver *r, size_t c, size_t t, unsigned line,
		    const char *file, int per_track)
{
	const struct eng_essence *e;
	struct mread *m;
	int rc = read_media(r, file, &m);

	if (rc < 0)
		return rc;
	if (!m->mf) {
		refused(r, c, t, line, m);
		return 0;
	}
	e = per_track ? one_stream(r, c, t, line, file, m->mf)
		      : track_stream(r, c, t, line, file, m->mf);
	return e ? take_stream(r, c, t, file, m->mf, e) : 0;
}

static void report_unmatched(struct resolver *r, size_t c, size_t t,
			     const struct pair *p)
{
	const char *name = r->tl->clips[c].name, *tn = r->tl->tracks[t].media;
	const char *f = r->tl->clips[c].file;

	if (p->other)
		problem(r, p->line, c, t,
			"no media file: %s/%s is %s, only regular files are used",
			r->media_dir, p->other,
			S_ISLNK(p->other_mode) ? "a symbolic link (not followed)"
			: S_ISDIR(p->other_mode) ? "a directory"
						  : "not a regular file");
	else
		problem(r, p->line, c, t, "no media file %s/%s.%s.* (nor "
			"%s.mov, .mp4, .mxf%s%s or an OP-Atom file of the "
			"clip)", r->media_dir, name, tn, name,
			f ? ", " : "", f ? f : "");
}

/* (c, t) of a sequence clip on a video track: its images (seqmedia.c),
 * the media's file its pattern. */
static int use_seq(struct resolver *r, size_t c, size_t t)
{
	struct eng_media *m = &r->tl->clips[c].media[t];
	const struct eng_seq_ref *ref = r->tl->clips[c].seq;
	struct eng_seqmedia *sm;
	char pat[PATH_MAX];
	int rc, n;

	if (!r->real_asked && ref->dir) {
		r->real_asked = 1;
		if (!realpath(r->media_dir, r->media_real))
			r->media_real[0] = '\0';
	}
	rc = eng_seqmedia_resolve(r->tl, c, t, r->dfd, r->media_dir,
				  r->media_real, &sm, &r->nerr, r->diag);
	if (rc < 0 || !sm)
		return rc == -ENOMEM ? rc : 0;
	/* the folder it was found in is the clip's (the media table,
	 * --dump-tl) */
	if (strcmp(sm->name.base, ref->base) != 0) {
		char *b = strdup(sm->name.base);

		if (!b) {
			eng_seqmedia_free(sm);
			return -ENOMEM;
		}
		free(r->tl->clips[c].seq->base);
		r->tl->clips[c].seq->base = b;
	}
	n = eng_seq_pattern(ref, pat, sizeof(pat));
	free(m->file);
	m->file = strdup(n < 0 ? "?" : pat);
	if (!m->file) {
		eng_seqmedia_free(sm);
		return -ENOMEM;
	}
	m->seq = sm;
	m->ess = &sm->ess;
	m->origin = ref->origin;
	m->header = 0;
	m->size = 0;
	r->tl->media_free = media_free;
	return 0;
}

/* Resolve (c, t) by the naming rules (docs/formats.md "Media files"). */
static int resolve_pair(struct resolver *r, size_t c, size_t t)
{
	struct pair *p = &r->pairs[c * r->tl->ntracks + t];
	struct whole *w = &r->wholes[c];
	const struct eng_mfile *mf = NULL;
	const struct eng_essence *e;
	const char *file;
	int rc;

	/* a recorded clip is the mount's recording, nothing of MEDIA_DIR */
	if (r->tl->clips[c].record) {
		rc = use_recording(r, c, t, p);
		return rc < 0 ? rc : 0;
	}
	/* a sequence plays its images on video tracks; any other track
	 * of the clip (its audio) is found by the rules below */
	if (r->tl->clips[c].seq &&
	    track_kind(r->tl->tracks[t].media) == ENG_ESS_VIDEO)
		return use_seq(r, c, t);
	if (p->nreg > 1) {
		problem(r, p->line, c, t, "ambiguous: %s/%s, %s/%s%s",
			r->media_dir, p->reg[0], r->media_dir, p->reg[1],
			p->nreg > 2 ? " and more" : "");
		return 0;
	}
	if (p->nreg == 1) {
		if (!is_real(p->reg[0]))
			return probe(r, c, t, p, r->dfd, p->reg[0],
				     &p->reg[0]);
		if (!is_wav(p->reg[0]))
			return use_file(r, c, t, p->line, p->reg[0], 1);
		/* WAV: its stream where a reader indexes it (the format,
		 * BWF's time reference); else raw PCM from its data chunk,
		 * as before real media */
		{
			struct mread *rm;

			rc = read_media(r, p->reg[0], &rm);
			if (rc < 0)
				return rc;
			if (!rm->mf)
				return probe(r, c, t, p, r->dfd, p->reg[0],
				     &p->reg[0]);
			e = one_stream(r, c, t, p->line, p->reg[0], rm->mf);
			return e ? take_stream(r, c, t, p->reg[0], rm->mf, e)
				 : 0;
		}
	}
	if (w->hint)
		return use_file(r, c, t, p->line, w->hint, 0);
	if (w->n > 1) {
		problem(r, p->line, c, t, "ambiguous: %s/%s, %s/%s%s",
			r->media_dir, w->name[0], r->media_dir, w->name[1],
			w->n > 2 ? " and more" : "");
		return 0;
	}
	if (w->n == 1)
		return use_file(r, c, t, p->line, w->name[0], 0);
	rc = opatom_stream(r, c, t, p->line, &file, &mf, &e);
	if (rc < 0)
		return rc;
	if (!file) {
		rc = use_recording(r, c, t, p);
		if (rc == 0)
			report_unmatched(r, c, t, p);
		return rc < 0 ? rc : 0;
	}
	return e ? take_stream(r, c, t, file, mf, e) : 0;
}

/* upto(k) like eng_upto_rate, but -ERANGE where it would not fit 64
 * bits: a source position far past any real file must not wrap around. */
static int upto_checked(const struct eng_track *trk, struct eng_fps fps,
			int64_t k, uint64_t *out)
{
	unsigned __int128 q = (unsigned __int128)trk->rate * fps.den;
	unsigned __int128 units;

	if (k <= 0) {
		*out = 0;
		return 0;
	}
	if ((unsigned __int128)k > ~(unsigned __int128)0 / q)
		return -ERANGE;
	units = (unsigned __int128)k * q / ((unsigned __int128)fps.num * trk->align);
	if (units > UINT64_MAX / trk->align)
		return -ERANGE;
	*out = (uint64_t)units * trk->align;
	return 0;
}

/*
 * Bytes of essence a segment needs: the largest end, over its frames
 * k in [r, r+f), of upto(s + k - r) + len(k), where len(k) =
 * upto(k+1) - upto(k): the offset follows the source frame, the length the
 * timeline frame (docs/design.md).  Every len is lo or hi = lo + align (hi = lo
 * when the rate divides evenly).  Walk back from the last frame: the term
 * of frame j is at most upto(s + j - r) + hi, which falls with j, so once
 * that bound is <= the best seen no earlier frame can do better.  When
 * lo >= align this stops after at most two frames: with J the last frame,
 * upto(s+J-1-r) + hi <= upto(s+J-r) - lo + lo + align <= upto(s+J-r) + lo,
 * which the last frame already reaches.  Below one sample unit per frame
 * (lo == 0) a frame's len is 0 or align and a period of the cadence can
 * be billions of frames (1 B/s of 1 GB units), so walking would hang:
 * there the answer is the larger of the last frame's term and that of the
 * last frame k* with a unit, found in closed form (upto never falls, so no
 * other frame can do better).
 * Returns -ERANGE when the need does not fit 64 bits.
 */
int eng_segment_bytes_needed(const struct eng_timeline *tl, size_t t,
			     const struct eng_segment *s, uint64_t *need)
{
	const struct eng_track *trk = &tl->tracks[t];
	unsigned __int128 q_num = (unsigned __int128)trk->rate * tl->fps.den;
	unsigned __int128 q_den = (unsigned __int128)tl->fps.num * trk->align;
	uint64_t best = 0, src, a, b, hi, u_end;
	int64_t j, kstar;

	hi = eng_upto_rate(trk->rate, trk->align, tl->fps, 1);
	if (q_num % q_den)
		hi += trk->align;
	if (hi == trk->align && q_num % q_den) {
		j = s->frames - 1;
		if (upto_checked(trk, tl->fps, s->src_in + j, &src) < 0 ||
		    src > UINT64_MAX - hi)
			return -ERANGE;
		best = src + (eng_upto(tl, t, s->rec_in + j + 1) -
			      eng_upto(tl, t, s->rec_in + j));
		/* units(k) = floor(k * q_num / q_den); the last unit before
		 * the end starts in frame ceil(U * q_den / q_num) - 1 */
		u_end = eng_upto(tl, t, s->rec_in + s->frames) / trk->align;
		if (u_end > eng_upto(tl, t, s->rec_in) / trk->align) {
			kstar = (int64_t)(((unsigned __int128)u_end * q_den +
					   q_num - 1) / q_num) - 1;
			if (upto_checked(trk, tl->fps,
					 s->src_in + (kstar - s->rec_in),
					 &src) < 0 ||
			    src > UINT64_MAX - trk->align)
				return -ERANGE;
			if (src + trk->align > best)
				best = src + trk->align;
		}
		*need = best;
		return 0;
	}
	for (j = s->frames - 1; j >= 0; j--) {
		if (upto_checked(trk, tl->fps, s->src_in + j, &src) < 0 ||
		    src > UINT64_MAX - hi)
			return -ERANGE;
		if (src + hi <= best)
			break;
		a = eng_upto(tl, t, s->rec_in + j);
		b = eng_upto(tl, t, s->rec_in + j + 1);
		if (src + (b - a) > best)
			best = src + (b - a);
	}
	*need = best;
	return 0;
}

static void free_resolver(struct resolver *r)
{
	size_t i, n = r->tl->nclips * r->tl->ntracks;

	for (i = 0; r->pairs && i < n; i++) {
		free(r->pairs[i].reg[0]);
		free(r->pairs[i].reg[1]);
		free(r->pairs[i].other);
	}
	for (i = 0; r->wholes && i < r->tl->nclips; i++) {
		free(r->wholes[i].name[0]);
		free(r->wholes[i].name[1]);
		free(r->wholes[i].hint);
	}
	for (i = 0; i < r->nmxf; i++)
		free(r->mxf[i]);
	for (i = 0; i < r->nreads; i++) {
		free(r->reads[i].name);
		free(r->reads[i].why);
	}
	free(r->reads);
	free(r->mxf);
	free(r->mxf_read);
	free(r->pairs);
	free(r->wholes);
	free(r->by_name);
	free(r->by_file);
	if (r->ingest_fd >= 0)
		close(r->ingest_fd);
}

static int same_audio(const struct eng_essence *a, const struct eng_essence *b)
{
	return a->sample_rate == b->sample_rate && a->channels == b->channels &&
	       a->bits == b->bits && a->block == b->block &&
	       a->is_float == b->is_float && a->big_endian == b->big_endian;
}

static void audio_said(const struct eng_essence *e, char *buf, size_t len)
{
	snprintf(buf, len, "%" PRIu32 " Hz %" PRIu32 "x%" PRIu32 "-bit%s%s",
		 e->sample_rate, e->channels, e->bits,
		 e->is_float ? " float" : "",
		 e->big_endian ? " big-endian" : "");
}

/* Whether a's rate is b's. */
static int same_rate(struct eng_fps a, struct eng_fps b)
{
	return (uint64_t)a.num * b.den == (uint64_t)b.num * a.den;
}

/*
 * When every clip's real video has one rate and it is not the timeline's,
 * that one cause is one message saying what to do (an EDL's rate is
 * -o fps= or its sidecar), instead of one per clip and the edits past
 * their ends that the wrong rate makes.  Sets r->rate_told; 1 when told.
 */
static int one_other_rate(struct resolver *r)
{
	const struct eng_timeline *tl = r->tl;
	struct eng_fps rate = { 0, 0 };
	enum eng_tl_format fmt = eng_timeline_format(tl->path);
	char fps[32], how[PATH_MAX + 64];
	size_t c, t;

	for (c = 0; c < tl->nclips; c++)
		for (t = 0; t < tl->ntracks; t++) {
			const struct eng_media *m = &tl->clips[c].media[t];
			const struct eng_essence *e = m->ess;

			if (!m->file || !e || m->seq ||
			    e->kind != ENG_ESS_VIDEO)
				continue;
			if (!e->fps.num || !e->fps.den ||
			    same_rate(e->fps, tl->fps) ||
			    (rate.num && !same_rate(e->fps, rate)))
				return 0;
			rate = e->fps;
		}
	if (!rate.num)
		return 0;
	if (rate.den == 1)
		snprintf(fps, sizeof(fps), "%" PRIu32, rate.num);
	else
		snprintf(fps, sizeof(fps), "%" PRIu32 "/%" PRIu32, rate.num,
			 rate.den);
	if (fmt == ENG_TL_EDL)
		snprintf(how, sizeof(how), "mount with -o fps=%s or write %s "
			 "in %s.fps", fps, fps, tl->path);
	else if (fmt == ENG_TL_TL)
		snprintf(how, sizeof(how), "make its fps line 'fps %s'", fps);
	else
		snprintf(how, sizeof(how), "the timeline's rate is the one "
			 "its file gives; the media need %s", fps);
	if (r->diag)
		eng_diag_add(r->diag, tl->path, 0, "every clip's video is "
			     "%" PRIu32 "/%" PRIu32 " fps, the timeline "
			     "%" PRIu32 "/%" PRIu32 " fps: %s", rate.num,
			     rate.den, tl->fps.num, tl->fps.den, how);
	r->nerr++;
	r->rate_told = 1;
	return 1;
}

/*
 * The clips of a track that play real video or audio: video at the
 * timeline's frame rate; audio of one sample format, which the track
 * then takes (its rate and sample size: -o audio_rate= is for raw
 * essence).  Returns 1 when the track's rate changed.
 */
static int check_track(struct resolver *r, size_t t)
{
	struct eng_timeline *tl = r->tl;
	struct eng_track *trk = &tl->tracks[t];
	const struct eng_essence *ref = NULL;
	size_t c, refc = 0;
	int bad = 0;
	char a[96], b[96];

	for (c = 0; c < tl->nclips; c++) {
		const struct eng_media *m = &tl->clips[c].media[t];
		const struct eng_essence *e = m->ess;
		const struct pair *p = &r->pairs[c * tl->ntracks + t];

		if (!m->file || !e)
			continue;
		if (e->kind == ENG_ESS_VIDEO && !r->rate_told &&
		    (uint64_t)e->fps.num * tl->fps.den !=
		    (uint64_t)tl->fps.num * e->fps.den)
			problem(r, p->line, c, t, "%s/%s: video of %" PRIu32
				"/%" PRIu32 " fps on a timeline of %" PRIu32
				"/%" PRIu32 " fps", r->media_dir, m->file,
				e->fps.num, e->fps.den, tl->fps.num,
				tl->fps.den);
		/* compressed audio has no sample size: the layout makes
		 * its table of packets */
		if (e->kind != ENG_ESS_AUDIO || e->pts)
			continue;
		if (!e->block || !e->sample_rate) {
			problem(r, p->line, c, t, "%s/%s: audio without a "
				"sample rate or sample size", r->media_dir,
				m->file);
			bad = 1;
			continue;
		}
		if (!ref) {
			ref = e;
			refc = c;
		} else if (!same_audio(ref, e)) {
			audio_said(e, a, sizeof(a));
			audio_said(ref, b, sizeof(b));
			problem(r, p->line, c, t, "%s/%s is %s audio, clip "
				"%s's %s/%s on this track %s: a track's clips "
				"share one sample format", r->media_dir,
				m->file, a, tl->clips[refc].name,
				r->media_dir, tl->clips[refc].media[t].file, b);
			bad = 1;
		}
	}
	if (!ref || bad)
		return 0;
	if (trk->rate == (uint64_t)ref->sample_rate * ref->block &&
	    trk->align == ref->block)
		return 0;
	trk->rate = (uint64_t)ref->sample_rate * ref->block;
	trk->align = ref->block;
	return 1;
}

/* Where (c, t)'s segments reach in its stream: frames or sample frames
 * [lo, hi) of the media, each with the line of the segment that needs
 * it most. */
struct reach {
	int64_t lo, hi;
	unsigned lo_line, hi_line;
	int set;
};

static void reach_of(struct resolver *r, size_t t, struct reach *v)
{
	const struct eng_timeline *tl = r->tl;
	const struct eng_track *trk = &tl->tracks[t];
	size_t i;

	for (i = 0; i < trk->nsegs; i++) {
		const struct eng_segment *s = &trk->segs[i];
		const struct eng_media *m = &tl->clips[s->clip].media[t];
		struct reach *x = &v[s->clip];
		int64_t lo, hi;

		if (!m->file || !m->ess)
			continue;
		if (m->ess->pts) {
			/* compressed audio: the samples of its frames */
			eng_media_samples(tl, m, s->src_in, s->frames, &lo,
					  &hi);
		} else if (m->ess->kind == ENG_ESS_AUDIO) {
			uint64_t need;

			if (trk->align != m->ess->block)
				continue;	/* told by check_track */
			lo = m->origin + (int64_t)(eng_upto(tl, t, s->src_in) /
						   trk->align);
			if (eng_segment_bytes_needed(tl, t, s, &need) < 0 ||
			    need / trk->align > INT64_MAX / 2)
				hi = INT64_MAX / 2;
			else
				hi = m->origin + (int64_t)(need / trk->align);
		} else {
			lo = m->origin + s->src_in;
			hi = lo + s->frames;
		}
		if (!x->set || lo < x->lo ||
		    (lo == x->lo && s->line < x->lo_line)) {
			x->lo = lo;
			x->lo_line = s->line;
		}
		if (!x->set || hi > x->hi ||
		    (hi == x->hi && s->line < x->hi_line)) {
			x->hi = hi;
			x->hi_line = s->line;
		}
		x->set = 1;
	}
}

/* The edit reaches past (c, t)'s last frame or sample: told in the
 * media's numbering, from its first (0), and its timecodes. */
static void too_far(struct resolver *r, size_t c, size_t t,
		    const struct reach *v, int64_t n)
{
	const struct eng_media *m = &r->tl->clips[c].media[t];
	int audio = m->ess->kind == ENG_ESS_AUDIO;
	const char *unit = audio ? "samples" : "frames";
	char need[48], has[48];

	eng_media_tc_span(m, r->tl->fps, v->lo, v->hi - 1, need, sizeof(need));
	eng_media_tc_span(m, r->tl->fps, 0, n - 1, has, sizeof(has));
	if (n < 1)
		has[0] = '\0';
	problem(r, v->hi_line, c, t, "%s/%s: the edit reaches past the "
		"clip's last %s: needs media %s %lld..%lld%s, the media has "
		"%lld%s", r->media_dir, m->file, audio ? "sample" : "frame",
		unit, (long long)v->lo, (long long)v->hi - 1, need,
		(long long)n, has);
}

static int check_reach(struct resolver *r, size_t t)
{
	const struct eng_timeline *tl = r->tl;
	struct reach *v = calloc(tl->nclips + 1, sizeof(*v));
	char tc[16];
	size_t c;

	if (!v)
		return -ENOMEM;
	reach_of(r, t, v);
	for (c = 0; c < tl->nclips; c++) {
		const struct eng_media *m = &tl->clips[c].media[t];
		const struct eng_essence *e = m->ess;
		int audio;
		int64_t n;

		if (!v[c].set)
			continue;
		audio = e->kind == ENG_ESS_AUDIO;
		n = audio ? e->nsamples : e->nframes;
		if (v[c].lo < 0) {
			int has_tc = eng_media_tc(m, tl->fps, m->origin, tc,
						  sizeof(tc)) == 0;

			problem(r, v[c].lo_line, c, t, "%s/%s: the edit starts "
				"%lld %s before the clip's first%s (source "
				"frame 0 is media %s %lld%s%s%s by its start "
				"timecode)", r->media_dir, m->file,
				(long long)-v[c].lo,
				audio ? "samples" : "frames",
				audio ? " sample" : " frame",
				audio ? "sample" : "frame",
				(long long)m->origin, has_tc ? ", " : "",
				has_tc ? tc : "", has_tc ? "," : "");
		}
		if (v[c].hi > n)
			too_far(r, c, t, &v[c], n);
	}
	free(v);
	return 0;
}

int eng_media_resolve_with(struct eng_timeline *tl, int dirfd,
			   const char *media_dir,
			   const struct eng_media_readers *rd,
			   struct eng_diag *diag)
{
	struct resolver r = {
		.tl = tl, .media_dir = media_dir, .diag = diag, .dfd = dirfd,
		.rd = rd, .ingest_fd = -2,
	};
	size_t nt = tl->ntracks, c, t, i;
	int rc = -ENOMEM, changed = 0;

	/* a second call starts over */
	if (tl->media_free)
		tl->media_free(tl);
	for (c = 0; c < tl->nclips; c++) {
		if (tl->clips[c].media)
			for (t = 0; t < nt; t++)
				free(tl->clips[c].media[t].file);
		free(tl->clips[c].media);
		tl->clips[c].media = calloc(nt ? nt : 1, sizeof(struct eng_media));
		if (!tl->clips[c].media)
			goto out;
	}
	r.pairs = calloc(tl->nclips * nt + 1, sizeof(*r.pairs));
	r.wholes = calloc(tl->nclips + 1, sizeof(*r.wholes));
	r.by_name = calloc(tl->nclips + 1, sizeof(*r.by_name));
	r.by_file = calloc(tl->nclips + 1, sizeof(*r.by_file));
	if (!r.pairs || !r.wholes || !r.by_name || !r.by_file)
		goto out;
	for (c = 0; c < tl->nclips; c++) {
		r.by_name[c] = c;
		if (tl->clips[c].file)
			r.by_file[r.nby_file++] = c;
	}
	qsort_r(r.by_name, tl->nclips, sizeof(*r.by_name), cmp_clip_idx, tl);
	qsort_r(r.by_file, r.nby_file, sizeof(*r.by_file), cmp_clip_file, tl);
	for (t = 0; t < nt; t++) {
		for (i = 0; i < tl->tracks[t].nsegs; i++) {
			const struct eng_segment *s = &tl->tracks[t].segs[i];
			struct pair *p = &r.pairs[s->clip * nt + t];

			if (!p->used || s->line < p->line)
				p->line = s->line;
			p->used = 1;
		}
	}
	rc = scan_dir(&r);
	if (rc == -ENOMEM)
		goto out;
	if (rc < 0) {
		eng_diag_add(diag, media_dir, 0, "cannot read media folder: %s",
			     strerror(-rc));
		rc = -EINVAL;
		goto out;
	}

	for (c = 0; c < tl->nclips; c++)
		for (t = 0; t < nt; t++)
			if (r.pairs[c * nt + t].used &&
			    (rc = resolve_pair(&r, c, t)) < 0)
				goto out;
	one_other_rate(&r);
	for (t = 0; t < nt; t++)
		changed |= check_track(&r, t);
	/* what the edit reaches, in frames of a rate the media have not */
	rc = -EINVAL;
	if (r.rate_told)
		goto out;
	for (t = 0; t < nt; t++)
		if ((rc = check_reach(&r, t)) < 0)
			goto out;

	/* raw essence: the worst segment of each file, so that a short
	 * file is one message */
	for (t = 0; t < nt; t++) {
		for (i = 0; i < tl->tracks[t].nsegs; i++) {
			const struct eng_segment *s = &tl->tracks[t].segs[i];
			struct pair *p = &r.pairs[s->clip * nt + t];
			const struct eng_media *m = &tl->clips[s->clip].media[t];
			uint64_t need;

			if (!m->file || m->ess)
				continue;
			if (eng_segment_bytes_needed(tl, t, s, &need) < 0)
				need = UINT64_MAX;
			if (need > p->need ||
			    (need == p->need && s->line < p->need_line)) {
				p->need = need;
				p->need_line = s->line;
			}
		}
	}
	for (c = 0; c < tl->nclips; c++) {
		for (t = 0; t < nt; t++) {
			const struct pair *p = &r.pairs[c * nt + t];
			struct eng_media *m = &tl->clips[c].media[t];
			const struct eng_picture *pic = &tl->tracks[t].pic;
			uint64_t fb = eng_picture_bytes(pic);

			if (!m->file || m->ess)
				continue;
			/* a recording is sized from the timeline: what it
			 * has not yet written, the player waits for while
			 * the mount records it, else fails */
			if (p->recording) {
				if (p->need != UINT64_MAX && p->need > m->size)
					m->size = p->need;
				continue;
			}
			/* A picture track's clip is whole pictures of its
			 * size: a file that is not was made for another
			 * size or format, and its frames would be cut
			 * across pictures (the movie shows them so). */
			if (fb && m->size % fb)
				problem(&r, p->line, c, t,
					"%s/%s holds %llu bytes, not whole "
					"%s %" PRIu32 "x%" PRIu32 " pictures "
					"of %llu bytes (%llu pictures and %llu "
					"bytes over): a clip of another "
					"picture size or format",
					media_dir, m->file,
					(unsigned long long)m->size,
					eng_pix_name(pic->pix), pic->width,
					pic->height, (unsigned long long)fb,
					(unsigned long long)(m->size / fb),
					(unsigned long long)(m->size % fb));
			if (p->need <= m->size)
				continue;
			if (p->need == UINT64_MAX)
				problem(&r, p->need_line, c, t,
					"%s/%s is too short: the event reads past 2^64 bytes",
					media_dir, m->file);
			else
				problem(&r, p->need_line, c, t,
					"%s/%s is too short: needs %llu bytes of essence, has %llu",
					media_dir, m->file,
					(unsigned long long)p->need,
					(unsigned long long)m->size);
		}
	}
	rc = r.nerr ? -EINVAL : 0;
	/* an audio track took its media's sample format: the file's size
	 * and frames follow */
	if (rc == 0 && changed)
		rc = eng_tl_finalize(tl, diag);
out:
	free_resolver(&r);
	return rc;
}

int eng_media_resolve(struct eng_timeline *tl, int dirfd,
		      const char *media_dir, struct eng_diag *diag)
{
	static const struct eng_media_readers readers = {
		.read = eng_mfile_read,
	};

	return eng_media_resolve_with(tl, dirfd, media_dir, &readers, diag);
}
