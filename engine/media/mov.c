/* SPDX-License-Identifier: MIT */
/*
 * The QuickTime header of a timeline movie (mov.h).  The moov's size does
 * not depend on the offsets it holds, so it is built three times: to learn
 * whether offsets need co64, to learn the header's size with that choice,
 * and for real with the offsets known.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "media/mfile.h"
#include "media/imgseq.h"
#include "media/media.h"
#include "media/mov.h"
#include "timeline/layout.h"
#include "timeline/model.h"

/* A growable byte buffer; after a failed allocation (-ENOMEM) or a
 * write past max (-EFBIG; 0: no limit) err is set and further writes do
 * nothing, checked once at the end. */
struct bbuf {
	uint8_t *p;
	size_t len, cap, max;
	int err;
};

static uint8_t *room(struct bbuf *b, size_t n)
{
	size_t cap;
	uint8_t *p;

	if (b->err)
		return NULL;
	if (b->max && n > b->max - b->len) {
		b->err = -EFBIG;
		return NULL;
	}
	if (b->len + n > b->cap) {
		cap = b->cap ? b->cap : 4096;
		while (cap < b->len + n)
			cap *= 2;
		p = realloc(b->p, cap);
		if (!p) {
			b->err = -ENOMEM;
			return NULL;
		}
		b->p = p;
		b->cap = cap;
	}
	p = b->p + b->len;
	b->len += n;
	return p;
}

static void put_be(struct bbuf *b, uint64_t v, int bytes)
{
	uint8_t *p = room(b, (size_t)bytes);
	int i;

	if (p)
		for (i = 0; i < bytes; i++)
			p[i] = (uint8_t)(v >> (8 * (bytes - 1 - i)));
}

static void u8(struct bbuf *b, uint64_t v) { put_be(b, v, 1); }
static void u16(struct bbuf *b, uint64_t v) { put_be(b, v, 2); }
static void u32(struct bbuf *b, uint64_t v) { put_be(b, v, 4); }
static void u64(struct bbuf *b, uint64_t v) { put_be(b, v, 8); }

static void fourcc(struct bbuf *b, const char *c)
{
	uint8_t *p = room(b, 4);

	if (p)
		memcpy(p, c, 4);
}

static void zeros(struct bbuf *b, size_t n)
{
	uint8_t *p = room(b, n);

	if (p)
		memset(p, 0, n);
}

/* Open a box: its size is patched by box_end. */
static size_t box(struct bbuf *b, const char *type)
{
	size_t at = b->len;

	u32(b, 0);
	fourcc(b, type);
	return at;
}

/* Its size, 32 bits: a box past 4 GiB (only mdat may be one, written
 * with the 64-bit form by layout) is an error, never a wrapped size. */
static void box_end(struct bbuf *b, size_t at)
{
	uint64_t n = b->len - at;
	int i;

	if (!b->err && n > UINT32_MAX)
		b->err = -EFBIG;
	if (b->err)
		return;
	for (i = 0; i < 4; i++)
		b->p[at + (size_t)i] = (uint8_t)(n >> (8 * (3 - i)));
}

/* Version and flags of a full box. */
static void full(struct bbuf *b, unsigned version, unsigned flags)
{
	u32(b, (uint64_t)version << 24 | flags);
}

static void matrix(struct bbuf *b)
{
	u32(b, 0x10000);
	u32(b, 0);
	u32(b, 0);
	u32(b, 0);
	u32(b, 0x10000);
	u32(b, 0);
	u32(b, 0);
	u32(b, 0);
	u32(b, 0x40000000);
}

/* What a track's samples are: the sources' own codec and picture (real
 * media, timeline/essence.h), or the closed form's 2vuy/v210 pictures and
 * 24-bit mono samples (raw essence, codec "raw"). */
struct fmt {
	int video;
	char fourcc[5];		/* its QuickTime sample description */
	const char *codec;
	const char *clip;	/* the first clip of it, for messages */
	uint32_t width, height;
	const unsigned char *extra; /* avcC, a DNxHD frame header ... */
	size_t extra_len;
	uint32_t rate, channels, bits, block;
	int big, flt;
	int packets;		/* compressed audio (mp4a): a sample a packet */
};

/* What each track of the movie is. */
struct mtrack {
	int video;
	struct fmt f;
	struct eng_picture pic;	/* 2vuy/v210: its gaps' black picture */
	uint32_t timescale;	/* fps.num for video, the sample rate */
	uint64_t duration;	/* in timescale */
	uint64_t black;		/* movie offset of its black picture; 0 none */
	int gaps;
	/* Long-GOP video (B frames): [frames] the timeline frame of each
	 * sample in decode order, NULL where that is the frame itself;
	 * shift: the most frames a sample is decoded after it shows (the
	 * ctts offsets are moved up by it, an edit list moves them back). */
	int64_t *order;
	int64_t shift;
	int keys;		/* every sample a sync sample: no stss */
	int omit;		/* left out of the movie (a note says why) */
	uint64_t buffer;	/* compressed audio: its largest packet, */
	uint64_t npackets;	/* its packets */
};

struct movie {
	const struct eng_timeline *tl;
	struct mtrack *tr;
	int co64;
	uint64_t base;		/* movie offset of timeline byte 0 */
	char note[256];		/* the tracks left out and why, "" none */
};

static int is_audio(const struct eng_track *t)
{
	return t->pic.pix == ENG_PIX_NONE && t->align == 3 && t->rate % 3 == 0 &&
	       t->rate / 3 < 65536;
}

/* The video sample descriptions a movie can carry: the sources' codecs
 * as the players were checked to decode them (docs/design.md). */
static const struct vcodec {
	char fourcc[5];
	const char *name;	/* compressor name */
	int raw;		/* uncompressed: black pictures, colr, fiel */
	int depth;		/* 0: 24 */
	/* only as seqmedia.c describes images: a source file's 'raw ' may
	 * be of another depth, its R10k little-endian (FFmpeg's DpxE) */
	int seq;
} vcodecs[] = {
	{"2vuy", "Component Y'CbCr 8-bit 4:2:2", 1, 0, 0},
	{"v210", "Component Y'CbCr 10-bit 4:2:2", 1, 0, 0},
	{"apco", "Apple ProRes 422 Proxy", 0, 0, 0},
	{"apcs", "Apple ProRes 422 LT", 0, 0, 0},
	{"apcn", "Apple ProRes 422", 0, 0, 0},
	{"apch", "Apple ProRes 422 HQ", 0, 0, 0},
	{"ap4h", "Apple ProRes 4444", 0, 0, 0},
	{"ap4x", "Apple ProRes 4444 XQ", 0, 0, 0},
	{"AVdn", "Avid DNxHD", 0, 0, 0},
	{"AVdh", "Avid DNxHR", 0, 0, 0},
	{"avc1", "H.264", 0, 0, 0},
	/* image sequences' pixel data as their files hold them (seqmedia.c):
	 * FFmpeg's r10k decoder; rawvideo RGB48BE by the tag; rawvideo
	 * RGB24 by 'raw ' and depth 24 (libavformat isom_tags.c) */
	{"R10k", "AJA Kona 10-bit RGB", 0, 0, 1},
	{"b48r", "Uncompressed RGB 16-bit", 0, 48, 1},
	{"raw ", "Uncompressed RGB 8-bit", 0, 0, 1},
};

