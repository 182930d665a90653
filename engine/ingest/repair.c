/* SPDX-License-Identifier: MIT */
/*
 * The repair of a recording its daemon did not close (ingest.h): each
 * track cut to the last frame every present track holds whole, what is
 * cut set aside, the WAV headers patched, the note set to repaired.  It
 * needs nothing but the note and the files' sizes: the track files'
 * layout is the preset's closed form.  Only a recording whose daemon is
 * provably gone is touched (live.c), under the note's lock.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ingest/ingest.h"

#define NOTE_MAX 65536
/* the copy of what is set aside, a piece at a time */
#define COPY_PIECE (1u << 20)

/* The note's text, NUL-terminated, malloc'ed; 0 or -errno. */
static int note_read(const struct eng_io *io, const char *file, char **out,
		     size_t *len, struct eng_diag *diag)
{
	uint64_t size = 0;
	int fd, direct, rc;
	char *text;
	ssize_t n;

	fd = io->open(io->ctx, file, 0, &direct);
	if (fd < 0) {
		eng_diag_add(diag, file, 0, "cannot open it: %s",
			     strerror(-fd));
		return fd;
	}
	rc = io->size(io->ctx, fd, &size);
	if (rc == 0 && size > NOTE_MAX)
		rc = -EFBIG;
	text = rc == 0 ? malloc(size + 1) : NULL;
	if (rc == 0 && !text)
		rc = -ENOMEM;
	n = rc == 0 ? io->pread(io->ctx, fd, text, size, 0) : 0;
	if (rc == 0 && n < 0)
		rc = (int)n;
	io->close(io->ctx, fd);
	if (rc < 0) {
		eng_diag_add(diag, file, 0, "cannot read it: %s",
			     strerror(-rc));
		free(text);
		return rc;
	}
	text[n] = '\0';
	*out = text;
	*len = (size_t)n;
	return 0;
}

/* A note's "frames N", or -1. */
static int64_t note_frames(const char *text)
{
	const char *p = strstr(text, "\nframes ");
	long long v;

	return p && sscanf(p + 8, "%lld", &v) == 1 ? (int64_t)v : -1;
}

static int put(const struct eng_io *io, int fd, const void *buf, size_t len,
	       uint64_t off)
{
	ssize_t n = io->pwrite(io->ctx, fd, buf, len, off, NULL);

	return n < 0 ? (int)n : (size_t)n == len ? 0 : -EIO;
}

/* Cut track t's file (open as fd, size bytes) to k frames and make its
 * header whole; 0 or -errno. */
static int cut_track(const struct eng_io *io, const struct eng_ingest_format *f,
		     uint32_t t, int fd, uint64_t size, int64_t k)
{
	unsigned char *head, patch[80], size4[4], zero = 0;
	uint64_t ess = eng_ingest_upto(f, t, k);
	size_t plen;
	int rc, pad;

	if (t == 0)
		return io->ftruncate(io->ctx, fd, ess);
	rc = io->ftruncate(io->ctx, fd, ENG_INGEST_WAV_DATA + ess);
	/* killed before its header was whole: write it again */
	if (rc == 0 && size < ENG_INGEST_WAV_DATA) {
		head = malloc(ENG_INGEST_WAV_DATA);
		if (!head)
			return -ENOMEM;
		eng_ingest_wav_header(head, f->sample_rate);
		rc = put(io, fd, head, ENG_INGEST_WAV_DATA, 0);
		free(head);
	}
	eng_ingest_wav_patch(patch, &plen, f->sample_rate, ess, &pad);
	eng_ingest_wav_patch_data(size4, ess);
	if (rc == 0)
		rc = put(io, fd, patch, plen, 0);
	if (rc == 0)
		rc = put(io, fd, size4, 4, ENG_INGEST_WAV_DATA_SIZE_AT);
	if (rc == 0 && pad)
		rc = put(io, fd, &zero, 1, ENG_INGEST_WAV_DATA + ess);
	return rc;
}

/* Copy bytes [from, to) of track file `file` to "FILE.partial" (made or
 * replaced, fsynced): what a cut removes is kept.  0 or -errno, said in
 * diag. */
