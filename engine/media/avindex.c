/* SPDX-License-Identifier: MIT */
/*
 * QuickTime/MP4 (mfile.h): a file's streams from its sample tables,
 * through libavformat's mov demuxer over the injected struct eng_src.  Only
 * the header is read (avformat_open_input; no find_stream_info, no packet
 * read): the frames are the demuxer's index entries, checked against the
 * file's size; the composition offsets that order long-GOP frames by
 * presentation come from the tracks' ctts boxes, which libavformat keeps
 * private (a small walk of the moov box here).
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/dict.h>
#include <libavutil/mem.h>

#include "media/mfile.h"

/* libavformat's read buffer: the demuxer reads box headers and the moov;
 * a small buffer wastes little at each seek over an mdat. */
#define AV_IO_BUF 16384
/* The largest moov read again for its ctts boxes: 2 hours of 60 fps
 * long-GOP video hold about 10 MB of sample tables. */
#define MOOV_MAX (256u << 20)

struct avsrc {
	const struct eng_src *src;
	uint64_t pos;
	uint64_t bytes; /* read through libavformat, for tlindex */
};

static int av_read(void *opaque, uint8_t *buf, int size)
{
	struct avsrc *s = opaque;
	long n;

	if (size <= 0)
		return 0;
	if (s->pos >= s->src->size)
		return AVERROR_EOF;
	n = s->src->read_at(s->src->ctx, s->pos, buf, (size_t)size);
	if (n < 0)
		return AVERROR((int)-n);
	if (n == 0)
		return AVERROR_EOF;
	s->pos += (uint64_t)n;
	s->bytes += (uint64_t)n;
	return (int)n;
}

static int64_t av_seek(void *opaque, int64_t offset, int whence)
{
	struct avsrc *s = opaque;
	int64_t to;

	switch (whence & ~AVSEEK_FORCE) {
	case AVSEEK_SIZE:
		return (int64_t)s->src->size;
	case SEEK_SET:
		to = offset;
		break;
	case SEEK_CUR:
		to = (int64_t)s->pos + offset;
		break;
	case SEEK_END:
		to = (int64_t)s->src->size + offset;
		break;
	default:
		return AVERROR(EINVAL);
	}
	if (to < 0)
		return AVERROR(EINVAL);
	s->pos = (uint64_t)to;
	return to;
}

static uint32_t be32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | (uint32_t)p[3];
}

static uint64_t be64(const unsigned char *p)
{
	return (uint64_t)be32(p) << 32 | be32(p + 4);
}

/* Whether the file starts as QuickTime/MP4 does: a box whose type is one
 * a movie starts with.  Anything else is not ours, without asking
 * libavformat to probe it. */
static int looks_mov(const struct eng_src *src)
{
	static const char types[][5] = {"ftyp", "moov", "mdat", "free",
					"wide", "skip", "pnot"};
	unsigned char h[8];
	size_t i;

	if (src->size < 8 || src->read_at(src->ctx, 0, h, 8) != 8)
		return 0;
	for (i = 0; i < sizeof(types) / sizeof(types[0]); i++)
		if (memcmp(h + 4, types[i], 4) == 0)
			return 1;
	return 0;
}

/* ---------------------------------------------------------------- ctts */

/* A box inside buf[0..len): its payload [*body, *end) and type; 0 or -1
 * for a box that overruns its parent. */
static int box_at(const unsigned char *buf, size_t len, size_t pos,
		  size_t *body, size_t *end, char type[4])
{
	uint64_t size;
	size_t head = 8;

	if (len - pos < 8)
		return -1;
	size = be32(buf + pos);
	memcpy(type, buf + pos + 4, 4);
	if (size == 1) {
		if (len - pos < 16)
			return -1;
		size = be64(buf + pos + 8);
		head = 16;
	} else if (size == 0) {
		size = len - pos;
	}
	if (size < head || size > len - pos)
		return -1;
	*body = pos + head;
	*end = pos + (size_t)size;
	return 0;
}