static const struct vcodec *vcodec_find(const char *fourcc)
{
	size_t i;

	for (i = 0; i < sizeof(vcodecs) / sizeof(vcodecs[0]); i++)
		if (!memcmp(vcodecs[i].fourcc, fourcc, 4))
			return &vcodecs[i];
	return NULL;
}

static uint64_t be32(const unsigned char *p)
{
	return (uint64_t)p[0] << 24 | (uint64_t)p[1] << 16 |
	       (uint64_t)p[2] << 8 | p[3];
}

/* A DNxHD/HR frame's header (a reader may keep the first frame's 0x2c
 * bytes as extradata): its compression id for Avid's ARES atom. */
static int dnx_header(const struct fmt *f)
{
	const unsigned char *p = f->extra;

	return f->extra_len >= 0x2c && p[0] == 0 && p[1] == 0 &&
	       (p[2] == 2 || p[2] == 3) && p[3] == 0x80;
}

/* An avc1 track's decoder setup: an avcC of version 1 (MP4, MOV), or
 * parameter sets after Annex B start codes (MXF: its samples are Annex
 * B too, and the avcC box carries the setup in their form, which
 * libavcodec reads as a byte stream's). */
static int avc_setup(const struct fmt *f)
{
	if (f->extra_len >= 7 && f->extra[0] == 1)
		return 1;
	return f->extra_len >= 8 && !memcmp(f->extra, "\0\0\0\1", 4);
}

/* "prores apcn 1920x1080", "pcm_s24le in24 48000 Hz 2 ch" */
static void fmt_say(const struct fmt *f, char *buf, size_t len)
{
	if (f->video)
		snprintf(buf, len, "%s %s %" PRIu32 "x%" PRIu32, f->codec,
			 f->fourcc, f->width, f->height);
	else
		snprintf(buf, len, "%s %s %" PRIu32 " Hz %" PRIu32 " ch",
			 f->codec, f->fourcc, f->rate, f->channels);
}

static int fmt_same(const struct fmt *a, const struct fmt *b)
{
	if (a->video != b->video || memcmp(a->fourcc, b->fourcc, 4))
		return 0;
	if (a->video)
		return a->width == b->width && a->height == b->height &&
		       a->extra_len == b->extra_len &&
		       (!a->extra_len || !memcmp(a->extra, b->extra, a->extra_len));
	return a->rate == b->rate && a->channels == b->channels &&
	       a->packets == b->packets && a->extra_len == b->extra_len &&
	       (!a->extra_len || !memcmp(a->extra, b->extra, a->extra_len));
}

/* The stream a segment of track t plays, NULL for raw essence. */
static const struct eng_essence *seg_ess(const struct eng_timeline *tl,
					 size_t t, const struct eng_segment *s)
{
	const struct eng_clip *c = &tl->clips[s->clip];

	return c->media ? c->media[t].ess : NULL;
}

/* Frame k's stream frame in e (e plays segment s). */
static int64_t ess_frame(const struct eng_timeline *tl, size_t t,
			 const struct eng_segment *s, int64_t k)
{
	const struct eng_clip *c = &tl->clips[s->clip];

	return c->media[t].origin + s->src_in + (k - s->rec_in);
}

/* Decode position of stream frame j. */
static int64_t dpos(const struct eng_essence *e, int64_t j)
{
	return e->decode ? e->decode[j] : j;
}

/* Whether stream frame j decodes on its own (a sync sample): the first
 * frame it needs (dep: a presentation index) is itself. */
static int is_key(const struct eng_essence *e, int64_t j)
{
	return !e->dep || e->dep[j] == j;
}

/* The largest AudioSpecificConfig the esds below holds: its lengths are
 * one byte each (AAC's is 2 to 5 bytes, with SBR/PS signalling 7). */
#define ASC_MAX 64

/* Compressed audio: AAC as an mp4a sample description with the source's
 * AudioSpecificConfig in its esds, a sample a packet.  Another codec
 * (MP3, AC-3, Opus ...) or AAC without its setup: -ENOTSUP with why, and
 * the movie leaves the track out. */
static int fmt_packets(const struct eng_track *tr, const char *clip,
		       const struct eng_essence *e, struct fmt *f, char *why,
		       size_t whylen)
{
	if (strcmp(e->codec, "aac") || !e->extradata_len ||
	    e->extradata_len > ASC_MAX) {
		snprintf(why, whylen, "track %s left out: clip %s: its %s "
			 "audio%s has no sample description timelinefs "
			 "writes (AAC only)", tr->name, clip, e->codec,
			 strcmp(e->codec, "aac") ? "" : " without its decoder "
			 "setup");
		return -ENOTSUP;
	}
	if (!e->sample_rate || e->sample_rate > 65535 || !e->channels ||
	    e->channels > 65535) {
		snprintf(why, whylen, "track %s left out: clip %s: AAC at %"
			 PRIu32 " Hz, %" PRIu32 " channels: not in a movie's "
			 "sound description", tr->name, clip, e->sample_rate,
			 e->channels);
		return -ENOTSUP;
	}
	memcpy(f->fourcc, "mp4a", 4);
	f->rate = e->sample_rate;
	f->channels = e->channels;
	f->extra = e->extradata;
	f->extra_len = e->extradata_len;
	f->packets = 1;
	return 0;
}

/* The format of a segment's real stream e.  0, or -EINVAL with why
 * (-ENOTSUP: compressed audio the movie leaves out). */
