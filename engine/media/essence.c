/* SPDX-License-Identifier: MIT */
/*
 * Real media files' streams (essence.h): freeing them, the reader by a
 * file's first bytes, and a range of audio sample frames as file extents.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "media/essence.h"

void eng_mfile_clear(struct eng_mfile *mf)
{
	size_t i;

	for (i = 0; i < mf->nstreams; i++) {
		struct eng_essence *e = &mf->streams[i];

		free(e->extradata);
		free(e->off);
		free(e->len);
		free(e->dep);
		free(e->decode);
		free(e->chunks);
		free(e->pts);
	}
	free(mf->streams);
	free(mf->format);
	memset(mf, 0, sizeof(*mf));
}

void eng_mfile_free(struct eng_mfile *mf)
{
	if (!mf)
		return;
	eng_mfile_clear(mf);
	free(mf);
}

int eng_mfile_read(const struct eng_src *src, struct eng_mfile *out,
		   struct eng_diag *diag)
{
	int rc;

	rc = eng_mfile_read_pcm(src, out, diag);
	if (rc != -ENOTSUP)
		return rc;
	rc = eng_mfile_read_mxf(src, out, diag);
	if (rc != -ENOTSUP)
		return rc;
	rc = eng_mfile_read_av(src, out, diag);
	if (rc != -ENOTSUP)
		return rc;
	eng_diag_add(diag, src->name, 0, "not a media file timelinefs reads "
		     "(QuickTime, MP4, MXF, WAV or AIFF)");
	return -EINVAL;
}

int eng_mfile_bad(struct eng_diag *diag, const struct eng_src *src,
		  const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	eng_diag_vadd(diag, src->name, 0, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

static long mem_read_at(void *ctx, uint64_t off, void *buf, size_t len)
{
	const struct eng_mem *m = ctx;

	if (off >= m->len)
		return 0;
	if (len > m->len - off)
		len = m->len - (size_t)off;
	memcpy(buf, m->buf + off, len);
	return (long)len;
}

void eng_src_mem(struct eng_src *src, struct eng_mem *mem, const char *name,
		 const void *buf, size_t len)
{
	mem->buf = buf;
	mem->len = len;
	src->name = name;
	src->size = len;
	src->read_at = mem_read_at;
	src->ctx = mem;
}

/* The chunk holding sample frame s: binary search over first. */
static size_t chunk_of(const struct eng_essence *e, int64_t s)
{
	size_t lo = 0, hi = e->nchunks;	/* first chunk with first > s */

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (e->chunks[mid].first <= s)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo - 1;
}

int eng_essence_samples(const struct eng_essence *e, int64_t first,
			int64_t n, struct eng_extent *out, int max)
{
	int cnt = 0;

	if (first < 0 || n < 0 || first > e->nsamples - n)
		return -ERANGE;
	if (n == 0)
		return 0;
	if (!e->nchunks || e->chunks[0].first > first)
		return -ERANGE;
	while (n > 0) {
		const struct eng_chunk *c = &e->chunks[chunk_of(e, first)];
		int64_t in = first - c->first, take;
		uint64_t off;

		if (in >= c->count)	/* a hole between chunks */
			return -ERANGE;
		take = (int64_t)c->count - in;
		if (take > n)
			take = n;
		off = c->off + (uint64_t)in * e->block;
		if (cnt && out[cnt - 1].off + out[cnt - 1].len == off) {
			out[cnt - 1].len += (uint64_t)take * e->block;
		} else {
			if (cnt == max)
				return -E2BIG;
			out[cnt].off = off;
			out[cnt].len = (uint64_t)take * e->block;
			cnt++;
		}
		first += take;
		n -= take;
	}
	return cnt;
}

int64_t eng_essence_packet_at(const struct eng_essence *e, int64_t s)
{
	int64_t lo = 0, hi = e->npackets;

	while (lo < hi) {
		int64_t mid = lo + (hi - lo) / 2;

		if ((e->pts[mid] < 0 ? 0 : e->pts[mid]) < s)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

int eng_essence_packets(const struct eng_essence *e, int64_t s0, int64_t s1,
			struct eng_extent *out, int max, uint64_t *bytes)
{
	int64_t i;
	int n = 0;

	*bytes = 0;
	if (!e->pts || s1 <= s0)
		return 0;
	for (i = eng_essence_packet_at(e, s0); i < e->npackets &&
	     (e->pts[i] < 0 ? 0 : e->pts[i]) < s1; i++) {
		*bytes += e->len[i];
		if (n && out[n - 1].off + out[n - 1].len == e->off[i]) {
			out[n - 1].len += e->len[i];
			continue;
		}
		if (n == max)
			return -E2BIG;
		out[n].off = e->off[i];
		out[n].len = e->len[i];
		n++;
	}
	return n;
}

/* ---- H.264 parameter sets in Annex B ---- */

/* The next NAL unit from *pos of buf (after its 00 00 01 start code,
 * without the zeros of the next one's 4-byte form): its bytes in *p,
 * *n; 1, or 0 at the end. */
static int next_nal(const unsigned char *buf, size_t len, size_t *pos,
		    const unsigned char **p, size_t *n)
{
	size_t i = *pos, start;

	for (; i + 3 <= len; i++)
		if (!buf[i] && !buf[i + 1] && buf[i + 2] == 1)
			break;
	if (i + 3 > len)
		return 0;
	start = i + 3;
	for (i = start; i + 3 <= len; i++)
		if (!buf[i] && !buf[i + 1] && buf[i + 2] <= 1)
			break;
	if (i + 3 > len)
		i = len;
	*pos = i;
	*p = buf + start;
	*n = i - start;
	while (*n && !(*p)[*n - 1])	/* trailing zero bytes */
		(*n)--;
	return 1;
}

int eng_h264_parameter_sets(const unsigned char *buf, size_t len,
			    unsigned char **out, size_t *out_len)
{
	const unsigned char *p;
	size_t pos = 0, n, size = 0;
	int sps = 0, pps = 0, pass;

	*out = NULL;
	*out_len = 0;
	/* twice: the size, then the copy */
	for (pass = 0; pass < 2; pass++) {
		pos = 0;
		while (next_nal(buf, len, &pos, &p, &n)) {
			unsigned type = n ? p[0] & 0x1f : 0;

			if (type >= 1 && type <= 5)	/* the first picture */
				break;
			if (type != 7 && type != 8)
				continue;
			if (pass == 0) {
				sps |= type == 7;
				pps |= type == 8;
				size += 4 + n;
				continue;
			}
			memcpy(*out + *out_len, "\0\0\0\1", 4);
			memcpy(*out + *out_len + 4, p, n);
			*out_len += 4 + n;
		}
		if (pass == 0 && (!sps || !pps))
			return -ENOENT;
		if (pass == 0 && !(*out = malloc(size)))
			return -ENOMEM;
	}
	return 0;
}
