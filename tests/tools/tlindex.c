/* SPDX-License-Identifier: MIT */
/*
 * tlindex FILE: print what eng_mfile_read (engine/media/mfile.h) finds
 * in a media file, one fact a line, for tests/integration/test_index.sh to
 * compare with ffprobe -show_packets:
 *   format F / clip NAME / package UMID / tc FRAME NUM/DEN DROP /
 *   read BYTES
 *   stream I video CODEC FOURCC WxH NUM/DEN frames N extradata L
 *   frame I K OFF LEN KEY DEP DECODE   (K in presentation order)
 *   stream I audio CODEC FOURCC RATE CHANNELS BITS BLOCK BE FLOAT samples N
 *   chunk I J OFF FIRST COUNT
 *   packet I J OFF LEN PTS             (compressed audio)
 *   skipped WHY
 * The reader's messages go to stderr; exit 1 when it fails.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "media/mfile.h"
#include "util/diag.h"

static long read_at(void *ctx, uint64_t off, void *buf, size_t len)
{
	ssize_t n = pread(*(int *)ctx, buf, len, (off_t)off);

	return n < 0 ? -errno : (long)n;
}

static const char *fourcc(uint32_t t, char s[5])
{
	int i;

	for (i = 0; i < 4; i++) {
		unsigned char c = (unsigned char)(t >> (8 * i));

		s[i] = c > ' ' && c < 127 ? (char)c : '.';
	}
	s[4] = '\0';
	return t ? s : "-";
}

static void print_tc(const char *what, const struct eng_start_tc *tc)
{
	if (tc->present)
		printf("%s %" PRId64 " %u/%u %d\n", what, tc->frame,
		       tc->rate.num, tc->rate.den, tc->drop);
}

static void print(const struct eng_mfile *mf)
{
	size_t i, j;
	char s[5];

	printf("format %s\n", mf->format);
	if (mf->clip_name[0])
		printf("clip %s\n", mf->clip_name);
	if (mf->package[0])
		printf("package %s\n", mf->package);
	print_tc("tc", &mf->tc);
	printf("read %" PRIu64 "\n", mf->bytes_read);
	for (i = 0; i < mf->nstreams; i++) {
		const struct eng_essence *e = &mf->streams[i];

		if (e->kind == ENG_ESS_VIDEO) {
			printf(
			    "stream %d video %s %s %ux%u %u/%u frames %" PRId64
			    " extradata %zu len %" PRIu64 "-%" PRIu64 "\n",
			    e->index, e->codec, fourcc(e->fourcc, s), e->width,
			    e->height, e->fps.num, e->fps.den, e->nframes,
			    e->extradata_len, e->len_min, e->len_max);
			for (j = 0; j < (size_t)e->nframes; j++)
				printf("frame %d %zu %" PRIu64 " %u %d %" PRId64
				       " %" PRId64 "\n",
				       e->index, j, e->off[j], e->len[j],
				       !e->dep || e->dep[j] == (int64_t)j,
				       e->dep ? e->dep[j] : (int64_t)j,
				       e->decode ? e->decode[j] : (int64_t)j);
		} else {
			printf("stream %d audio %s %s %u %u %u %u %d %d "
			       "samples %" PRId64 "\n",
			       e->index, e->codec, fourcc(e->fourcc, s),
			       e->sample_rate, e->channels, e->bits, e->block,
			       e->big_endian, e->is_float, e->nsamples);
			for (j = 0; j < e->nchunks; j++)
				printf("chunk %d %zu %" PRIu64 " %" PRId64
				       " %u\n",
				       e->index, j, e->chunks[j].off,
				       e->chunks[j].first, e->chunks[j].count);
			for (j = 0; j < (size_t)e->npackets; j++)
				printf("packet %d %zu %" PRIu64 " %u %" PRId64
				       "\n", e->index, j, e->off[j], e->len[j],
				       e->pts[j]);
		}
		print_tc("streamtc", &e->tc);
	}
	if (mf->skipped[0])
		printf("skipped %s\n", mf->skipped);
}

int main(int argc, char **argv)
{
	struct eng_diag d = {0};
	struct eng_mfile *mf;
	struct eng_src src;
	struct stat sb;
	size_t i;
	int fd, rc;

	if (argc != 2) {
		fprintf(stderr, "usage: tlindex FILE\n");
		return 2;
	}
	fd = open(argv[1], O_RDONLY);
	if (fd < 0 || fstat(fd, &sb) < 0) {
		fprintf(stderr, "tlindex: cannot open %s: %s\n", argv[1],
			strerror(errno));
		return 1;
	}
	src.name = argv[1];
	src.size = (uint64_t)sb.st_size;
	src.read_at = read_at;
	src.ctx = &fd;
	mf = calloc(1, sizeof(*mf));
	if (!mf)
		return 1;
	rc = eng_mfile_read(&src, mf, &d);
	for (i = 0; i < d.n; i++)
		fprintf(stderr, "%s\n", d.msgs[i]);
	if (rc == 0)
		print(mf);
	else if (!d.n)
		fprintf(stderr, "tlindex: %s: %s\n", argv[1], strerror(-rc));
	eng_mfile_free(mf);
	eng_diag_free(&d);
	close(fd);
	return rc == 0 ? 0 : 1;
}
