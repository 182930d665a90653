/* SPDX-License-Identifier: MIT */
/*
 * Logic of timelinefs-gen: the WAVE header, checking a config, and
 * planning/formatting the random timelines.  No file I/O here.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "media/genplan.h"
#include "media/media.h"
#include "timeline/layout.h"
#include "timeline/load.h"
#include "timeline/model.h"
#include "util/diag.h"
#include "util/rng.h"
#include "util/strbuf.h"
#include "util/values.h"

#define GEN_NAME "timelinefs-gen"
#define US_PER_SEC INT64_C(1000000)
#define MAX_WHOLE_SECONDS INT64_C(1000000000000) /* keeps us in int64_t */
/* Limits that keep every product below in range and names readable. */
#define MAX_CLIPS 1000000u
#define MAX_TIMELINES 100000u
#define MAX_EVENTS 10000000u
#define MAX_AUDIO_TRACKS 99u
#define MAX_RATE 1000000000000ULL	     /* 1 TB/s */
#define MAX_CLIP_US (1000000LL * US_PER_SEC) /* 11.5 days */

/* ---------------------------------------------------------------- wav */

static void put_le32(unsigned char *p, uint32_t v)
{
	p[0] = v & 0xff;
	p[1] = (v >> 8) & 0xff;
	p[2] = (v >> 16) & 0xff;
	p[3] = (v >> 24) & 0xff;
}

static void put_le16(unsigned char *p, uint16_t v)
{
	p[0] = v & 0xff;
	p[1] = (v >> 8) & 0xff;
}

void eng_wav_header(unsigned char out[44], uint32_t sample_rate, uint16_t bits,
		    uint64_t data_bytes)
{
	uint32_t block = (bits + 7) / 8; /* one channel */
	/* RIFF sizes are 32-bit; an odd data chunk is followed by a pad
	 * byte that the RIFF size counts.  Too large sizes saturate, as
	 * streaming writers do. */
	uint64_t riff = 36 + data_bytes + (data_bytes & 1);

	memcpy(out, "RIFF", 4);
	put_le32(out + 4, riff > UINT32_MAX ? UINT32_MAX : (uint32_t)riff);
	memcpy(out + 8, "WAVE", 4);
	memcpy(out + 12, "fmt ", 4);
	put_le32(out + 16, 16); /* fmt chunk size */
	put_le16(out + 20, 1);	/* WAVE_FORMAT_PCM */
	put_le16(out + 22, 1);	/* channels */
	put_le32(out + 24, sample_rate);
	put_le32(out + 28, (uint32_t)((uint64_t)sample_rate * block));
	put_le16(out + 32, (uint16_t)block); /* block align */
	put_le16(out + 34, bits);
	memcpy(out + 36, "data", 4);
	put_le32(out + 40,
		 data_bytes > UINT32_MAX ? UINT32_MAX : (uint32_t)data_bytes);
}

/* ---------------------------------------------------------------- values */

int eng_gen_parse_seconds(const char *s, int64_t *us)
{
	int64_t whole = 0, frac = 0;
	int nfrac = 0, nwhole = 0;

	if (!s)
		return -EINVAL;
	for (; *s >= '0' && *s <= '9'; s++, nwhole++) {
		whole = whole * 10 + (*s - '0');
		if (whole > MAX_WHOLE_SECONDS)
			return -ERANGE;
	}
	if (*s == '.') {
		for (s++; *s >= '0' && *s <= '9'; s++, nfrac++) {
			if (nfrac == 6)
				return -EINVAL; /* finer than 1 us */
			frac = frac * 10 + (*s - '0');
		}
		if (nfrac == 0)
			return -EINVAL;
	}
	if (*s || nwhole == 0)
		return -EINVAL;
	for (; nfrac < 6; nfrac++)
		frac *= 10;
	*us = whole * US_PER_SEC + frac;
	return 0;
}

void eng_gen_seconds_str(int64_t us, char *buf, size_t len)
{
	char frac[8];
	int i;

	if (!len)
		return;
	if (us < 0)
		us = 0;
	if (us % US_PER_SEC == 0) {
		snprintf(buf, len, "%" PRId64, us / US_PER_SEC);
		return;
	}
	snprintf(frac, sizeof(frac), "%06" PRId64, us % US_PER_SEC);
	for (i = 5; i > 0 && frac[i] == '0'; i--)
		frac[i] = '\0';
	snprintf(buf, len, "%" PRId64 ".%s", us / US_PER_SEC, frac);
}

