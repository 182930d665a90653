/* SPDX-License-Identifier: MIT */
/*
 * Media files (mfile.h): freeing a reader's streams, a reader's failure, a
 * file in memory, and H.264's parameter sets in Annex B.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "media/mfile.h"

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
