/* SPDX-License-Identifier: MIT */
/*
 * Byte layout of a timeline file (docs/design.md): for each frame, the slice of
 * every track in declared order.  Everything is upto(t, k): a closed form,
 * or a track's table of real frame sizes; offsets map back to frames by
 * binary search.  Real media's slices are extents of the media file from
 * its index (timeline/essence.h, which the media readers fill).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "timeline/essence.h"
#include "timeline/layout.h"
#include "timeline/model.h"
#include "util/values.h"

uint64_t eng_upto_rate(uint64_t rate, uint32_t align, struct eng_fps fps,
		       int64_t k)
{
	unsigned __int128 n, d;

	if (k <= 0)
		return 0;
	n = (unsigned __int128)k * rate * fps.den;
	d = (unsigned __int128)fps.num * align;
	return (uint64_t)(n / d) * align;
}

void eng_track_frame_bytes(const struct eng_track *tr, struct eng_fps fps,
			   unsigned __int128 *lo, unsigned __int128 *hi)
{
	unsigned __int128 q_num = (unsigned __int128)tr->rate * fps.den;
	unsigned __int128 q_den = (unsigned __int128)fps.num * tr->align;

	/* a picture track's rate is rounded up from its picture's, so q is
	 * just above 1, but eng_tl_finalize checked that every frame of the
	 * timeline holds exactly one picture: the bound below would say two
	 * (and size every stream's ring for frames twice as large) */
	if (tr->pic.pix != ENG_PIX_NONE) {
		*lo = *hi = eng_picture_bytes(&tr->pic);
		return;
	}
	/* each frame holds floor(q) or ceil(q) sample units */
	*lo = q_num / q_den * tr->align;
	*hi = (q_num / q_den + (q_num % q_den ? 1 : 0)) * tr->align;
}

uint64_t eng_upto(const struct eng_timeline *tl, size_t t, int64_t k)
{
	const uint64_t *u = tl->tracks[t].upto;

	/* a table covers the timeline's frames; past them nothing is read
	 * (source frames of real media are at their index's offsets) */
	if (u)
		return u[k <= 0 ? 0 : k > tl->frames ? tl->frames : k];
	return eng_upto_rate(tl->tracks[t].rate, tl->tracks[t].align, tl->fps,
			     k);
}

uint64_t eng_frame_offset(const struct eng_timeline *tl, int64_t k)
{
	uint64_t off = 0;
	size_t t;

	for (t = 0; t < tl->ntracks; t++)
		off += eng_upto(tl, t, k);
	return off;
}

uint64_t eng_frame_size(const struct eng_timeline *tl, int64_t k)
{
	return eng_frame_offset(tl, k + 1) - eng_frame_offset(tl, k);
}

