/* SPDX-License-Identifier: MIT */
/*
 * timelinefs-gen without --for: seeded random clips and timelines editing
 * them, planned whole (engine/media/genplan.c) before the disk is touched.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gen.h"

/* A clip's track: pictures and a tone when track V has a picture (seeded
 * per clip and track as --for seeds them: the same files either way),
 * else the random stream of (seed, clip, track) as before pictures. */
static int clip_src(const struct eng_gen_config *c, uint32_t i, uint32_t t,
		    const char *clip, const char *track, uint32_t rate,
		    struct gen_src *s)
{
	uint64_t seed = eng_gen_media_seed(c->seed, clip, track);

	if (c->pic.pix == ENG_PIX_NONE) {
		gen_src_random(s, eng_rng_derive(c->seed, i, t));
		return 0;
	}
	if (t == 0)
		return gen_src_picture(s, &c->pic, seed, clip);
	gen_src_tone(s, rate, seed, clip);
	return 0;
}

static int write_clips(const char *dir, const struct eng_gen_config *c,
		       const struct eng_gen_sizes *z)
{
	unsigned char hdr[ENG_GEN_WAV_HEADER], *buf;
	char clip[32], name[64], track[16];
	struct gen_src s;
	uint32_t i, t;
	int rc = 0;

	buf = malloc(BLOCK);
	if (!buf) {
		fprintf(stderr, PROG ": out of memory\n");
		return -ENOMEM;
	}
	eng_wav_header(hdr, z->sample_rate, 8 * ENG_GEN_AUDIO_ALIGN,
		       z->audio_bytes);
	for (i = 0; i < c->clips && rc == 0; i++) {
		eng_gen_clip_name(i, clip, sizeof(clip));
		snprintf(name, sizeof(name), "%s.V.raw", clip);
		rc = clip_src(c, i, 0, clip, "V", 0, &s);
		if (rc == 0)
			rc = gen_write_stream(dir, name, &s, NULL, 0,
					      z->video_bytes, 0, buf);
		gen_src_free(&s);
		for (t = 1; t <= c->audio_tracks && rc == 0; t++) {
			snprintf(track, sizeof(track), "A%" PRIu32, t);
			snprintf(name, sizeof(name), "%s.%s.wav", clip, track);
			clip_src(c, i, t, clip, track, z->sample_rate, &s);
			rc = gen_write_stream(dir, name, &s, hdr, sizeof(hdr),
					      z->audio_bytes,
					      (int)(z->audio_bytes & 1), buf);
		}
	}
	free(buf);
	return rc;
}

/* --codec: each clip's file(s), all tracks as long as the raw ones;
 * *bytes what was written. */
static int encode_clips(const char *dir, const struct eng_gen_config *c,
			const struct eng_gen_sizes *z,
			const struct gen_enc *enc, uint64_t *bytes,
			uint64_t *files)
{
	struct gen_enc_clip e;
	char clip[32], name[4096], track[16];
	uint32_t i, t;
	int rc = 0;

	*bytes = *files = 0;
	for (i = 0; i < c->clips && rc == 0; i++) {
		eng_gen_clip_name(i, clip, sizeof(clip));
		memset(&e, 0, sizeof(e));
		e.clip = clip;
		e.pic = &c->pic;
		e.fps = c->fps;
		e.frames = (int64_t)(z->video_bytes /
				     eng_picture_bytes(&c->pic));
		e.naudio = c->audio_tracks;
		e.sample_rate = z->sample_rate;
		e.samples = z->audio_bytes / 3;
		e.seed = c->seed;
		rc = gen_enc_write(dir, enc, &e);
		for (t = 0; rc == 0 && t <= c->audio_tracks; t++) {
			snprintf(track, sizeof(track), t ? "A%" PRIu32 : "V",
				 t);
			gen_enc_name(enc, clip, track, name, sizeof(name));
			if (t && (enc->cont == GEN_CONT_MOV ||
				  enc->cont == GEN_CONT_MXF))
				break; /* one file holds them all */
			*bytes += gen_held(dir, name);
			++*files;
		}
	}
	return rc;
}

static int check_space(const char *dir, const struct eng_gen_config *c,
		       const struct eng_gen_sizes *z, uint64_t text_bytes)
{
	char clip[32], name[64];
	uint64_t reclaim = 0;
	uint32_t i, t;

	for (i = 0; i < c->clips; i++) {
		eng_gen_clip_name(i, clip, sizeof(clip));
		snprintf(name, sizeof(name), "%s.V.raw", clip);
		reclaim += gen_held(dir, name);
		for (t = 1; t <= c->audio_tracks; t++) {
			snprintf(name, sizeof(name), "%s.A%" PRIu32 ".wav",
				 clip, t);
			reclaim += gen_held(dir, name);
		}
	}
	return gen_check_space_bytes(dir, z->media_bytes + text_bytes, reclaim);
}