static int fmt_real(const struct eng_track *tr, const char *clip,
		    const struct eng_essence *e, struct fmt *f, char *why,
		    size_t whylen)
{
	const char *fc = NULL;

	memset(f, 0, sizeof(*f));
	f->codec = e->codec[0] ? e->codec : "unknown";
	f->clip = clip;
	f->video = e->kind == ENG_ESS_VIDEO;
	if (f->video) {
		/* the four characters: 'apcn' as a C constant (first
		 * character high) or as libavformat's codec_tag (first
		 * character low), whichever names a known description */
		f->fourcc[0] = (char)(e->fourcc >> 24);
		f->fourcc[1] = (char)(e->fourcc >> 16);
		f->fourcc[2] = (char)(e->fourcc >> 8);
		f->fourcc[3] = (char)e->fourcc;
		if (e->fourcc && !vcodec_find(f->fourcc)) {
			char r[4] = {f->fourcc[3], f->fourcc[2], f->fourcc[1],
				     f->fourcc[0]};

			if (vcodec_find(r))
				memcpy(f->fourcc, r, 4);
		}
		if (!e->fourcc && !strcmp(f->codec, "dnxhd"))
			memcpy(f->fourcc, "AVdn", 4);
		f->width = e->width;
		f->height = e->height;
		f->extra = e->extradata;
		f->extra_len = e->extradata ? e->extradata_len : 0;
		if (!f->fourcc[0]) {
			snprintf(why, whylen, "track %s: clip %s: %s has no "
				 "QuickTime sample description", tr->name,
				 clip, f->codec);
			return -EINVAL;
		}
		if (!vcodec_find(f->fourcc)) {
			snprintf(why, whylen, "track %s: clip %s: %s (%s) is "
				 "not a codec the movie carries", tr->name,
				 clip, f->codec, f->fourcc);
			return -EINVAL;
		}
		/* avc1 needs its decoder setup: an avcC (version 1), or
		 * the parameter sets of an Annex B stream (MXF), which a
		 * reader found in its first frame */
		if (!memcmp(f->fourcc, "avc1", 4) && !avc_setup(f)) {
			snprintf(why, whylen, "track %s: clip %s: its H.264 "
				 "has no decoder setup (no avcC, and no "
				 "sequence and picture parameter sets at the "
				 "start of its first frame): players could "
				 "not decode it", tr->name, clip);
			return -EINVAL;
		}
		return 0;
	}
	if (e->kind != ENG_ESS_AUDIO) {
		snprintf(why, whylen, "track %s: clip %s: not video or audio",
			 tr->name, clip);
		return -EINVAL;
	}
	if (e->pts)
		return fmt_packets(tr, clip, e, f, why, whylen);
	f->rate = e->sample_rate;
	f->channels = e->channels;
	f->bits = e->bits;
	f->block = e->block;
	f->big = e->big_endian;
	f->flt = e->is_float;
	if (f->flt)
		fc = f->bits == 32 ? "fl32" : f->bits == 64 ? "fl64" : NULL;
	else if (f->bits == 16)
		fc = f->big ? "twos" : "sowt";
	else
		fc = f->bits == 24 ? "in24" : f->bits == 32 ? "in32" : NULL;
	if (!fc || !f->channels || f->channels > 65535 ||
	    f->block != f->channels * (f->bits / 8)) {
		snprintf(why, whylen, "track %s: clip %s: audio of %" PRIu32
			 "-bit %s samples has no movie sample description",
			 tr->name, clip, f->bits, f->flt ? "float" : "integer");
		return -EINVAL;
	}
	/* a sound description of version 0 or 1 holds the rate in 16.16 */
	if (!f->rate || f->rate > 65535) {
		snprintf(why, whylen, "track %s: clip %s: audio at %" PRIu32
			 " Hz: above 65535 for a movie", tr->name, clip,
			 f->rate);
		return -EINVAL;
	}
	memcpy(f->fourcc, fc, 4);
	return 0;
}

/* The format of raw essence on track tr: its picture or 24-bit mono.
 * 0, or -EINVAL with why. */
static int fmt_raw(const struct eng_track *tr, const char *clip,
		   struct fmt *f, char *why, size_t whylen)
{
	memset(f, 0, sizeof(*f));
	f->codec = "raw";
	f->clip = clip;
	if (tr->pic.pix != ENG_PIX_NONE) {
		f->video = 1;
		memcpy(f->fourcc, eng_pix_name(tr->pic.pix), 4);
		f->width = tr->pic.width;
		f->height = tr->pic.height;
		return 0;
	}
	if (is_audio(tr)) {
		memcpy(f->fourcc, "in24", 4);
		f->rate = (uint32_t)(tr->rate / 3);
		f->channels = 1;
		f->bits = 24;
		f->block = 3;
		return 0;
	}
	/* audio tracks are the ones named A... (formats.md) */
	snprintf(why, whylen,
		 tr->align == 3 ? "track %s: audio rate not 3 bytes times a sample rate below 65536"
		 : tr->name[0] == 'A' ? "track %s: audio not of 24-bit samples (align=3)"
				      : "track %s has no picture format",
		 tr->name);
	return -EINVAL;
}

static void put_vdesc(struct bbuf *b, const struct mtrack *m)
{
	const struct fmt *f = &m->f;
	const struct vcodec *vc = vcodec_find(f->fourcc);
	size_t e = box(b, f->fourcc), c;
	int hd = f->height > 576;
	size_t nl = strlen(vc->name);
	uint8_t *p;

	zeros(b, 6);
	u16(b, 1);		/* data reference */
	u16(b, 0);		/* version */
	u16(b, 0);		/* revision */
	if (f->fourcc[0] == 'a' && f->fourcc[1] == 'p')
		fourcc(b, "appl");	/* ProRes: as Apple's writers */
	else
		u32(b, 0);	/* vendor */
	u32(b, vc->raw ? 0 : 0x200);	/* temporal quality */
	u32(b, 0x200);		/* spatial quality */
	u16(b, f->width);
	u16(b, f->height);
	u32(b, 72u << 16);
	u32(b, 72u << 16);
	u32(b, 0);		/* data size */
	u16(b, 1);		/* frames per sample */
	u8(b, nl);		/* compressor name: a Pascal string in 32 */
	p = room(b, 31);
	if (p) {
		memset(p, 0, 31);
		memcpy(p, vc->name, nl);
	}
	u16(b, vc->depth ? vc->depth : 24);	/* depth */
	u16(b, 0xffff);		/* no color table */
	if (!memcmp(f->fourcc, "avc1", 4)) {
		c = box(b, "avcC");	/* the sources' own, checked equal */
		p = room(b, f->extra_len);
		if (p)
			memcpy(p, f->extra, f->extra_len);
		box_end(b, c);
	}
	/* Avid's atoms, as FFmpeg writes them for QuickTime's decoder,
	 * where the compression id is known (FFmpeg's own decoder reads
	 * every frame's header and needs none) */
	if (f->fourcc[0] == 'A' && f->fourcc[1] == 'V' && dnx_header(f)) {
		uint32_t cid = (uint32_t)be32(f->extra + 0x28);
		int il = f->extra[5] & 2;

		c = box(b, "ACLR");
		fourcc(b, "ACLR");
		fourcc(b, "0001");
		u32(b, 1);	/* legal range */
		u32(b, 0);
		box_end(b, c);
		c = box(b, "APRG");
		fourcc(b, "APRG");
		fourcc(b, "0001");
		u32(b, 1);
		u32(b, 0);
		box_end(b, c);
		c = box(b, "ARES");
		fourcc(b, "ARES");
		fourcc(b, "0001");
		u32(b, cid);
		u32(b, f->width);
		u32(b, il ? f->height / 2 : f->height);
		u32(b, il ? 2 : 1);
		u32(b, 0);
		u32(b, il ? 4 : f->height == 1080 ? 5 : 6);
		zeros(b, 80);
		box_end(b, c);
	}
	if (vc->raw) {
		/* ITU-R BT.601 for SD (6/1/6), BT.709 for HD (1/1/1); a
		 * compressed stream says its own in its frames */
		c = box(b, "colr");
		fourcc(b, "nclc");
		u16(b, hd ? 1 : 6);
		u16(b, 1);
		u16(b, hd ? 1 : 6);
		box_end(b, c);
		c = box(b, "fiel");	/* progressive */
		u8(b, 1);
		u8(b, 0);
		box_end(b, c);
	}
	c = box(b, "pasp");
	u32(b, 1);
	u32(b, 1);
	box_end(b, c);
	box_end(b, e);
}

