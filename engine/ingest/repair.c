/* SPDX-License-Identifier: MIT */
/*
 * The repair of a recording its daemon did not close (ingest.h): each
 * track cut to the last frame every track holds whole, the WAV headers
 * patched, the note set to repaired.  It needs nothing but the note and
 * the files' sizes: the track files' layout is the preset's closed form.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ingest/ingest.h"

#define NOTE_MAX 65536

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

int eng_ingest_repair(const struct eng_io *io, const char *note_file,
		      struct eng_ingest_repair *out, struct eng_diag *diag)
{
	struct eng_ingest_format f;
	uint64_t size[ENG_INGEST_TRACKS_MAX] = { 0 }, data, ess, kept;
	int fd[ENG_INGEST_TRACKS_MAX];
	char file[ENG_INGEST_TRACKS_MAX][300], state[16], *text = NULL;
	const char *base = strrchr(note_file, '/');
	size_t len, nl;
	int64_t k = INT64_MAX, kt;
	uint32_t t;
	int rc, nfd;

	memset(out, 0, sizeof(*out));
	out->frames = -1;
	base = base ? base + 1 : note_file;
	nl = strlen(base);
	if (nl > strlen(ENG_INGEST_NOTE_EXT) &&
	    strcmp(base + nl - strlen(ENG_INGEST_NOTE_EXT),
		   ENG_INGEST_NOTE_EXT) == 0)
		nl -= strlen(ENG_INGEST_NOTE_EXT);
	if (nl >= sizeof(out->name)) {
		eng_diag_add(diag, note_file, 0, "the name is too long");
		return -EINVAL;
	}
	memcpy(out->name, base, nl);
	out->name[nl] = '\0';
	if (!io->size || !io->create || !io->ftruncate || !io->pwrite) {
		eng_diag_add(diag, note_file, 0, "cannot repair: no write I/O");
		return -ENOSYS;
	}
	rc = note_read(io, note_file, &text, &len, diag);
	if (rc < 0)
		return rc;
	rc = eng_ingest_note_parse(note_file, text, len, &f, state, diag);
	if (rc == 0 && strcmp(state, "recording") != 0)
		out->frames = note_frames(text);
	free(text);
	if (rc < 0 || strcmp(state, "recording") != 0)
		return rc;
	for (t = 0; t < f.ntracks; t++)
		fd[t] = -1;
	/* k*: the last frame every track holds whole (a missing file, one
	 * that was never made, holds none) */
	for (t = 0; t < f.ntracks; t++) {
		eng_ingest_track_file(&f, t, out->name, file[t],
				      sizeof(file[t]));
		fd[t] = io->create(io->ctx, file[t], ENG_IO_CREATE_KEEP, NULL);
		if (fd[t] == -ENOENT) {
			k = 0;
			continue;
		}
		if (fd[t] < 0) {
			rc = fd[t];
			eng_diag_add(diag, file[t], 0, "cannot open it: %s",
				     strerror(-rc));
			goto out;
		}
		rc = io->size(io->ctx, fd[t], &size[t]);
		if (rc < 0) {
			eng_diag_add(diag, file[t], 0, "cannot stat it: %s",
				     strerror(-rc));
			goto out;
		}
		data = t ? ENG_INGEST_WAV_DATA : 0;
		ess = size[t] > data ? size[t] - data : 0;
		kt = eng_ingest_frames_in(&f, t, ess);
		if (kt < k)
			k = kt;
	}
	for (t = 0; t < f.ntracks; t++) {
		if (fd[t] < 0)
			continue;
		rc = cut_track(io, &f, t, fd[t], size[t], k);
		if (rc < 0) {
			eng_diag_add(diag, file[t], 0, "cannot repair it: %s",
				     strerror(-rc));
			goto out;
		}
		kept = (t ? ENG_INGEST_WAV_DATA : 0) + eng_ingest_upto(&f, t, k);
		kept += t ? eng_ingest_upto(&f, t, k) & 1 : 0;
		out->cut += size[t] > kept ? size[t] - kept : 0;
	}
	rc = eng_ingest_note_text(&f, "repaired", k, &text);
	if (rc < 0)
		goto out;
	len = strlen(text);
	nfd = io->create(io->ctx, note_file, ENG_IO_CREATE_KEEP, NULL);
	rc = nfd < 0 ? nfd : put(io, nfd, text, len, 0);
	if (rc == 0)
		rc = io->ftruncate(io->ctx, nfd, len);
	if (nfd >= 0)
		io->close(io->ctx, nfd);
	free(text);
	if (rc < 0) {
		eng_diag_add(diag, note_file, 0, "cannot write it: %s",
			     strerror(-rc));
		goto out;
	}
	out->frames = k;
	out->repaired = 1;
out:
	for (t = 0; t < f.ntracks; t++)
		if (fd[t] >= 0)
			io->close(io->ctx, fd[t]);
	return rc;
}
