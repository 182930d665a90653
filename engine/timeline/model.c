/* SPDX-License-Identifier: MIT */
/* Timeline model: tracks, clips, segments; overlap resolution at finalize. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "timeline/layout.h"
#include "timeline/model.h"
#include "util/diag.h"

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

static void seq_free(struct eng_seq_ref *r)
{
	if (!r)
		return;
	free(r->base);
	free(r->dir);
	free(r->prefix);
	free(r->suffix);
	free(r);
}

void eng_tl_free(struct eng_timeline *tl)
{
	size_t i, t;

	if (!tl)
		return;
	if (tl->media_free)
		tl->media_free(tl);
	for (t = 0; t < tl->ntracks; t++) {
		free(tl->tracks[t].segs);
		free(tl->tracks[t].upto);
	}
	for (i = 0; i < tl->nclips; i++) {
		if (tl->clips[i].media)
			for (t = 0; t < tl->ntracks; t++)
				free(tl->clips[i].media[t].file);
		free(tl->clips[i].media);
		free(tl->clips[i].name);
		free(tl->clips[i].file);
		seq_free(tl->clips[i].seq);
	}
	free(tl->tracks);
	free(tl->clips);
	free(tl->name);
	free(tl->path);
	free(tl);
}

int eng_track_name_valid(const char *name)
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

enum eng_pix eng_pix_find(const char *name)
{
	if (strcmp(name, "2vuy") == 0)
		return ENG_PIX_2VUY;
	if (strcmp(name, "v210") == 0)
		return ENG_PIX_V210;
	return ENG_PIX_NONE;
}

const char *eng_pix_name(uint32_t pix)
{
	return pix == ENG_PIX_2VUY ? "2vuy" : pix == ENG_PIX_V210 ? "v210" : "";
}

uint64_t eng_picture_bytes(const struct eng_picture *p)
{
	uint64_t w = p->width, h = p->height;

	switch (p->pix) {
	case ENG_PIX_2VUY:
		return w * h * 2;
	case ENG_PIX_V210:
		/* 48 pixels in 128 bytes; a row is padded to a whole group */
		return (w + 47) / 48 * 128 * h;
	}
	return 0;
}

int eng_picture_size_word(const char *s)
{
	const char *x = strchr(s, 'x');

	if (!x || x == s || !x[1])
		return 0;
	for (; *s; s++)
		if (s != x && (*s < '0' || *s > '9'))
			return 0;
	return 1;
}

/* A width or height: 1..ENG_PICTURE_MAX, else 0. */
static uint32_t picture_dim(const char *s, size_t n)
{
	uint32_t v = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return 0;
		v = v * 10 + (uint32_t)(s[i] - '0');
		if (v > ENG_PICTURE_MAX)
			return 0;
	}
	return v;
}

int eng_picture_parse(const char *format, const char *size,
		      struct eng_picture *out, const char **why)
{
	const char *x = strchr(size, 'x');

	memset(out, 0, sizeof(*out));
	out->pix = eng_pix_find(format);
	if (out->pix == ENG_PIX_NONE) {
		*why = "unknown picture format (2vuy or v210)";
		return -EINVAL;
	}
	if (!eng_picture_size_word(size)) {
		*why = "bad picture size: WIDTHxHEIGHT, e.g. 720x486";
		return -EINVAL;
	}
	out->width = picture_dim(size, (size_t)(x - size));
	out->height = picture_dim(x + 1, strlen(x + 1));
	if (!out->width || !out->height) {
		*why = "picture width and height must be 1 to 16384";
		return -EINVAL;
	}
	/* 4:2:2: one Cb and one Cr per two pixels of a row */
	if (out->width & 1) {
		*why = "picture width must be even for 4:2:2";
		return -EINVAL;
	}
	return 0;
}

