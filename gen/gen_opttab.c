/* SPDX-License-Identifier: MIT */
/*
 * timelinefs-gen's options, one row each (util/optdoc.h): -h's list, the
 * man page's OPTIONS items (make docs-options) and getopt's table come
 * from these rows; the defaults are eng_gen_config_default's constants.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gen.h"

#define ROW(name, arg, type, def, def_n, help, more, key) \
	{ name, arg, type, def, def_n, 0, 0, help, more, 0, key }

const struct eng_optdoc gen_optdocs[] = {
	ROW("clips", "N", ENG_OT_UINT, NULL, ENG_GEN_CLIPS,
	    "clips to write", NULL, OPT_CLIPS),
	ROW("clip-seconds", "S", ENG_OT_MS, NULL, ENG_GEN_CLIP_MS,
	    "length of every clip, decimals allowed", NULL, OPT_CLIP_SECONDS),
	ROW("timelines", "N", ENG_OT_UINT, NULL, ENG_GEN_TIMELINES,
	    "timelines to write", NULL, OPT_TIMELINES),
	ROW("events", "N", ENG_OT_UINT, NULL, ENG_GEN_EVENTS,
	    "events per timeline", NULL, OPT_EVENTS),
	ROW("min-seconds", "S", ENG_OT_MS, NULL, ENG_GEN_MIN_MS,
	    "shortest event", NULL, OPT_MIN_SECONDS),
	ROW("max-seconds", "S", ENG_OT_MS, NULL, ENG_GEN_MAX_MS,
	    "longest event, at most *--clip-seconds*", NULL, OPT_MAX_SECONDS),
	ROW("fps", "R", ENG_OT_TEXT, "{fps}", 0,
	    "frame rate: 30000/1001, 29.97, 25", NULL, OPT_FPS),
	ROW("video-rate", "BYTES", ENG_OT_TEXT,
	    "the picture's rate, {video_rate}", 0,
	    "video bytes per second: 18000000, 18M, 18Mi; the video is then "
	    "random bytes, no picture", NULL, OPT_VIDEO_RATE),
	ROW("audio-tracks", "N", ENG_OT_UINT, NULL, ENG_GEN_AUDIO_TRACKS,
	    "audio tracks A1..AN per clip, 0 for none", NULL,
	    OPT_AUDIO_TRACKS),
	ROW("audio-rate", "BYTES", ENG_OT_UINT, NULL, ENG_GEN_AUDIO_RATE,
	    "bytes per second of each audio track, 24-bit mono, a multiple "
	    "of 3 (144000 is 48 kHz)", NULL, OPT_AUDIO_RATE),
	ROW("format", "NAME", ENG_OT_TEXT, NULL, 0,
	    "frame rate, video rate and audio tracks of a real format (seed, "
	    "sd-ntsc, sd-pal, v210-1080p29.97, prores-hq-1080p29.97, "
	    "dnxhd-220x-1080p29.97, dnxhr-hqx-uhd25, ...); the four options "
	    "above override it; *--format list* lists the presets with their "
	    "sources", NULL, OPT_FORMAT),
	ROW("seed", "N", ENG_OT_UINT, NULL, ENG_GEN_SEED, "random seed", NULL,
	    OPT_SEED),
	ROW("force", NULL, ENG_OT_FLAG, NULL, 0,
	    "write even when DIR's file system looks too small", NULL,
	    OPT_FORCE),
	ROW("for", "TIMELINE", ENG_OT_TEXT, NULL, 0,
	    "write the media TIMELINE plays (repeatable), see above", NULL,
	    OPT_FOR),
	ROW("dump-tl", "TIMELINE", ENG_OT_TEXT, NULL, 0,
	    "print TIMELINE as the mount resolves it, as .tl", NULL,
	    OPT_DUMP_TL),
	ROW("edl-origin", "WHERE", ENG_OT_TEXT, "min", 0,
	    "EDL source timecode of media frame 0: *min*, *zero* or "
	    "HH:MM:SS:FF, as *-o edl_origin=*", NULL, OPT_EDL_ORIGIN),
	ROW("strict", NULL, ENG_OT_FLAG, NULL, 0,
	    "skipped EDL/OTIO constructs are errors, as *-o strict*", NULL,
	    OPT_STRICT),
	ROW("picture", "FMT:WxH", ENG_OT_TEXT, NULL, 0,
	    "EDL/OTIO video tracks are pictures (*2vuy:720x486*, "
	    "*v210:1920x1080*), as *-o picture=*: clip files of whole "
	    "pictures; not with *--video-rate*", NULL, OPT_PICTURE),
	ROW("codec", "C", ENG_OT_TEXT, NULL, 0,
	    "write real encoded clips with the ffmpeg program (TLFS_FFMPEG "
	    "names another): *prores*, *dnxhd*, *h264* or *uncompressed*, "
	    "pictures and tones as above, each clip as long as raw, start "
	    "timecode the EDL's source timecode of its first frame; with "
	    "*--for* and no *--picture*: 2vuy:1920x1080 pictures",
	    "Missing, the ffmpeg program is said so; on a terminal each "
	    "file's progress is shown.  *prores* is prores_ks (ProRes 422), "
	    "*dnxhd* DNxHD at 1920x1080 by its bitrates and DNxHR at other "
	    "sizes, *h264* libx264 with half-second closed GOPs and two "
	    "B-frames (none in MXF), *uncompressed* 2vuy or v210 in "
	    "QuickTime.  The clip/frame code decodes from every frame, and "
	    "each clip has as many frames as the edit reads of it, so that "
	    "the EDL's source in points are the media's own frames.",
	    OPT_CODEC),
	ROW("container", "K", ENG_OT_TEXT, "mov", 0,
	    "*mov* (CLIP.mov with V and A1..An, as camera files), *mp4* "
	    "(h264; CLIP.A1.wav ... BWF beside it), *mxf* (OP1a: dnxhd, "
	    "h264) or *opatom* (one MXF a track: CLIP.V.mxf, CLIP.A1.mxf "
	    "...)",
	    "mp4's audio tracks are BWF files with their time reference: "
	    "ffmpeg's MP4 muxer takes no PCM; opatom is Avid's.",
	    OPT_CONTAINER),
	ROW("profile", "P", ENG_OT_TEXT, NULL, 0,
	    "prores: *proxy*, *lt*, *standard* (default), *hq*; dnxhd: *sq* "
	    "(default), *hq*, *hqx* (10-bit)", NULL, OPT_PROFILE),
	ROW("timecode", "TC", ENG_OT_TEXT, "00:00:00:00", 0,
	    "*--codec* without *--for*: every clip's start timecode "
	    "(HH:MM:SS:FF, HH:MM:SS;FF drop frame)",
	    "Not with *--for*, whose media carry the edit's source timecode.",
	    OPT_TIMECODE),
	ROW("size", "WxH", ENG_OT_TEXT, NULL, 0,
	    "a sequence *--format*'s frames at another size (320x240 for a "
	    "quick test)", NULL, OPT_SIZE),
	ROW("start-frame", "N", ENG_OT_UINT, NULL, GEN_SEQ_START,
	    "a sequence's first file number (86400 is 01:00:00:00 at 24 "
	    "fps)", NULL, OPT_START_FRAME),
	ROW("ingest", "SECONDS", ENG_OT_TEXT, NULL, 0,
	    "write SECONDS of *--format*'s frames (default: the seed preset) "
	    "to FILE (*-*: standard output), see above",
	    "In a timeline file's interleave (each frame's V slice, then its "
	    "audio slices), each track's bytes a seeded random stream "
	    "(incompressible, the same whatever the write size), as fast as "
	    "FILE takes them; then the time it took and its rate against the "
	    "stream's are said on standard error.  *timelinefs-bench "
	    "--ingest* runs one per record stream.", OPT_INGEST),
	ROW("write-size", "BYTES", ENG_OT_TEXT, "one write a frame", 0,
	    "*--ingest*'s writes: BYTES each (512, 4Ki, 1Mi; K, M, G are "
	    "powers of 1000), across frames", NULL, OPT_WRITE_SIZE),
	ROW("-h, --help", NULL, ENG_OT_SWITCH, NULL, 0,
	    "print this help and exit", NULL, 'h'),
	ROW("-V, --version", NULL, ENG_OT_SWITCH, NULL, 0,
	    "print the version and exit", NULL, 'V'),
};
const size_t gen_noptdocs = sizeof(gen_optdocs) / sizeof(gen_optdocs[0]);

/* {fps}, {video_rate}: eng_gen_config_default's */
static void fill(const char *key, char *buf, size_t len)
{
	struct eng_gen_config d;

	eng_gen_config_default(&d);
	if (strcmp(key, "fps") == 0)
		snprintf(buf, len, "%" PRIu32 "/%" PRIu32, d.fps.num,
			 d.fps.den);
	else
		snprintf(buf, len, "%" PRIu64, d.video_rate);
}