static int set_aside(const struct eng_io *io, const char *file, uint64_t from,
		     uint64_t to, struct eng_diag *diag)
{
	char part[320];
	unsigned char *buf = NULL;
	int in, out = -1, direct, rc = 0;
	uint64_t at;
	ssize_t n;

	snprintf(part, sizeof(part), "%s.partial", file);
	in = io->open(io->ctx, file, 0, &direct);
	if (in < 0) {
		eng_diag_add(diag, file, 0, "cannot read it to set aside what "
			     "is cut: %s", strerror(-in));
		return in;
	}
	out = io->create(io->ctx, part, 1, NULL);
	buf = out >= 0 ? malloc(COPY_PIECE) : NULL;
	rc = out < 0 ? out : buf ? 0 : -ENOMEM;
	for (at = from; rc == 0 && at < to; at += (uint64_t)n) {
		n = io->pread(io->ctx, in, buf,
			      to - at < COPY_PIECE ? (size_t)(to - at)
						   : COPY_PIECE, at);
		if (n <= 0) {
			rc = n < 0 ? (int)n : -EIO;
			break;
		}
		rc = put(io, out, buf, (size_t)n, at - from);
	}
	/* on storage before the cut that it keeps */
	if (rc == 0 && io->fsync)
		rc = io->fsync(io->ctx, out, NULL);
	if (out >= 0)
		io->close(io->ctx, out);
	io->close(io->ctx, in);
	free(buf);
	if (rc < 0)
		eng_diag_add(diag, part, 0, "cannot set aside what the repair "
			     "cuts: %s; nothing cut", strerror(-rc));
	return rc;
}

/* The track files of a recording to repair: open, sized. */
struct tracks {
	uint32_t n;
	int fd[ENG_INGEST_TRACKS_MAX];
	uint64_t size[ENG_INGEST_TRACKS_MAX];
	char file[ENG_INGEST_TRACKS_MAX][300];
};

static void tracks_close(const struct eng_io *io, struct tracks *tr)
{
	uint32_t t;

	for (t = 0; t < tr->n; t++)
		if (tr->fd[t] >= 0)
			io->close(io->ctx, tr->fd[t]);
}

/* Open and size every track file; k* of those present (a missing one,
 * never made or lost, is skipped: bit t of *missing).  0 or -errno: a
 * track that cannot be opened as a plain file of ours (a symlink, a hard
 * link, not a regular file) refuses the repair. */
static int tracks_open(const struct eng_io *io,
		       const struct eng_ingest_format *f, const char *name,
		       struct tracks *tr, int64_t *k, uint32_t *missing,
		       struct eng_diag *diag)
{
	uint64_t data, ess;
	int64_t kt;
	uint32_t t;
	int rc;

	tr->n = f->ntracks;
	for (t = 0; t < tr->n; t++)
		tr->fd[t] = -1;
	*k = INT64_MAX;
	*missing = 0;
	for (t = 0; t < tr->n; t++) {
		eng_ingest_track_file(f, t, name, tr->file[t],
				      sizeof(tr->file[t]));
		tr->fd[t] = io->create(io->ctx, tr->file[t],
				       ENG_IO_CREATE_KEEP, NULL);
		if (tr->fd[t] == -ENOENT) {
			*missing |= 1u << t;
			continue;
		}
		if (tr->fd[t] < 0) {
			rc = tr->fd[t];
			eng_diag_add(diag, tr->file[t], 0, "cannot open it to "
				     "repair it: %s%s; the recording is left "
				     "as it is", strerror(-rc),
				     rc == -EMLINK ? " (a hard link: another "
				     "file's too)" : "");
			return rc;
		}
		rc = io->size(io->ctx, tr->fd[t], &tr->size[t]);
		if (rc < 0) {
			eng_diag_add(diag, tr->file[t], 0, "cannot stat it: %s",
				     strerror(-rc));
			return rc;
		}
		data = t ? ENG_INGEST_WAV_DATA : 0;
		ess = tr->size[t] > data ? tr->size[t] - data : 0;
		kt = eng_ingest_frames_in(f, t, ess);
		if (kt < *k)
			*k = kt;
	}
	if (*k == INT64_MAX)
		*k = 0;		/* no track at all */
	return 0;
}

/* Cut each present track to k frames, each cut set aside first (all of
 * them before any cut: a failure cuts nothing).  0 or -errno. */
static int tracks_cut(const struct eng_io *io,
		      const struct eng_ingest_format *f, struct tracks *tr,
		      int64_t k, uint64_t *cut, struct eng_diag *diag)
{
	uint64_t kept[ENG_INGEST_TRACKS_MAX];
	uint32_t t;
	int rc;

	*cut = 0;
	for (t = 0; t < tr->n; t++) {
		kept[t] = (t ? ENG_INGEST_WAV_DATA : 0) +
			  eng_ingest_upto(f, t, k);
		if (tr->fd[t] < 0 || tr->size[t] <= kept[t])
			continue;
		rc = set_aside(io, tr->file[t], kept[t], tr->size[t], diag);
		if (rc < 0)
			return rc;
		*cut += tr->size[t] - kept[t];
	}
	for (t = 0; t < tr->n; t++) {
		if (tr->fd[t] < 0)
			continue;
		rc = cut_track(io, f, t, tr->fd[t], tr->size[t], k);
		if (rc < 0) {
			eng_diag_add(diag, tr->file[t], 0,
				     "cannot repair it: %s", strerror(-rc));
			return rc;
		}
	}
	return 0;
}

/* Open the note to rewrite it and take its lock; read it again under the
 * lock (its recorder may have closed it meanwhile).  *nfd, the format,
 * state and owner; *lock the lock's result.  0 or -errno. */