int64_t eng_gen_frames(int64_t us, struct eng_fps fps)
{
	unsigned __int128 n, d;

	if (us <= 0 || fps.den == 0)
		return 0;
	n = (unsigned __int128)us * fps.num;
	d = (unsigned __int128)US_PER_SEC * fps.den;
	return (int64_t)((2 * n + d) / (2 * d));
}

static void fps_str(struct eng_fps fps, char *buf, size_t len)
{
	if (fps.den == 1)
		snprintf(buf, len, "%" PRIu32, fps.num);
	else
		snprintf(buf, len, "%" PRIu32 "/%" PRIu32, fps.num, fps.den);
}

/* ---------------------------------------------------------------- config */

/* The seed's picture: the report that motivated timelinefs read one
 * ~18 MB/s video file per clip at 29.97 fps.  Uncompressed 8-bit 4:2:2
 * of about that rate is SD: 640x480 2vuy (square-pixel 4:3 NTSC, the
 * size a computer shows SD at) is 614400 bytes a frame, 18.41 MB/s at
 * 30000/1001, 2.3 % above the seed's 18 MB/s; 720x486 (sd-ntsc, BT.601)
 * would be 20.97 MB/s, 17 % above. */
static const struct eng_picture seed_picture = {ENG_PIX_2VUY, 640, 480};

void eng_gen_config_default(struct eng_gen_config *c)
{
	memset(c, 0, sizeof(*c));
	c->clips = ENG_GEN_CLIPS;
	c->clip_us = ENG_GEN_CLIP_MS * (US_PER_SEC / 1000);
	c->timelines = ENG_GEN_TIMELINES;
	c->events = ENG_GEN_EVENTS;
	c->min_us = ENG_GEN_MIN_MS * (US_PER_SEC / 1000);
	c->max_us = ENG_GEN_MAX_MS * (US_PER_SEC / 1000);
	c->fps.num = ENG_GEN_FPS_NUM;
	c->fps.den = ENG_GEN_FPS_DEN;
	c->pic = seed_picture;
	c->video_rate = eng_gen_picture_rate(&c->pic, c->fps);
	c->audio_tracks = ENG_GEN_AUDIO_TRACKS;
	c->audio_rate = ENG_GEN_AUDIO_RATE;
	c->seed = ENG_GEN_SEED;
}

uint64_t eng_gen_picture_rate(const struct eng_picture *p, struct eng_fps fps)
{
	unsigned __int128 n = (unsigned __int128)eng_picture_bytes(p) * fps.num;

	return fps.den ? (uint64_t)((n + fps.den - 1) / fps.den) : 0;
}

/* Bytes of track V before frame k: a picture track's align is a frame. */
static uint64_t video_upto(const struct eng_gen_config *c, int64_t k)
{
	uint64_t fs = eng_picture_bytes(&c->pic);

	return eng_upto_rate(c->video_rate, fs ? (uint32_t)fs : 1, c->fps, k);
}

static void count_check(struct eng_diag *diag, int *bad, const char *opt,
			uint64_t v, uint64_t lo, uint64_t hi)
{
	if (v >= lo && v <= hi)
		return;
	eng_diag_add(diag, GEN_NAME, 0,
		     "%s %" PRIu64 " is out of range "
		     "(%" PRIu64 " to %" PRIu64 ")",
		     opt, v, lo, hi);
	*bad = 1;
}

int eng_gen_check(const struct eng_gen_config *c, struct eng_gen_sizes *out,
		  struct eng_diag *diag)
{
	struct eng_gen_sizes z = {0};
	char a[32], b[32], f[32], why[128];
	unsigned __int128 total;
	int bad = 0;

