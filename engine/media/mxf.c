/* SPDX-License-Identifier: MIT */
/*
 * MXF OP1a and OP-Atom (mfile.h): where each frame of each track is,
 * from the file's partitions and index table segments (SMPTE ST 377-1),
 * with the generic container's element keys (ST 379) and the header
 * metadata's tracks, descriptors and timecode.  Reads only partition
 * packs, header metadata, index segments and the 16-byte keys and
 * lengths of the essence elements: never essence (docs/formats.md).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "media/mfile.h"

#define MXF_RUNIN_MAX 65536	/* ST 377-1 6.5: a run-in is below 64 KiB */
#define MXF_MAX_SETS 64		/* of each kind of header set we keep */
#define MXF_MAX_REFS 32		/* tracks of a package, components ... */
#define MXF_MAX_STREAMS 32
/* as libavcodec's codec_tag and pcm.c: the first character lowest */
#define TAG4(s)                                                              \
	((uint32_t)(unsigned char)(s)[0] |                                   \
	 (uint32_t)(unsigned char)(s)[1] << 8 |                              \
	 (uint32_t)(unsigned char)(s)[2] << 16 |                             \
	 (uint32_t)(unsigned char)(s)[3] << 24)

/* A KLV's key, where its value starts and how long it is. */
struct klv {
	uint64_t off;		/* of the key */
	uint64_t voff;
	uint64_t len;
	unsigned char key[16];
};

/* Reads through src in 4 KiB windows: the keys and lengths of small
 * KLVs in a row (header sets, fill, system items) cost one read. */
struct rd {
	const struct eng_src *src;
	uint64_t boff;
	size_t blen;
	size_t win;		/* bytes a read asks for: sizeof(buf) or less */
	uint64_t nbytes;	/* read in all: eng_mfile.bytes_read */
	unsigned char buf[4096];
};

struct partition {
	uint64_t off;
	uint64_t end;		/* next partition's pack, or the file's end */
	uint64_t hbc;
	uint32_t index_sid, body_sid;
	uint64_t body_offset;
	unsigned kind, status;	/* key bytes 13 (2 header 3 body 4 footer), 14 */
	uint64_t ess_start;	/* essence container in this partition ... */
	uint64_t ess_end;	/* ... 0 / 0 when none */
	int clip;		/* the essence is one KLV: offsets count from its value */
};

struct segment {
	int64_t start, duration;
	uint32_t eubc;		/* EditUnitByteCount: CBR when > 0 */
	uint32_t index_sid, body_sid;
	struct eng_fps rate;
	uint64_t entries_off;	/* file offset of the first IndexEntry */
	uint32_t nentries, entry_size;
};

struct h_pkg {
	unsigned char uid[16];
	unsigned char umid[32];
	int material;
	char name[128];
	unsigned char tracks[MXF_MAX_REFS][16];
	unsigned ntracks;
	int has_desc;
};

struct h_track {
	unsigned char uid[16], seq[16];
	uint32_t id, number;
	struct eng_fps rate;
};

struct h_seq {
	unsigned char uid[16];
	unsigned char comps[MXF_MAX_REFS][16];
	unsigned ncomps;
};

struct h_tc {
	unsigned char uid[16];
	int64_t start;
	unsigned base;
	int drop;
};

struct h_desc {
	unsigned type;		/* key byte 14 */
	uint32_t linked;	/* LinkedTrackID, 0 when none */
	unsigned char coding[16];
	int has_coding;
	struct eng_fps rate;	/* SampleRate */
	uint32_t width, height, layout;
	uint32_t dwidth, dheight;	/* DisplayWidth/Height: 0 when none */
	struct eng_fps audio_rate;
	uint32_t channels, bits, block_align;
};

/* What the header metadata says, in fixed arrays: its size does not
 * follow the file. */
struct header {
	struct h_pkg pkg[8];
	unsigned npkg;
	struct h_track track[MXF_MAX_SETS];
	unsigned ntrack;
	struct h_seq seq[MXF_MAX_SETS];
	unsigned nseq;
	struct h_tc tc[8];
	unsigned ntc;
	struct h_desc desc[MXF_MAX_SETS];
	unsigned ndesc;
};

struct mxf {
	const struct eng_src *src;
	struct eng_diag *diag;
	struct rd rd;
	struct rd ri;		/* index entries, read beside the essence */
	uint64_t base;		/* run-in: offsets in the file are base + ... */
	int opatom;
	struct partition *parts;
	size_t nparts;
	struct segment *segs;
	size_t nsegs, capsegs;
	struct header *h;
	size_t seg_hint, part_hint;	/* where the last edit unit was */
	/* the streams, by essence track number */
	uint32_t number[MXF_MAX_STREAMS];
	size_t cap[MXF_MAX_STREAMS];
};

static const unsigned char k_partition[13] = {
	0x06, 0x0e, 0x2b, 0x34, 0x02, 0x05, 0x01, 0x01,
	0x0d, 0x01, 0x02, 0x01, 0x01 };