int64_t eng_frame_at(const struct eng_timeline *tl, uint64_t off)
{
	int64_t lo = 0, hi = tl->frames; /* offset(lo) <= off < offset(hi) */

	if (off >= tl->bytes)
		return tl->frames;
	while (hi - lo > 1) {
		int64_t mid = lo + (hi - lo) / 2;

		if (eng_frame_offset(tl, mid) <= off)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

const struct eng_segment *eng_segment_at(const struct eng_track *trk,
					 int64_t k)
{
	size_t lo = 0, hi = trk->nsegs; /* first segment with rec_in > k */
	const struct eng_segment *s;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (trk->segs[mid].rec_in <= k)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return NULL;
	s = &trk->segs[lo - 1];
	return k < s->rec_in + s->frames ? s : NULL;
}

int64_t eng_next_segment_frame(const struct eng_timeline *tl, int64_t k)
{
	int64_t next = tl->frames;
	size_t t;

	for (t = 0; t < tl->ntracks && next > k; t++) {
		const struct eng_track *trk = &tl->tracks[t];
		size_t lo = 0, hi = trk->nsegs; /* first ending after k */

		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;

			if (trk->segs[mid].rec_in + trk->segs[mid].frames <= k)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo < trk->nsegs) {
			int64_t f = trk->segs[lo].rec_in > k ?
				    trk->segs[lo].rec_in : k;

			if (f < next)
				next = f;
		}
	}
	return next;
}

/* The real media a segment of track t plays, or NULL for raw essence. */
static const struct eng_media *seg_media(const struct eng_timeline *tl,
					 size_t t, const struct eng_segment *seg)
{
	const struct eng_clip *c = &tl->clips[seg->clip];

	return c->media && c->media[t].ess ? &c->media[t] : NULL;
}

int64_t eng_slice_src(const struct eng_timeline *tl, size_t t,
		      const struct eng_segment *seg, int64_t k)
{
	const struct eng_media *m = seg_media(tl, t, seg);

	if (!m || m->ess->kind != ENG_ESS_VIDEO)
		return -1;
	return m->origin + seg->src_in + (k - seg->rec_in);
}

/* The sample frames of timeline frame k's slice (len bytes) of segment
 * seg on an audio track: the source frame's first sample, as upto at
 * the source frame counts them, plus the media's origin. */
static int audio_extents(const struct eng_timeline *tl, size_t t,
			 const struct eng_media *m,
			 const struct eng_segment *seg, int64_t k, uint64_t len,
			 struct eng_slice_ext *out)
{
	const struct eng_essence *e = m->ess;
	int64_t src = seg->src_in + (k - seg->rec_in);
	struct eng_extent ext[ENG_SLICE_EXTENTS];
	int i, n;

	n = eng_essence_samples(e, m->origin + (int64_t)(eng_upto(tl, t,
				src) / e->block), (int64_t)(len / e->block),
				ext, ENG_SLICE_EXTENTS);
	for (i = 0; i < n; i++) {
		out[i].off = ext[i].off;
		out[i].len = ext[i].len;
	}
	return n;
}

void eng_media_samples(const struct eng_timeline *tl,
		       const struct eng_media *m, int64_t src, int64_t n,
		       int64_t *s0, int64_t *s1)
{
	uint64_t rate = m->ess->sample_rate;

	*s0 = m->origin + (int64_t)eng_upto_rate(rate, 1, tl->fps, src);
	*s1 = m->origin + (int64_t)eng_upto_rate(rate, 1, tl->fps, src + n);
}

/* Compressed audio: the packets of source frame src (its sample frames
 * at the timeline's rate, after the media's origin), as extents; their
 * bytes in *bytes where asked.  -E2BIG past ENG_SLICE_EXTENTS. */
static int packet_span(const struct eng_timeline *tl,
		       const struct eng_media *m, int64_t src,
		       struct eng_slice_ext *out, uint64_t *bytes)
{
	const struct eng_essence *e = m->ess;
	struct eng_extent ext[ENG_SLICE_EXTENTS];
	uint64_t b;
	int64_t s0, s1;
	int i, n;

	eng_media_samples(tl, m, src, 1, &s0, &s1);
	n = eng_essence_packets(e, s0, s1, ext, ENG_SLICE_EXTENTS, &b);
	for (i = 0; i < n; i++) {
		out[i].off = ext[i].off;
		out[i].len = ext[i].len;
	}
	if (bytes)
		*bytes = b;
	return n;
}

void eng_slice_get(const struct eng_timeline *tl, int64_t k, size_t t,
		   struct eng_slice *out)
{
	const struct eng_segment *seg;
	const struct eng_media *m;
	size_t u;
	int n;

	out->frame = k;
	out->track = t;
	out->pos = eng_frame_offset(tl, k);
	for (u = 0; u < t; u++)
		out->pos += eng_upto(tl, u, k + 1) - eng_upto(tl, u, k);
	out->len = eng_upto(tl, t, k + 1) - eng_upto(tl, t, k);
	seg = eng_segment_at(&tl->tracks[t], k);
	out->seg = seg;
	out->file_off = 0;
	out->next = 0;
	if (!seg || out->len == 0)
		return;
	m = seg_media(tl, t, seg);
	if (!m) {
		const struct eng_clip *c = &tl->clips[seg->clip];

		out->file_off = eng_upto(tl, t, seg->src_in + k - seg->rec_in);
		if (c->media)
			out->file_off += c->media[t].header;
		out->ext[0].off = out->file_off;
		out->ext[0].len = out->len;
		out->next = 1;
		return;
	}
	if (m->ess->kind == ENG_ESS_VIDEO) {
		int64_t j = m->origin + seg->src_in + (k - seg->rec_in);

		if (j < 0 || j >= m->ess->nframes)
			return;
		out->ext[0].off = m->ess->off[j];
		out->ext[0].len = out->len;
		out->next = 1;
	} else if (m->ess->pts) {
		n = packet_span(tl, m, seg->src_in + (k - seg->rec_in),
				out->ext, NULL);
		if (n <= 0)
			return;
		out->next = n;
	} else {
		n = audio_extents(tl, t, m, seg, k, out->len, out->ext);
		if (n <= 0)
			return;
		out->next = n;
	}
	out->file_off = out->ext[0].off;
}

/* Decode position of presentation frame i. */
static int64_t dpos(const struct eng_essence *e, int64_t i)
{
	return e->decode ? e->decode[i] : i;
}

/* How far past a frame, in presentation order, a frame that decodes
 * before it can be: H.264 and HEVC reorder by at most 16 frames. */
#define DEP_REORDER 16

/* The long-GOP video of (clip, track), NULL for other media. */
static const struct eng_essence *gop_ess(const struct eng_timeline *tl,
					 uint32_t clip, size_t t)
{
	const struct eng_clip *c = &tl->clips[clip];
	const struct eng_essence *e;

	if (!c->media || !(e = c->media[t].ess) || e->kind != ENG_ESS_VIDEO ||
	    !e->dep)
		return NULL;
	return e;
}

int64_t eng_slice_dpos(const struct eng_timeline *tl, uint32_t clip,
		       size_t t, int64_t j)
{
	const struct eng_essence *e = gop_ess(tl, clip, t);

	if (!e || j < 0 || j >= e->nframes)
		return j;
	return dpos(e, j);
}

int64_t eng_slice_run_start(const struct eng_timeline *tl, uint32_t clip,
			    size_t t, int64_t src)
{
	const struct eng_essence *e = gop_ess(tl, clip, t);

	if (!e || src < 0 || src >= e->nframes || e->dep[src] < 0 ||
	    e->dep[src] >= e->nframes)
		return eng_slice_dpos(tl, clip, t, src);
	return dpos(e, e->dep[src]);
}

int eng_slice_decode_reads(const struct eng_timeline *tl, uint32_t clip,
			   size_t t, int64_t from, int64_t src,
			   struct eng_slice_ext *out, int64_t *which,
			   uint64_t max)
{
	const struct eng_essence *e = gop_ess(tl, clip, t);
	int64_t d, d1, i, lo, hi;
	uint64_t n = 0;

	if (!e || src < 0 || src >= e->nframes || from < 0)
		return 0;
	d1 = dpos(e, src);
	lo = e->dep[src] >= 0 && e->dep[src] < src ? e->dep[src] : src;
	hi = src + DEP_REORDER < e->nframes ? src + DEP_REORDER :
					      e->nframes - 1;
	/* in decode order: for each position, the frame at it (a GOP is
	 * short, and this runs once per cut or seek, or per reordered
	 * frame read ahead) */
	for (d = from; d < d1 && n < max; d++)
		for (i = lo; i <= hi; i++)
			if (dpos(e, i) == d) {
				out[n].off = e->off[i];
				out[n].len = e->len[i];
				if (which)
					which[n] = i;
				n++;
				break;
			}
	return (int)n;
}

int eng_track_reorders(const struct eng_timeline *tl, size_t t)
{
	size_t c;

	for (c = 0; c < tl->nclips; c++) {
		const struct eng_essence *e = gop_ess(tl, (uint32_t)c, t);

		if (e && e->decode)
			return 1;
	}
	return 0;
}

int eng_slice_deps(const struct eng_timeline *tl, uint32_t clip, size_t t,
		   int64_t src, struct eng_slice_ext *out, uint64_t max)
{
	if (!gop_ess(tl, clip, t))
		return 0;
	return eng_slice_decode_reads(tl, clip, t,
				      eng_slice_run_start(tl, clip, t, src),
				      src, out, NULL, max);
}

/* ---- eng_tl_layout_media ---- */

/* What a segment's media is, for telling a track's clips apart. */
static void media_text(const struct eng_media *m, const struct eng_track *tr,
		       char *buf, size_t len)
{
	const struct eng_essence *e = m ? m->ess : NULL;

	if (!e)
		snprintf(buf, len, "raw media (%" PRIu64 " bytes a second, "
			 "align %" PRIu32 ")", tr->rate, tr->align);
	else if (m->seq)
		snprintf(buf, len, "an image sequence (%s)", e->codec);
	else if (e->kind == ENG_ESS_VIDEO)
		snprintf(buf, len, "real video (%s)",
			 e->codec[0] ? e->codec : "unknown codec");
	else if (e->pts)
		snprintf(buf, len, "compressed audio (%s, %" PRIu32 " Hz, %"
			 PRIu32 " channels)", e->codec, e->sample_rate,
			 e->channels);
	else
		snprintf(buf, len, "real audio (%s, %" PRIu32 " Hz, %" PRIu32
			 " bytes a sample frame, %s)",
			 e->codec[0] ? e->codec : "pcm", e->sample_rate,
			 e->block, e->big_endian ? "big-endian" :
			 "little-endian");
}

/* The media of segment s on track t (NULL: none resolved). */
static const struct eng_media *media_of(const struct eng_timeline *tl,
					size_t t, const struct eng_segment *s)
{
	const struct eng_clip *c = &tl->clips[s->clip];

	return c->media ? &c->media[t] : NULL;
}

/* Do two segments' media play alike on one track? */
static int media_agree(const struct eng_media *a, const struct eng_media *b,
		       const struct eng_track *tr)
{
	const struct eng_essence *x = a ? a->ess : NULL;
	const struct eng_essence *y = b ? b->ess : NULL;

	if (!x && !y)
		return 1;
	if (x && y && x->kind != y->kind)
		return 0;
	if (!x || !y) {
		const struct eng_essence *e = x ? x : y;

		/* raw audio beside real audio of the track's own rate */
		return e->kind == ENG_ESS_AUDIO &&
		       (uint64_t)e->sample_rate * e->block == tr->rate &&
		       e->block == tr->align;
	}
	if (x->kind == ENG_ESS_VIDEO)
		return 1;
	if (!x->pts != !y->pts)
		return 0;
	if (x->pts)
		return x->sample_rate == y->sample_rate &&
		       x->channels == y->channels && !strcmp(x->codec, y->codec);
	return x->sample_rate == y->sample_rate && x->block == y->block &&
	       !x->big_endian == !y->big_endian;
}

/* Every segment of track t plays media like its first real one; returns
 * that segment (NULL: raw only) or sets *bad. */
static const struct eng_segment *track_kind(const struct eng_timeline *tl,
					    size_t t, struct eng_diag *diag,
					    int *bad)
{
	const struct eng_track *tr = &tl->tracks[t];
	const struct eng_segment *first = NULL, *raw = NULL;
	char a[128], b[128];
	size_t i;

	for (i = 0; i < tr->nsegs; i++) {
		const struct eng_segment *s = &tr->segs[i];
		const struct eng_media *m = media_of(tl, t, s);

		if (!m || !m->ess) {
			if (!raw)
				raw = s;
			continue;
		}
		if (!first)
			first = s;
	}
	if (!first)
		return NULL;
	for (i = 0; i < tr->nsegs; i++) {
		const struct eng_segment *s = &tr->segs[i];
		const struct eng_media *m = media_of(tl, t, s);
		const struct eng_media *f = media_of(tl, t, first);

		if (media_agree(f, m, tr))
			continue;
		media_text(m, tr, a, sizeof(a));
		media_text(f, tr, b, sizeof(b));
		eng_diag_add(diag, tl->path, s->line,
			     "clip %s on track %s is %s, but clip %s (line %u) "
			     "is %s: one track plays one kind of media",
			     tl->clips[s->clip].name, tr->name, a,
			     tl->clips[first->clip].name, first->line, b);
		*bad = 1;
		return first;
	}
	(void)raw;
	return first;
}

/* Every segment of real video track t plays frames its media has. */
static int video_in_range(const struct eng_timeline *tl, size_t t,
			  struct eng_diag *diag)
{
	const struct eng_track *tr = &tl->tracks[t];
	size_t i;
	int rc = 0;

	for (i = 0; i < tr->nsegs; i++) {
		const struct eng_segment *s = &tr->segs[i];
		const struct eng_media *m = media_of(tl, t, s);
		int64_t j0 = m->origin + s->src_in;

		if (j0 >= 0 && j0 <= m->ess->nframes - s->frames)
			continue;
		eng_diag_add(diag, tl->path, s->line,
			     "clip %s on track %s plays frames %" PRId64
			     "..%" PRId64 " of %s, which has %" PRId64
			     " frames", tl->clips[s->clip].name, tr->name, j0,
			     j0 + s->frames - 1, m->file ? m->file : "its media",
			     m->ess->nframes);
		rc = -EINVAL;
	}
	return rc;
}

/* Track tr's bytes are the table u[0..frames]: align 1, its rate the
 * average bytes a second, rounded up (statements only). */
static void table_set(const struct eng_timeline *tl, struct eng_track *tr,
		      uint64_t *u)
{
	tr->upto = u;
	tr->align = 1;
	tr->rate = (uint64_t)(((unsigned __int128)u[tl->frames] * tl->fps.num +
			       (unsigned __int128)tl->frames * tl->fps.den -
			       1) / ((unsigned __int128)tl->frames *
				     tl->fps.den));
	if (!tr->rate)
		tr->rate = 1;
}

/* A frame's bytes in a track's table: 0, or -errno (said in diag). */
typedef int (*frame_len_fn)(struct eng_timeline *tl, size_t t,
			    const struct eng_segment *s, int64_t k,
			    uint64_t *len, void *ctx);

/* Track t's table of frame sizes: len_of for each frame a segment plays,
 * 0 for gap frames (below 2^63: frames of under 2^32 bytes, fewer than
 * 2^31 of them, the callers' bound). */
static int table_build(struct eng_timeline *tl, size_t t, frame_len_fn len_of,
		       void *ctx)
{
	struct eng_track *tr = &tl->tracks[t];
	uint64_t *u;
	int64_t k;
	size_t i;
	int rc;

	u = malloc(((size_t)tl->frames + 1) * sizeof(*u));
	if (!u)
		return -ENOMEM;
	u[0] = 0;
	for (k = 0, i = 0; k < tl->frames; k++) {
		const struct eng_segment *s = i < tr->nsegs ? &tr->segs[i] :
					      NULL;
		uint64_t len = 0;

		if (s && k >= s->rec_in) {
			if ((rc = len_of(tl, t, s, k, &len, ctx)) < 0) {
				free(u);
				return rc;
			}
			if (k + 1 == s->rec_in + s->frames)
				i++;
		}
		u[k + 1] = u[k] + len;
	}
	table_set(tl, tr, u);
	return 0;
}

/* Real video: the size of the source frame frame k plays. */
static int frame_len(struct eng_timeline *tl, size_t t,
		     const struct eng_segment *s, int64_t k, uint64_t *len,
		     void *ctx)
{
	const struct eng_media *m = media_of(tl, t, s);

	(void)ctx;
	*len = m->ess->len[m->origin + s->src_in + (k - s->rec_in)];
	return 0;
}

/* The sizes of real video track t: a table where they differ (or a gap
 * makes a frame empty), else the closed form at the one size. */
static int video_layout(struct eng_timeline *tl, size_t t)
{
	struct eng_track *tr = &tl->tracks[t];
	uint64_t size = 0;
	int64_t k;
	size_t i;
	int same = 1, gap = 0;

	for (i = 0, k = 0; i < tr->nsegs; i++) {
		const struct eng_segment *s = &tr->segs[i];
		const struct eng_media *m = media_of(tl, t, s);
		int64_t j, j0 = m->origin + s->src_in;

		gap |= s->rec_in != k;
		k = s->rec_in + s->frames;
		for (j = j0; j < j0 + s->frames && same; j++) {
			if (!size)
				size = m->ess->len[j];
			same = m->ess->len[j] == size;
		}
	}
	gap |= k != tl->frames;
	if (same && !gap && size) {
		/* exact while k * excess < num * size (model.c's
		 * picture_exact); the table otherwise */
		unsigned __int128 num = (unsigned __int128)size * tl->fps.num;
		uint64_t rate = (uint64_t)((num + tl->fps.den - 1) /
					   tl->fps.den);
		unsigned __int128 excess = (unsigned __int128)rate *
					   tl->fps.den - num;

		if ((unsigned __int128)tl->frames * excess < num) {
			tr->rate = rate;
			tr->align = (uint32_t)size;
			return 0;
		}
	}
	return table_build(tl, t, frame_len, NULL);
}

/* Compressed audio: the bytes of frame k's packets, in at most
 * ENG_SLICE_EXTENTS extents (ctx: where to say a frame of more, and the
 * most extents a frame has so far). */
struct packets_ctx {
	struct eng_diag *diag;
	unsigned *ext_max;
};

static int packets_len(struct eng_timeline *tl, size_t t,
		       const struct eng_segment *s, int64_t k, uint64_t *len,
		       void *ctx)
{
	struct packets_ctx *pc = ctx;
	const struct eng_media *m = media_of(tl, t, s);
	struct eng_slice_ext ext[ENG_SLICE_EXTENTS];
	int n = packet_span(tl, m, s->src_in + (k - s->rec_in), ext, len);

	if (n < 0) {
		eng_diag_add(pc->diag, tl->path, s->line, "clip %s on track %s: "
			     "frame %" PRId64 " of the timeline reads its audio "
			     "in more than %d pieces of %s",
			     tl->clips[s->clip].name, tl->tracks[t].name, k,
			     ENG_SLICE_EXTENTS, m->file ? m->file : "its media");
		return -EINVAL;
	}
	if ((unsigned)n > *pc->ext_max)
		*pc->ext_max = (unsigned)n;
	return 0;
}

/* Compressed audio track t: a table of each frame's packets' bytes, as
 * real video's (gap frames 0). */
static int packet_layout(struct eng_timeline *tl, size_t t,
			 struct eng_diag *diag, unsigned *ext_max)
{
	struct packets_ctx pc = {diag, ext_max};

	return table_build(tl, t, packets_len, &pc);
}

/* Real audio track t: its rate from the media, and every frame's samples
 * in the media and in at most ENG_SLICE_EXTENTS extents. */
static int audio_layout(struct eng_timeline *tl, size_t t,
			const struct eng_essence *e, struct eng_diag *diag,
			unsigned *ext_max)
{
	struct eng_track *tr = &tl->tracks[t];
	struct eng_slice_ext ext[ENG_SLICE_EXTENTS];
	unsigned __int128 hi;
	size_t i;
	int rc = 0;

	if (!e->block || !e->sample_rate) {
		eng_diag_add(diag, tl->path, tr->segs[0].line,
			     "track %s: its audio has no sample size or rate",
			     tr->name);
		return -EINVAL;
	}
	tr->rate = (uint64_t)e->sample_rate * e->block;
	tr->align = e->block;
	/* model.c's bound: a frame's bytes times frames within 2^63, which
	 * keeps eng_upto_rate's products in range */
	hi = ((unsigned __int128)tr->rate * tl->fps.den + tl->fps.num - 1) /
	     tl->fps.num + e->block;
	if (hi > INT64_MAX || hi * (unsigned __int128)tl->frames > INT64_MAX) {
		eng_diag_add(diag, tl->path, tr->segs[0].line,
			     "track %s: audio of %" PRIu64 " bytes a second "
			     "makes the timeline larger than 2^63 bytes",
			     tr->name, tr->rate);
		return -EINVAL;
	}
	for (i = 0; i < tr->nsegs; i++) {
		const struct eng_segment *s = &tr->segs[i];
		const struct eng_media *m = media_of(tl, t, s);
		int64_t k;
		int n = 0;

		if (!m || !m->ess)
			continue;
		for (k = s->rec_in; k < s->rec_in + s->frames; k++) {
			uint64_t len = eng_upto(tl, t, k + 1) -
				       eng_upto(tl, t, k);

			if (!len)
				continue;
			n = audio_extents(tl, t, m, s, k, len, ext);
			if (n < 0)
				break;
			if ((unsigned)n > *ext_max)
				*ext_max = (unsigned)n;
		}
		if (n >= 0)
			continue;
		if (n == -E2BIG)
			eng_diag_add(diag, tl->path, s->line,
				     "clip %s on track %s: frame %" PRId64
				     " of the timeline reads its audio in more "
				     "than %d pieces of %s (its chunks are too "
				     "small)", tl->clips[s->clip].name,
				     tr->name, k, ENG_SLICE_EXTENTS,
				     m->file ? m->file : "its media");
		else
			eng_diag_add(diag, tl->path, s->line,
				     "clip %s on track %s: frame %" PRId64
				     " of the timeline plays samples its media "
				     "%s does not have", tl->clips[s->clip].name,
				     tr->name, k, m->file ? m->file : "");
		rc = -EINVAL;
	}
	return rc;
}

/* How many frames shown after frame j a decoder reads before it. */
static int64_t ahead_of(const struct eng_essence *e, int64_t j)
{
	int64_t i, n = 0;

	for (i = j + 1; e->decode && i <= j + DEP_REORDER && i < e->nframes;
	     i++)
		n += e->decode[i] < e->decode[j];
	return n;
}

/* The decoding dependency reads any frame of track t can start with, and
 * the largest frame they read. */
static void dep_need(struct eng_timeline *tl, size_t t)
{
	const struct eng_track *tr = &tl->tracks[t];
	size_t i;

	for (i = 0; i < tr->nsegs; i++) {
		const struct eng_segment *s = &tr->segs[i];
		const struct eng_media *m = media_of(tl, t, s);
		const struct eng_essence *e = m ? m->ess : NULL;
		int64_t j, j0, d;

		if (!e || e->kind != ENG_ESS_VIDEO || !e->dep)
			continue;
		j0 = m->origin + s->src_in;
		for (j = j0; j < j0 + s->frames; j++) {
			if (e->dep[j] < 0 || e->dep[j] >= j + 1 + DEP_REORDER)
				continue;
			d = dpos(e, j) - dpos(e, e->dep[j]);
			if (d > 0 && (uint64_t)d > tl->dep_reads_max)
				tl->dep_reads_max = (uint64_t)d;
			d = ahead_of(e, j);
			if ((uint64_t)d > tl->dep_ahead_max)
				tl->dep_ahead_max = (uint64_t)d;
		}
		if (e->len_max > tl->dep_bytes_max)
			tl->dep_bytes_max = e->len_max;
		/* a reader that left len_max unset: the frames say */
		for (j = 0; !e->len_max && j < e->nframes; j++)
			if (e->len[j] > tl->dep_bytes_max)
				tl->dep_bytes_max = e->len[j];
	}
}

/* frame_bytes_min/max and bytes: where a track has a table, frame by
 * frame (O(frames), as the table); else the closed forms' bounds, as
 * eng_tl_finalize (a timeline may reach far with gaps).  -EINVAL past
 * 2^63. */
static int frame_sizes(struct eng_timeline *tl, struct eng_diag *diag)
{
	uint64_t lo = UINT64_MAX, hi = 0, prev = 0;
	unsigned __int128 off, fmin = 0, fmax = 0, a, b;
	int table = 0;
	int64_t k;
	size_t t;

	/* each table ends below 2^63 (frames of under 2^32 bytes, fewer
	 * than 2^31 of them), closed forms are bounded by model.c and
	 * audio_layout: the sum fits 128 bits */
	for (off = 0, t = 0; t < tl->ntracks; t++)
		off += eng_upto(tl, t, tl->frames);
	if (off > INT64_MAX) {
		eng_diag_add(diag, tl->path, 0,
			     "timeline too large: its %lld frames of real media "
			     "exceed 2^63 bytes", (long long)tl->frames);
		return -EINVAL;
	}
	for (t = 0; t < tl->ntracks; t++) {
		const struct eng_track *tr = &tl->tracks[t];
		const struct eng_media *m = tr->nsegs ?
					    media_of(tl, t, &tr->segs[0]) : NULL;

		table |= tr->upto != NULL;
		eng_track_frame_bytes(tr, tl->fps, &a, &b);
		/* real video of one size: video_layout made every frame
		 * exactly align, which the bounds would round up */
		if (m && m->ess && m->ess->kind == ENG_ESS_VIDEO)
			a = b = tr->align;
		fmin += a;
		fmax += b;
	}
	if (!table) {
		/* each term below 2^63 (audio_layout, model.c) */
		tl->frame_bytes_min = (uint64_t)fmin;
		tl->frame_bytes_max = (uint64_t)fmax;
		tl->bytes = (uint64_t)off;
		return 0;
	}
	for (k = 0; k < tl->frames; k++) {
		uint64_t next = eng_frame_offset(tl, k + 1);

		if (next - prev < lo)
			lo = next - prev;
		if (next - prev > hi)
			hi = next - prev;
		prev = next;
	}
	tl->frame_bytes_min = lo;
	tl->frame_bytes_max = hi;
	tl->bytes = prev;
	return 0;
}

int eng_tl_layout_media(struct eng_timeline *tl, struct eng_diag *diag)
{
	int rc = 0, real = 0;
	unsigned ext_max = 1;
	size_t t;

	tl->slice_extents_max = 0;
	tl->dep_reads_max = tl->dep_bytes_max = tl->dep_ahead_max = 0;
	for (t = 0; t < tl->ntracks; t++) {
		struct eng_track *tr = &tl->tracks[t];
		const struct eng_segment *first;
		const struct eng_essence *e;
		int bad = 0, r = 0;

		free(tr->upto);
		tr->upto = NULL;
		first = track_kind(tl, t, diag, &bad);
		if (bad) {
			rc = -EINVAL;
			continue;
		}
		if (!first)
			continue;
		real = 1;
		e = media_of(tl, t, first)->ess;
		if (e->kind == ENG_ESS_VIDEO && tl->frames >= INT32_MAX) {
			/* 2.8 years at 24 fps: its table's sums stay below
			 * 2^63 */
			eng_diag_add(diag, tl->path, first->line,
				     "track %s: %lld frames of real video are "
				     "more than a timeline of it may have (%d)",
				     tr->name, (long long)tl->frames, INT32_MAX);
			r = -EINVAL;
		} else if (e->kind == ENG_ESS_VIDEO) {
			r = video_in_range(tl, t, diag);
			if (r == 0)
				r = video_layout(tl, t);
			if (r == 0)
				dep_need(tl, t);
		} else if (e->pts && tl->frames >= INT32_MAX) {
			eng_diag_add(diag, tl->path, first->line,
				     "track %s: %lld frames of compressed "
				     "audio are more than a timeline of it may "
				     "have (%d)", tr->name,
				     (long long)tl->frames, INT32_MAX);
			r = -EINVAL;
		} else if (e->pts) {
			r = packet_layout(tl, t, diag, &ext_max);
		} else {
			r = audio_layout(tl, t, e, diag, &ext_max);
		}
		if (r == -ENOMEM)
			return r;
		if (r < 0)
			rc = r;
	}
	if (rc < 0)
		return rc;
	if (real) {
		tl->slice_extents_max = ext_max;
		rc = frame_sizes(tl, diag);
		if (rc < 0)
			return rc;
	}
	/* frames that hold no byte (rates too low for the frame rate, media
	 * of no pixel data) would be an empty file served without a word:
	 * a problem of the timeline's file */
	if (!tl->bytes) {
		eng_diag_add(diag, tl->path, 0, "its %lld frames hold 0 bytes: "
			     "nothing to read", (long long)tl->frames);
		return -EINVAL;
	}
	return 0;
}