	count_check(diag, &bad, "--clips", c->clips, 1, MAX_CLIPS);
	count_check(diag, &bad, "--timelines", c->timelines, 1, MAX_TIMELINES);
	count_check(diag, &bad, "--events", c->events, 1, MAX_EVENTS);
	count_check(diag, &bad, "--audio-tracks", c->audio_tracks, 0,
		    MAX_AUDIO_TRACKS);
	count_check(diag, &bad, "--video-rate", c->video_rate, 1, MAX_RATE);
	if (c->pic.pix != ENG_PIX_NONE &&
	    c->video_rate != eng_gen_picture_rate(&c->pic, c->fps)) {
		eng_diag_add(diag, GEN_NAME, 0,
			     "video rate %" PRIu64 " is not the rate of a %s "
			     "%" PRIu32 "x%" PRIu32 " picture track",
			     c->video_rate, eng_pix_name(c->pic.pix),
			     c->pic.width, c->pic.height);
		bad = 1;
	}
	count_check(diag, &bad, "--audio-rate", c->audio_rate, 1, MAX_RATE);
	/* 0 is out of range above */
	if (c->audio_rate &&
	    eng_audio_rate_check(c->audio_rate, ENG_GEN_AUDIO_ALIGN, why,
				 sizeof(why)) < 0) {
		eng_diag_add(diag, GEN_NAME, 0, "--audio-rate %" PRIu64 ": %s",
			     c->audio_rate, why);
		bad = 1;
	}
	if (c->fps.num == 0 || c->fps.den == 0) {
		eng_diag_add(diag, GEN_NAME, 0, "--fps must be positive");
		return -EINVAL; /* nothing below makes sense without it */
	}
	fps_str(c->fps, f, sizeof(f));
	z.clip_frames = eng_gen_frames(c->clip_us, c->fps);
	z.min_frames = eng_gen_frames(c->min_us, c->fps);
	z.max_frames = eng_gen_frames(c->max_us, c->fps);
	if (c->clip_us > MAX_CLIP_US) {
		eng_gen_seconds_str(c->clip_us, a, sizeof(a));
		eng_diag_add(diag, GEN_NAME, 0, "--clip-seconds %s is too long",
			     a);
		return -EINVAL;
	}
	if (z.clip_frames < 1) {
		eng_gen_seconds_str(c->clip_us, a, sizeof(a));
		eng_diag_add(diag, GEN_NAME, 0,
			     "--clip-seconds %s is less "
			     "than one frame at %s fps",
			     a, f);
		bad = 1;
	}
	if (z.min_frames < 1) {
		eng_gen_seconds_str(c->min_us, a, sizeof(a));
		eng_diag_add(diag, GEN_NAME, 0,
			     "--min-seconds %s is less "
			     "than one frame at %s fps",
			     a, f);
		bad = 1;
	}
	if (c->min_us > c->max_us) {
		eng_gen_seconds_str(c->min_us, a, sizeof(a));
		eng_gen_seconds_str(c->max_us, b, sizeof(b));
		eng_diag_add(diag, GEN_NAME, 0,
			     "--min-seconds %s is longer "
			     "than --max-seconds %s",
			     a, b);
		bad = 1;
	}
	/* Comparing the given seconds (not frames) keeps the message true
	 * to what the user typed; rounding is monotonic, so it implies
	 * max_frames <= clip_frames. */
	if (c->max_us > c->clip_us) {
		eng_gen_seconds_str(c->max_us, a, sizeof(a));
		eng_gen_seconds_str(c->clip_us, b, sizeof(b));
		eng_diag_add(diag, GEN_NAME, 0,
			     "--max-seconds %s is longer "
			     "than --clip-seconds %s",
			     a, b);
		bad = 1;
	}
	if (bad)
		return -EINVAL;
	z.sample_rate = (uint32_t)(c->audio_rate / ENG_GEN_AUDIO_ALIGN);
	z.video_bytes = video_upto(c, z.clip_frames);
	z.audio_bytes = eng_upto_rate(c->audio_rate, ENG_GEN_AUDIO_ALIGN,
				      c->fps, z.clip_frames);
	z.audio_file = ENG_GEN_WAV_HEADER + z.audio_bytes + (z.audio_bytes & 1);
	z.media_files = (uint64_t)c->clips * (1 + c->audio_tracks);
	total = ((unsigned __int128)z.video_bytes +
		 (unsigned __int128)z.audio_file * c->audio_tracks) *
		c->clips;
	if (total > UINT64_MAX / 2) {
		eng_diag_add(diag, GEN_NAME, 0, "the clips would be too large");
		return -EINVAL;
	}
	z.media_bytes = (uint64_t)total;
	if (out)
		*out = z;
	return 0;
}

