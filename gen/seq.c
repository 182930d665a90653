/* SPDX-License-Identifier: MIT */
/*
 * timelinefs-gen --format of an image sequence (engine/media/seqgen.h):
 * each clip a folder DIR/CLIP of one file a frame, CLIP.NNNNNNN.EXT
 * numbered from --start-frame, as cameras and scanners name them.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gen.h"

int gen_run_seq(const char *dir, const struct gen_seq *s, int force)
{
	uint64_t bytes = eng_seqgen_file_bytes(&s->im), need;
	const char *ext = eng_seqgen_ext(s->im.kind);
	char clip[32], name[96], sub[4096], b1[32];
	unsigned char *buf;
	uint32_t i;
	int64_t k, len;
	uint64_t written = 0;
	int rc = 0;

	if (!bytes) {
		fprintf(stderr,
			PROG ": cannot write %" PRIu32 "x%" PRIu32
			     " %s files: too large for the format\n",
			s->im.width, s->im.height, ext);
		return EXIT_USAGE;
	}
	need = bytes * s->clips * (uint64_t)s->frames;
	if (!force && gen_check_space_bytes(dir, need, 0) < 0)
		return EXIT_IO;
	buf = malloc(bytes);
	if (!buf) {
		fprintf(stderr, PROG ": out of memory\n");
		return EXIT_IO;
	}
	if (gen_make_dir(dir) < 0)
		rc = -EIO;
	for (i = 0; rc == 0 && i < s->clips; i++) {
		uint64_t seed;

		eng_gen_clip_name(i, clip, sizeof(clip));
		seed = eng_gen_media_seed(s->seed, clip, "V");
		if (snprintf(sub, sizeof(sub), "%s/%s", dir, clip) >=
		    (int)sizeof(sub)) {
			fprintf(stderr, PROG ": path too long: %s\n", dir);
			rc = -ENAMETOOLONG;
			break;
		}
		rc = gen_make_dir(sub);
		for (k = 0; rc == 0 && k < s->frames; k++) {
			snprintf(name, sizeof(name), "%s.%07" PRId64 ".%s",
				 clip, s->start + k, ext);
			len = eng_seqgen_render(
			    &s->im, seed, eng_pic_clip_id(clip), (uint64_t)k,
			    s->start + k, s->fps, buf);
			if (len < 0) {
				fprintf(stderr, PROG ": cannot make %s: %s\n",
					name, strerror((int)-len));
				rc = (int)len;
				break;
			}
			rc = gen_write_text(sub, name, (const char *)buf,
					    (size_t)len);
			written += (uint64_t)len;
		}
	}
	free(buf);
	if (rc < 0)
		return EXIT_IO;
	gen_fmt_bytes(written, b1, sizeof(b1));
	printf("wrote %" PRIu32 " clips of %" PRId64 " frames (%s, %s%" PRIu64
	       " bytes a frame): %s/clip0001/clip0001.%07" PRId64 ".%s ...\n",
	       s->clips, s->frames, b1,
	       eng_seqgen_fixed(s->im.kind) ? "" : "at most ", bytes, dir,
	       s->start, ext);
	return 0;
}
