/* SPDX-License-Identifier: MIT */
/*
 * tlmov MEDIA_DIR TIMELINE.tl OUT.mov: write a timeline's movie (the
 * header of engine/media/mov.c, then the timeline's bytes read straight
 * from the clip files, zeros in gaps) so that real players can check it
 * (ffprobe, ffmpeg -f null, gst-discoverer-1.0).  A development check of
 * issue 20 before the mount serves NAME.mov; test_movie_real.sh compares
 * it with the mounted movie.  Real media (issue 21) is read where its
 * container's index says, from the essence itself, not through the
 * layout's extents: a video frame is stream frame origin + src_in + k -
 * rec_in, a frame of audio the sample frames its bytes hold.  Then the
 * movie's own sample tables are walked (stsz of one size or one a sample,
 * stco or co64): every sample must lie inside the movie.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "media/mfile.h"
#include "media/media.h"
#include "media/mov.h"
#include "timeline/layout.h"
#include "timeline/load.h"
#include "timeline/tl.h"
#include "util/diag.h"

static uint64_t be(const unsigned char *p, int n)
{
	uint64_t v = 0;

	while (n--)
		v = v << 8 | *p++;
	return v;
}

/* The n-th box of type inside [p, p + len), its payload; NULL none. */
static const unsigned char *find(const unsigned char *p, uint64_t len,
				 const char *type, int n, uint64_t *plen)
{
	uint64_t at = 0, size;

	while (at + 8 <= len) {
		size = be(p + at, 4);
		if (size < 8 || at + size > len)
			return NULL;
		if (!memcmp(p + at + 4, type, 4) && n-- == 0) {
			*plen = size - 8;
			return p + at + 8;
		}
		at += size;
	}
	return NULL;
}

/* Every track's samples inside the movie (size bytes); the number of
 * samples checked, or -1 with a message. */
static long check_tables(const unsigned char *h, uint64_t hlen, uint64_t size)
{
	const unsigned char *moov, *trak, *p, *sz, *co;
	uint64_t ml, tl_, l, szl, col, one, n, i, chunks, off;
	long total = 0;
	int t, c64;

	moov = find(h, hlen, "moov", 0, &ml);
	for (t = 0; moov && (trak = find(moov, ml, "trak", t, &tl_)); t++) {
		p = find(trak, tl_, "mdia", 0, &l);
		p = p ? find(p, l, "minf", 0, &l) : NULL;
		p = p ? find(p, l, "stbl", 0, &l) : NULL;
		sz = p ? find(p, l, "stsz", 0, &szl) : NULL;
		co = p ? find(p, l, "stco", 0, &col) : NULL;
		c64 = !co;
		if (!co && p)
			co = find(p, l, "co64", 0, &col);
		if (!sz || !co) {
			fprintf(stderr, "tlmov: track %d: no stsz or chunk "
				"offsets\n", t + 1);
			return -1;
		}
		one = be(sz + 4, 4);
		n = be(sz + 8, 4);
		chunks = be(co + 4, 4);
		if ((!one && szl < 12 + 4 * n) ||
		    col < 8 + (c64 ? 8 : 4) * chunks) {
			fprintf(stderr, "tlmov: track %d: short tables\n", t + 1);
			return -1;
		}
		/* video: one sample a chunk; audio: the chunks of one size
		 * samples, checked by their first byte and the movie's end */
		for (i = 0; i < chunks; i++) {
			uint64_t len = one ? one : be(sz + 12 + 4 * i, 4);

			off = be(co + 8 + (c64 ? 8 : 4) * i, c64 ? 8 : 4);
			if (off + len > size) {
				fprintf(stderr, "tlmov: track %d: sample %llu "
					"at %llu (%llu bytes) past the movie's "
					"end %llu\n", t + 1,
					(unsigned long long)i + 1,
					(unsigned long long)off,
					(unsigned long long)len,
					(unsigned long long)size);
				return -1;
			}
			total++;
		}
	}
	return total;
}

/* Read slice s of track t into buf: raw essence at s->file_off, real
 * media where its index says.  0 or -1 with a message. */