/* AAC: a sound description of version 0 and an esds (ISO/IEC 14496-1
 * ES_Descriptor: DecoderConfigDescriptor of MPEG-4 audio, 0x40, with the
 * source's AudioSpecificConfig; SLConfigDescriptor 2), as FFmpeg's MP4
 * writer makes it; each descriptor's length in one byte (ASC_MAX). */
static void put_mp4a(struct bbuf *b, const struct mtrack *m)
{
	const struct fmt *f = &m->f;
	size_t e = box(b, "mp4a"), c, dcd = 13 + 2 + f->extra_len;
	uint8_t *p;

	zeros(b, 6);
	u16(b, 1);		/* data reference */
	u16(b, 0);		/* version 0 */
	u16(b, 0);
	u32(b, 0);
	u16(b, f->channels);
	u16(b, 16);		/* sample size */
	u16(b, 0);		/* compression id */
	u16(b, 0);		/* packet size */
	u32(b, (uint64_t)f->rate << 16);
	c = box(b, "esds");
	full(b, 0, 0);
	u8(b, 0x03);		/* ES_Descriptor */
	u8(b, 3 + 2 + dcd + 3);
	u16(b, 0);		/* ES_ID */
	u8(b, 0);		/* no dependence, URL, OCR */
	u8(b, 0x04);		/* DecoderConfigDescriptor */
	u8(b, dcd);
	u8(b, 0x40);		/* MPEG-4 audio */
	u8(b, 0x15);		/* audio stream, reserved bit */
	put_be(b, m->buffer, 3);	/* bufferSizeDB: the largest packet */
	u32(b, 0);		/* max bitrate: not known */
	u32(b, 0);		/* average bitrate: not known */
	u8(b, 0x05);		/* DecoderSpecificInfo */
	u8(b, f->extra_len);
	p = room(b, f->extra_len);
	if (p)
		memcpy(p, f->extra, f->extra_len);
	u8(b, 0x06);		/* SLConfigDescriptor */
	u8(b, 1);
	u8(b, 2);		/* predefined: MP4 */
	box_end(b, c);
	box_end(b, e);
}

/* PCM as FFmpeg's QuickTime writer describes it: 16-bit in version 0;
 * wider samples in version 1, little-endian ones with a wave { frma,
 * enda 1 } (GStreamer's qtdemux and FFmpeg both checked on in24). */
static void put_adesc(struct bbuf *b, const struct mtrack *m)
{
	const struct fmt *f = &m->f;
	size_t e, w, c;
	int v1 = f->bits > 16;

	e = box(b, f->fourcc);
	zeros(b, 6);
	u16(b, 1);		/* data reference */
	u16(b, v1);		/* version 1: the four fields below */
	u16(b, 0);
	u32(b, 0);
	u16(b, f->channels);
	u16(b, 16);		/* sample size (v1: the fields below rule) */
	u16(b, 0);		/* compression id */
	u16(b, 0);		/* packet size */
	u32(b, (uint64_t)f->rate << 16);
	if (v1) {
		u32(b, 1);		/* samples per packet */
		u32(b, f->bits / 8);	/* bytes per packet: one channel */
		u32(b, f->block);	/* bytes per frame */
		u32(b, 2);		/* bytes per sample */
	}
	if (v1 && !f->big) {
		w = box(b, "wave");
		c = box(b, "frma");
		fourcc(b, f->fourcc);
		box_end(b, c);
		c = box(b, "enda");
		u16(b, 1);	/* little-endian */
		box_end(b, c);
		u32(b, 8);	/* terminator */
		u32(b, 0);
		box_end(b, w);
	}
	box_end(b, e);
}

/* Track t's frame k in the movie: where its sample is and how long (a
 * video gap: the black picture).  The layout's own slice: variable sizes
 * and offsets as the timeline file has them. */
static void frame_at(const struct movie *mv, size_t t, int64_t k,
		     uint64_t *off, uint64_t *len)
{
	const struct mtrack *m = &mv->tr[t];
	struct eng_slice s;

	eng_slice_get(mv->tl, k, t, &s);
	if (m->video && !s.seg) {
		*off = m->black;
		*len = eng_picture_bytes(&m->pic);
		return;
	}
	*off = mv->base + s.pos;
	*len = s.len;
}

static int64_t sample_frame(const struct mtrack *m, int64_t i)
{
	return m->order ? m->order[i] : i;
}

static void put_count(struct bbuf *b, size_t at, uint64_t n)
{
	int i;

	if (!b->err)
		for (i = 0; i < 4; i++)
			b->p[at + (size_t)i] = (uint8_t)(n >> (8 * (3 - i)));
}

/* Sync samples (stss) and composition offsets (ctts) of a long-GOP
 * track; neither for intra-only ones. */
static void put_gop(struct bbuf *b, const struct movie *mv, size_t t)
{
	const struct eng_timeline *tl = mv->tl;
	const struct mtrack *m = &mv->tr[t];
	size_t c, at;
	uint64_t n = 0, run = 0;
	int64_t i, prev = 0;

	if (!m->keys) {
		c = box(b, "stss");
		full(b, 0, 0);
		at = b->len;
		u32(b, 0);
		for (i = 0; i < tl->frames; i++) {
			int64_t k = sample_frame(m, i);
			const struct eng_segment *s =
				eng_segment_at(&tl->tracks[t], k);
			const struct eng_essence *e =
				s ? seg_ess(tl, t, s) : NULL;

			if (!e || is_key(e, ess_frame(tl, t, s, k))) {
				u32(b, (uint64_t)i + 1);
				n++;
			}
		}
		put_count(b, at, n);
		box_end(b, c);
	}
	if (!m->order)
		return;
	c = box(b, "ctts");
	full(b, 0, 0);
	at = b->len;
	u32(b, 0);
	n = 0;
	for (i = 0; i <= tl->frames; i++) {
		int64_t d = i < tl->frames ? m->order[i] - i + m->shift : -1;

		if (i && d != prev) {
			u32(b, run);
			u32(b, (uint64_t)prev * tl->fps.den);
			n++;
			run = 0;
		}
		prev = d;
		run++;
	}
	put_count(b, at, n);
	box_end(b, c);
}

/* Compressed audio: the packets timeline frame k of track t plays,
 * [*i0, *i1) of *e (as the layout: eng_tl_layout_media); 0 when none. */
