/* SPDX-License-Identifier: MIT */
/*
 * tlmov MEDIA_DIR TIMELINE.tl OUT.mov: write a timeline's movie (the
 * header of engine/media/mov.c, then the timeline's bytes read straight
 * from the clip files, zeros in gaps) so that real players can check it
 * (ffprobe, ffmpeg -f null, gst-discoverer-1.0).  A development check of
 * issue 20 before the mount serves NAME.mov; not part of make test.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "media/media.h"
#include "media/mov.h"
#include "timeline/layout.h"
#include "timeline/load.h"
#include "timeline/tl.h"
#include "util/diag.h"

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
			if (s.seg) {
				const char *f = tl->clips[s.seg->clip].media[i].file;
				int fd = openat(dirfd, f, O_RDONLY);

				if (fd < 0 || pread(fd, buf, s.len, (off_t)s.file_off) < 0) {
					perror(f);
					return 1;
				}
				close(fd);
			}
			if (!nonzero(buf, s.len))
				continue;
			if (pwrite(out, buf, s.len, (off_t)(m.head_len + s.pos)) !=
			    (ssize_t)s.len) {
				perror("tlmov: write");
				return 1;
			}
		}
	close(out);
	printf("%s: header %llu bytes, movie %llu bytes\n", argv[3],
	       (unsigned long long)m.head_len, (unsigned long long)m.size);
	free(buf);
	eng_mov_free(&m);
	eng_tl_free(tl);
	free(text);
	return 0;
}