/* ---------------------------------------------------------------- formats */

/* Bytes per second of a format with a fixed frame size, rounded down;
 * PICTURE_RATE rounded up, a picture track's (eng_gen_picture_rate). */
#define FRAME_RATE(bytes, num, den) ((uint64_t)(bytes) * (num) / (den))
#define PICTURE_RATE(bytes, num, den)                                         \
	(((uint64_t)(bytes) * (num) + (den) - 1) / (den))
/* 48 kHz, 24-bit mono PCM: the rate of every preset's audio track. */
#define AUDIO_48K_24 (48000u * ENG_GEN_AUDIO_ALIGN)
#define NTSC 30000, 1001
#define NOPIC {ENG_PIX_NONE, 0, 0}
#define SRC_601 "ITU-R BT.601 (720 samples per line, 8-bit 4:2:2 = 2 bytes/pixel)"
#define SRC_V210                                                              \
	"Apple, Uncompressed Y'CbCr Video in QuickTime Files: v210 packs "    \
	"48 pixels in 128 bytes (5120 bytes per 1920-pixel line); "           \
	"SMPTE ST 274 (1080 lines)"
#define SRC_PRORES                                                            \
	"Apple ProRes White Paper (April 2022), Appendix: Target Data Rates " \
	"(targets; real files are typically 5-10 % lower)"
#define SRC_VC3_HD                                                            \
	"SMPTE ST 2019-1 (VC-3), compression ID 1235: 1920x1080p 10-bit, "     \
	"917504 bytes per frame"
#define SRC_DNXHR                                                             \
	"Avid, DNxHR Codec Bandwidth Specifications: DNxHR HQX 3840x2160, "   \
	"3641344 bytes per frame"

/* Frame rates and data rates of real formats, each with its source, so a
 * benchmark's "MB/s per workstation" is one a user can look up. */
static const struct eng_gen_format formats[] = {
	{"seed", "the seed scenario (default): 640x480 8-bit 4:2:2 UYVY "
	 "uncompressed, 18.4 MB/s, 2 audio tracks",
	 "the report that motivated timelinefs: one ~18 MB/s video and two "
	 "audio files per clip; 640x480 is square-pixel 4:3 NTSC SD",
	 {NTSC}, 614400, PICTURE_RATE(614400, 30000, 1001), 2, AUDIO_48K_24,
	 {ENG_PIX_2VUY, 640, 480}},
	{"sd-ntsc", "SD 525/59.94: 720x486 8-bit 4:2:2 UYVY uncompressed",
	 SRC_601 "; SMPTE 125M (486 active lines)",
	 {NTSC}, 699840, PICTURE_RATE(699840, 30000, 1001), 2, AUDIO_48K_24,
	 {ENG_PIX_2VUY, 720, 486}},
	{"sd-pal", "SD 625/50: 720x576 8-bit 4:2:2 UYVY uncompressed, 25 fps",
	 SRC_601 "; 625-line system (576 active lines)",
	 {25, 1}, 829440, PICTURE_RATE(829440, 25, 1), 2, AUDIO_48K_24,
	 {ENG_PIX_2VUY, 720, 576}},
	{"v210-1080p29.97", "HD 1920x1080p 10-bit 4:2:2 v210 uncompressed",
	 SRC_V210, {NTSC}, 5529600, PICTURE_RATE(5529600, 30000, 1001), 4,
	 AUDIO_48K_24, {ENG_PIX_V210, 1920, 1080}},
	{"v210-1080p25", "HD 1920x1080p 10-bit 4:2:2 v210 uncompressed, 25 fps",
	 SRC_V210, {25, 1}, 5529600, PICTURE_RATE(5529600, 25, 1), 4,
	 AUDIO_48K_24, {ENG_PIX_V210, 1920, 1080}},
	{"prores-hq-1080p29.97", "Apple ProRes 422 HQ 1920x1080p, 220 Mb/s",
	 SRC_PRORES, {NTSC}, 0, 220000000 / 8, 4, AUDIO_48K_24, NOPIC},
	{"prores-hq-1080p25", "Apple ProRes 422 HQ 1920x1080p, 184 Mb/s",
	 SRC_PRORES, {25, 1}, 0, 184000000 / 8, 4, AUDIO_48K_24, NOPIC},
	{"prores-hq-uhd29.97", "Apple ProRes 422 HQ 3840x2160p, 884 Mb/s",
	 SRC_PRORES, {NTSC}, 0, 884000000 / 8, 4, AUDIO_48K_24, NOPIC},
	{"prores-hq-uhd25", "Apple ProRes 422 HQ 3840x2160p, 737 Mb/s",
	 SRC_PRORES, {25, 1}, 0, 737000000 / 8, 4, AUDIO_48K_24, NOPIC},
	{"dnxhd-220x-1080p29.97", "Avid DNxHD 220x 1920x1080p 10-bit",
	 SRC_VC3_HD, {NTSC}, 917504, FRAME_RATE(917504, 30000, 1001), 4,
	 AUDIO_48K_24, NOPIC},
	{"dnxhd-185x-1080p25", "Avid DNxHD 185x 1920x1080p 10-bit, 25 fps",
	 SRC_VC3_HD, {25, 1}, 917504, FRAME_RATE(917504, 25, 1), 4,
	 AUDIO_48K_24, NOPIC},
	{"dnxhr-hqx-uhd29.97", "Avid DNxHR HQX 3840x2160p 10/12-bit",
	 SRC_DNXHR, {NTSC}, 3641344, FRAME_RATE(3641344, 30000, 1001), 4,
	 AUDIO_48K_24, NOPIC},
	{"dnxhr-hqx-uhd25", "Avid DNxHR HQX 3840x2160p 10/12-bit, 25 fps",
	 SRC_DNXHR, {25, 1}, 3641344, FRAME_RATE(3641344, 25, 1), 4,
	 AUDIO_48K_24, NOPIC},
};