/* The child of type t in [from, to), or 0 (no box starts at 0 here). */
static size_t child(const unsigned char *buf, size_t from, size_t to,
		    const char *t, size_t *cend)
{
	size_t body, end;
	char type[4];

	while (from < to && box_at(buf, to, from, &body, &end, type) == 0) {
		if (memcmp(type, t, 4) == 0) {
			*cend = end;
			return body;
		}
		from = end;
	}
	return 0;
}

/* The composition offsets of a track, one per sample in decode order. */
struct ctts {
	int32_t *off;
	int64_t n;
};

/* The ctts of track id in the moov payload [from, to): 0 with ct->n 0
 * when it has none, -EINVAL when it is malformed, -ENOMEM.  A ctts for
 * another number of samples than the frames (max) the index holds sets
 * ct->n but not ct->off: the caller refuses it (no allocation of what a
 * bad file claims). */
static int trak_ctts(const unsigned char *m, size_t from, size_t to, int id,
		     int64_t max, struct ctts *ct)
{
	size_t tb, te, b, e, s, se;
	char type[4];

	for (; from < to && box_at(m, to, from, &tb, &te, type) == 0;
	     from = te) {
		uint32_t tid, i, cnt;
		int64_t n = 0, k = 0;

		if (memcmp(type, "trak", 4) != 0)
			continue;
		b = child(m, tb, te, "tkhd", &e);
		if (!b || e - b < 24)
			continue;
		tid = be32(m + b + (m[b] == 1 ? 20 : 12));
		if ((int)tid != id)
			continue;
		if (!(b = child(m, tb, te, "mdia", &e)) ||
		    !(b = child(m, b, e, "minf", &e)) ||
		    !(s = child(m, b, e, "stbl", &se)))
			return 0;
		b = child(m, s, se, "ctts", &e);
		if (!b)
			return 0;
		if (e - b < 8)
			return -EINVAL;
		cnt = be32(m + b + 4);
		if ((uint64_t)cnt * 8 > e - b - 8)
			return -EINVAL;
		for (i = 0; i < cnt; i++) {
			n += be32(m + b + 8 + 8 * (size_t)i);
			if (n > INT32_MAX)
				return -EINVAL;
		}
		ct->n = n;
		if (n != max)
			return 0;
		ct->off = malloc(((size_t)n + 1) * sizeof(*ct->off));
		if (!ct->off)
			return -ENOMEM;
		for (i = 0; i < cnt; i++) {
			const unsigned char *p = m + b + 8 + 8 * (size_t)i;
			uint32_t c = be32(p);
			/* version 1 offsets are signed; version 0 ones
			 * are too as written by every muxer in use */
			int32_t o = (int32_t)be32(p + 4);

			while (c--)
				ct->off[k++] = o;
		}
		return 0;
	}
	return 0;
}

/* The top-level moov box, read whole into *buf; -EINVAL with the message
 * when there is none whole in the file. */
static int read_moov(const struct eng_src *src, unsigned char **buf,
		     size_t *len, struct eng_diag *diag)
{
	uint64_t pos = 0;
	unsigned char h[16];

	while (pos + 8 <= src->size) {
		uint64_t size;
		long n;

		if (src->read_at(src->ctx, pos, h, 16) < 8)
			break;
		size = be32(h);
		if (size == 1) {
			if (pos + 16 > src->size)
				break;
			size = be64(h + 8);
		} else if (size == 0) {
			size = src->size - pos;
		}
		if (size < 8 || size > src->size - pos) {
			eng_diag_add(diag, src->name, 0,
				     "its '%.4s' box at %" PRIu64
				     " runs past the end of the file "
				     "(%" PRIu64 " bytes): truncated file",
				     h + 4, pos, src->size);
			return -EINVAL;
		}
		if (memcmp(h + 4, "moov", 4) != 0) {
			pos += size;
			continue;
		}
		if (size > MOOV_MAX) {
			eng_diag_add(diag, src->name, 0,
				     "its moov box of %" PRIu64
				     " bytes is larger than %u MiB",
				     size, MOOV_MAX >> 20);
			return -EINVAL;
		}
		*buf = malloc((size_t)size);
		if (!*buf)
			return -ENOMEM;
		n = src->read_at(src->ctx, pos, *buf, (size_t)size);
		if (n != (long)size) {
			free(*buf);
			*buf = NULL;
			break;
		}
		*len = (size_t)size;
		return 0;
	}
	eng_diag_add(diag, src->name, 0, "no moov box at the top level");
	return -EINVAL;
}

