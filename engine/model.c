/* SPDX-License-Identifier: MIT */
/* Timeline model: tracks, clips, segments; overlap resolution at finalize. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "engine.h"

struct eng_timeline *eng_tl_new(const char *name, const char *path)
{
	struct eng_timeline *tl = calloc(1, sizeof(*tl));

	if (!tl)
		return NULL;
	tl->name = strdup(name ? name : "");
	tl->path = strdup(path ? path : "");
	if (!tl->name || !tl->path) {
		eng_tl_free(tl);
		return NULL;
	}
	return tl;
}

void eng_tl_free(struct eng_timeline *tl)
{
	size_t i, t;

	if (!tl)
		return;
	for (t = 0; t < tl->ntracks; t++)
		free(tl->tracks[t].segs);
	for (i = 0; i < tl->nclips; i++) {
		if (tl->clips[i].media)
			for (t = 0; t < tl->ntracks; t++)
				free(tl->clips[i].media[t].file);
		free(tl->clips[i].media);
		free(tl->clips[i].name);
	}
	free(tl->tracks);
	free(tl->clips);
	free(tl->name);
	free(tl->path);
	free(tl);
}

static int valid_track_name(const char *name)
{
	size_t n = strlen(name), i;

	if (n == 0 || n >= ENG_TRACK_NAME_MAX)
		return 0;
	for (i = 0; i < n; i++) {
		char c = name[i];

		if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
		      (c >= '0' && c <= '9') || c == '_'))
			return 0;
	}
	return 1;
}

int eng_tl_add_track(struct eng_timeline *tl, const char *name,
		     uint64_t rate, uint32_t align)
{
	struct eng_track *tr;

	if (!valid_track_name(name) || rate == 0 || align == 0)
		return -EINVAL;
	if (eng_tl_find_track(tl, name) >= 0)
		return -EEXIST;
	/* Tracks are added before clips get media, so no clip holds a
	 * per-track array yet that would need to grow with this one. */
	tr = realloc(tl->tracks, (tl->ntracks + 1) * sizeof(*tr));
	if (!tr)
		return -ENOMEM;
	tl->tracks = tr;
	tr = &tl->tracks[tl->ntracks];
	memset(tr, 0, sizeof(*tr));
	strcpy(tr->name, name);
	tr->rate = rate;
	tr->align = align;
	return (int)tl->ntracks++;
}

int eng_tl_find_track(const struct eng_timeline *tl, const char *name)
{
	size_t t;

	for (t = 0; t < tl->ntracks; t++)
		if (strcmp(tl->tracks[t].name, name) == 0)
			return (int)t;
	return -ENOENT;
}

static int valid_clip_name(const char *name)
{
	const unsigned char *p = (const unsigned char *)name;

	if (!*p || strcmp(name, ".") == 0 || strcmp(name, "..") == 0)
		return 0;
	for (; *p; p++)
		if (*p == '/' || *p < 0x20 || *p == 0x7f)
			return 0;
	return 1;
}

int eng_tl_clip(struct eng_timeline *tl, const char *name, unsigned line)
{
	struct eng_clip *c;
	size_t i;

	if (!valid_clip_name(name))
		return -EINVAL;
	for (i = 0; i < tl->nclips; i++)
		if (strcmp(tl->clips[i].name, name) == 0)
			return (int)i;
	c = realloc(tl->clips, (tl->nclips + 1) * sizeof(*c));
	if (!c)
		return -ENOMEM;
	tl->clips = c;
	c = &tl->clips[tl->nclips];
	memset(c, 0, sizeof(*c));
	c->name = strdup(name);
	if (!c->name)
		return -ENOMEM;
	c->line = line;
	return (int)tl->nclips++;
}