const struct eng_gen_format *eng_gen_formats(size_t *n)
{
	*n = sizeof(formats) / sizeof(formats[0]);
	return formats;
}

const struct eng_gen_format *eng_gen_format_find(const char *name)
{
	size_t i;

	if (!name)
		return NULL;
	for (i = 0; i < sizeof(formats) / sizeof(formats[0]); i++)
		if (strcmp(formats[i].name, name) == 0)
			return &formats[i];
	return NULL;
}

void eng_gen_format_apply(struct eng_gen_config *c,
			  const struct eng_gen_format *f)
{
	c->fps = f->fps;
	c->video_rate = f->video_rate;
	c->audio_tracks = f->audio_tracks;
	c->audio_rate = f->audio_rate;
	c->pic = f->pic;
}

/* ---------------------------------------------------------------- plan */

int eng_gen_plan(const struct eng_gen_config *c, uint32_t index,
		 struct eng_gen_event *ev, int64_t *frames)
{
	struct eng_gen_sizes z;
	struct eng_rng r;
	int64_t total = 0;
	uint32_t i;

	if (eng_gen_check(c, &z, NULL) < 0 || index >= c->timelines)
		return -EINVAL;
	eng_rng_seed(
	    &r, eng_rng_derive(c->seed, ENG_GEN_TIMELINE_DOMAIN | index, 0));
	for (i = 0; i < c->events; i++) {
		ev[i].clip = (uint32_t)eng_rng_range(&r, 0, c->clips - 1);
		ev[i].frames = (int64_t)eng_rng_range(
		    &r, (uint64_t)z.min_frames, (uint64_t)z.max_frames);
		ev[i].src_in = (int64_t)eng_rng_range(
		    &r, 0, (uint64_t)(z.clip_frames - ev[i].frames));
		total += ev[i].frames;
	}
	*frames = total;
	return 0;
}

uint64_t eng_gen_timeline_bytes(const struct eng_gen_config *c, int64_t frames)
{
	return video_upto(c, frames) +
	       c->audio_tracks * eng_upto_rate(c->audio_rate,
					       ENG_GEN_AUDIO_ALIGN, c->fps,
					       frames);
}

void eng_gen_clip_name(uint32_t clip, char *buf, size_t len)
{
	snprintf(buf, len, "clip%04" PRIu32, clip + 1);
}

void eng_gen_timeline_name(uint32_t index, char *buf, size_t len)
{
	snprintf(buf, len, "timeline%02" PRIu32, index + 1);
}

/* ---------------------------------------------------------------- text */