/* ---------------------------------------------------------------- streams */

struct frame {
	int64_t pts;
	int64_t dec; /* position in decode order */
	uint64_t off;
	uint32_t len;
	int key;
};

static int by_pts(const void *a, const void *b)
{
	const struct frame *x = a, *y = b;

	if (x->pts != y->pts)
		return x->pts < y->pts ? -1 : 1;
	return x->dec < y->dec ? -1 : x->dec > y->dec;
}

/* The frames of a video stream, from its index entries (decode order)
 * and the track's composition offsets. */
static int video(const struct eng_src *src, AVStream *st, const struct ctts *ct,
		 struct eng_essence *e, struct eng_diag *diag)
{
	int n = avformat_index_get_entries_count(st), i;
	struct frame *f;
	int64_t k, key, *where;
	int reordered = 0, allkey = 1, rc = -ENOMEM;

	if (n <= 0)
		return eng_mfile_bad(diag, src,
				     "video stream %d has no frames in its "
				     "sample table",
				     st->index);
	if (ct->n && ct->n != n)
		return eng_mfile_bad(diag, src,
				     "video stream %d: %d frames in the "
				     "index but %" PRId64
				     " composition offsets (an edit "
				     "list that drops frames is not supported)",
				     st->index, n, ct->n);
	f = calloc((size_t)n, sizeof(*f));
	where = calloc((size_t)n, sizeof(*where));
	if (!f || !where)
		goto out;
	for (i = 0; i < n; i++) {
		const AVIndexEntry *ie = avformat_index_get_entry(st, i);

		if (!ie || ie->pos < 0 || ie->size <= 0 ||
		    (uint64_t)ie->pos > src->size ||
		    (uint64_t)ie->size > src->size - (uint64_t)ie->pos) {
			rc = eng_mfile_bad(
			    diag, src,
			    "video stream %d frame %d (%d "
			    "bytes at %" PRId64 ") is past the end of the "
			    "file (%" PRIu64 " bytes): truncated file or "
			    "bad sample table",
			    st->index, i, ie ? ie->size : 0, ie ? ie->pos : 0,
			    src->size);
			goto out;
		}
		/* a bad file's timestamps may sit at the edge of int64 */
		if (__builtin_add_overflow(ie->timestamp,
					   ct->n ? ct->off[i] : 0, &f[i].pts))
			f[i].pts = ie->timestamp;
		f[i].dec = i;
		f[i].off = (uint64_t)ie->pos;
		f[i].len = (uint32_t)ie->size;
		f[i].key = !!(ie->flags & AVINDEX_KEYFRAME);
		allkey &= f[i].key;
		if (i && f[i].pts < f[i - 1].pts)
			reordered = 1;
	}
	if (!f[0].key)
		f[0].key = 1; /* a stream starts where decoding can */
	e->nframes = n;
	e->off = malloc((size_t)n * sizeof(*e->off));
	e->len = malloc((size_t)n * sizeof(*e->len));
	if (!e->off || !e->len)
		goto out;
	if (!allkey) {
		/* the key frame each frame needs, in decode order, as a
		 * presentation index (filled once the order is known) */
		e->dep = malloc((size_t)n * sizeof(*e->dep));
		if (!e->dep)
			goto out;
		for (i = 0, key = 0; i < n; i++) {
			if (f[i].key)
				key = i;
			e->dep[i] = key;
		}
	}
	if (reordered) {
		qsort(f, (size_t)n, sizeof(*f), by_pts);
		e->decode = malloc((size_t)n * sizeof(*e->decode));
		if (!e->decode)
			goto out;
	}
	for (k = 0; k < n; k++) {
		e->off[k] = f[k].off;
		e->len[k] = f[k].len;
		where[f[k].dec] = k; /* decode position -> presentation */
		if (e->decode)
			e->decode[k] = f[k].dec;
		if (!k || f[k].len < e->len_min)
			e->len_min = f[k].len;
		if (f[k].len > e->len_max)
			e->len_max = f[k].len;
	}
	if (e->dep) {
		/* dep[] held decode positions of key frames by decode
		 * position: make both presentation indexes */
		int64_t *d = malloc((size_t)n * sizeof(*d));

		if (!d)
			goto out;
		for (k = 0; k < n; k++) {
			int64_t kd = e->dep[f[k].dec];

			/* a leading picture of an open GOP (shown before
			 * its key frame) needs the key frame before it */
			if (where[kd] > k && kd > 0)
				kd = e->dep[kd - 1];
			d[k] = where[kd];
		}
		free(e->dep);
		e->dep = d;
	}
	rc = 0;
out:
	free(f);
	free(where);
	return rc;
}