static int frame_packets(const struct movie *mv, size_t t, int64_t k,
			 const struct eng_essence **e, int64_t *i0,
			 int64_t *i1, uint64_t *pos)
{
	const struct eng_timeline *tl = mv->tl;
	const struct eng_media *m;
	struct eng_slice s;
	int64_t src, s0, s1;

	*i0 = *i1 = 0;
	eng_slice_get(tl, k, t, &s);
	if (!s.seg || !s.len)
		return 0;
	m = &tl->clips[s.seg->clip].media[t];
	*e = m->ess;
	src = s.seg->src_in + (k - s.seg->rec_in);
	eng_media_samples(tl, m, src, 1, &s0, &s1);
	*i0 = eng_essence_packet_at(*e, s0);
	*i1 = eng_essence_packet_at(*e, s1);
	*pos = mv->base + s.pos;
	return *i1 > *i0;
}

/* How long packet i of e plays, in samples: to the next one. */
static uint64_t packet_dur(const struct eng_essence *e, int64_t i)
{
	int64_t end = i + 1 < e->npackets ? e->pts[i + 1] : e->nsamples;

	return end > e->pts[i] ? (uint64_t)(end - e->pts[i]) : 0;
}

/* Compressed audio's sample table: a sample a packet, each its own
 * chunk at its place in its frame's slice; durations from the packets'
 * times. */
static void put_stbl_packets(struct bbuf *b, const struct movie *mv,
			     size_t t)
{
	const struct eng_timeline *tl = mv->tl;
	const struct mtrack *m = &mv->tr[t];
	const struct eng_essence *e;
	size_t c, at;
	uint64_t n = 0, run = 0, prev = 0, d, pos;
	int64_t k, i, i0, i1;
	int pass;

	c = box(b, "stsd");
	full(b, 0, 0);
	u32(b, 1);
	put_mp4a(b, m);
	box_end(b, c);
	c = box(b, "stts");
	full(b, 0, 0);
	at = b->len;
	u32(b, 0);
	for (k = 0; k < tl->frames; k++)
		for (i = frame_packets(mv, t, k, &e, &i0, &i1, &pos) ? i0 : 0;
		     i < i1; i++) {
			d = packet_dur(e, i);
			if (run && d != prev) {
				u32(b, run);
				u32(b, prev);
				n++;
				run = 0;
			}
			prev = d;
			run++;
		}
	if (run) {
		u32(b, run);
		u32(b, prev);
		n++;
	}
	put_count(b, at, n);
	box_end(b, c);
	c = box(b, "stsc");
	full(b, 0, 0);
	u32(b, 1);
	u32(b, 1);
	u32(b, 1);
	u32(b, 1);
	box_end(b, c);
	/* stsz the sizes, then stco/co64 the offsets */
	for (pass = 0; pass < 2; pass++) {
		c = box(b, pass ? mv->co64 ? "co64" : "stco" : "stsz");
		full(b, 0, 0);
		if (!pass)
			u32(b, 0);	/* sizes differ */
		u32(b, m->npackets);
		for (k = 0; k < tl->frames; k++)
			for (i = frame_packets(mv, t, k, &e, &i0, &i1, &pos) ?
				 i0 : 0; i < i1; i++) {
				if (!pass)
					u32(b, e->len[i]);
				else if (mv->co64)
					u64(b, pos);
				else
					u32(b, pos);
				pos += e->len[i];
			}
		box_end(b, c);
	}
}

static void put_stbl(struct bbuf *b, const struct movie *mv, size_t t)
{
	const struct eng_timeline *tl = mv->tl;
	const struct mtrack *m = &mv->tr[t];
	size_t s = box(b, "stbl"), c, cnt_at, list_at;
	uint64_t prev = 0, n = 0, off, len, first = 0;
	int64_t k;
	int same = 1;

	if (m->f.packets) {
		put_stbl_packets(b, mv, t);
		box_end(b, s);
		return;
	}

	c = box(b, "stsd");
	full(b, 0, 0);
	u32(b, 1);
	if (m->video)
		put_vdesc(b, m);
	else
		put_adesc(b, m);
	box_end(b, c);

	c = box(b, "stts");
	full(b, 0, 0);
	u32(b, 1);
	if (m->video) {
		u32(b, (uint64_t)tl->frames);
		u32(b, tl->fps.den);
	} else {
		u32(b, m->duration);
		u32(b, 1);
	}
	box_end(b, c);

	if (m->video)
		put_gop(b, mv, t);

	/* one chunk per frame: video one sample, audio the frame's samples,
	 * one entry per run of equal counts */
	c = box(b, "stsc");
	full(b, 0, 0);
	cnt_at = b->len;
	u32(b, 0);
	for (k = 0; k < tl->frames; k++) {
		uint64_t per = 1;

		if (!m->video) {
			frame_at(mv, t, k, &off, &len);
			per = len / m->f.block;
		}
		if (k == 0 || per != prev) {
			u32(b, (uint64_t)k + 1);
			u32(b, per);
			u32(b, 1);
			n++;
			prev = per;
		}
	}
	put_count(b, cnt_at, n);
	box_end(b, c);

	/* video: one size, or one per sample where the sizes differ
	 * (compressed frames); audio: one sample frame each */
	c = box(b, "stsz");
	full(b, 0, 0);
	if (m->video) {
		cnt_at = b->len;
		u32(b, 0);
		u32(b, (uint64_t)tl->frames);
		list_at = b->len;
		for (k = 0; k < tl->frames; k++) {
			frame_at(mv, t, sample_frame(m, k), &off, &len);
			if (k == 0)
				first = len;
			same = same && len == first;
			u32(b, len);
		}
		if (same && !b->err) {
			b->len = list_at;
			put_count(b, cnt_at, first);
		}
	} else {
		u32(b, m->f.block);
		u32(b, m->duration);
	}
	box_end(b, c);

	c = box(b, mv->co64 ? "co64" : "stco");
	full(b, 0, 0);
	u32(b, (uint64_t)tl->frames);
	for (k = 0; k < tl->frames; k++) {
		frame_at(mv, t, m->video ? sample_frame(m, k) : k, &off, &len);
		if (mv->co64)
			u64(b, off);
		else
			u32(b, off);
	}
	box_end(b, c);
	box_end(b, s);
}

/* mvhd, tkhd and mdhd: version 1 (64-bit times) only where needed. */
static void times(struct bbuf *b, int v1, uint64_t ts_or_id, uint64_t dur,
		  int with_id)
{
	if (v1) {
		u64(b, 0);
		u64(b, 0);
	} else {
		u32(b, 0);
		u32(b, 0);
	}
	u32(b, ts_or_id);
	if (with_id)
		u32(b, 0);	/* reserved */
	if (v1)
		u64(b, dur);
	else
		u32(b, dur);
}