/* The first preset with picture p: the --format that gives it. */
static const char *picture_preset(const struct eng_picture *p)
{
	size_t i;

	for (i = 0; i < sizeof(formats) / sizeof(formats[0]); i++)
		if (!memcmp(&formats[i].pic, p, sizeof(*p)))
			return formats[i].name;
	return "?";
}

int eng_gen_tl_text(const struct eng_gen_config *c, uint32_t index,
		    const struct eng_gen_event *ev, char **text, size_t *len)
{
	struct eng_gen_sizes z;
	struct eng_strbuf b = {0};
	char clip[32], mn[32], mx[32], cs[32], f[32], tracks[512];
	int64_t frames = 0;
	uint32_t i, t;
	size_t tl;
	int rc;

	if (eng_gen_check(c, &z, NULL) < 0 || index >= c->timelines)
		return -EINVAL;
	for (i = 0; i < c->events; i++)
		frames += ev[i].frames;
	eng_gen_seconds_str(c->clip_us, cs, sizeof(cs));
	eng_gen_seconds_str(c->min_us, mn, sizeof(mn));
	eng_gen_seconds_str(c->max_us, mx, sizeof(mx));
	fps_str(c->fps, f, sizeof(f));
	/* The comment is the command that regenerates this timeline. */
	eng_strbuf_printf(&b,
		  "# generated by timelinefs-gen %s: timeline %" PRIu32
		  " of %" PRIu32 ", %" PRIu32 " events, %" PRId64 " frames\n",
		  ENG_GEN_VERSION, index + 1, c->timelines, c->events, frames);
	eng_strbuf_printf(&b,
		  "# timelinefs-gen --seed %" PRIu64 " --clips %" PRIu32
		  " --clip-seconds %s --timelines %" PRIu32 " --events %" PRIu32
		  " --min-seconds %s --max-seconds %s --fps %s",
		  c->seed, c->clips, cs, c->timelines, c->events, mn, mx, f);
	/* a picture comes from its preset (--fps keeps it, --video-rate
	 * would make V a rate track) */
	if (c->pic.pix != ENG_PIX_NONE)
		eng_strbuf_printf(&b, " --format %s", picture_preset(&c->pic));
	else
		eng_strbuf_printf(&b, " --video-rate %" PRIu64, c->video_rate);
	eng_strbuf_printf(&b, " --audio-tracks %" PRIu32
		  " --audio-rate %" PRIu64 "\n", c->audio_tracks, c->audio_rate);
	eng_strbuf_printf(&b, "fps %" PRIu32 "/%" PRIu32 "\n", c->fps.num, c->fps.den);
	if (c->pic.pix != ENG_PIX_NONE)
		eng_strbuf_printf(&b, "track V %s %" PRIu32 "x%" PRIu32 "\n",
				  eng_pix_name(c->pic.pix), c->pic.width,
				  c->pic.height);
	else
		eng_strbuf_printf(&b, "track V %" PRIu64 "\n", c->video_rate);
	strcpy(tracks, "V");
	tl = 1;
	for (t = 1; t <= c->audio_tracks; t++) {
		eng_strbuf_printf(&b, "track A%" PRIu32 " %" PRIu64 " align=%d\n", t,
			  c->audio_rate, ENG_GEN_AUDIO_ALIGN);
		tl += (size_t)snprintf(tracks + tl, sizeof(tracks) - tl,
				       ",A%" PRIu32, t);
	}
	for (i = 0; i < c->events; i++) {
		eng_gen_clip_name(ev[i].clip, clip, sizeof(clip));
		eng_strbuf_printf(&b, "event %s %s %" PRId64 " %" PRId64 "\n", tracks,
			  clip, ev[i].src_in, ev[i].frames);
	}
	if (b.err) {
		rc = b.err;
		free(b.p);
		return rc;
	}
	*text = b.p;
	*len = b.len;
	return 0;
}

/* ---------------------------------------------------------------- --for */

/* FNV-1a: a stable 64-bit digest of a name for eng_gen_media_seed. */
static uint64_t fnv1a64(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	for (; *s; s++) {
		h ^= (unsigned char)*s;
		h *= 0x100000001b3ULL;
	}
	return h;
}

uint64_t eng_gen_media_seed(uint64_t seed, const char *clip,
			    const char *track)
{
	return eng_rng_derive(seed, fnv1a64(clip), fnv1a64(track));
}