static int pcm_codec(enum AVCodecID id, int *be, int *flt)
{
	switch (id) {
	case AV_CODEC_ID_PCM_S16LE:
	case AV_CODEC_ID_PCM_S24LE:
	case AV_CODEC_ID_PCM_S32LE:
		*be = 0, *flt = 0;
		return 1;
	case AV_CODEC_ID_PCM_S16BE:
	case AV_CODEC_ID_PCM_S24BE:
	case AV_CODEC_ID_PCM_S32BE:
		*be = 1, *flt = 0;
		return 1;
	case AV_CODEC_ID_PCM_F32LE:
	case AV_CODEC_ID_PCM_F64LE:
		*be = 0, *flt = 1;
		return 1;
	case AV_CODEC_ID_PCM_F32BE:
	case AV_CODEC_ID_PCM_F64BE:
		*be = 1, *flt = 1;
		return 1;
	default:
		return 0;
	}
}

/* The chunks of a PCM stream: libavformat's index holds runs of whole
 * sample frames (a chunk, or up to 1024 samples of one). */
static int audio(const struct eng_src *src, AVStream *st, struct eng_essence *e,
		 struct eng_diag *diag)
{
	int n = avformat_index_get_entries_count(st), i, ch;
	int64_t first = 0;

	ch = st->codecpar->ch_layout.nb_channels;
	e->bits = (uint32_t)av_get_bits_per_sample(st->codecpar->codec_id);
	if (ch <= 0 || e->bits < 8 || st->codecpar->sample_rate <= 0)
		return eng_mfile_bad(diag, src,
				     "audio stream %d has no channel count, "
				     "sample size or rate",
				     st->index);
	e->channels = (uint32_t)ch;
	e->sample_rate = (uint32_t)st->codecpar->sample_rate;
	e->block = e->channels * (e->bits / 8);
	if (n <= 0)
		return eng_mfile_bad(diag, src,
				     "audio stream %d has no samples in its "
				     "sample table",
				     st->index);
	e->chunks = calloc((size_t)n, sizeof(*e->chunks));
	if (!e->chunks)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		const AVIndexEntry *ie = avformat_index_get_entry(st, i);

		if (!ie || ie->pos < 0 || (uint64_t)ie->pos > src->size ||
		    (uint64_t)ie->size > src->size - (uint64_t)ie->pos)
			return eng_mfile_bad(
			    diag, src,
			    "audio stream %d chunk %d (%d "
			    "bytes at %" PRId64 ") is past the end of "
			    "the file (%" PRIu64 " bytes): truncated "
			    "file or bad sample table",
			    st->index, i, ie ? ie->size : 0, ie ? ie->pos : 0,
			    src->size);
		if (ie->size <= 0 || ie->size % (int)e->block)
			return eng_mfile_bad(
			    diag, src,
			    "audio stream %d chunk %d holds "
			    "%d bytes, not whole sample frames of %u",
			    st->index, i, ie->size, e->block);
		e->chunks[i].off = (uint64_t)ie->pos;
		e->chunks[i].first = first;
		e->chunks[i].count = (uint32_t)ie->size / e->block;
		first += e->chunks[i].count;
	}
	e->nchunks = (size_t)n;
	e->nsamples = first;
	return 0;
}