static int fail(struct mxf *m, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static int fail(struct mxf *m, const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	eng_diag_add(m->diag, m->src->name, 0, "%s", msg);
	return -EINVAL;
}

static int rd_get(struct rd *r, uint64_t off, void *dst, size_t len)
{
	long got;

	if (len > sizeof(r->buf) || off > r->src->size ||
	    len > r->src->size - off)
		return -ERANGE;
	if (off < r->boff || off + len > r->boff + r->blen) {
		size_t want = r->win > len ? r->win : len;

		if (want > r->src->size - off)
			want = (size_t)(r->src->size - off);
		got = r->src->read_at(r->src->ctx, off, r->buf, want);
		if (got < 0)
			return (int)got;
		r->nbytes += (uint64_t)got;
		r->boff = off;
		r->blen = (size_t)got;
		if ((size_t)got < len)
			return -ERANGE;
	}
	memcpy(dst, r->buf + (off - r->boff), len);
	return 0;
}

static uint64_t be(const unsigned char *p, int n)
{
	uint64_t v = 0;

	while (n-- > 0)
		v = v << 8 | *p++;
	return v;
}

/* The KLV at off: -ERANGE when its key or length passes the end of the
 * file, -EINVAL for a length that is not BER of up to 8 bytes, -EIO. */
static int klv_at(struct mxf *m, uint64_t off, struct klv *k)
{
	unsigned char b[25];
	uint64_t avail = m->src->size > off ? m->src->size - off : 0;
	size_t n = avail < sizeof(b) ? (size_t)avail : sizeof(b);
	unsigned ll;
	int rc;

	if (n < 17)
		return -ERANGE;
	rc = rd_get(&m->rd, off, b, n);
	if (rc)
		return rc;
	memcpy(k->key, b, 16);
	k->off = off;
	if (b[16] < 0x80) {
		k->len = b[16];
		ll = 1;
	} else {
		ll = b[16] & 0x7f;
		if (ll == 0 || ll > 8)
			return -EINVAL;
		if (17 + ll > n)
			return -ERANGE;
		k->len = be(b + 17, (int)ll);
		ll++;
	}
	k->voff = off + 16 + ll;
	if (k->len > m->src->size - k->voff)
		return -ERANGE;
	return 0;
}

static int is_partition(const unsigned char *key)
{
	return !memcmp(key, k_partition, 13) && key[13] >= 2 &&
	       key[13] <= 4;
}

static int is_rip(const unsigned char *key)
{
	return !memcmp(key, k_partition, 13) && key[13] == 0x11;
}

static int is_index(const unsigned char *key)
{
	/* byte 5 (the set's coding) and 7 (version) vary between writers */
	return !memcmp(key, "\x06\x0e\x2b\x34\x02", 5) &&
	       !memcmp(key + 8, "\x0d\x01\x02\x01\x01\x10\x01", 7);
}

static int is_set(const unsigned char *key)
{
	return !memcmp(key, "\x06\x0e\x2b\x34\x02\x53", 6) &&
	       !memcmp(key + 8, "\x0d\x01\x01\x01\x01\x01", 6);
}

/* An element or system item of the generic container (ST 379 7.1), or
 * an element under Avid's private label (its OP-Atom media) */
static int is_ess_item(const unsigned char *key)
{
	return !memcmp(key, "\x06\x0e\x2b\x34", 4) &&
	       (key[4] == 0x01 || key[4] == 0x02) &&
	       (!memcmp(key + 8, "\x0d\x01\x03\x01", 4) ||
		(key[4] == 0x01 && !memcmp(key + 8, "\x0e\x04\x03\x01", 4)));
}

static int is_element(const unsigned char *key)
{
	return key[4] == 0x01 && is_ess_item(key);
}

static const char *klv_err(int rc)
{
	return rc == -ERANGE ? "the file ends inside it (truncated file)" :
	       rc == -EINVAL ? "its length is not a BER length of up to 8 bytes" :
	       "the file cannot be read";
}

/* ---------------------------------------------------------------- header */

static void utf16_name(const unsigned char *v, size_t len, char *out,
		       size_t cap)
{
	size_t i, o = 0;

	/* UTF-16BE; what is not 7-bit becomes '?': a name for messages
	 * and matching, not for display */
	for (i = 0; i + 1 < len && o + 1 < cap; i += 2) {
		unsigned c = (unsigned)v[i] << 8 | v[i + 1];

		if (!c)
			break;
		out[o++] = c >= 0x20 && c < 0x7f ? (char)c : '?';
	}
	out[o] = '\0';
}

/* A batch of 16-byte references: count, size, items */
static unsigned refs(const unsigned char *v, size_t len,
		     unsigned char (*out)[16], unsigned max)
{
	uint64_t n, sz;
	unsigned i;

	if (len < 8)
		return 0;
	n = be(v, 4);
	sz = be(v + 4, 4);
	if (sz != 16 || n > (len - 8) / 16)
		return 0;
	for (i = 0; i < n && i < max; i++)
		memcpy(out[i], v + 8 + 16 * i, 16);
	return i;
}

static struct eng_fps rational(const unsigned char *v, size_t len)
{
	struct eng_fps r = { 0, 0 };

	if (len >= 8) {
		r.num = (uint32_t)be(v, 4);
		r.den = (uint32_t)be(v + 4, 4);
	}
	return r;
}

/* A descriptor's 32-bit item: whether tag is one */
static int desc_u32(struct h_desc *d, unsigned tag, const unsigned char *x)
{
	static const struct {
		unsigned tag;
		size_t off;
	} items[] = {
		{ 0x3006, offsetof(struct h_desc, linked) },
		{ 0x3203, offsetof(struct h_desc, width) },	/* stored */
		{ 0x3202, offsetof(struct h_desc, height) },
		{ 0x3209, offsetof(struct h_desc, dwidth) },	/* display */
		{ 0x3208, offsetof(struct h_desc, dheight) },
		{ 0x3d07, offsetof(struct h_desc, channels) },
		{ 0x3d01, offsetof(struct h_desc, bits) },	/* quantization */
	};

	for (size_t i = 0; i < sizeof(items) / sizeof(items[0]); i++)
		if (items[i].tag == tag) {
			uint32_t v = (uint32_t)be(x, 4);

			memcpy((char *)d + items[i].off, &v, sizeof(v));
			return 1;
		}
	return 0;
}

/* One header metadata set (a local set of 2-byte tags and lengths): only
 * the kinds and the static local tags this reader needs (the primer pack
 * maps dynamic tags, which carry nothing of that). */
static int parse_set(struct mxf *m, const struct klv *k)
{
	struct header *h = m->h;
	unsigned type = k->key[14];
	struct h_pkg *pkg = NULL;
	struct h_track *tr = NULL;
	struct h_seq *sq = NULL;
	struct h_tc *tc = NULL;
	struct h_desc *d = NULL;
	unsigned char uid[16] = { 0 }, *v;
	uint64_t p;
	int rc = 0;

	switch (type) {
	case 0x36: case 0x37:
		if (h->npkg < 8) {
			pkg = &h->pkg[h->npkg++];
			memset(pkg, 0, sizeof(*pkg));
			pkg->material = type == 0x36;
		}
		break;
	case 0x3b: case 0x3a: case 0x39:	/* timeline, event, static */
		if (h->ntrack < MXF_MAX_SETS) {
			tr = &h->track[h->ntrack++];
			memset(tr, 0, sizeof(*tr));
		}
		break;
	case 0x0f:
		if (h->nseq < MXF_MAX_SETS) {
			sq = &h->seq[h->nseq++];
			memset(sq, 0, sizeof(*sq));
		}
		break;
	case 0x14:
		if (h->ntc < 8) {
			tc = &h->tc[h->ntc++];
			memset(tc, 0, sizeof(*tc));
		}
		break;
	case 0x27: case 0x28: case 0x29: case 0x51:	/* picture */
	case 0x42: case 0x47: case 0x48:		/* sound */
		if (h->ndesc < MXF_MAX_SETS) {
			d = &h->desc[h->ndesc++];
			memset(d, 0, sizeof(*d));
			d->type = type;
		}
		break;
	default:
		return 0;
	}
	if (!pkg && !tr && !sq && !tc && !d)
		return 0;
	if (k->len > 1 << 20)
		return fail(m, "header metadata set at byte %llu is %llu bytes "
			    "long (more than 1 MiB)", (unsigned long long)k->off,
			    (unsigned long long)k->len);
	v = malloc(k->len ? k->len : 1);
	if (!v)
		return -ENOMEM;
	for (p = 0; p < k->len && !rc; p += 4096) {
		size_t n = k->len - p < 4096 ? (size_t)(k->len - p) : 4096;

		rc = rd_get(&m->rd, k->voff + p, v + p, n);
	}
	if (rc) {
		free(v);
		return fail(m, "header metadata set at byte %llu: %s",
			    (unsigned long long)k->off, klv_err(rc));
	}
	for (p = 0; p + 4 <= k->len;) {
		unsigned tag = (unsigned)be(v + p, 2);
		size_t n = (size_t)be(v + p + 2, 2);
		const unsigned char *x = v + p + 4;

		if (n > k->len - p - 4)
			break;	/* a short last item: keep what came before */
		p += 4 + n;
		if (tag == 0x3c0a && n == 16)
			memcpy(uid, x, 16);
		if (pkg && tag == 0x4401 && n == 32)
			memcpy(pkg->umid, x, 32);
		else if (pkg && tag == 0x4402)
			utf16_name(x, n, pkg->name, sizeof(pkg->name));
		else if (pkg && tag == 0x4403)
			pkg->ntracks = refs(x, n, pkg->tracks, MXF_MAX_REFS);
		else if (pkg && tag == 0x4701)
			pkg->has_desc = 1;
		else if (tr && tag == 0x4801 && n == 4)
			tr->id = (uint32_t)be(x, 4);
		else if (tr && tag == 0x4804 && n == 4)
			tr->number = (uint32_t)be(x, 4);
		else if (tr && tag == 0x4b01)
			tr->rate = rational(x, n);
		else if (tr && tag == 0x4803 && n == 16)
			memcpy(tr->seq, x, 16);
		else if (sq && tag == 0x1001)
			sq->ncomps = refs(x, n, sq->comps, MXF_MAX_REFS);
		else if (tc && tag == 0x1501 && n == 8)
			tc->start = (int64_t)be(x, 8);
		else if (tc && tag == 0x1502 && n == 2)
			tc->base = (unsigned)be(x, 2);
		else if (tc && tag == 0x1503 && n == 1)
			tc->drop = x[0] != 0;
		else if (d && n == 4 && desc_u32(d, tag, x))
			;
		else if (d && tag == 0x3001)
			d->rate = rational(x, n);
		else if (d && tag == 0x3201 && n == 16) {
			memcpy(d->coding, x, 16);
			d->has_coding = 1;
		} else if (d && tag == 0x320c && n == 1)
			d->layout = x[0];
		else if (d && tag == 0x3d03)
			d->audio_rate = rational(x, n);
		else if (d && tag == 0x3d0a && n == 2)
			d->block_align = (uint32_t)be(x, 2);
	}
	free(v);
	if (pkg)
		memcpy(pkg->uid, uid, 16);
	if (tr)
		memcpy(tr->uid, uid, 16);
	if (sq)
		memcpy(sq->uid, uid, 16);
	if (tc)
		memcpy(tc->uid, uid, 16);
	return 0;
}

/* ---------------------------------------------------------------- index */

static int parse_index(struct mxf *m, const struct klv *k)
{
	struct segment s;
	unsigned char t[4], x[16];
	uint64_t p, end = k->voff + k->len;
	int rc, nsl = 0, npe = 0;

	memset(&s, 0, sizeof(s));
	s.duration = -1;
	for (p = k->voff; p + 4 <= end;) {
		unsigned tag;
		uint64_t n;

		rc = rd_get(&m->rd, p, t, 4);
		if (rc)
			return fail(m, "index table segment at byte %llu: %s",
				    (unsigned long long)k->off, klv_err(rc));
		tag = (unsigned)be(t, 2);
		n = be(t + 2, 2);
		if (n > end - p - 4)
			return fail(m, "index table segment at byte %llu: its "
				    "item %04x passes the segment's end",
				    (unsigned long long)k->off, tag);
		if (n <= sizeof(x)) {
			rc = rd_get(&m->rd, p + 4, x, (size_t)n);
			if (rc)
				return fail(m, "index table segment at byte "
					    "%llu: %s", (unsigned long long)
					    k->off, klv_err(rc));
		}
		if (tag == 0x3f0b && n == 8)
			s.rate = rational(x, 8);
		else if (tag == 0x3f0c && n == 8)
			s.start = (int64_t)be(x, 8);
		else if (tag == 0x3f0d && n == 8)
			s.duration = (int64_t)be(x, 8);
		else if (tag == 0x3f05 && n == 4)
			s.eubc = (uint32_t)be(x, 4);
		else if (tag == 0x3f06 && n == 4)
			s.index_sid = (uint32_t)be(x, 4);
		else if (tag == 0x3f07 && n == 4)
			s.body_sid = (uint32_t)be(x, 4);
		else if (tag == 0x3f08 && n == 1)
			nsl = x[0];
		else if (tag == 0x3f0e && n == 1)
			npe = x[0];
		else if (tag == 0x3f0a) {
			if (n < 8)
				return fail(m, "index table segment at byte "
					    "%llu: a short index entry array",
					    (unsigned long long)k->off);
			rc = rd_get(&m->rd, p + 4, x, 8);
			if (rc)
				return fail(m, "index table segment at byte "
					    "%llu: %s", (unsigned long long)
					    k->off, klv_err(rc));
			s.nentries = (uint32_t)be(x, 4);
			s.entry_size = (uint32_t)be(x + 4, 4);
			s.entries_off = p + 12;
			if (s.nentries && (s.entry_size < 11 ||
			    s.entry_size > 4096 ||
			    s.nentries > (n - 8) / s.entry_size))
				return fail(m, "index table segment at byte "
					    "%llu: %u entries of %u bytes do "
					    "not fit in its entry array",
					    (unsigned long long)k->off,
					    s.nentries, s.entry_size);
		}
		p += 4 + n;
	}
	if (s.nentries && s.entry_size < 11u + 4 * nsl + 8 * npe)
		return fail(m, "index table segment at byte %llu: entries of "
			    "%u bytes cannot hold %d slices and %d positions",
			    (unsigned long long)k->off, s.entry_size, nsl, npe);
	if (s.start < 0 || s.duration < 0 || s.start > INT64_MAX / 2 ||
	    s.duration > INT64_MAX / 2)
		return fail(m, "index table segment at byte %llu: no or a "
			    "negative IndexStartPosition or IndexDuration",
			    (unsigned long long)k->off);
	if (!s.eubc && (uint64_t)s.nentries != (uint64_t)s.duration)
		return fail(m, "index table segment at byte %llu: %u entries "
			    "for an IndexDuration of %lld edit units",
			    (unsigned long long)k->off, s.nentries,
			    (long long)s.duration);
	if (!s.eubc && !s.nentries)
		return 0;	/* says nothing */
	if (m->nsegs == m->capsegs) {
		size_t c = m->capsegs ? 2 * m->capsegs : 8;
		struct segment *ns = realloc(m->segs, c * sizeof(*ns));

		if (!ns)
			return -ENOMEM;
		m->segs = ns;
		m->capsegs = c;
	}
	m->segs[m->nsegs++] = s;
	return 0;
}

/* ---------------------------------------------------------------- partitions */

static int read_pack(struct mxf *m, uint64_t off, struct partition *pt,
		     uint64_t *footer, uint64_t *prev)
{
	unsigned char v[88];
	struct klv k;
	int rc;

	rc = klv_at(m, off, &k);
	if (rc)
		return fail(m, "partition pack at byte %llu: %s",
			    (unsigned long long)off, klv_err(rc));
	if (!is_partition(k.key))
		return fail(m, "no partition pack at byte %llu, where the "
			    "file's partitions say one is",
			    (unsigned long long)off);
	if (k.len < 88 || rd_get(&m->rd, k.voff, v, 88))
		return fail(m, "partition pack at byte %llu is short",
			    (unsigned long long)off);
	memset(pt, 0, sizeof(*pt));
	pt->off = off;
	pt->kind = k.key[13];
	pt->status = k.key[14];
	*prev = be(v + 16, 8);
	*footer = be(v + 24, 8);
	pt->hbc = be(v + 32, 8);
	pt->index_sid = (uint32_t)be(v + 48, 4);
	pt->body_offset = be(v + 52, 8);
	pt->body_sid = (uint32_t)be(v + 60, 4);
	if (be(v + 8, 8) + m->base != off)
		return fail(m, "partition pack at byte %llu says it is at byte "
			    "%llu", (unsigned long long)off,
			    (unsigned long long)(be(v + 8, 8) + m->base));
	if (off == m->base)
		m->opatom = v[64 + 12] == 0x10;	/* OP label's item */
	return 0;
}

static int add_part(struct mxf *m, size_t *cap, const struct partition *pt)
{
	if (m->nparts == *cap) {
		size_t c = *cap ? 2 * *cap : 8;
		struct partition *np = realloc(m->parts, c * sizeof(*np));

		if (!np)
			return -ENOMEM;
		m->parts = np;
		*cap = c;
	}
	m->parts[m->nparts++] = *pt;
	return 0;
}

static int cmp_part(const void *a, const void *b)
{
	const struct partition *x = a, *y = b;

	return x->off < y->off ? -1 : x->off > y->off;
}

/* The partition pack at off into m->parts. */
static int take_part(struct mxf *m, uint64_t off, size_t *cap,
		     uint64_t *footer, uint64_t *prev)
{
	struct partition pt;
	int rc;

	/* each partition pack is at least 108 bytes */
	if (m->nparts > m->src->size / 108)
		return fail(m, "more partitions than the file can hold");
	rc = read_pack(m, off, &pt, footer, prev);
	return rc ? rc : add_part(m, cap, &pt);
}

/* The partitions, from the random index pack at the end, else the chain
 * back from the footer, else one by one from the header (reading a key
 * and length per KLV of the whole file). */
static int find_partitions(struct mxf *m)
{
	uint64_t footer, prev, off, size = m->src->size;
	unsigned char b[4];
	size_t cap = 0;
	struct klv k;
	int rc;

	rc = take_part(m, m->base, &cap, &footer, &prev);
	if (rc)
		return rc;
	if (size >= 4 && !rd_get(&m->rd, size - 4, b, 4) &&
	    be(b, 4) <= size - m->base && be(b, 4) >= 21 &&
	    !klv_at(m, size - be(b, 4), &k) && is_rip(k.key)) {
		uint64_t i, n = k.len / 12;
		unsigned char e[12];

		for (i = 0; i < n; i++) {
			if (rd_get(&m->rd, k.voff + 12 * i, e, 12))
				return fail(m, "random index pack: %s",
					    klv_err(-ERANGE));
			off = be(e + 4, 8) + m->base;
			if (off == m->base)
				continue;
			if (off >= k.off)
				return fail(m, "random index pack names a "
					    "partition at byte %llu, past the "
					    "file's partitions",
					    (unsigned long long)off);
			rc = take_part(m, off, &cap, &footer, &prev);
			if (rc)
				return rc;
		}
	} else if (footer && footer + m->base < size) {
		off = footer + m->base;
		while (off > m->base) {
			rc = take_part(m, off, &cap, &footer, &prev);
			if (rc)
				return rc;
			if (prev + m->base >= off)
				return fail(m, "partition at byte %llu names a "
					    "previous one at byte %llu, not "
					    "before it", (unsigned long long)
					    off, (unsigned long long)prev);
			off = prev + m->base;
		}
	} else {
		if (footer)
			return fail(m, "the header names a footer partition at "
				    "byte %llu, past the file's end (%llu "
				    "bytes): truncated file", (unsigned long
				    long)footer, (unsigned long long)size);
		rc = klv_at(m, m->base, &k);
		for (off = k.voff + k.len; !rc && off < size;
		     off = k.voff + k.len) {
			rc = klv_at(m, off, &k);
			if (rc)
				return fail(m, "KLV at byte %llu: %s",
					    (unsigned long long)off,
					    klv_err(rc));
			if (is_partition(k.key))
				rc = take_part(m, off, &cap, &footer, &prev);
		}
		if (rc)
			return rc;
	}
	qsort(m->parts, m->nparts, sizeof(*m->parts), cmp_part);
	for (size_t i = 0; i < m->nparts; i++) {
		if (i + 1 < m->nparts && m->parts[i + 1].off == m->parts[i].off)
			return fail(m, "partition at byte %llu is named twice",
				    (unsigned long long)m->parts[i].off);
		m->parts[i].end = i + 1 < m->nparts ? m->parts[i + 1].off :
				  size;
	}
	return 0;
}

/* Walks one partition's KLVs after its pack: header sets (of the
 * partition holding the metadata), index segments, and where its essence
 * starts.  Stops at the essence, or at the partition's end. */
static int walk_partition(struct mxf *m, struct partition *pt, int metadata)
{
	struct klv k;
	uint64_t off;
	int rc;

	rc = klv_at(m, pt->off, &k);
	if (rc)
		return fail(m, "partition pack at byte %llu: %s",
			    (unsigned long long)pt->off, klv_err(rc));
	for (off = k.voff + k.len; off < pt->end; off = k.voff + k.len) {
		rc = klv_at(m, off, &k);
		if (rc)
			return fail(m, "KLV at byte %llu: %s",
				    (unsigned long long)off, klv_err(rc));
		if (k.voff + k.len > pt->end && !is_ess_item(k.key))
			return fail(m, "KLV at byte %llu passes the next "
				    "partition at byte %llu",
				    (unsigned long long)off,
				    (unsigned long long)pt->end);
		if (is_rip(k.key))
			break;
		if (is_ess_item(k.key)) {
			if (!pt->body_sid)
				return fail(m, "essence at byte %llu in a "
					    "partition without a BodySID",
					    (unsigned long long)off);
			pt->clip = m->opatom;
			pt->ess_start = pt->clip ? k.voff : k.off;
			pt->ess_end = pt->clip ? k.voff + k.len : pt->end;
			if (pt->ess_end > pt->end)
				return fail(m, "essence at byte %llu passes "
					    "the next partition at byte %llu",
					    (unsigned long long)off,
					    (unsigned long long)pt->end);
			return 0;
		}
		if (is_index(k.key))
			rc = parse_index(m, &k);
		else if (metadata && is_set(k.key))
			rc = parse_set(m, &k);
		if (rc)
			return rc;
	}
	return 0;
}

/* ---------------------------------------------------------------- streams */

static const struct h_track *track_by_uid(const struct header *h,
					  const unsigned char *uid)
{
	for (unsigned i = 0; i < h->ntrack; i++)
		if (!memcmp(h->track[i].uid, uid, 16))
			return &h->track[i];
	return NULL;
}

/* The material package's start timecode: package -> tracks -> sequence
 * -> a timecode component. */
static void material_tc(const struct header *h, const struct h_pkg *mp,
			struct eng_start_tc *tc)
{
	for (unsigned t = 0; t < mp->ntracks; t++) {
		const struct h_track *tr = track_by_uid(h, mp->tracks[t]);

		for (unsigned s = 0; tr && s < h->nseq; s++) {
			const struct h_seq *sq = &h->seq[s];

			if (memcmp(sq->uid, tr->seq, 16))
				continue;
			for (unsigned c = 0; c < sq->ncomps; c++)
				for (unsigned i = 0; i < h->ntc; i++) {
					const struct h_tc *x = &h->tc[i];

					if (memcmp(x->uid, sq->comps[c], 16) ||
					    !x->base || x->start < 0)
						continue;
					tc->present = 1;
					tc->frame = x->start;
					tc->drop = x->drop;
					tc->rate = tr->rate;
					if (!tc->rate.num || !tc->rate.den) {
						tc->rate.num = x->base;
						tc->rate.den = 1;
					}
					return;
				}
		}
	}
}

static void picture_codec(const struct h_desc *d, struct eng_essence *e)
{
	const unsigned char *u = d->coding + 8;
	const char *name = "rawvideo";
	uint32_t fourcc = 0;

	if (!d->has_coding) {
		/* no compression: uncompressed pictures */
	} else if (!memcmp(u, "\x04\x01\x02\x02\x71", 5)) {
		name = "dnxhd";
		fourcc = TAG4("AVdn");
	} else if (!memcmp(u, "\x04\x01\x02\x02\x03\x06", 6)) {
		static const char *const pr[] = { "apco", "apcs", "apcn",
						  "apch", "ap4h", "ap4x" };

		name = "prores";
		if (u[6] >= 1 && u[6] <= 6)
			fourcc = TAG4(pr[u[6] - 1]);
	} else if (!memcmp(u, "\x04\x01\x02\x02\x03\x01", 6)) {
		name = "jpeg2000";
	} else if (!memcmp(u, "\x04\x01\x02\x02\x01", 5)) {
		name = u[5] >= 0x30 ? "h264" : "mpeg2video";
		fourcc = u[5] >= 0x30 ? TAG4("avc1") : 0;
	} else if (!memcmp(u, "\x04\x01\x02\x01", 4)) {
		/* uncompressed picture coding */
	} else {
		name = "unknown";
	}
	snprintf(e->codec, sizeof(e->codec), "%s", name);
	e->fourcc = fourcc;
}

/* A track left out, said in out->skipped ("; " between them). */
static void skip(struct eng_mfile *out, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void skip(struct eng_mfile *out, const char *fmt, ...)
{
	size_t used = strlen(out->skipped);
	va_list ap;

	if (used && used + 2 < sizeof(out->skipped)) {
		memcpy(out->skipped + used, "; ", 3);
		used += 2;
	}
	va_start(ap, fmt);
	vsnprintf(out->skipped + used, sizeof(out->skipped) - used, fmt, ap);
	va_end(ap);
}

/* One stream per essence track (a track of the file package with a
 * TrackNumber, which its elements' keys carry), in TrackID order, as
 * libavformat numbers them. */
static int make_streams(struct mxf *m, struct eng_mfile *out)
{
	struct header *h = m->h;
	const struct h_track *tracks[MXF_MAX_STREAMS];
	size_t n = 0, i, j;

	for (i = 0; i < h->ntrack; i++) {
		const struct h_track *tr = &h->track[i];
		int dup = 0;

		if (!tr->number)
			continue;
		for (j = 0; j < n; j++)
			dup |= tracks[j]->number == tr->number;
		if (dup)
			continue;
		if (n == MXF_MAX_STREAMS)
			return fail(m, "more than %d essence tracks",
				    MXF_MAX_STREAMS);
		for (j = n; j > 0 && tracks[j - 1]->id > tr->id; j--)
			tracks[j] = tracks[j - 1];
		tracks[j] = tr;
		n++;
	}
	if (!n)
		return fail(m, "no essence tracks in the header metadata");
	out->streams = calloc(n, sizeof(*out->streams));
	if (!out->streams)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		struct eng_essence *e = &out->streams[out->nstreams];
		const struct h_desc *d = NULL;

		for (j = 0; j < h->ndesc && !d; j++)
			if (h->desc[j].linked == tracks[i]->id)
				d = &h->desc[j];
		if (!d && h->ndesc == 1 && n == 1)
			d = &h->desc[0];
		if (!d) {
			skip(out, "track %u (number %08x): no picture or sound "
			     "descriptor", (unsigned)tracks[i]->id,
			     (unsigned)tracks[i]->number);
			continue;
		}
		memset(e, 0, sizeof(*e));
		e->index = (int)out->nstreams;
		m->number[out->nstreams] = tracks[i]->number;
		if (d->type == 0x42 || d->type == 0x47 || d->type == 0x48) {
			uint32_t bytes = (d->bits + 7) / 8;

			e->kind = ENG_ESS_AUDIO;
			e->channels = d->channels;
			e->bits = d->bits;
			e->block = d->block_align ? d->block_align :
				   d->channels * bytes;
			if (d->audio_rate.den)
				e->sample_rate = d->audio_rate.num /
						 d->audio_rate.den;
			if (!e->channels || (bytes != 2 && bytes != 3 &&
			    bytes != 4) || !e->sample_rate ||
			    e->block != e->channels * bytes) {
				skip(out, "track %u: sound of %u channels of "
				     "%u bits at %u Hz, block %u (not PCM "
				     "timelinefs reads)",
				     (unsigned)tracks[i]->id,
				     (unsigned)e->channels, (unsigned)e->bits,
				     (unsigned)e->sample_rate,
				     (unsigned)e->block);
				continue;
			}
			snprintf(e->codec, sizeof(e->codec), "pcm_s%ule",
				 (unsigned)(bytes * 8));
			e->fourcc = bytes == 2 ? TAG4("sowt") :
				    bytes == 3 ? TAG4("in24") : TAG4("in32");
		} else {
			e->kind = ENG_ESS_VIDEO;
			/* the picture shown, not the coded one (1088) */
			e->width = d->dwidth ? d->dwidth : d->width;
			e->height = d->dheight ? d->dheight : d->height;
			if (d->layout == 1)	/* separate fields */
				e->height *= 2;
			e->fps = tracks[i]->rate;
			if (!e->fps.num || !e->fps.den)
				e->fps = d->rate;
			picture_codec(d, e);
		}
		out->nstreams++;
	}
	if (!out->nstreams)
		return fail(m, "no picture or sound track timelinefs reads: %s",
			    out->skipped);
	return 0;
}

static int stream_of(const struct mxf *m, const struct eng_mfile *out,
		     uint32_t number)
{
	for (size_t i = 0; i < out->nstreams; i++)
		if (m->number[i] == number)
			return (int)i;
	return -1;
}

static int add_chunk(struct mxf *m, struct eng_essence *e, size_t si,
		     uint64_t off, uint64_t len)
{
	struct eng_chunk *c;

	if (!len)
		return 0;	/* an edit unit without samples */
	if (len % e->block || len / e->block > UINT32_MAX)
		return fail(m, "sound element at byte %llu: %llu bytes are not "
			    "whole sample frames of %u bytes",
			    (unsigned long long)off, (unsigned long long)len,
			    (unsigned)e->block);
	if (e->nchunks == m->cap[si]) {
		size_t cap = m->cap[si] ? 2 * m->cap[si] : 64;

		c = realloc(e->chunks, cap * sizeof(*c));
		if (!c)
			return -ENOMEM;
		e->chunks = c;
		m->cap[si] = cap;
	}
	c = &e->chunks[e->nchunks++];
	c->off = off;
	c->first = e->nsamples;
	c->count = (uint32_t)(len / e->block);
	e->nsamples += c->count;
	return 0;
}

/* ---------------------------------------------------------------- edit units */

/* The index, edit unit by edit unit in stored order. */
struct eu {
	uint64_t so;		/* stream offset */
	int to, kfo;		/* TemporalOffset, KeyFrameOffset */
	unsigned flags;
};

static int eu_get(struct mxf *m, int64_t i, struct eu *u)
{
	unsigned char b[11];

	/* edit units come in order: from the last one's segment on */
	for (size_t t = 0; t < m->nsegs; t++) {
		size_t s = (m->seg_hint + t) % m->nsegs;
		const struct segment *g = &m->segs[s];
		int rc;

		if (i < g->start || (g->duration && i >= g->start + g->duration))
			continue;
		m->seg_hint = s;
		memset(u, 0, sizeof(*u));
		if (g->eubc) {
			u->so = (uint64_t)i * g->eubc;
			return 0;
		}
		rc = rd_get(&m->ri, g->entries_off + (uint64_t)(i - g->start) *
			    g->entry_size, b, 11);
		if (rc)
			return fail(m, "index entry of edit unit %lld: %s",
				    (long long)i, klv_err(rc));
		u->to = (signed char)b[0];
		u->kfo = (signed char)b[1];
		u->flags = b[2];
		u->so = be(b + 3, 8);
		return 0;
	}
	return fail(m, "no index table segment covers edit unit %lld",
		    (long long)i);
}

/* Where stream offset so of BodySID sid is in the file: the body
 * partition with the greatest BodyOffset not above it. */
static int locate(struct mxf *m, uint32_t sid, uint64_t so, int64_t i,
		  uint64_t *off, size_t *part)
{
	size_t best = m->nparts, p;

	/* edit units come in order: the last one's partition or the next */
	for (p = m->part_hint; p < m->nparts && p < m->part_hint + 3; p++) {
		const struct partition *pt = &m->parts[p];

		if (pt->body_sid == sid && pt->ess_end > pt->ess_start &&
		    pt->body_offset <= so &&
		    so - pt->body_offset < pt->ess_end - pt->ess_start) {
			best = p;
			goto found;
		}
	}
	for (p = 0; p < m->nparts; p++) {
		const struct partition *pt = &m->parts[p];

		if (pt->body_sid != sid || pt->ess_end <= pt->ess_start)
			continue;
		if (pt->body_offset <= so)
			best = p;
	}
found:
	if (best == m->nparts ||
	    so - m->parts[best].body_offset >=
	    m->parts[best].ess_end - m->parts[best].ess_start)
		return fail(m, "index entry of edit unit %lld points at stream "
			    "offset %llu, outside the essence of BodySID %u "
			    "(the index disagrees with the file)",
			    (long long)i, (unsigned long long)so,
			    (unsigned)sid);
	*off = m->parts[best].ess_start + (so - m->parts[best].body_offset);
	*part = best;
	m->part_hint = best;
	return 0;
}

struct vtab {			/* a video stream's frames in stored order */
	uint64_t *off;
	uint32_t *len;
	int64_t n, cap;
};

static int vtab_put(struct vtab *v, int64_t i, uint64_t off, uint64_t len)
{
	if (i >= v->cap) {
		int64_t cap = v->cap ? 2 * v->cap : 256;
		uint64_t *o;
		uint32_t *l;

		while (cap <= i)
			cap *= 2;
		o = realloc(v->off, (size_t)cap * sizeof(*o));
		if (!o)
			return -ENOMEM;
		v->off = o;
		l = realloc(v->len, (size_t)cap * sizeof(*l));
		if (!l)
			return -ENOMEM;
		v->len = l;
		v->cap = cap;
	}
	v->off[i] = off;
	v->len[i] = (uint32_t)len;
	if (i >= v->n)
		v->n = i + 1;
	return 0;
}

static int cmp_seg(const void *a, const void *b)
{
	const struct segment *x = a, *y = b;

	/* by start, the longest first: shorter repeats are then covered */
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->duration > y->duration ? -1 : x->duration < y->duration;
}

/* The edit units the index covers: segments sorted, repeats (a footer
 * copy of the header's) dropped, no gap.  A CBR segment of duration 0
 * covers the whole essence container. */
static int count_units(struct mxf *m, uint32_t sid, int clip, int64_t *n,
		       int *estimated)
{
	uint64_t total = 0;
	int64_t end = 0;
	size_t i, o = 0;

	qsort(m->segs, m->nsegs, sizeof(*m->segs), cmp_seg);
	for (i = 0; i < m->nsegs; i++) {
		struct segment *g = &m->segs[i];

		if (g->body_sid != sid && g->body_sid)
			return fail(m, "index table segments of BodySID %u and "
				    "%u: one essence container is read",
				    (unsigned)sid, (unsigned)g->body_sid);
		/* a repeat (the footer's copy of a header's segment) */
		if (o && end >= 0 && g->duration && g->start < end &&
		    g->start + g->duration <= end)
			continue;
		if (g->start != end)
			return fail(m, "index table segments leave a gap or "
				    "overlap at edit unit %lld",
				    (long long)end);
		if (g->eubc && !g->duration) {
			if (i + 1 < m->nsegs && m->segs[i + 1].start != g->start)
				return fail(m, "an index table segment follows "
					    "one that covers the whole "
					    "essence");
			m->segs[o++] = *g;
			end = -1;
			break;
		}
		m->segs[o++] = *g;
		end = g->start + g->duration;
	}
	m->nsegs = o;
	*estimated = end < 0;
	if (end >= 0) {
		*n = end;
		return 0;
	}
	for (i = 0; i < m->nparts; i++)
		if (m->parts[i].body_sid == sid &&
		    m->parts[i].ess_end > m->parts[i].ess_start &&
		    m->parts[i].body_offset + (m->parts[i].ess_end -
		    m->parts[i].ess_start) > total)
			total = m->parts[i].body_offset +
				(m->parts[i].ess_end - m->parts[i].ess_start);
	{
		const struct segment *g = &m->segs[o - 1];

		if (total <= (uint64_t)g->start * g->eubc)
			return fail(m, "the index starts at edit unit %lld, past "
				    "the essence (%llu bytes)",
				    (long long)g->start,
				    (unsigned long long)total);
		if (clip && total % g->eubc)
			return fail(m, "the essence (%llu bytes) is not whole "
				    "edit units of %u bytes",
				    (unsigned long long)total,
				    (unsigned)g->eubc);
		if (!clip && g->eubc < 17)
			return fail(m, "edit units of %u bytes cannot hold a "
				    "KLV", (unsigned)g->eubc);
		/* the last edit unit may lack its trailing fill */
		*n = g->start + (int64_t)((total - (uint64_t)g->start * g->eubc +
				 g->eubc - 1) / g->eubc);
	}
	return 0;
}

struct gop {			/* per edit unit, for long-GOP streams */
	signed char *to, *kfo;
	int64_t cap;
	int any;		/* a frame that is not its own key frame */
};

static int gop_put(struct gop *g, int64_t i, const struct eu *u)
{
	if (i >= g->cap) {
		int64_t cap = g->cap ? 2 * g->cap : 256;
		signed char *a;

		a = realloc(g->to, (size_t)cap);
		if (!a)
			return -ENOMEM;
		g->to = a;
		a = realloc(g->kfo, (size_t)cap);
		if (!a)
			return -ENOMEM;
		g->kfo = a;
		g->cap = cap;
	}
	g->to[i] = (signed char)u->to;
	g->kfo[i] = (signed char)u->kfo;
	g->any |= u->to || u->kfo;
	return 0;
}

/* Edit unit i + 1 (at *nfo in partition *np) and where edit unit i, at
 * fo in partition p, ends: there, or at the end of p's essence. */
static int next_unit(struct mxf *m, uint32_t sid, int64_t i, int64_t n,
		     size_t p, uint64_t fo, struct eu *nu, uint64_t *nfo,
		     size_t *np, uint64_t *end)
{
	int rc;

	*end = m->parts[p].ess_end;
	if (i + 1 >= n)
		return 0;
	rc = eu_get(m, i + 1, nu);
	if (!rc)
		rc = locate(m, sid, nu->so, i + 1, nfo, np);
	if (rc)
		return rc;
	if (*np == p && *nfo <= fo)
		return fail(m, "index: edit unit %lld is not after edit unit "
			    "%lld", (long long)i + 1, (long long)i);
	if (*np == p)
		*end = *nfo;
	return 0;
}

/* Frame-wrapped essence: every edit unit's KLVs, key and length only,
 * from its start to the next one's: each element is its track's frame
 * or audio chunk.  (The delta entries would name the elements' places,
 * but FFmpeg's are wrong where it writes no system item.) */
static int walk_units(struct mxf *m, struct eng_mfile *out, uint32_t sid,
		      int64_t n, int estimated, struct vtab *vt, struct gop *g)
{
	struct eu u, nu;
	uint64_t fo, nfo = 0, end;
	size_t p, np = 0;
	int64_t i;
	int rc;

	/* a window of 1 KiB covers a system item, fill and the picture's key
	 * (FFmpeg's KAG is 512) without reading much of the essence */
	m->rd.win = 1024;
	rc = eu_get(m, 0, &u);
	if (!rc)
		rc = locate(m, sid, u.so, 0, &fo, &p);
	for (i = 0; !rc && i < n; i++) {
		struct klv k;
		uint64_t off;
		int elements = 0;

		rc = gop_put(g, i, &u);
		if (!rc)
			rc = next_unit(m, sid, i, n, p, fo, &nu, &nfo, &np,
				       &end);
		if (rc)
			return rc;
		for (off = fo; off < end; off = k.voff + k.len) {
			int s;

			rc = klv_at(m, off, &k);
			if (rc)
				return fail(m, "edit unit %lld: KLV at byte "
					    "%llu: %s", (long long)i,
					    (unsigned long long)off,
					    klv_err(rc));
			if (k.voff + k.len > end)
				return fail(m, "edit unit %lld: the KLV at byte "
					    "%llu passes the edit unit's end "
					    "at byte %llu (the index disagrees "
					    "with the file)", (long long)i,
					    (unsigned long long)off,
					    (unsigned long long)end);
			if (!is_element(k.key))
				continue;
			elements++;
			s = stream_of(m, out, (uint32_t)be(k.key + 12, 4));
			if (s < 0)
				continue;	/* a data track's element */
			if (out->streams[s].kind == ENG_ESS_AUDIO) {
				rc = add_chunk(m, &out->streams[s], (size_t)s,
					       k.voff, k.len);
			} else {
				if (vt[s].n > i)
					return fail(m, "edit unit %lld holds two "
						    "pictures of track %08x",
						    (long long)i, (unsigned)
						    m->number[s]);
				if (k.len > UINT32_MAX)
					return fail(m, "picture at byte %llu "
						    "is over 4 GiB",
						    (unsigned long long)off);
				rc = vtab_put(&vt[s], i, k.voff, k.len);
			}
			if (rc)
				return rc;
		}
		/* the count from the container's length (a CBR index of no
		 * duration) takes fill after the last edit unit for one */
		if (!elements && estimated && i == n - 1 && i > 0)
			break;
		for (size_t s = 0; s < out->nstreams; s++)
			if (out->streams[s].kind == ENG_ESS_VIDEO &&
			    vt[s].n != i + 1)
				return fail(m, "edit unit %lld (bytes %llu to "
					    "%llu) holds no picture of track "
					    "%08x (the index disagrees with "
					    "the file)", (long long)i,
					    (unsigned long long)fo,
					    (unsigned long long)end,
					    (unsigned)m->number[s]);
		u = nu;
		fo = nfo;
		p = np;
	}
	return rc;
}

/* Clip-wrapped essence (OP-Atom): one KLV per partition; sound is one
 * chunk of it, pictures are where the index says in it. */
static int clip_units(struct mxf *m, struct eng_mfile *out, uint32_t sid,
		      int64_t n, struct vtab *vt, struct gop *g)
{
	struct eng_essence *e = &out->streams[0];
	struct eu u, nu;
	uint64_t fo, nfo = 0;
	size_t p, np = 0;
	int64_t i;
	int rc;

	if (out->nstreams != 1)
		return fail(m, "op-atom file with %zu essence tracks",
			    out->nstreams);
	if (e->kind == ENG_ESS_AUDIO) {
		for (p = 0; p < m->nparts; p++)
			if (m->parts[p].body_sid == sid &&
			    m->parts[p].ess_end > m->parts[p].ess_start) {
				rc = add_chunk(m, e, 0, m->parts[p].ess_start,
					       m->parts[p].ess_end -
					       m->parts[p].ess_start);
				if (rc)
					return rc;
			}
		return 0;
	}
	rc = eu_get(m, 0, &u);
	if (!rc)
		rc = locate(m, sid, u.so, 0, &fo, &p);
	for (i = 0; !rc && i < n; i++) {
		uint64_t end;

		rc = gop_put(g, i, &u);
		if (!rc)
			rc = next_unit(m, sid, i, n, p, fo, &nu, &nfo, &np,
				       &end);
		if (rc)
			return rc;
		if (end - fo > UINT32_MAX)
			return fail(m, "picture at byte %llu is over 4 GiB",
				    (unsigned long long)fo);
		rc = vtab_put(&vt[0], i, fo, end - fo);
		u = nu;
		fo = nfo;
		p = np;
	}
	return rc;
}

/* A video stream's frames in presentation order: the frame shown at k
 * is stored at k + TemporalOffset[k], and needs the frames from its key
 * frame, KeyFrameOffset before it in stored order. */
static int present(struct mxf *m, struct eng_essence *e, struct vtab *v,
		   const struct gop *g)
{
	int64_t k, n = v->n;

	e->nframes = n;
	if (g->any) {
		uint64_t *off = malloc((size_t)n * sizeof(*off) + 1);
		uint32_t *len = malloc((size_t)n * sizeof(*len) + 1);

		e->decode = malloc((size_t)n * sizeof(int64_t) + 1);
		e->dep = malloc((size_t)n * sizeof(int64_t) + 1);
		if (!off || !len || !e->decode || !e->dep) {
			free(off);
			free(len);
			return -ENOMEM;
		}
		/* len doubles as the seen mark while off is filled */
		for (k = 0; k < n; k++)
			e->dep[k] = -1;
		for (k = 0; k < n; k++) {
			int64_t s = k + g->to[k], key;

			key = s >= 0 && s < n ? s + g->kfo[s] : -1;
			if (s < 0 || s >= n || e->dep[s] != -1 || key < 0 ||
			    key > s) {
				free(off);
				free(len);
				return fail(m, "index: the temporal or key frame "
					    "offset of edit unit %lld points "
					    "outside the index or twice at "
					    "one frame", (long long)k);
			}
			e->dep[s] = 0;	/* stored frame s is taken */
			off[k] = v->off[s];
			len[k] = v->len[s];
			e->decode[k] = s;
		}
		for (k = 0; k < n; k++) {
			int64_t s = e->decode[k];

			e->dep[k] = s + g->kfo[s];
		}
		for (k = 0; k < n && e->decode[k] == k; k++)
			;
		if (k == n) {	/* no B frames: stored order is shown order */
			free(e->decode);
			e->decode = NULL;
		}
		free(v->off);
		free(v->len);
		v->off = off;
		v->len = len;
	}
	e->off = v->off;
	e->len = v->len;
	v->off = NULL;
	v->len = NULL;
	for (k = 0; k < n; k++) {
		if (!k || e->len[k] < e->len_min)
			e->len_min = e->len[k];
		if (e->len[k] > e->len_max)
			e->len_max = e->len[k];
	}
	return 0;
}

/* The most of a key frame read for its parameter sets: they come first
 * in an access unit, and are tens of bytes. */
#define MXF_AVC_HEAD (64u << 10)

/* H.264 in MXF is Annex B with its parameter sets in band (SMPTE RP
 * 2008, and FFmpeg's muxer): the decoder setup is taken from the first
 * frame in stored order, a key frame.  None found leaves the stream
 * without one (mov.c then says why there is no movie); only -ENOMEM and
 * a failed read of the file fail. */
static int avc_setup(struct mxf *m, struct eng_essence *e)
{
	int64_t k = 0;
	size_t len;
	unsigned char *buf;
	long got;
	int rc;

	if (strcmp(e->codec, "h264") || e->extradata || !e->nframes)
		return 0;
	while (e->decode && k < e->nframes - 1 && e->decode[k] != 0)
		k++;
	len = e->len[k] < MXF_AVC_HEAD ? e->len[k] : MXF_AVC_HEAD;
	buf = malloc(len ? len : 1);
	if (!buf)
		return -ENOMEM;
	got = m->src->read_at(m->src->ctx, e->off[k], buf, len);
	if (got < 0) {
		free(buf);
		return fail(m, "cannot read its first H.264 frame: %s",
			    strerror((int)-got));
	}
	m->rd.nbytes += (uint64_t)got;
	rc = eng_h264_parameter_sets(buf, (size_t)got, &e->extradata,
				  &e->extradata_len);
	free(buf);
	return rc == -ENOMEM ? rc : 0;
}

/* Where the header partition pack is: at 0, or after a run-in of less
 * than 64 KiB.  -ENOTSUP when none. */
static int find_header(struct mxf *m)
{
	static const unsigned char hp[14] = {
		0x06, 0x0e, 0x2b, 0x34, 0x02, 0x05, 0x01, 0x01,
		0x0d, 0x01, 0x02, 0x01, 0x01, 0x02 };
	size_t n = m->src->size < MXF_RUNIN_MAX + 14 ?
		   (size_t)m->src->size : MXF_RUNIN_MAX + 14;
	unsigned char b[16], *buf;
	long got;

	if (n < 14)
		return -ENOTSUP;
	got = m->src->read_at(m->src->ctx, 0, b, 14);
	m->rd.nbytes += got > 0 ? (uint64_t)got : 0;
	if (got == 14 && !memcmp(b, hp, 14)) {
		m->base = 0;
		return 0;
	}
	/* a run-in starts with no key: anything else that starts with a
	 * SMPTE key is not MXF we read */
	if (got >= 4 && !memcmp(b, hp, 4))
		return -ENOTSUP;
	buf = malloc(n);
	if (!buf)
		return -ENOMEM;
	got = m->src->read_at(m->src->ctx, 0, buf, n);
	m->rd.nbytes += got > 0 ? (uint64_t)got : 0;
	for (long i = 1; i + 14 <= got; i++)
		if (buf[i] == 0x06 && !memcmp(buf + i, hp, 14)) {
			m->base = (uint64_t)i;
			free(buf);
			return 0;
		}
	free(buf);
	return -ENOTSUP;
}

static int read_mxf(struct mxf *m, struct eng_mfile *out)
{
	struct vtab vt[MXF_MAX_STREAMS];
	struct gop g = { 0 };
	struct partition *meta = NULL;
	uint32_t sid;
	int64_t n = 0;
	size_t i;
	int rc, clip, estimated = 0;

	memset(vt, 0, sizeof(vt));
	rc = find_partitions(m);
	if (rc)
		return rc;
	/* the header metadata: a closed header's, else the footer's */
	for (i = 0; i < m->nparts; i++) {
		struct partition *pt = &m->parts[i];

		if (!pt->hbc || (pt->kind != 2 && pt->kind != 4))
			continue;
		if (!meta || (meta->status != 2 && meta->status != 4 &&
			      pt->kind == 4))
			meta = pt;
	}
	if (!meta)
		return fail(m, "no header metadata in the header or footer "
			    "partition");
	for (i = 0; i < m->nparts; i++) {
		rc = walk_partition(m, &m->parts[i], &m->parts[i] == meta);
		if (rc)
			return rc;
	}
	if (!m->nsegs)
		return fail(m, "no index table segments: where its frames are "
			    "is not known without reading all of the essence");
	rc = make_streams(m, out);
	if (rc)
		return rc;
	out->format = strdup(m->opatom ? "mxf-opatom" : "mxf-op1a");
	if (!out->format)
		return -ENOMEM;
	for (i = 0; i < m->h->npkg; i++) {
		const struct h_pkg *pk = &m->h->pkg[i];

		if (pk->material) {
			snprintf(out->clip_name, sizeof(out->clip_name), "%s",
				 pk->name);
			material_tc(m->h, pk, &out->tc);
			continue;
		}
		for (unsigned t = 0; t < pk->ntracks && !out->package[0]; t++) {
			const struct h_track *tr = track_by_uid(m->h,
								pk->tracks[t]);

			if (tr && tr->number)
				for (int b = 0; b < 32; b++)
					snprintf(out->package + 2 * b, 3,
						 "%02X", pk->umid[b]);
		}
	}
	for (i = 0; i < out->nstreams; i++)
		out->streams[i].tc = out->tc;

	sid = m->segs[0].body_sid;
	if (!sid)
		for (i = 0; i < m->nparts && !sid; i++)
			if (m->parts[i].ess_end > m->parts[i].ess_start)
				sid = m->parts[i].body_sid;
	clip = m->opatom;
	rc = count_units(m, sid, clip, &n, &estimated);
	if (!rc && n <= 0)
		rc = fail(m, "the index holds no edit units");
	if (!rc)
		rc = clip ? clip_units(m, out, sid, n, vt, &g) :
			    walk_units(m, out, sid, n, estimated, vt, &g);
	for (i = 0; !rc && i < out->nstreams; i++)
		if (out->streams[i].kind == ENG_ESS_VIDEO) {
			rc = present(m, &out->streams[i], &vt[i], &g);
			if (!rc)
				rc = avc_setup(m, &out->streams[i]);
		} else if (!out->streams[i].nchunks)
			rc = fail(m, "sound track %08x has no essence",
				  (unsigned)m->number[i]);
	for (i = 0; i < MXF_MAX_STREAMS; i++) {
		free(vt[i].off);
		free(vt[i].len);
	}
	free(g.to);
	free(g.kfo);
	return rc;
}

int eng_mfile_read_mxf(const struct eng_src *src, struct eng_mfile *out,
		       struct eng_diag *diag)
{
	struct mxf *m;
	int rc;

	memset(out, 0, sizeof(*out));
	m = calloc(1, sizeof(*m));
	if (!m)
		return -ENOMEM;
	m->src = src;
	m->diag = diag;
	m->rd.src = src;
	m->rd.win = sizeof(m->rd.buf);
	m->ri = m->rd;
	rc = find_header(m);
	if (!rc) {
		m->h = calloc(1, sizeof(*m->h));
		rc = m->h ? read_mxf(m, out) : -ENOMEM;
	}
	if (rc)
		eng_mfile_clear(out);
	else
		out->bytes_read = m->rd.nbytes + m->ri.nbytes;
	free(m->parts);
	free(m->segs);
	free(m->h);
	free(m);
	return rc;
}