static void put_trak(struct bbuf *b, const struct movie *mv, size_t t,
		     uint64_t mdur)
{
	const struct mtrack *m = &mv->tr[t];
	size_t k = box(b, "trak"), c, md, mi, di;
	int v1 = mdur > UINT32_MAX;

	c = box(b, "tkhd");
	full(b, v1, 0xf);	/* enabled, in movie, preview, poster */
	times(b, v1, t + 1, mdur, 1);
	zeros(b, 8);
	u16(b, 0);		/* layer */
	u16(b, 0);		/* alternate group */
	u16(b, m->video ? 0 : 0x100);
	u16(b, 0);
	matrix(b);
	u32(b, m->video ? (uint64_t)m->f.width << 16 : 0);
	u32(b, m->video ? (uint64_t)m->f.height << 16 : 0);
	box_end(b, c);
	if (m->order) {
		/* the whole track, its media from the first frame shown:
		 * the ctts offsets were moved up by shift frames */
		size_t e = box(b, "edts");

		c = box(b, "elst");
		full(b, v1, 0);
		u32(b, 1);
		if (v1) {
			u64(b, mdur);
			u64(b, (uint64_t)m->shift * mv->tl->fps.den);
		} else {
			u32(b, mdur);
			u32(b, (uint64_t)m->shift * mv->tl->fps.den);
		}
		u32(b, 0x10000);	/* rate 1.0 */
		box_end(b, c);
		box_end(b, e);
	}

	md = box(b, "mdia");
	v1 = m->duration > UINT32_MAX;
	c = box(b, "mdhd");
	full(b, v1, 0);
	times(b, v1, m->timescale, m->duration, 0);
	u16(b, 0);		/* language */
	u16(b, 0);		/* quality */
	box_end(b, c);
	c = box(b, "hdlr");
	full(b, 0, 0);
	fourcc(b, "mhlr");
	fourcc(b, m->video ? "vide" : "soun");
	zeros(b, 12);
	u8(b, 0);		/* name: empty Pascal string */
	box_end(b, c);

	mi = box(b, "minf");
	if (m->video) {
		c = box(b, "vmhd");
		full(b, 0, 1);
		u16(b, 0x40);	/* graphics mode: copy */
		zeros(b, 6);
	} else {
		c = box(b, "smhd");
		full(b, 0, 0);
		zeros(b, 4);
	}
	box_end(b, c);
	c = box(b, "hdlr");
	full(b, 0, 0);
	fourcc(b, "dhlr");
	fourcc(b, "alis");
	zeros(b, 12);
	u8(b, 0);
	box_end(b, c);
	di = box(b, "dinf");
	c = box(b, "dref");
	full(b, 0, 0);
	u32(b, 1);
	{
		size_t a = box(b, "alis");

		full(b, 0, 1);	/* the data is in this file */
		box_end(b, a);
	}
	box_end(b, c);
	box_end(b, di);
	put_stbl(b, mv, t);
	box_end(b, mi);
	box_end(b, md);
	box_end(b, k);
}

static void put_moov(struct bbuf *b, const struct movie *mv)
{
	const struct eng_timeline *tl = mv->tl;
	uint64_t mdur = (uint64_t)tl->frames * tl->fps.den;
	int v1 = mdur > UINT32_MAX;
	size_t m = box(b, "moov"), c, t;

	c = box(b, "mvhd");
	full(b, v1, 0);
	times(b, v1, tl->fps.num, mdur, 0);
	u32(b, 0x10000);	/* rate */
	u16(b, 0x100);		/* volume */
	zeros(b, 10);
	matrix(b);
	zeros(b, 24);		/* preview, poster, selection, current */
	u32(b, tl->ntracks + 1);
	box_end(b, c);
	for (t = 0; t < tl->ntracks; t++)
		if (!mv->tr[t].omit)
			put_trak(b, mv, t, mdur);
	box_end(b, m);
}

static void put_ftyp(struct bbuf *b)
{
	size_t c = box(b, "ftyp");

	fourcc(b, "qt  ");
	u32(b, 0x200);
	fourcc(b, "qt  ");
	box_end(b, c);
}

/* One black picture: 2vuy Cb Y Cr Y = 80 10 80 10; v210 the packing of
 * Y 64, Cb and Cr 512 (10-bit), words alternating 0x20010200 0x04080040
 * little-endian (a row is a multiple of 128 bytes, so of two words). */
static void put_black(struct bbuf *b, const struct eng_picture *p)
{
	uint64_t n = eng_picture_bytes(p), i;
	uint8_t *q = room(b, n);
	static const uint8_t v210[8] = {0x00, 0x02, 0x01, 0x20,
					0x40, 0x00, 0x08, 0x04};

	if (!q)
		return;
	for (i = 0; i < n; i++)
		q[i] = p->pix == ENG_PIX_2VUY ? (i & 1 ? 0x10 : 0x80)
					      : v210[i & 7];
}

/* The format of track t's samples: that of every clip it plays, the
 * same for all (one sample description a track).  0 or -EINVAL with why. */
static int track_fmt(struct movie *mv, size_t t, char *why, size_t whylen)
{
	const struct eng_timeline *tl = mv->tl;
	const struct eng_track *tr = &tl->tracks[t];
	struct mtrack *m = &mv->tr[t];
	struct fmt f;
	char x[96], y[96];
	size_t i;
	int rc;

	for (i = 0; i < tr->nsegs; i++) {
		const struct eng_segment *s = &tr->segs[i];
		const struct eng_essence *e = seg_ess(tl, t, s);
		const char *clip = tl->clips[s->clip].name;
		const struct eng_media *md = tl->clips[s->clip].media;

		/* the interleave holds the images' pixel data as their
		 * files do: a sample where a QuickTime description reads
		 * them so (seqmedia.c sets the fourcc: DPX's packed 10-bit
		 * words as R10k ...), else seqmedia.c's reason */
		if (md && md[t].seq && !md[t].seq->ess.fourcc) {
			snprintf(why, whylen, "track %s: clip %s: an image "
				 "sequence (%s): no QuickTime mapping: %s",
				 tr->name, clip, e && e->codec[0] ? e->codec
				 : "images", md[t].seq->nomovie);
			return -EINVAL;
		}
		rc = e ? fmt_real(tr, clip, e, &f, why, whylen)
		       : fmt_raw(tr, clip, &f, why, whylen);
		if (rc < 0)
			return rc;
		if (f.video && vcodec_find(f.fourcc)->seq &&
		    !(md && md[t].seq)) {
			snprintf(why, whylen, "track %s: clip %s: %s (%s) is "
				 "not a codec the movie carries from a media "
				 "file", tr->name, clip, f.codec, f.fourcc);
			return -EINVAL;
		}
		if (i == 0) {
			m->f = f;
			continue;
		}
		if (!fmt_same(&m->f, &f)) {
			fmt_say(&m->f, x, sizeof(x));
			fmt_say(&f, y, sizeof(y));
			snprintf(why, whylen, "track %s mixes formats: clip "
				 "%s %s, clip %s %s%s", tr->name, m->f.clip,
				 x, clip, y, strcmp(x, y) ? ""
				 : " (another decoder setup)");
			return -EINVAL;
		}
	}
	if (!tr->nsegs)
		return fmt_raw(tr, NULL, &m->f, why, whylen);
	return 0;
}