/* The packets of a compressed audio stream (AAC, ...): one index entry
 * each, in time order, their times in sample frames. */
static int packets(const struct eng_src *src, AVStream *st,
		   struct eng_essence *e, struct eng_diag *diag)
{
	const AVCodecParameters *cp = st->codecpar;
	int n = avformat_index_get_entries_count(st), i;
	int64_t last;

	if (cp->ch_layout.nb_channels <= 0 || cp->sample_rate <= 0)
		return eng_mfile_bad(diag, src, "audio stream %d has no "
				     "channel count or rate", st->index);
	if (n <= 0)
		return eng_mfile_bad(diag, src, "audio stream %d has no "
				     "packets in its sample table", st->index);
	e->channels = (uint32_t)cp->ch_layout.nb_channels;
	e->sample_rate = (uint32_t)cp->sample_rate;
	e->off = malloc((size_t)n * sizeof(*e->off));
	e->len = malloc((size_t)n * sizeof(*e->len));
	e->pts = malloc((size_t)n * sizeof(*e->pts));
	if (!e->off || !e->len || !e->pts)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		const AVIndexEntry *ie = avformat_index_get_entry(st, i);

		if (!ie || ie->pos < 0 || ie->size <= 0 ||
		    (uint64_t)ie->pos > src->size ||
		    (uint64_t)ie->size > src->size - (uint64_t)ie->pos)
			return eng_mfile_bad(
			    diag, src, "audio stream %d packet %d (%d bytes "
			    "at %" PRId64 ") is past the end of the file (%"
			    PRIu64 " bytes): truncated file or bad sample "
			    "table", st->index, i, ie ? ie->size : 0,
			    ie ? ie->pos : 0, src->size);
		e->pts[i] = av_rescale_q(ie->timestamp, st->time_base,
					 (AVRational){1, cp->sample_rate});
		if (i && e->pts[i] <= e->pts[i - 1])
			return eng_mfile_bad(diag, src, "audio stream %d "
					     "packet %d is not after the one "
					     "before it in time", st->index, i);
		e->off[i] = (uint64_t)ie->pos;
		e->len[i] = (uint32_t)ie->size;
		if (!i || e->len[i] < e->len_min)
			e->len_min = e->len[i];
		if (e->len[i] > e->len_max)
			e->len_max = e->len[i];
	}
	e->npackets = n;
	/* the last packet lasts as the codec's frames, or as the one
	 * before it */
	last = cp->frame_size > 0 ? cp->frame_size :
	       n > 1 ? e->pts[n - 1] - e->pts[n - 2] : 0;
	e->nsamples = e->pts[n - 1] + last > 0 ? e->pts[n - 1] + last : 0;
	return 0;
}

/* "HH:MM:SS:FF" (';' before FF for drop frame) at rate, into *tc. */
static void timecode(const char *text, struct eng_fps rate, struct eng_start_tc *tc)
{
	int64_t frames;
	int drop;

	if (!text || !rate.num || !rate.den ||
	    eng_tc_text_frames(text, rate, &frames, &drop) < 0)
		return;
	tc->present = 1;
	tc->frame = frames;
	tc->rate = rate;
	tc->drop = drop;
}

static struct eng_fps stream_fps(const AVStream *st)
{
	AVRational r = st->r_frame_rate;
	struct eng_fps fps = {0, 0};