static int push_seg(struct eng_track *tr, const struct eng_segment *s)
{
	if (tr->nsegs == tr->cap) {
		size_t cap = tr->cap ? tr->cap * 2 : 16;
		struct eng_segment *n = realloc(tr->segs, cap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		tr->segs = n;
		tr->cap = cap;
	}
	tr->segs[tr->nsegs++] = *s;
	return 0;
}

int eng_tl_add_segment(struct eng_timeline *tl, size_t track, uint32_t clip,
		       int64_t src_in, int64_t rec_in, int64_t frames,
		       unsigned line)
{
	struct eng_segment s = {
		.clip = clip, .src_in = src_in, .rec_in = rec_in,
		.frames = frames, .line = line,
	};

	if (track >= tl->ntracks || clip >= tl->nclips || frames <= 0 ||
	    src_in < 0 || rec_in < 0 || frames > INT64_MAX / 4 ||
	    rec_in > INT64_MAX / 4 || src_in > INT64_MAX / 4)
		return -EINVAL;
	return push_seg(&tl->tracks[track], &s);
}

int64_t eng_tl_track_end(const struct eng_timeline *tl, size_t track)
{
	const struct eng_track *tr = &tl->tracks[track];
	int64_t end = 0;
	size_t i;

	for (i = 0; i < tr->nsegs; i++)
		if (tr->segs[i].rec_in + tr->segs[i].frames > end)
			end = tr->segs[i].rec_in + tr->segs[i].frames;
	return end;
}

static int cmp_rec(const void *a, const void *b)
{
	const struct eng_segment *x = a, *y = b;

	return (x->rec_in > y->rec_in) - (x->rec_in < y->rec_in);
}

/* Lay the segments down in definition order onto an initially empty
 * track; each one cuts away what it covers of those before it.  Quadratic
 * in the worst case, which is fine for edits of thousands of events and
 * keeps the rule ("the later one wins") obvious. */
static int flatten(struct eng_track *tr)
{
	struct eng_track out = { 0 };
	size_t i, j;

	for (i = 0; i < tr->nsegs; i++) {
		const struct eng_segment *s = &tr->segs[i];
		int64_t s_end = s->rec_in + s->frames;
		size_t n = out.nsegs;

		for (j = 0; j < n; j++) {
			struct eng_segment *r = &out.segs[j];
			int64_t r_end = r->rec_in + r->frames;

			if (r->frames == 0 || r_end <= s->rec_in ||
			    r->rec_in >= s_end)
				continue;
			if (r_end > s_end) {
				/* the right part survives */
				struct eng_segment right = *r;

				right.src_in += s_end - r->rec_in;
				right.rec_in = s_end;
				right.frames = r_end - s_end;
				if (push_seg(&out, &right) < 0)
					goto nomem;
				r = &out.segs[j];
			}
			/* keep the left part (maybe empty) */
			r->frames = s->rec_in > r->rec_in ? s->rec_in - r->rec_in : 0;
		}
		if (push_seg(&out, s) < 0)
			goto nomem;
	}
	/* drop emptied segments, then sort by record position */
	for (i = j = 0; i < out.nsegs; i++)
		if (out.segs[i].frames > 0)
			out.segs[j++] = out.segs[i];
	out.nsegs = j;
	if (out.nsegs)	/* a track with no segment has segs == NULL */
		qsort(out.segs, out.nsegs, sizeof(*out.segs), cmp_rec);
	free(tr->segs);
	tr->segs = out.segs;
	tr->nsegs = out.nsegs;
	tr->cap = out.cap;
	return 0;
nomem:
	free(out.segs);
	return -ENOMEM;
}

int eng_tl_finalize(struct eng_timeline *tl, struct eng_diag *diag)
{
	unsigned __int128 fmin = 0, fmax = 0;
	size_t t;
	int rc;

	if (tl->fps.num == 0 || tl->fps.den == 0) {
		eng_diag_add(diag, tl->path, 0, "no frame rate");
		return -EINVAL;
	}
	if (tl->ntracks == 0) {
		eng_diag_add(diag, tl->path, 0, "no track");
		return -EINVAL;
	}
	tl->frames = 0;
	tl->frame_bytes_min = tl->frame_bytes_max = 0;
	for (t = 0; t < tl->ntracks; t++) {
		struct eng_track *tr = &tl->tracks[t];
		unsigned __int128 q_num = (unsigned __int128)tr->rate * tl->fps.den;
		unsigned __int128 q_den = (unsigned __int128)tl->fps.num * tr->align;
		unsigned __int128 lo = q_num / q_den;

		rc = flatten(tr);
		if (rc < 0)
			return rc;
		if (tr->nsegs) {
			const struct eng_segment *last = &tr->segs[tr->nsegs - 1];

			if (last->rec_in + last->frames > tl->frames)
				tl->frames = last->rec_in + last->frames;
		}
		/* each frame holds floor(q) or ceil(q) sample units */
		fmin += lo * tr->align;
		fmax += (lo + (q_num % q_den ? 1 : 0)) * tr->align;
	}
	if (tl->frames == 0) {
		eng_diag_add(diag, tl->path, 0, "timeline has no event");
		return -EINVAL;
	}
	/* Offsets are off_t: bound the size (frames of the largest size)
	 * before computing it, so that it cannot wrap around.  This also
	 * keeps the 128-bit products in eng_upto_rate() in range for every
	 * frame of the file.  Per track lo * align <= rate * den < 2^96,
	 * so fmax fits; once it is below 2^63, so is its product with
	 * frames (< 2^63) below 2^128. */
	if (fmax > INT64_MAX ||
	    fmax * (unsigned __int128)tl->frames > INT64_MAX) {
		eng_diag_add(diag, tl->path, 0,
			     "timeline too large: %lld frames of up to %.0Lf bytes exceed 2^63 bytes",
			     (long long)tl->frames, (long double)fmax);
		return -EINVAL;
	}
	tl->frame_bytes_min = (uint64_t)fmin;
	tl->frame_bytes_max = (uint64_t)fmax;
	tl->bytes = eng_frame_offset(tl, tl->frames);
	return 0;
}