int eng_tl_add_picture_track(struct eng_timeline *tl, const char *name,
			     const struct eng_picture *p)
{
	uint64_t fs = eng_picture_bytes(p);
	unsigned __int128 n;
	int t;

	/* fs < 2^32 by ENG_PICTURE_MAX, so it is an align */
	if (!fs || fs > UINT32_MAX || !tl->fps.num || !tl->fps.den)
		return -EINVAL;
	n = (unsigned __int128)fs * tl->fps.num;
	t = eng_tl_add_track(tl, name, (uint64_t)((n + tl->fps.den - 1) /
						  tl->fps.den),
			     (uint32_t)fs);
	if (t >= 0)
		tl->tracks[t].pic = *p;
	return t;
}

int eng_tl_add_track(struct eng_timeline *tl, const char *name,
		     uint64_t rate, uint32_t align)
{
	struct eng_track *tr;

	if (!eng_track_name_valid(name) || rate == 0 || align == 0)
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
	strcpy(tr->media, name);
	{
		size_t n = strlen(name);

		if (n > 1 && name[n - 1] == 'x') {
			char base[ENG_TRACK_NAME_MAX];
			int b;

			memcpy(base, name, n - 1);
			base[n - 1] = '\0';
			b = eng_tl_find_track(tl, base);
			if (b >= 0)
				strcpy(tr->media, tl->tracks[b].media);
		}
	}
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

int eng_tl_clip_file(struct eng_timeline *tl, uint32_t clip,
		     const char *file)
{
	if (clip >= tl->nclips || !valid_clip_name(file))
		return -EINVAL;
	if (tl->clips[clip].file)
		return -EEXIST;
	tl->clips[clip].file = strdup(file);
	return tl->clips[clip].file ? 0 : -ENOMEM;
}

static const char *const seq_missing_names[] = {
	[ENG_SEQ_MISS_ERROR] = "error",
	[ENG_SEQ_MISS_HOLD] = "hold",
	[ENG_SEQ_MISS_BLACK] = "black",
};
#define SEQ_MISSING_N (sizeof(seq_missing_names) / sizeof(seq_missing_names[0]))

const char *eng_seq_missing_name(uint32_t m)
{
	return m < SEQ_MISSING_N ? seq_missing_names[m] : NULL;
}

int eng_seq_missing_find(const char *s)
{
	size_t i;

	for (i = 0; i < SEQ_MISSING_N; i++)
		if (strcasecmp(s, seq_missing_names[i]) == 0)
			return (int)i;
	return -1;
}

static int has_control(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	for (; *p; p++)
		if (*p < 0x20 || *p == 0x7f)
			return 1;
	return 0;
}

/* A sequence's folder: "" or components joined by '/', none of them
 * empty, "." or ".." (so that it stays inside the media folder, which
 * io_real.c's RESOLVE_BENEATH enforces again at every open). */
int eng_seq_base_ok(const char *b)
{
	const char *p = b, *e;
	size_t n;

	if (!*b)
		return 1;
	for (;;) {
		e = strchr(p, '/');
		n = e ? (size_t)(e - p) : strlen(p);
		if (n == 0 || (n == 1 && p[0] == '.') ||
		    (n == 2 && p[0] == '.' && p[1] == '.'))
			return 0;
		if (!e)
			return 1;
		p = e + 1;
	}
}

int eng_tl_clip_seq(struct eng_timeline *tl, uint32_t clip,
		    const struct eng_seq_ref *ref, const char **why)
{
	struct eng_seq_ref *r;

	*why = NULL;
	if (clip >= tl->nclips) {
		*why = "no such clip";
		return -EINVAL;
	}
	if (tl->clips[clip].seq)
		return -EEXIST;
	if (!ref->base || !ref->prefix || !ref->suffix) {
		*why = "a missing part of the name";
		return -EINVAL;
	}
	if (has_control(ref->base) || has_control(ref->prefix) ||
	    has_control(ref->suffix) || (ref->dir && has_control(ref->dir))) {
		*why = "a control character";
		return -EINVAL;
	}
	if (!eng_seq_base_ok(ref->base)) {
		*why = "a folder of the pattern leaves the media folder";
		return -EINVAL;
	}
	if (strchr(ref->prefix, '/') || strchr(ref->suffix, '/')) {
		*why = "a '/' in the name prefix or suffix";
		return -EINVAL;
	}
	if (ref->step < 1) {
		*why = "step must be 1 or more";
		return -EINVAL;
	}
	if (ref->padding < 0 || ref->padding > 64) {
		*why = "padding above 64";
		return -EINVAL;
	}
	if (!eng_seq_missing_name(ref->missing)) {
		*why = "unknown missing frame policy";
		return -EINVAL;
	}
	r = calloc(1, sizeof(*r));
	if (!r)
		return -ENOMEM;
	*r = *ref;
	r->base = strdup(ref->base);
	r->dir = ref->dir ? strdup(ref->dir) : NULL;
	r->prefix = strdup(ref->prefix);
	r->suffix = strdup(ref->suffix);
	if (!r->base || !r->prefix || !r->suffix || (ref->dir && !r->dir)) {
		seq_free(r);
		return -ENOMEM;
	}
	tl->clips[clip].seq = r;
	return 0;
}

/* s with every '%' doubled, appended at *n (counting past len). */
static void put_pct(char *buf, size_t len, size_t *n, const char *s)
{
	for (; *s; s++) {
		if (*s == '%') {
			if (*n < len)
				buf[*n] = '%';
			(*n)++;
		}
		if (*n < len)
			buf[*n] = *s;
		(*n)++;
	}
}

int eng_seq_pattern(const struct eng_seq_ref *ref, char *buf, size_t len)
{
	char num[16];
	size_t n = 0;

	put_pct(buf, len, &n, ref->base);
	if (ref->base[0])
		put_pct(buf, len, &n, "/");
	put_pct(buf, len, &n, ref->prefix);
	if (ref->padding > 0)
		snprintf(num, sizeof(num), "%%0%dd", ref->padding);
	else
		snprintf(num, sizeof(num), "%%d");
	/* num's '%' is the conversion, not a name's: not doubled */
	if (n + strlen(num) <= len)
		memcpy(buf + n, num, strlen(num));
	n += strlen(num);
	put_pct(buf, len, &n, ref->suffix);
	if (n >= len || n > INT32_MAX) {
		if (len)
			buf[0] = '\0';
		return -ENAMETOOLONG;
	}
	buf[n] = '\0';
	return (int)n;
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

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

/* Definition indices sorted by rec_in: qsort_r needs the segments. */
static int cmp_def_rec(const void *a, const void *b, void *ctx)
{
	const struct eng_segment *segs = ctx;
	int64_t x = segs[*(const size_t *)a].rec_in;
	int64_t y = segs[*(const size_t *)b].rec_in;

	return (x > y) - (x < y);
}

/* A binary max-heap of definition indices: the latest definition on top. */
static void heap_push(size_t *h, size_t *n, size_t v)
{
	size_t i = (*n)++;

	while (i > 0 && h[(i - 1) / 2] < v) {
		h[i] = h[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	h[i] = v;
}

static void heap_pop(size_t *h, size_t *n)
{
	size_t v = h[--(*n)], i = 0, c;

	for (;;) {
		c = 2 * i + 1;
		if (c >= *n)
			break;
		if (c + 1 < *n && h[c + 1] > h[c])
			c++;
		if (h[c] <= v)
			break;
		h[i] = h[c];
		i = c;
	}
	if (*n)
		h[i] = v;
}

/*
 * Resolve overlaps: the later definition wins.  Sweep the elementary
 * intervals between consecutive segment boundaries in record order,
 * keeping the segments that have started in a max-heap by definition
 * index; those that have ended are dropped lazily when they reach the top.
 * The top one covers the whole interval (its end is a boundary past the
 * interval's start), so it owns it.  Consecutive intervals of the same
 * definition are joined again, so each piece is a maximal visible run of
 * one definition, with src_in moved by what was cut from its head and its
 * defining line: the same result as laying the segments down one by one,
 * in O(n log n) (an EDL's speed effects make 10^5 segments on one track).
 */
static int flatten(struct eng_track *tr)
{
	const struct eng_segment *defs = tr->segs;
	size_t n = tr->nsegs, cap = 2 * n, nb = 0, nh = 0, next = 0, nout = 0;
	size_t i, j;
	size_t *order = NULL, *heap = NULL, last = SIZE_MAX;
	struct eng_segment *out = NULL;
	int64_t *bounds = NULL;
	int rc = -ENOMEM;

	if (n == 0)
		return 0;
	bounds = malloc(2 * n * sizeof(*bounds));
	order = malloc(n * sizeof(*order));
	heap = malloc(n * sizeof(*heap));
	/* each definition adds at most two boundaries, so at most 2n - 1
	 * intervals, each at most one piece */
	out = malloc(cap * sizeof(*out));
	if (!bounds || !order || !heap || !out)
		goto out;
	for (i = 0; i < n; i++) {
		if (defs[i].frames <= 0)
			continue;
		order[nout++] = i;
		bounds[nb++] = defs[i].rec_in;
		bounds[nb++] = defs[i].rec_in + defs[i].frames;
	}
	qsort_r(order, nout, sizeof(*order), cmp_def_rec, (void *)defs);
	qsort(bounds, nb, sizeof(*bounds), cmp_i64);
	for (i = j = 0; i < nb; i++)
		if (j == 0 || bounds[i] != bounds[j - 1])
			bounds[j++] = bounds[i];
	nb = j;
	n = nout;
	nout = 0;
	for (j = 0; j + 1 < nb; j++) {
		int64_t a = bounds[j], b = bounds[j + 1];
		const struct eng_segment *d;
		struct eng_segment *o;

		while (next < n && defs[order[next]].rec_in <= a)
			heap_push(heap, &nh, order[next++]);
		while (nh && defs[heap[0]].rec_in + defs[heap[0]].frames <= a)
			heap_pop(heap, &nh);
		if (!nh)
			continue;
		d = &defs[heap[0]];
		if (heap[0] == last && out[nout - 1].rec_in +
					       out[nout - 1].frames == a) {
			out[nout - 1].frames += b - a;
			continue;
		}
		o = &out[nout++];
		*o = *d;
		o->src_in = d->src_in + (a - d->rec_in);
		o->rec_in = a;
		o->frames = b - a;
		last = heap[0];
	}
	free(tr->segs);
	tr->segs = out;
	tr->nsegs = nout;
	tr->cap = cap;
	out = NULL;
	rc = 0;
out:
	free(bounds);
	free(order);
	free(heap);
	free(out);
	return rc;
}

/*
 * A picture track's closed form upto(k) = floor(k * rate * den / (num * fs))
 * * fs with rate = ceil(fs * num / den) is k * fs while k * excess < num * fs,
 * excess = rate * den - fs * num (0 <= excess < den): past that a frame
 * would be one frame longer.  Checked against the furthest frame any
 * offset is computed for, of the timeline or of a clip (src_in + frames),
 * so that every slice and every source offset is whole frames.  Only tiny
 * pictures reach it (2x2 at 30000/1001: 999 frames; 720x486: 92.9 million, 36 days).
 */
static int picture_exact(const struct eng_timeline *tl,
			 const struct eng_track *tr, struct eng_diag *diag)
{
	unsigned __int128 excess, fsnum;
	int64_t kmax = tl->frames;
	unsigned line = 0;
	size_t i;

	if (tr->pic.pix == ENG_PIX_NONE)
		return 0;
	for (i = 0; i < tr->nsegs; i++) {
		const struct eng_segment *s = &tr->segs[i];
		int64_t end = s->src_in > s->rec_in ? s->src_in : s->rec_in;

		if (end + s->frames >= kmax) {
			kmax = end + s->frames;
			line = s->line;
		}
	}
	excess = (unsigned __int128)tr->rate * tl->fps.den -
		 (unsigned __int128)tr->align * tl->fps.num;
	fsnum = (unsigned __int128)tr->align * tl->fps.num;
	if (excess == 0 || (unsigned __int128)kmax * excess < fsnum)
		return 0;
	eng_diag_add(diag, tl->path, line,
		     "track %s: %s %" PRIu32 "x%" PRIu32 " frames at %" PRIu32
		     "/%" PRIu32 " fps stay whole only up to frame %llu, "
		     "the timeline reaches frame %lld",
		     tr->name, eng_pix_name(tr->pic.pix), tr->pic.width,
		     tr->pic.height, tl->fps.num, tl->fps.den,
		     (unsigned long long)((fsnum - 1) / excess),
		     (long long)kmax);
	return -EINVAL;
}

/* A picture as a .tl names it ("2vuy 720x486"), or a rate track's rate. */
static void picture_text(const struct eng_track *tr, char *buf, size_t len)
{
	if (tr->pic.pix == ENG_PIX_NONE)
		snprintf(buf, len, "no picture (%" PRIu64 " bytes a second)",
			 tr->rate);
	else
		snprintf(buf, len, "%s %" PRIu32 "x%" PRIu32,
			 eng_pix_name(tr->pic.pix), tr->pic.width,
			 tr->pic.height);
}

/*
 * A track that plays another's files (a transition track Vx reads V's)
 * plays that track's pictures: its frames must be the same picture, or
 * its slices would cut V's pictures at another size (and its movie track
 * would show them so).  Said at its first clip's line, with both.
 */
static int picture_shared(const struct eng_timeline *tl,
			  const struct eng_track *tr, struct eng_diag *diag)
{
	const struct eng_track *src;
	char mine[64], theirs[64];
	int u;

	if (!tr->nsegs || strcmp(tr->media, tr->name) == 0)
		return 0;
	u = eng_tl_find_track(tl, tr->media);
	if (u < 0)
		return 0;
	src = &tl->tracks[u];
	if (src->pic.pix == tr->pic.pix && src->pic.width == tr->pic.width &&
	    src->pic.height == tr->pic.height)
		return 0;
	picture_text(tr, mine, sizeof(mine));
	picture_text(src, theirs, sizeof(theirs));
	eng_diag_add(diag, tl->path, tr->segs[0].line,
		     "clip %s on track %s: %s, but it plays the files of track "
		     "%s, whose frames are %s: a clip of two picture sizes",
		     tl->clips[tr->segs[0].clip].name, tr->name, mine, src->name,
		     theirs);
	return -EINVAL;
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
		unsigned __int128 lo, hi;

		rc = flatten(tr);
		if (rc < 0)
			return rc;
		if (tr->nsegs) {
			const struct eng_segment *last = &tr->segs[tr->nsegs - 1];

			if (last->rec_in + last->frames > tl->frames)
				tl->frames = last->rec_in + last->frames;
		}
		eng_track_frame_bytes(tr, tl->fps, &lo, &hi);
		fmin += lo;
		fmax += hi;
	}
	if (tl->frames == 0) {
		eng_diag_add(diag, tl->path, 0, "timeline has no event");
		return -EINVAL;
	}
	rc = 0;
	for (t = 0; t < tl->ntracks; t++)
		if (picture_exact(tl, &tl->tracks[t], diag) < 0 ||
		    picture_shared(tl, &tl->tracks[t], diag) < 0)
			rc = -EINVAL;
	if (rc < 0)
		return rc;
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