	if (r.num <= 0 || r.den <= 0)
		r = st->avg_frame_rate;
	if (r.num > 0 && r.den > 0) {
		fps.num = (uint32_t)r.num;
		fps.den = (uint32_t)r.den;
	}
	return fps;
}

static int stream(const struct eng_src *src, AVStream *st,
		  const struct ctts *ct, struct eng_mfile *mf,
		  struct eng_diag *diag)
{
	AVCodecParameters *cp = st->codecpar;
	struct eng_essence *e = &mf->streams[mf->nstreams];
	int be, flt, rc;

	memset(e, 0, sizeof(*e));
	e->index = st->index;
	e->fourcc = cp->codec_tag;
	if (!e->fourcc) {
		/* the QuickTime tag of the codec, for the movie's own
		 * sample description */
		const struct AVCodecTag *tags[] = {
		    cp->codec_type == AVMEDIA_TYPE_VIDEO
			? avformat_get_mov_video_tags()
			: avformat_get_mov_audio_tags(),
		    NULL};

		e->fourcc = av_codec_get_tag(tags, cp->codec_id);
	}
	snprintf(e->codec, sizeof(e->codec), "%s",
		 avcodec_get_name(cp->codec_id));
	if (cp->codec_type == AVMEDIA_TYPE_VIDEO) {
		char tag[AV_FOURCC_MAX_STRING_SIZE];

		if (cp->codec_id == AV_CODEC_ID_NONE)
			return eng_mfile_bad(
			    diag, src,
			    "video stream %d: unknown codec "
			    "'%s'",
			    st->index,
			    av_fourcc_make_string(tag, cp->codec_tag));
		e->kind = ENG_ESS_VIDEO;
		e->width = cp->width > 0 ? (uint32_t)cp->width : 0;
		e->height = cp->height > 0 ? (uint32_t)cp->height : 0;
		e->fps = stream_fps(st);
		rc = video(src, st, ct, e, diag);
	} else {
		if (cp->codec_id == AV_CODEC_ID_NONE) {
			/* not an error of the file: a track timelinefs
			 * cannot play, named when one asks for it */
			size_t used = strlen(mf->skipped);
			char tag[AV_FOURCC_MAX_STRING_SIZE];

			snprintf(mf->skipped + used, sizeof(mf->skipped) - used,
				 "%sstream %d: unknown '%s' audio",
				 used ? "; " : "", st->index,
				 av_fourcc_make_string(tag, cp->codec_tag));
			return 0;
		}
		e->kind = ENG_ESS_AUDIO;
		if (pcm_codec(cp->codec_id, &be, &flt)) {
			e->big_endian = be;
			e->is_float = flt;
			rc = audio(src, st, e, diag);
		} else {
			/* compressed: read by its packets */
			rc = packets(src, st, e, diag);
		}
	}
	if (rc == 0 && cp->extradata_size > 0) {
		e->extradata = malloc((size_t)cp->extradata_size);
		if (!e->extradata)
			rc = -ENOMEM;
		else
			memcpy(e->extradata, cp->extradata,
			       (size_t)(e->extradata_len =
					    (size_t)cp->extradata_size));
	}
	mf->nstreams++; /* freed with mf, also on failure */
	return rc;
}

static const char *tag_of(AVDictionary *m, const char *key)
{
	AVDictionaryEntry *t = av_dict_get(m, key, NULL, 0);

	return t ? t->value : NULL;
}

int eng_mfile_read_av(const struct eng_src *src, struct eng_mfile *out,
		      struct eng_diag *diag)
{
	struct avsrc as = {src, 0, 0};
	AVFormatContext *fc = NULL;
	AVIOContext *io = NULL;
	unsigned char *buf, *moov = NULL;
	size_t moov_len = 0;
	struct eng_fps vfps = {0, 0};
	const char *tctext = NULL, *reel = NULL, *brand;
	const AVStream *tcst = NULL;
	unsigned i;
	int rc, err;