/* A long-GOP track's samples: each clip's frames must decode on their
 * own, for the movie holds only the timeline's bytes (a frame's decoding
 * dependencies before a cut are the player's reads, not bytes of NAME);
 * they go in decode order.  Sets keys and order.  0, -EINVAL with why,
 * -ENOMEM. */
static int track_gop(struct movie *mv, size_t t, char *why, size_t whylen)
{
	const struct eng_timeline *tl = mv->tl;
	const struct eng_track *tr = &tl->tracks[t];
	struct mtrack *m = &mv->tr[t];
	int64_t a, n, j, lo, hi, i;
	size_t q;

	m->keys = 1;
	for (q = 0; q < tr->nsegs; q++) {
		const struct eng_segment *s = &tr->segs[q];
		const struct eng_essence *e = seg_ess(tl, t, s);

		if (!e)
			continue;
		a = ess_frame(tl, t, s, s->rec_in);
		n = s->frames;
		if (a < 0 || a + n > e->nframes) {
			snprintf(why, whylen, "track %s: clip %s: frames %"
				 PRId64 "..%" PRId64 " not in its %" PRId64
				 " frames", tr->name, tl->clips[s->clip].name,
				 a, a + n - 1, e->nframes);
			return -EINVAL;
		}
		if (!e->dep && !e->decode)
			continue;
		for (lo = INT64_MAX, hi = -1, j = a; j < a + n; j++) {
			if (dpos(e, j) < lo)
				lo = dpos(e, j);
			if (dpos(e, j) > hi)
				hi = dpos(e, j);
			m->keys = m->keys && is_key(e, j);
		}
		/* closed: its decode positions one run, the first of them a
		 * key frame, no frame needing one before it */
		for (j = a; j < a + n && hi - lo + 1 == n; j++)
			if ((dpos(e, j) == lo && !is_key(e, j)) ||
			    (e->dep && (e->dep[j] < 0 ||
					e->dep[j] >= e->nframes ||
					dpos(e, e->dep[j]) < lo)))
				break;
		if (hi - lo + 1 != n || j < a + n) {
			char tc[40];

			/* the media's frames, as a player numbers them */
			eng_media_tc_span(&tl->clips[s->clip].media[t],
					  tl->fps, a, a + n - 1, tc,
					  sizeof(tc));
			snprintf(why, whylen, "track %s: clip %s cut at frames "
				 "%" PRId64 "..%" PRId64 "%s inside a group of "
				 "pictures (%s): its samples would not decode "
				 "on their own", tr->name,
				 tl->clips[s->clip].name, a, a + n - 1, tc,
				 e->codec);
			return -EINVAL;
		}
		if (!e->decode)
			continue;
		if (!m->order) {
			m->order = malloc((size_t)tl->frames *
					  sizeof(*m->order));
			if (!m->order)
				return -ENOMEM;
			for (i = 0; i < tl->frames; i++)
				m->order[i] = i;
		}
		for (j = a; j < a + n; j++)
			m->order[s->rec_in + dpos(e, j) - lo] =
				s->rec_in + j - a;
	}
	if (!m->order)
		return 0;
	for (i = 0; i < tl->frames; i++)
		if (i - m->order[i] > m->shift)
			m->shift = i - m->order[i];
	if (!m->shift) {
		/* decode order is presentation order after all */
		free(m->order);
		m->order = NULL;
	}
	return 0;
}

/* Track t is left out of the movie: why is added to the note. */
static void omit(struct movie *mv, size_t t, const char *why)
{
	size_t used = strlen(mv->note);

	mv->tr[t].omit = 1;
	snprintf(mv->note + used, sizeof(mv->note) - used, "%s%s",
		 used ? "; " : "", why);
}

/* Compressed audio track t: its packets, their duration and the largest.
 * A frame may hold none (at 50 fps and more a frame is shorter than an
 * AAC packet: the packets' durations carry the time), but a gap's time
 * would be lost to the track: -1 with why. */
static int packet_track(struct movie *mv, size_t t, char *why,
			size_t whylen)
{
	const struct eng_timeline *tl = mv->tl;
	struct mtrack *m = &mv->tr[t];
	const struct eng_essence *e;
	int64_t k, i, i0, i1;
	uint64_t pos;

	for (k = 0; k < tl->frames; k++) {
		if (!eng_segment_at(&tl->tracks[t], k)) {
			snprintf(why, whylen, "track %s left out: a gap at "
				 "frame %" PRId64 ": no %s to play for it (its "
				 "time would be lost to the track)",
				 tl->tracks[t].name, k, m->f.codec);
			return -1;
		}
		(void)frame_packets(mv, t, k, &e, &i0, &i1, &pos);
		for (i = i0; i < i1; i++) {
			m->npackets++;
			m->duration += packet_dur(e, i);
			if (e->len[i] > m->buffer)
				m->buffer = e->len[i];
		}
	}
	return 0;
}

/* Check the tracks; fill mv->tr.  0, -EINVAL with why, -ENOMEM. */
static int classify(struct movie *mv, char *why, size_t whylen)
{
	const struct eng_timeline *tl = mv->tl;
	size_t t;
	int64_t k;
	int rc;

	for (t = 0; t < tl->ntracks; t++) {
		const struct eng_track *tr = &tl->tracks[t];
		struct mtrack *m = &mv->tr[t];
		struct eng_slice s;
		uint64_t total = 0;

		rc = track_fmt(mv, t, why, whylen);
		if (rc == -ENOTSUP) {
			omit(mv, t, why);
			continue;
		}
		if (rc < 0)
			return rc;
		m->video = m->f.video;
		if (m->video) {
			const struct vcodec *vc = vcodec_find(m->f.fourcc);

			m->timescale = tl->fps.num;
			m->duration = (uint64_t)tl->frames * tl->fps.den;
			for (k = 0; k < tl->frames && !m->gaps; k++)
				m->gaps = !eng_segment_at(tr, k);
			if (vc->raw) {
				m->pic.pix = eng_pix_find(m->f.fourcc);
				m->pic.width = m->f.width;
				m->pic.height = m->f.height;
			} else if (m->gaps) {
				/* a gap shows the header's black picture,
				 * which only an encoder could make in the
				 * sources' codec; an empty edit in an edit
				 * list is not played alike by every player */
				snprintf(why, whylen, "track %s: a gap at frame "
					 "%" PRId64 ": no picture of %s to show "
					 "for it", tr->name, k - 1, m->f.codec);
				return -EINVAL;
			}
			if ((rc = track_gop(mv, t, why, whylen)) < 0)
				return rc;
			continue;
		}
		m->timescale = m->f.rate;
		if (m->f.packets) {
			if (packet_track(mv, t, why, whylen) < 0)
				omit(mv, t, why);
			continue;
		}
		for (k = 0; k < tl->frames; k++) {
			eng_slice_get(tl, k, t, &s);
			if (s.len == 0 || s.len % m->f.block) {
				snprintf(why, whylen, s.len ?
					 "track %s: frame %" PRId64 " not whole "
					 "sample frames" : "track %s: frame %"
					 PRId64 " has no audio sample",
					 tr->name, k);
				return -EINVAL;
			}
			total += s.len;
		}
		m->duration = total / m->f.block;
	}
	return 0;
}