int eng_gen_track_is_audio(const char *track)
{
	return track[0] == 'A';
}

uint64_t eng_gen_media_file_bytes(const struct eng_gen_media *m)
{
	if (!m->wav)
		return m->bytes;
	return ENG_GEN_WAV_HEADER + m->bytes + (m->bytes & 1);
}

void eng_gen_media_free(struct eng_gen_media_plan *p)
{
	size_t i;

	for (i = 0; i < p->n; i++) {
		free(p->files[i].clip);
		free(p->files[i].file);
	}
	free(p->files);
	memset(p, 0, sizeof(*p));
}

static struct eng_gen_media *plan_find(struct eng_gen_media_plan *p,
				       const char *clip, const char *track)
{
	size_t i;

	for (i = 0; i < p->n; i++)
		if (strcmp(p->files[i].track, track) == 0 &&
		    strcmp(p->files[i].clip, clip) == 0)
			return &p->files[i];
	return NULL;
}

/* Whether a track of tl has pictures: its media are made to be watched. */
static int has_picture(const struct eng_timeline *tl)
{
	size_t t;

	for (t = 0; t < tl->ntracks; t++)
		if (tl->tracks[t].pic.pix != ENG_PIX_NONE)
			return 1;
	return 0;
}

/* A new file of the plan for (clip, track t of tl), needing no bytes yet. */
static int plan_new(struct eng_gen_media_plan *p, const struct eng_timeline *tl,
		    size_t clip, size_t t, uint64_t seed,
		    struct eng_gen_media **out)
{
	const struct eng_track *tr = &tl->tracks[t];
	const char *name = tl->clips[clip].name;
	struct eng_gen_media *m;
	uint64_t srate = tr->rate / tr->align;

	if (p->n == p->cap) {
		size_t cap = p->cap ? p->cap * 2 : 64;

		m = realloc(p->files, cap * sizeof(*m));
		if (!m)
			return -ENOMEM;
		p->files = m;
		p->cap = cap;
	}
	m = &p->files[p->n];
	memset(m, 0, sizeof(*m));
	/* A WAVE header holds bits per sample in 16 bits and the sample
	 * rate in 32: a track beyond that gets raw essence instead. */
	m->wav = eng_gen_track_is_audio(tr->media) && tr->align <= 8191 &&
		 srate >= 1 && srate <= UINT32_MAX;
	m->sample_rate = m->wav ? (uint32_t)srate : 0;
	m->bits = m->wav ? (uint16_t)(tr->align * 8) : 0;
	m->clip = strdup(name);
	if (!m->clip ||
	    asprintf(&m->file, "%s.%s.%s", name, tr->media,
		     m->wav ? "wav" : "raw") < 0) {
		free(m->clip);
		return -ENOMEM;
	}
	strcpy(m->track, tr->media);
	m->seed = eng_gen_media_seed(seed, name, tr->media);
	if (!eng_gen_track_is_audio(tr->media))
		m->pic = tr->pic;
	m->tone = m->wav && m->bits == 24 && has_picture(tl);
	p->n++;
	*out = m;
	return 0;
}

/* The need of every segment of tl, into the plan: new files for pairs not
 * planned yet, unless `widen` (then only planned files grow, and seen[i]
 * is set for each planned file tl reads). */
static int media_need(struct eng_gen_media_plan *p,
		      const struct eng_timeline *tl, uint64_t seed, int widen,
		      unsigned char *seen, struct eng_diag *diag)
{
	size_t t, i;
	int rc, bad = 0;

	for (t = 0; t < tl->ntracks; t++) {
		const struct eng_track *tr = &tl->tracks[t];

		for (i = 0; i < tr->nsegs; i++) {
			const struct eng_segment *s = &tr->segs[i];
			const char *clip = tl->clips[s->clip].name;
			/* a transition track reads its main track's file */
			struct eng_gen_media *m = plan_find(p, clip, tr->media);
			uint64_t need;

			/* a sequence's images on a video track are no file
			 * of the plan (timelinefs-gen --for writes them) */
			if (tl->clips[s->clip].seq && tr->media[0] == 'V')
				continue;
			/* nor a recorded clip's: the mount records it
			 * (media.h rule 4), a file in MEDIA_DIR is not it */
			if (tl->clips[s->clip].record)
				continue;
			if (!m && widen)
				continue;
			if (!m) {
				rc = plan_new(p, tl, s->clip, t, seed, &m);
				if (rc < 0)
					return rc;
			}
			if (seen)
				seen[m - p->files] = 1;
			if (eng_segment_bytes_needed(tl, t, s, &need) < 0) {
				if (!m->too_big)
					eng_diag_add(diag, tl->path, s->line,
						     "clip %s track %s: the event reads past 2^64 bytes",
						     clip, tr->name);
				m->too_big = 1;
				bad = 1;
				continue;
			}
			if (need > m->bytes)
				m->bytes = need;
		}
	}
	return bad ? -EINVAL : 0;
}