static int note_claim(const struct eng_io *io, const char *note_file,
		      int *nfd, int *lock, struct eng_ingest_format *f,
		      char state[16], struct eng_ingest_owner *o,
		      int64_t *frames, struct eng_diag *diag)
{
	char *text = NULL;
	size_t len;
	int rc;

	*nfd = io->create(io->ctx, note_file, ENG_IO_CREATE_KEEP, NULL);
	if (*nfd < 0) {
		eng_diag_add(diag, note_file, 0, "cannot open it to repair "
			     "its recording: %s", strerror(-*nfd));
		return *nfd;
	}
	*lock = io->lock ? io->lock(io->ctx, *nfd) : -ENOLCK;
	rc = note_read(io, note_file, &text, &len, diag);
	if (rc == 0)
		rc = eng_ingest_note_parse(note_file, text, len, f, state, o,
					   diag);
	if (rc == 0)
		*frames = note_frames(text);
	free(text);
	return rc;
}

/* The note rewritten through nfd: state repaired, k frames, the owner
 * kept.  0 or -errno. */
static int note_repaired(const struct eng_io *io, int nfd,
			 const struct eng_ingest_format *f, int64_t k,
			 const struct eng_ingest_owner *o)
{
	char *text;
	size_t len;
	int rc;

	rc = eng_ingest_note_text_owned(f, "repaired", k, o, &text);
	if (rc < 0)
		return rc;
	len = strlen(text);
	rc = put(io, nfd, text, len, 0);
	if (rc == 0)
		rc = io->ftruncate(io->ctx, nfd, len);
	free(text);
	return rc;
}

/* The recording's name: the note's file name less ".rec". */
static int name_of(const char *note_file, char *name, size_t size)
{
	const char *base = strrchr(note_file, '/');
	size_t nl, el = strlen(ENG_INGEST_NOTE_EXT);

	base = base ? base + 1 : note_file;
	nl = strlen(base);
	if (nl > el && strcmp(base + nl - el, ENG_INGEST_NOTE_EXT) == 0)
		nl -= el;
	if (nl >= size)
		return -EINVAL;
	memcpy(name, base, nl);
	name[nl] = '\0';
	return 0;
}

int eng_ingest_repair(const struct eng_io *io,
		      const struct eng_ingest_self *self,
		      const char *note_file, struct eng_ingest_repair *out,
		      struct eng_diag *diag)
{
	static const struct eng_ingest_self nobody;
	struct eng_ingest_format f;
	struct eng_ingest_owner o;
	struct tracks tr = { 0 };
	char state[16], *text = NULL;
	int64_t k, frames = -1;
	size_t len;
	int rc, nfd = -1, lock;

	memset(out, 0, sizeof(*out));
	out->frames = -1;
	if (name_of(note_file, out->name, sizeof(out->name)) < 0) {
		eng_diag_add(diag, note_file, 0, "the name is too long");
		return -EINVAL;
	}
	if (!io->size || !io->create || !io->ftruncate || !io->pwrite) {
		eng_diag_add(diag, note_file, 0, "cannot repair: no write I/O");
		return -ENOSYS;
	}
	/* a note closed cleanly is only read */
	rc = note_read(io, note_file, &text, &len, diag);
	if (rc < 0)
		return rc;
	rc = eng_ingest_note_parse(note_file, text, len, &f, state, NULL,
				   diag);
	if (rc == 0 && strcmp(state, "recording") != 0)
		out->frames = note_frames(text);
	free(text);
	if (rc < 0 || strcmp(state, "recording") != 0)
		return rc;
	rc = note_claim(io, note_file, &nfd, &lock, &f, state, &o, &frames,
			diag);
	if (rc < 0)
		goto out;
	if (strcmp(state, "recording") != 0) {
		/* closed by its recorder since it was first read */
		out->frames = frames;
		goto out;
	}
	snprintf(out->run, sizeof(out->run), "%s", o.run);
	if (eng_ingest_life(&o, self ? self : &nobody, lock, out->why,
			    sizeof(out->why)) != ENG_INGEST_DEAD) {
		out->left = 1;
		goto out;
	}
	rc = tracks_open(io, &f, out->name, &tr, &k, &out->missing, diag);
	if (rc == 0)
		rc = tracks_cut(io, &f, &tr, k, &out->cut, diag);
	if (rc < 0)
		goto out;
	rc = note_repaired(io, nfd, &f, k, &o);
	if (rc < 0) {
		eng_diag_add(diag, note_file, 0, "cannot write it: %s",
			     strerror(-rc));
		goto out;
	}
	out->frames = k;
	out->bytes = eng_ingest_frame_offset(&f, k);
	out->repaired = 1;
out:
	tracks_close(io, &tr);
	if (nfd >= 0)
		io->close(io->ctx, nfd);	/* the lock goes with it */
	return rc;
}
