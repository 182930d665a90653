/* SPDX-License-Identifier: MIT */
/*
 * Media resolution: clip NAME, track T is the single regular file
 * MEDIA_DIR/NAME.T.*; find where its essence starts (RIFF/WAVE data chunk)
 * and check it is long enough for every segment that plays it.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "media/media.h"
#include "timeline/layout.h"
#include "timeline/model.h"
#include "util/diag.h"
#include "util/values.h"

#define WAV_HEAD_MAX ENG_WAV_HEAD_MAX

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
	unsigned nreg;		/* regular files that match */
	char *reg[2];		/* the two smallest names, for messages */
	char *other;		/* a matching name that is not a regular file */
	mode_t other_mode;
	uint64_t need;		/* essence bytes the worst segment needs */
	unsigned need_line;
};

struct resolver {
	struct eng_timeline *tl;
	const char *media_dir;
	struct eng_diag *diag;
	struct pair *pairs;	/* [clip * ntracks + track] */
	size_t *by_name;	/* clip indices sorted by name */
	int dfd;
	unsigned nerr;
};

static int cmp_clip_idx(const void *a, const void *b, void *ctx)
{
	const struct eng_timeline *tl = ctx;

	return strcmp(tl->clips[*(const size_t *)a].name,
		      tl->clips[*(const size_t *)b].name);
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
static int add_regular(struct pair *p, const char *name)
{
	char *dup = strdup(name), *t;

	if (!dup)
		return -ENOMEM;
	p->nreg++;
	if (!p->reg[0] || strcmp(dup, p->reg[0]) < 0) {
		t = p->reg[0];
		p->reg[0] = dup;
		dup = t;
	}
	if (dup && (!p->reg[1] || strcmp(dup, p->reg[1]) < 0)) {
		t = p->reg[1];
		p->reg[1] = dup;
		dup = t;
	}
	free(dup);
	return 0;
}

/*
 * One directory entry: it matches (clip, track) when it is
 * "CLIP.TRACK.REST" with REST non-empty.  A clip name may hold dots, a
 * track name cannot, so each dot of the name is a candidate end of CLIP
 * and TRACK is what follows up to the next dot.
 */
static int match_entry(struct resolver *r, const char *name)
{
	const char *dot, *tend;
	struct stat sb;
	int stated = 0;

	for (dot = strchr(name, '.'); dot; dot = strchr(dot + 1, '.')) {
		long c, t;
		struct pair *p;

		tend = strchr(dot + 1, '.');
		if (!tend || tend == dot + 1 || !tend[1])
			continue;
		c = find_clip(r, name, (size_t)(dot - name));
		if (c < 0)
			continue;
		for (t = find_track(r, dot + 1, (size_t)(tend - dot - 1), 0);
		     t >= 0; t = find_track(r, dot + 1,
					    (size_t)(tend - dot - 1),
					    (size_t)t + 1)) {
			p = &r->pairs[(size_t)c * r->tl->ntracks + (size_t)t];
			if (!p->used)
				continue;
			/* never follow a link: paths must not leave MEDIA_DIR */
			if (!stated) {
				if (fstatat(r->dfd, name, &sb,
					    AT_SYMLINK_NOFOLLOW) < 0)
					return 0; /* gone since readdir */
				stated = 1;
			}
			if (S_ISREG(sb.st_mode)) {
				if (add_regular(p, name) < 0)
					return -ENOMEM;
			} else if (!p->other) {
				p->other = strdup(name);
				if (!p->other)
					return -ENOMEM;
				p->other_mode = sb.st_mode;
			}
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

static void __attribute__((format(printf, 5, 6)))
problem(struct resolver *r, unsigned line, size_t clip, size_t track,
	const char *fmt, ...)
{
	char reason[768];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(reason, sizeof(reason), fmt, ap);
	va_end(ap);
	r->nerr++;
	eng_diag_add(r->diag, r->tl->path, line, "clip %s track %s: %s",
		     r->tl->clips[clip].name, r->tl->tracks[track].name, reason);
}

static int has_wav_ext(const char *name)
{
	size_t n = strlen(name);

	return n > 4 && strcasecmp(name + n - 4, ".wav") == 0;
}

/* Open the one match and find its essence: header and size. */
static int probe(struct resolver *r, size_t c, size_t t, struct pair *p)
{
	struct eng_media *m = &r->tl->clips[c].media[t];
	unsigned char *head = NULL;
	struct stat sb;
	uint64_t off, size;
	ssize_t n;
	int fd, rc = 0;

	fd = openat(r->dfd, p->reg[0],
		    O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &sb) < 0) {
		problem(r, p->line, c, t, "cannot open %s/%s: %s", r->media_dir,
			p->reg[0], strerror(errno));
		goto out;
	}
	if (!S_ISREG(sb.st_mode)) {
		problem(r, p->line, c, t, "%s/%s is not a regular file",
			r->media_dir, p->reg[0]);
		goto out;
	}
	m->file = p->reg[0];
	p->reg[0] = NULL;
	m->header = 0;
	m->size = (uint64_t)sb.st_size;
	if (!has_wav_ext(m->file))
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

static void free_pairs(struct resolver *r)
{
	size_t i, n = r->tl->nclips * r->tl->ntracks;

	for (i = 0; r->pairs && i < n; i++) {
		free(r->pairs[i].reg[0]);
		free(r->pairs[i].reg[1]);
		free(r->pairs[i].other);
	}
	free(r->pairs);
	free(r->by_name);
}

static void report_unmatched(struct resolver *r, size_t c, size_t t,
			     const struct pair *p)
{
	const char *name = r->tl->clips[c].name, *tn = r->tl->tracks[t].media;

	if (p->other)
		problem(r, p->line, c, t,
			"no media file: %s/%s is %s, only regular files are used",
			r->media_dir, p->other,
			S_ISLNK(p->other_mode) ? "a symbolic link (not followed)"
			: S_ISDIR(p->other_mode) ? "a directory"
						  : "not a regular file");
	else
		problem(r, p->line, c, t, "no media file %s/%s.%s.*",
			r->media_dir, name, tn);
}

int eng_media_resolve(struct eng_timeline *tl, int dirfd,
		      const char *media_dir, struct eng_diag *diag)
{
	struct resolver r = {
		.tl = tl, .media_dir = media_dir, .diag = diag, .dfd = dirfd,
	};
	size_t nt = tl->ntracks, c, t, i;
	int rc = -ENOMEM;

	/* a second call starts over */
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
	r.by_name = calloc(tl->nclips + 1, sizeof(*r.by_name));
	if (!r.pairs || !r.by_name)
		goto out;
	for (c = 0; c < tl->nclips; c++)
		r.by_name[c] = c;
	qsort_r(r.by_name, tl->nclips, sizeof(*r.by_name), cmp_clip_idx, tl);
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

	for (c = 0; c < tl->nclips; c++) {
		for (t = 0; t < nt; t++) {
			struct pair *p = &r.pairs[c * nt + t];

			if (!p->used)
				continue;
			if (p->nreg == 0) {
				report_unmatched(&r, c, t, p);
			} else if (p->nreg > 1) {
				problem(&r, p->line, c, t,
					"ambiguous: %s/%s, %s/%s%s", media_dir,
					p->reg[0], media_dir, p->reg[1],
					p->nreg > 2 ? " and more" : "");
			} else if ((rc = probe(&r, c, t, p)) < 0) {
				goto out;
			}
		}
	}

	/* the worst segment of each file, so a short file is one message */
	for (t = 0; t < nt; t++) {
		for (i = 0; i < tl->tracks[t].nsegs; i++) {
			const struct eng_segment *s = &tl->tracks[t].segs[i];
			struct pair *p = &r.pairs[s->clip * nt + t];
			uint64_t need;

			if (!tl->clips[s->clip].media[t].file)
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
			const struct eng_media *m = &tl->clips[c].media[t];
			const struct eng_picture *pic = &tl->tracks[t].pic;
			uint64_t fb = eng_picture_bytes(pic);

			/* A picture track's clip is whole pictures of its
			 * size: a file that is not was made for another
			 * size or format, and its frames would be cut
			 * across pictures (the movie shows them so). */
			if (m->file && fb && m->size % fb)
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
			if (!m->file || p->need <= m->size)
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
out:
	free_pairs(&r);
	return rc;
}