static const struct eng_optdoc_style style = { "--", ' ', 2, 23, fill };

/* b's text on f, freed: 0, or -1 said */
static int put(struct eng_strbuf *b, FILE *f)
{
	int rc = b->err ? -1 : 0;

	if (rc)
		fprintf(stderr, PROG ": out of memory\n");
	else if (b->p)
		fputs(b->p, f);
	free(b->p);
	return rc;
}

void gen_usage_options(FILE *f)
{
	struct eng_strbuf b = { 0 };
	size_t i;

	for (i = 0; i < gen_noptdocs; i++)
		eng_optdoc_usage(&b, &gen_optdocs[i], &style);
	put(&b, f);
}

int gen_doc_options(const char *what)
{
	struct eng_strbuf b = { 0 };

	if (eng_optdoc_write(&b, gen_optdocs, gen_noptdocs, what, &style) <
	    0) {
		fprintf(stderr, PROG ": --doc-options=%s: expected man or "
			"list\n", what);
		return -1;
	}
	return put(&b, stdout);
}

const struct option *gen_long_options(void)
{
	static struct option opts[sizeof(gen_optdocs) /
				  sizeof(gen_optdocs[0]) + 4];

	if (!opts[0].name)
		eng_optdoc_longopts(gen_optdocs, gen_noptdocs, OPT_DOC, opts);
	return opts;
}
