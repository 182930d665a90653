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
#include <strings.h>
#include <sys/stat.h>

#include "gen.h"
#include "media/imgseq.h"

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

/* The kind of stand-in image a sequence's suffix names, 0 for none. */
static uint32_t kind_of(const char *suffix)
{
	static const struct {
		const char *ext;
		uint32_t kind;
	} kinds[] = {
		{ ".dpx", ENG_SEQGEN_DPX10 }, { ".tif", ENG_SEQGEN_TIFF16 },
		{ ".tiff", ENG_SEQGEN_TIFF16 }, { ".exr", ENG_SEQGEN_EXR_RGB },
		{ ".raw", ENG_SEQGEN_RAW8 },
	};
	size_t n = strlen(suffix), i, e;

	for (i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		e = strlen(kinds[i].ext);
		if (n >= e && strcasecmp(suffix + n - e, kinds[i].ext) == 0)
			return kinds[i].kind;
	}
	return 0;
}

/* DIR/BASE made, folder by folder, into path[len]. */
static int make_base(const char *dir, const char *base, char *path,
		     size_t len)
{
	const char *p = base;
	size_t at;

	if ((size_t)snprintf(path, len, "%s", dir) >= len)
		return -ENAMETOOLONG;
	while (*p) {
		const char *e = strchr(p, '/');
		size_t n = e ? (size_t)(e - p) : strlen(p);

		at = strlen(path);
		if (at + 1 + n >= len)
			return -ENAMETOOLONG;
		path[at] = '/';
		memcpy(path + at + 1, p, n);
		path[at + 1 + n] = '\0';
		if (gen_make_dir(path) < 0)
			return -EIO;
		p += n + (e ? 1 : 0);
	}
	return 0;
}

/* Stand-in images of clip c's sequence: those track t's segments play
 * and that are not there yet. */
static int seq_track(const char *dir, const struct eng_timeline *tl,
		     size_t c, size_t t, uint64_t seed, unsigned *written)
{
	const struct eng_clip *cl = &tl->clips[c];
	const struct eng_seq_ref *r = cl->seq;
	const struct eng_track *tr = &tl->tracks[t];
	struct eng_seq_name leaf = {
		.base = "", .prefix = r->prefix, .suffix = r->suffix,
		.start = r->start, .step = r->step, .padding = r->padding,
	};
	struct eng_seqgen_image im = { kind_of(r->suffix), 64, 48 };
	unsigned char *buf = NULL;
	char folder[4096], name[256], path[4400];
	struct stat sb;
	size_t i;
	int64_t k;
	int rc;

	if (!im.kind) {
		fprintf(stderr, PROG ": %s:%u: clip %s: no stand-in images "
			"of a sequence named *%s (.dpx, .tif, .exr and .raw "
			"are made)\n", tl->path, r->line, cl->name, r->suffix);
		return -EINVAL;
	}
	/* the track's picture size, else small: stand-ins are for the
	 * reads, not the pictures */
	if (tr->pic.pix != ENG_PIX_NONE && tr->pic.width && tr->pic.height) {
		im.width = tr->pic.width;
		im.height = tr->pic.height;
	}
	rc = make_base(dir, r->base, folder, sizeof(folder));
	if (rc == 0 && !(buf = malloc(eng_seqgen_file_bytes(&im))))
		rc = -ENOMEM;
	for (i = 0; rc == 0 && i < tr->nsegs; i++) {
		const struct eng_segment *s = &tr->segs[i];

		if (s->clip != c)
			continue;
		/* an image before the first is the mount's message */
		for (k = r->origin + s->src_in < 0 ? 0 : r->origin + s->src_in;
		     rc == 0 && k < r->origin + s->src_in + s->frames; k++) {
			int64_t len;

			if (eng_seq_name_of(&leaf, k, name, sizeof(name)) < 0)
				break;
			snprintf(path, sizeof(path), "%s/%s", folder, name);
			if (lstat(path, &sb) == 0)
				continue;	/* kept: made before */
			len = eng_seqgen_render(&im, seed,
						eng_pic_clip_id(cl->name),
						(uint64_t)k, r->start + k * r->step,
						tl->fps, buf);
			if (len < 0)
				rc = (int)len;
			else
				rc = gen_write_text(folder, name,
						    (const char *)buf,
						    (size_t)len);
			*written += rc == 0;
		}
	}
	free(buf);
	return rc;
}

int gen_for_seqs(const char *dir, const struct eng_timeline *tl,
		 uint64_t seed, unsigned *written)
{
	size_t c, t;
	int rc = 0;

	for (c = 0; rc == 0 && c < tl->nclips; c++)
		for (t = 0; rc == 0 && tl->clips[c].seq && t < tl->ntracks;
		     t++)
			if (tl->tracks[t].media[0] == 'V')
				rc = seq_track(dir, tl, c, t,
					       eng_gen_media_seed(seed,
								  tl->clips[c].name,
								  "V"),
					       written);
	return rc;
}