/* The black mdat: one picture per distinct picture of tracks with gaps;
 * sets each such track's black offset (at = movie offset of the box). */
static void put_blacks(struct bbuf *b, struct movie *mv, uint64_t at)
{
	const struct eng_timeline *tl = mv->tl;
	size_t c, t, u;

	for (t = 0; t < tl->ntracks && !mv->tr[t].gaps; t++)
		;
	if (t == tl->ntracks)
		return;		/* no gap, no black picture */
	c = box(b, "mdat");
	for (t = 0; t < tl->ntracks; t++) {
		if (!mv->tr[t].gaps)
			continue;
		for (u = 0; u < t; u++)
			if (mv->tr[u].gaps &&
			    !memcmp(&mv->tr[u].pic, &mv->tr[t].pic,
				    sizeof(mv->tr[t].pic)))
				break;
		if (u < t) {
			mv->tr[t].black = mv->tr[u].black;
			continue;
		}
		mv->tr[t].black = at + (b->len - c);
		put_black(b, &mv->tr[t].pic);
	}
	box_end(b, c);
}

/* Whether the black pictures put_blacks would write (one per distinct
 * picture of tracks with gaps) fit ENG_MOV_BLACK_MAX: they are held in
 * memory, and a picture size is the timeline's claim.  0, or -EFBIG with
 * why (the track that passes it). */
static int blacks_fit(const struct movie *mv, char *why, size_t whylen)
{
	const struct eng_timeline *tl = mv->tl;
	uint64_t sum = 0;
	size_t t, u;

	for (t = 0; t < tl->ntracks; t++) {
		const struct mtrack *m = &mv->tr[t];

		if (!m->gaps)
			continue;
		for (u = 0; u < t; u++)
			if (mv->tr[u].gaps && !memcmp(&mv->tr[u].pic, &m->pic,
						      sizeof(m->pic)))
				break;
		if (u < t)
			continue;
		sum += eng_picture_bytes(&m->pic);
		if (sum > ENG_MOV_BLACK_MAX) {
			snprintf(why, whylen, "gaps need black pictures of %"
				 PRIu64 " bytes in the movie header (track %s "
				 "%s %" PRIu32 "x%" PRIu32 "): more than %u MiB",
				 sum, tl->tracks[t].name, m->f.fourcc,
				 m->f.width, m->f.height,
				 ENG_MOV_BLACK_MAX >> 20);
			return -EFBIG;
		}
	}
	return 0;
}

/* Header size for a choice of co64 (the offsets' values do not matter). */
static int layout(struct movie *mv, struct bbuf *b)
{
	uint64_t big;

	b->len = 0;
	put_ftyp(b);
	b->max = b->len + ENG_MOV_MOOV_MAX;
	put_moov(b, mv);
	b->max = 0;
	put_blacks(b, mv, b->len);
	big = 8 + mv->tl->bytes > UINT32_MAX;
	if (big) {
		u32(b, 1);
		fourcc(b, "mdat");
		u64(b, 16 + mv->tl->bytes);
	} else {
		u32(b, 8 + mv->tl->bytes);
		fourcc(b, "mdat");
	}
	return b->err;
}

/* -EFBIG with why: the moov would pass ENG_MOV_MOOV_MAX */
static int too_big(const struct eng_timeline *tl, char *why, size_t whylen)
{
	snprintf(why, whylen, "%" PRId64 " frames on %zu track%s need a movie"
		 " header (moov) over %u MiB, more than players read",
		 tl->frames, tl->ntracks, tl->ntracks == 1 ? "" : "s",
		 ENG_MOV_MOOV_MAX >> 20);
	return -EFBIG;
}

int eng_mov_build(const struct eng_timeline *tl, struct eng_mov *out,
		  char *why, size_t whylen)
{
	struct movie mv = {.tl = tl};
	struct bbuf b = {0};
	int rc;

	memset(out, 0, sizeof(*out));
	/* a chunk offset a frame a track at least: past the limit, refused
	 * before anything the size of the frames is built */
	if ((uint64_t)tl->frames * 4 > ENG_MOV_MOOV_MAX / (tl->ntracks ?
							   tl->ntracks : 1))
		return too_big(tl, why, whylen);
	mv.tr = calloc(tl->ntracks, sizeof(*mv.tr));
	if (!mv.tr)
		return -ENOMEM;
	rc = classify(&mv, why, whylen);
	if (rc < 0 || (rc = blacks_fit(&mv, why, whylen)) < 0)
		goto out;
	for (size_t t = 0; t < tl->ntracks && mv.tr[t].omit; t++)
		if (t + 1 == tl->ntracks) {
			snprintf(why, whylen, "%s", mv.note);
			rc = -EINVAL;
			goto out;
		}
	/* stsz and stts hold 32-bit counts */
	rc = -EFBIG;
	if ((uint64_t)tl->frames > UINT32_MAX) {
		snprintf(why, whylen, "%" PRId64 " frames: too many for a movie",
			 tl->frames);
		goto out;
	}
	for (size_t t = 0; t < tl->ntracks; t++)
		if (!mv.tr[t].video && mv.tr[t].duration > UINT32_MAX) {
			snprintf(why, whylen,
				 "track %s: too many audio samples for a movie",
				 tl->tracks[t].name);
			goto out;
		}
	/* pass 1: with stco, would the last offset fit 32 bits? */
	if ((rc = layout(&mv, &b)) < 0)
		goto big;
	mv.co64 = b.len + tl->bytes > UINT32_MAX;
	/* pass 2: the size with that choice, then the real offsets */
	if ((rc = layout(&mv, &b)) < 0)
		goto big;
	mv.base = b.len;
	if ((rc = layout(&mv, &b)) < 0)
		goto big;
	out->head = b.p;
	out->head_len = b.len;
	out->size = b.len + tl->bytes;
	b.p = NULL;
	/* the tracks left out, for the start's note */
	snprintf(why, whylen, "%s", mv.note);
	rc = 0;
	goto out;
big:
	if (rc == -EFBIG)
		too_big(tl, why, whylen);
out:
	free(b.p);
	for (size_t t = 0; t < tl->ntracks; t++)
		free(mv.tr[t].order);
	free(mv.tr);
	return rc;
}

void eng_mov_free(struct eng_mov *m)
{
	free(m->head);
	memset(m, 0, sizeof(*m));
}

int eng_mov_map(const struct eng_mov *m, uint64_t off, uint64_t *tl_off,
		uint64_t *n)
{
	if (off >= m->size)
		return -ERANGE;
	if (off < m->head_len) {
		*n = m->head_len - off;
		return 1;
	}
	*tl_off = off - m->head_len;
	*n = m->size - off;
	return 0;
}