	memset(out, 0, sizeof(*out));
	if (!looks_mov(src))
		return -ENOTSUP;
	buf = av_malloc(AV_IO_BUF);
	if (buf)
		io = avio_alloc_context(buf, AV_IO_BUF, 0, &as, av_read, NULL,
					av_seek);
	fc = io ? avformat_alloc_context() : NULL;
	if (!fc) {
		if (io)
			av_freep(&io->buffer);
		else
			av_free(buf);
		avio_context_free(&io);
		return -ENOMEM;
	}
	fc->pb = io;
	fc->flags |= AVFMT_FLAG_CUSTOM_IO;
	err = avformat_open_input(&fc, NULL, av_find_input_format("mov"), NULL);
	if (err < 0) {
		char why[AV_ERROR_MAX_STRING_SIZE];

		av_strerror(err, why, sizeof(why));
		rc = err == AVERROR(ENOMEM)
			 ? -ENOMEM
			 : eng_mfile_bad(diag, src,
					 "not a readable QuickTime/MP4 "
					 "file (truncated, no moov box?): %s",
					 why);
		goto out; /* avformat_open_input freed fc */
	}
	/* "mp4" for an ISO file: a brand other than QuickTime's */
	brand = tag_of(fc->metadata, "major_brand");
	out->format =
	    strdup(brand && strncmp(brand, "qt", 2) != 0 ? "mp4" : "mov");
	rc = -ENOMEM;
	if (!out->format)
		goto out;
	out->streams =
	    calloc(fc->nb_streams ? fc->nb_streams : 1, sizeof(*out->streams));
	if (!out->streams)
		goto out;
	for (i = 0; i < fc->nb_streams; i++) {
		AVStream *st = fc->streams[i];
		struct ctts ct = {NULL, 0};
		enum AVMediaType t = st->codecpar->codec_type;

		if (st->codecpar->codec_tag == MKTAG('t', 'm', 'c', 'd')) {
			tcst = st;
			continue;
		}
		if (t != AVMEDIA_TYPE_VIDEO && t != AVMEDIA_TYPE_AUDIO)
			continue;
		if (t == AVMEDIA_TYPE_VIDEO && !moov &&
		    (rc = read_moov(src, &moov, &moov_len, diag)) < 0)
			goto out;
		if (t == AVMEDIA_TYPE_VIDEO &&
		    (rc = trak_ctts(moov, 8, moov_len, st->id,
				    avformat_index_get_entries_count(st),
				    &ct)) < 0) {
			if (rc == -EINVAL)
				rc = eng_mfile_bad(diag, src,
						   "video stream %d: bad "
						   "ctts box",
						   st->index);
			goto out;
		}
		rc = stream(src, st, &ct, out, diag);
		free(ct.off);
		if (rc < 0)
			goto out;
		if (t == AVMEDIA_TYPE_VIDEO && !vfps.num)
			vfps = out->streams[out->nstreams - 1].fps;
		if (!tctext)
			tctext = tag_of(st->metadata, "timecode");
	}
	/* the tmcd track's timecode, counted at the video's rate (the
	 * tmcd's own rate where there is no video) */
	if (tcst) {
		if (tag_of(tcst->metadata, "timecode"))
			tctext = tag_of(tcst->metadata, "timecode");
		reel = tag_of(tcst->metadata, "reel_name");
		if (!vfps.num)
			vfps = stream_fps(tcst);
	}
	if (!tctext)
		tctext = tag_of(fc->metadata, "timecode");
	timecode(tctext, vfps, &out->tc);
	for (i = 0; i < out->nstreams; i++)
		out->streams[i].tc = out->tc;
	if (reel)
		snprintf(out->clip_name, sizeof(out->clip_name), "%s", reel);
	rc = 0;
out:
	out->bytes_read = as.bytes + moov_len;
	free(moov);
	if (fc)
		avformat_close_input(&fc);
	if (io) {
		av_freep(&io->buffer);
		avio_context_free(&io);
	}
	if (rc < 0) {
		uint64_t b = out->bytes_read;

		eng_mfile_clear(out);
		out->bytes_read = b;
	}
	return rc;
}