static int read_slice(const struct eng_timeline *tl, int dirfd, size_t t,
		      const struct eng_slice *s, char *buf)
{
	const struct eng_media *md = &tl->clips[s->seg->clip].media[t];
	const struct eng_essence *e = md->ess;
	struct eng_extent ext[16];
	int64_t src = s->seg->src_in + s->frame - s->seg->rec_in;
	int fd, n = 1, i;
	uint64_t got = 0;

	ext[0].off = s->file_off;
	ext[0].len = s->len;
	if (e && e->kind == ENG_ESS_VIDEO) {
		src += md->origin;
		if (src < 0 || src >= e->nframes || e->len[src] != s->len) {
			fprintf(stderr, "tlmov: frame %lld track %zu: not the "
				"size of stream frame %lld\n",
				(long long)s->frame, t, (long long)src);
			return -1;
		}
		ext[0].off = e->off[src];
	} else if (e && s->len) {
		n = eng_essence_samples(e, md->origin +
					(int64_t)(eng_upto(tl, t, src) / e->block),
					(int64_t)(s->len / e->block), ext, 16);
		if (n < 0) {
			fprintf(stderr, "tlmov: frame %lld track %zu: no such "
				"samples (%s)\n", (long long)s->frame, t,
				strerror(-n));
			return -1;
		}
	}
	fd = openat(dirfd, md->file, O_RDONLY);
	for (i = 0; fd >= 0 && i < n; i++) {
		if (pread(fd, buf + got, ext[i].len, (off_t)ext[i].off) !=
		    (ssize_t)ext[i].len)
			break;
		got += ext[i].len;
	}
	if (fd >= 0)
		close(fd);
	if (got != s->len) {
		perror(md->file);
		return -1;
	}
	return 0;
}

static int nonzero(const char *p, size_t n)
{
	return n && (p[0] || memcmp(p, p + 1, n - 1));
}

int main(int argc, char **argv)
{
	struct eng_timeline *tl;
	struct eng_diag d = {0};
	struct eng_mov m;
	char *text, why[256], *buf;
	size_t len, i;
	int dirfd, out, rc;
	int64_t k;
	long samples;

	if (argc != 4) {
		fprintf(stderr, "usage: tlmov MEDIA_DIR TIMELINE.tl OUT.mov\n");
		return 2;
	}
	dirfd = open(argv[1], O_RDONLY | O_DIRECTORY);
	if (dirfd < 0 || eng_read_file(argv[2], &text, &len) < 0) {
		perror("tlmov: open");
		return 1;
	}
	rc = eng_tl_parse(argv[2], "t", text, len, &tl, &d);
	if (rc == 0)
		rc = eng_media_resolve(tl, dirfd, argv[1], &d);
	if (rc == 0)
		rc = eng_tl_layout_media(tl, &d);
	for (i = 0; i < d.n; i++)
		fprintf(stderr, "%s\n", d.msgs[i]);
	if (rc < 0)
		return 1;
	rc = eng_mov_build(tl, &m, why, sizeof(why));
	if (rc < 0) {
		fprintf(stderr, "tlmov: no movie: %s (%s)\n", why, strerror(-rc));
		return 1;
	}
	out = open(argv[3], O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (out < 0 || write(out, m.head, m.head_len) != (ssize_t)m.head_len) {
		perror("tlmov: write");
		return 1;
	}
	/* sized first, and zero slices not written: a movie of sparse
	 * media past 4 GiB (co64) stays sparse */
	if (ftruncate(out, (off_t)m.size) < 0) {
		perror("tlmov: truncate");
		return 1;
	}
	buf = malloc(tl->frame_bytes_max);
	for (k = 0; k < tl->frames; k++)
		for (i = 0; i < tl->ntracks; i++) {
			struct eng_slice s;

			eng_slice_get(tl, k, i, &s);
			memset(buf, 0, s.len);
			if (s.seg && read_slice(tl, dirfd, i, &s, buf) < 0)
				return 1;
			if (!nonzero(buf, s.len))
				continue;
			if (pwrite(out, buf, s.len, (off_t)(m.head_len + s.pos)) !=
			    (ssize_t)s.len) {
				perror("tlmov: write");
				return 1;
			}
		}
	close(out);
	samples = check_tables(m.head, m.head_len, m.size);
	if (samples < 0)
		return 1;
	printf("%s: header %llu bytes, movie %llu bytes, %ld chunks\n",
	       argv[3], (unsigned long long)m.head_len,
	       (unsigned long long)m.size, samples);
	free(buf);
	eng_mov_free(&m);
	eng_tl_free(tl);
	free(text);
	return 0;
}