struct tl_out {
	char *text;
	size_t len;
	int64_t frames;
};

int gen_run_random(const char *dir, const struct eng_gen_config *cfg,
		   int force, const struct gen_enc *enc)
{
	struct eng_gen_config c = *cfg;
	struct eng_gen_sizes z;
	struct eng_diag diag = {0};
	struct eng_gen_event *ev = NULL;
	struct tl_out *tls = NULL;
	char tldir[4096], name[64], b1[32], b2[32], b3[32];
	uint64_t text_bytes = 0, play_bytes = 0;
	int64_t play_frames = 0, lo = INT64_MAX, hi = 0;
	struct timespec t0, t1;
	double secs;
	int ret = EXIT_USAGE, rc;
	uint32_t i;

	if (eng_gen_check(&c, &z, &diag) < 0) {
		gen_print_diag(&diag);
		goto out;
	}
	if (enc->codec && gen_enc_check(enc, &c.pic, c.fps, 24) < 0)
		goto out;

	/* Plan everything before touching the disk: the space check
	 * needs the timelines' size, and a failure here writes nothing. */
	ret = EXIT_IO;
	ev = calloc(c.events, sizeof(*ev));
	tls = calloc(c.timelines, sizeof(*tls));
	if (!ev || !tls) {
		fprintf(stderr, PROG ": out of memory\n");
		goto out;
	}
	for (i = 0; i < c.timelines; i++) {
		rc = eng_gen_plan(&c, i, ev, &tls[i].frames);
		if (rc == 0)
			rc = eng_gen_tl_text(&c, i, ev, &tls[i].text,
					     &tls[i].len);
		if (rc < 0) {
			fprintf(stderr,
				PROG ": cannot plan timeline %" PRIu32 ": %s\n",
				i + 1, strerror(-rc));
			goto out;
		}
		text_bytes += tls[i].len;
	}

	if (snprintf(tldir, sizeof(tldir), "%s/timelines", dir) >=
	    (int)sizeof(tldir)) {
		fprintf(stderr, PROG ": path too long: %s\n", dir);
		goto out;
	}
	if (!force && check_space(dir, &c, &z, text_bytes) < 0)
		goto out;
	if (gen_make_dir(dir) < 0 || gen_make_dir(tldir) < 0)
		goto out;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (enc->codec ? encode_clips(dir, &c, &z, enc, &z.media_bytes,
				      &z.media_files) < 0
		       : write_clips(dir, &c, &z) < 0)
		goto out;
	for (i = 0; i < c.timelines; i++) {
		eng_gen_timeline_name(i, b1, sizeof(b1));
		snprintf(name, sizeof(name), "%s.tl", b1);
		if (gen_write_text(tldir, name, tls[i].text, tls[i].len) < 0)
			goto out;
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	secs = (double)(t1.tv_sec - t0.tv_sec) +
	       (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;

	gen_fmt_bytes(z.media_bytes, b1, sizeof(b1));
	gen_fmt_fps(c.fps, b3, sizeof(b3));
	printf("wrote %" PRIu32 " clip%s (%" PRIu64 " file%s, %s) and %" PRIu32
	       " timeline%s to %s in %.1f s",
	       c.clips, c.clips == 1 ? "" : "s", z.media_files,
	       z.media_files == 1 ? "" : "s", b1, c.timelines,
	       c.timelines == 1 ? "" : "s", dir, secs);
	if (secs > 0)
		printf(" (%.0f MB/s)", (double)z.media_bytes / secs / 1e6);
	printf("\n");
	for (i = 0; i < c.timelines; i++) {
		uint64_t bytes = eng_gen_timeline_bytes(&c, tls[i].frames);

		eng_gen_timeline_name(i, name, sizeof(name));
		gen_fmt_duration(tls[i].frames, c.fps, b1, sizeof(b1));
		gen_fmt_bytes(bytes, b2, sizeof(b2));
		printf("  timelines/%s.tl plays %s (%" PRId64 " frames at %s"
		       " fps, %s)\n",
		       name, b1, tls[i].frames, b3, b2);
		play_frames += tls[i].frames;
		play_bytes += bytes;
		if (tls[i].frames < lo)
			lo = tls[i].frames;
		if (tls[i].frames > hi)
			hi = tls[i].frames;
	}
	gen_fmt_duration(play_frames, c.fps, b1, sizeof(b1));
	gen_fmt_bytes(play_bytes, b2, sizeof(b2));
	printf("timelines play %s in total (%s), ", b1, b2);
	gen_fmt_duration(lo, c.fps, b1, sizeof(b1));
	gen_fmt_duration(hi, c.fps, b2, sizeof(b2));
	printf("from %s to %s each\n", b1, b2);
	ret = 0;
out:
	if (tls)
		for (i = 0; i < c.timelines; i++)
			free(tls[i].text);
	free(tls);
	free(ev);
	eng_diag_free(&diag);
	return ret;
}