int eng_gen_media_add(struct eng_gen_media_plan *p,
		      const struct eng_timeline *tl, uint64_t seed,
		      struct eng_diag *diag)
{
	return media_need(p, tl, seed, 0, NULL, diag);
}

int eng_gen_media_widen(struct eng_gen_media_plan *p,
			const struct eng_timeline *tl, struct eng_diag *diag)
{
	unsigned char *seen;
	size_t i, n = 0;
	int rc;

	seen = calloc(p->n + 1, 1);
	if (!seen)
		return -ENOMEM;
	rc = media_need(p, tl, 0, 1, seen, diag);
	for (i = 0; i < p->n; i++)
		n += seen[i];
	free(seen);
	return rc < 0 ? rc : (int)(n > INT32_MAX ? INT32_MAX : n);
}

static uint16_t le16_at(const unsigned char *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static uint32_t le32_at(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

/* The fmt chunk of a RIFF/WAVE in head[0..n): 0, or -EINVAL. */
static int wav_fmt(const unsigned char *head, size_t n, uint16_t *format,
		   uint16_t *channels, uint32_t *rate, uint16_t *bits)
{
	uint64_t pos = 12;

	if (n < 12 || memcmp(head + 8, "WAVE", 4) != 0 ||
	    (memcmp(head, "RIFF", 4) != 0 && memcmp(head, "RF64", 4) != 0))
		return -EINVAL;
	while (pos + 8 <= n) {
		uint32_t csize = le32_at(head + pos + 4);

		if (memcmp(head + pos, "fmt ", 4) == 0) {
			if (csize < 16 || pos + 24 > n)
				return -EINVAL;
			*format = le16_at(head + pos + 8);
			*channels = le16_at(head + pos + 10);
			*rate = le32_at(head + pos + 12);
			*bits = le16_at(head + pos + 22);
			return 0;
		}
		pos += 8 + (uint64_t)csize + (csize & 1);
	}
	return -EINVAL;
}

int eng_gen_media_existing(struct eng_gen_media *m, const unsigned char *head,
			   size_t n, uint64_t size, char *why, size_t len)
{
	uint16_t format, channels, bits;
	uint64_t off, essence = size;
	uint32_t rate;

	if (m->wav) {
		if (wav_fmt(head, n, &format, &channels, &rate, &bits) < 0 ||
		    eng_wav_data(head, n, &off, &essence) < 0 || off > size) {
			snprintf(why, len,
				 "is not a RIFF/WAVE file with its fmt and "
				 "data chunks in the first %zu bytes",
				 n);
			return -EINVAL;
		}
		if (format != 1 || channels != 1 || rate != m->sample_rate ||
		    bits != m->bits) {
			char ch[32], fmt[32] = "";

			if (channels == 1)
				snprintf(ch, sizeof(ch), "mono");
			else
				snprintf(ch, sizeof(ch), "%" PRIu16 " channels",
					 channels);
			if (format != 1)
				snprintf(fmt, sizeof(fmt),
					 " (format 0x%04" PRIx16 ", not PCM)",
					 format);
			snprintf(why, len,
				 "is a WAVE file of %" PRIu32 " Hz %" PRIu16
				 "-bit %s%s, not the %" PRIu32 " Hz %" PRIu16
				 "-bit mono PCM these timelines need",
				 rate, bits, ch, fmt, m->sample_rate, m->bits);
			return -EINVAL;
		}
		/* a header may promise more than was written (as the mount) */
		if (essence > size - off)
			essence = size - off;
	}
	m->had = essence;
	if (essence > m->bytes)
		m->bytes = essence;
	return 0;
}
