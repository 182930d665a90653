/* SPDX-License-Identifier: MIT */
/*
 * timelinefs-gen: write seeded random clip files (raw video essence, WAVE
 * audio) and .tl timelines editing them, or the clip files of timelines
 * that exist (--for).  This file parses the command line and says what
 * went wrong with it; the runs are random.c and for.c (gen.h).
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gen.h"

/* Options that a --format preset sets, remembered when given explicitly
 * so that they win over the preset whatever their order. */
#define SET_FPS 1u
#define SET_VIDEO_RATE 2u
#define SET_AUDIO_TRACKS 4u
#define SET_AUDIO_RATE 8u
/* Options of the random generator that --for and --dump-tl do not take. */
#define SET_GEN_ONLY 16u
/* Options of loading EDL/OTIO that the random generator (.tl) has no use
 * for. */
#define SET_LOAD_ONLY 32u
/* Options of rates and audio, which a sequence --format does not write
 * (its frames are its images, its timelines video only). */
#define SET_TL_ONLY 64u
/* --min-seconds or --max-seconds: a sequence's events then keep them */
#define SET_MINMAX 128u

static void usage(FILE *f)
{
	/* One source line per help line reads best. */
	/* clang-format off */
	fputs(
"usage: " PROG " [options] DIR\n"
"       " PROG " --for TIMELINE [--for TIMELINE ...] [--fps R]\n"
"              [--video-rate B | --picture P] [--audio-rate B]\n"
"              [--edl-origin WHERE] [--strict] [--seed N] [--force]\n"
"              [--codec C [--container K] [--profile P]] DIR\n"
"       " PROG " --dump-tl TIMELINE [--fps R] [--video-rate B | --picture P]\n"
"              [--audio-rate B] [--edl-origin WHERE] [--strict] [DIR]\n"
"       " PROG " --ingest SECONDS [--format NAME] [--seed N]\n"
"              [--write-size BYTES] FILE\n"
"Write seeded clips DIR/clipNNNN.V.raw and DIR/clipNNNN.AN.wav and\n"
"timelines DIR/timelines/timelineNN.tl that edit them, for timelinefs.\n"
"The same options and seed give the same bytes.  Pictures (the default,\n"
"and the uncompressed --format presets) show their clip and frame number\n"
"and a moving bar, over noise; their audio is a tone per clip.\n"
"\n"
"--for writes the clip files that existing timelines (.tl, .edl, .otio)\n"
"play instead, each just long enough: DIR/CLIP.TRACK.raw for video\n"
"tracks, DIR/CLIP.TRACK.wav for audio (A...) tracks; it copies the\n"
"timelines (and NAME.edl.fps sidecars) into DIR/timelines, so that\n"
"'timelinefs DIR MNT' mounts them; files shared with timelines already\n"
"in DIR/timelines stay long enough for them, and none is shortened.\n"
"Timelines load as the mount loads them: --fps (EDL frame rate, default\n"
"29.97; a NAME.edl.fps sidecar wins; given, it is written as the copy's\n"
"sidecar), --video-rate or --picture, --audio-rate, --edl-origin and\n"
"--strict (mount with the same -o video_rate= or picture=, audio_rate=,\n"
"edl_origin=, strict; the last line says so).  --dump-tl prints a timeline as the mount resolves it, in\n"
".tl form with every segment at its record frame (a blank, '#' or '%' in\n"
"a clip name written %XX, as .tl reads it); given the media folder DIR,\n"
"with its media resolved as the mount does: real media's frame sizes, and\n"
"source ins as the media's own timecodes; it mounts as the same edit.\n"
"--ingest writes SECONDS of --format's frames (default: the seed preset)\n"
"to FILE in a timeline file's interleave, seeded incompressible bytes, as\n"
"a capture tool writes into a mount's ingest folder, as fast as FILE takes\n"
"them, and says its rate against the stream's on stderr.\n"
"\n"
"\n", f);
	/* clang-format on */
	gen_usage_options(f);
	/* clang-format off */
	fputs(
"--for with --codec and no --picture writes 2vuy:1920x1080 pictures.\n"
"An image sequence --format (dpx10-2k, exr-hd, exr-zip-hd, tiff16-uhd,\n"
"frametest-hd ...) writes each clip as a folder of one file a frame,\n"
"DIR/clipNNNN/clipNNNN.0086400.dpx ..., at --fps (default 24), with the\n"
"code and digits in the pixels, timelines of them (video only: seq clips\n"
"in DIR/timelines/timelineNN.tl, every clip whole in clips.otio, events\n"
"no longer than a clip unless given), and no audio.\n"
"\n"
"Exit status: 0 done, 1 I/O error, bad timeline or not enough space,\n"
"2 usage error.\n", f);
	/* clang-format on */
}

static int bad_value(const char *opt, const char *val, const char *what)
{
	fprintf(stderr, PROG ": invalid %s '%s': %s\n", opt, val, what);
	return -EINVAL;
}

static int parse_count(const char *opt, const char *val, uint32_t *out)
{
	int64_t v;

	if (eng_parse_int(val, &v) < 0 || v > UINT32_MAX)
		return bad_value(opt, val, "expected a whole number");
	*out = (uint32_t)v;
	return 0;
}

static int parse_secs(const char *opt, const char *val, int64_t *out)
{
	if (eng_gen_parse_seconds(val, out) < 0)
		return bad_value(
		    opt, val,
		    "expected seconds like 8 or 3.5 (up to 6 decimals)");
	return 0;
}

static int parse_rate(const char *opt, const char *val, uint64_t *out)
{
	if (eng_parse_size(val, out) < 0)
		return bad_value(
		    opt, val,
		    "expected bytes per second like 18000000, 18M or 18Mi");
	return 0;
}

/* The image sequence presets: each frame's file and its size. */
static void list_seq_formats(void)
{
	const struct eng_seqgen_format *f;
	size_t i, n;

	f = eng_seqgen_formats(&n);
	printf("\nimage sequence presets (one file a frame, "
	       "DIR/clipNNNN/clipNNNN.%%07d.EXT):\n");
	for (i = 0; i < n; i++) {
		printf("\n%-22s %" PRIu32 "x%" PRIu32 ", %s%" PRIu64
		       " bytes/frame (.%s, pixel data at %" PRIu64 ")\n",
		       f[i].name, f[i].im.width, f[i].im.height,
		       eng_seqgen_fixed(f[i].im.kind) ? "" : "at most ",
		       eng_seqgen_file_bytes(&f[i].im), eng_seqgen_ext(f[i].im.kind),
		       eng_seqgen_header_bytes(&f[i].im));
		printf("    %s\n    source: %s\n", f[i].summary, f[i].source);
	}
}

/* --format list: one block per preset, its rates and their source. */
static void list_formats(void)
{
	const struct eng_gen_format *f;
	struct eng_gen_config c;
	struct eng_gen_sizes z;
	char fps[32], media[32];
	size_t i, n;

	f = eng_gen_formats(&n);
	printf("format presets (--format NAME); media sizes are for the "
	       "default 24 clips of 8 s:\n");
	for (i = 0; i < n; i++) {
		eng_gen_config_default(&c);
		eng_gen_format_apply(&c, &f[i]);
		gen_fmt_fps(f[i].fps, fps, sizeof(fps));
		if (eng_gen_check(&c, &z, NULL) == 0)
			gen_fmt_bytes(z.media_bytes, media, sizeof(media));
		else
			snprintf(media, sizeof(media), "?");
		printf("\n%-22s %s fps, video %.3f MB/s", f[i].name, fps,
		       (double)f[i].video_rate / 1e6);
		if (f[i].frame_bytes)
			printf(" (%" PRIu64 " bytes/frame)", f[i].frame_bytes);
		printf(", %" PRIu32 " x audio %" PRIu64 " B/s (48 kHz 24-bit)"
		       ", media %s\n",
		       f[i].audio_tracks, f[i].audio_rate, media);
		printf("    %s\n    source: %s\n", f[i].summary, f[i].source);
	}
	list_seq_formats();
}

/* "--clips" for OPT_CLIPS: what a message names. */
static const char *opt_name(int opt)
{
	static char buf[64];
	size_t i;

	for (i = 0; i < gen_noptdocs; i++)
		if (gen_optdocs[i].key == opt) {
			snprintf(buf, sizeof(buf), "--%s", gen_optdocs[i].name);
			return buf;
		}
	return "an option";
}

/* --ingest SECONDS FILE: only --format (a preset of rates), --seed and
 * --write-size go with it. */
static int run_ingest(struct gen_ingest *ing, int ingest, const char *other,
		      const struct eng_gen_format *format,
		      const struct eng_seqgen_format *seqf, int nargs,
		      char **args, uint64_t seed)
{
	if (!ingest) {
		fprintf(stderr, PROG ": --write-size is for --ingest\n");
		return EXIT_USAGE;
	}
	if (other) {
		fprintf(stderr,
			PROG ": --ingest takes --format, --seed and "
			     "--write-size: not %s\n",
			other);
		return EXIT_USAGE;
	}
	if (seqf) {
		fprintf(stderr,
			PROG ": --ingest records a --format of rates: not the "
			     "image sequence %s\n",
			seqf->name);
		return EXIT_USAGE;
	}
	if (nargs != 1) {
		fprintf(stderr, PROG ": %s\nTry '" PROG " --help'.\n",
			nargs ? "more than one FILE" : "missing FILE");
		return EXIT_USAGE;
	}
	ing->preset = format ? format->name : NULL;
	ing->seed = seed;
	return gen_run_ingest(args[0], ing) < 0 ? EXIT_IO : 0;
}

/* What the command line said. */
struct args {
	struct eng_gen_config c;
	const struct eng_gen_format *format;
	const struct eng_seqgen_format *seqf;
	struct for_opts fo;
	const char **fors, *dump, *container, *not_ingest;
	size_t nfor;
	unsigned int set;	/* SET_* */
	int force, seq_start, ingest, wsize;
	struct gen_seq seq;
	uint32_t seq_w, seq_h;
	struct gen_ingest ing;
};

/* The outcomes of one option: */
#define OPT_NEXT 0	/* taken */
#define OPT_BAD (-1)	/* said why: exit EXIT_USAGE */
#define OPT_DONE 1	/* answered (--help, --format list): exit 0 */
#define OPT_OTHER 2	/* not this parser's */

/* --size WIDTHxHEIGHT */
static int parse_size(struct args *a, const char *arg)
{
	char *end;
	unsigned long w, h;

	errno = 0;
	w = strtoul(arg, &end, 10);
	h = *end == 'x' ? strtoul(end + 1, &end, 10) : 0;
	a->set |= SET_GEN_ONLY;
	if (errno || *end || arg[0] < '0' || arg[0] > '9' || !w || !h ||
	    w > 16384 || h > 16384)
		return bad_value("--size", arg,
				 "expected WIDTHxHEIGHT, each 1 to 16384");
	a->seq_w = (uint32_t)w;
	a->seq_h = (uint32_t)h;
	return 0;
}

/* --start-frame N, --seed N */
static int parse_whole(const char *name, const char *arg, int64_t max,
		       int64_t *v)
{
	char why[64];

	if (eng_parse_int(arg, v) == 0 && *v <= max)
		return 0;
	if (max == INT64_MAX)
		return bad_value(name, arg, "expected a whole number");
	snprintf(why, sizeof(why), "expected a whole number from 0 to %" PRId64,
		 max);
	return bad_value(name, arg, why);
}

/* --format NAME (or list) */
static int parse_format(struct args *a, const char *arg)
{
	a->set |= SET_GEN_ONLY;
	if (strcmp(arg, "list") == 0) {
		list_formats();
		return OPT_DONE;
	}
	a->format = eng_gen_format_find(arg);
	a->seqf = a->format ? NULL : eng_seqgen_format_find(arg);
	if (a->format || a->seqf)
		return OPT_NEXT;
	fprintf(stderr, PROG ": unknown --format '%s'\nTry '" PROG
			" --format list'.\n", arg);
	return OPT_BAD;
}

/* The random generator's options: what it writes and how much. */
static int parse_gen_opt(struct args *a, int opt, const char *arg)
{
	struct eng_gen_config *c = &a->c;
	int64_t v;
	int rc = OPT_NEXT;

	switch (opt) {
	case OPT_CLIPS:
		a->set |= SET_GEN_ONLY;
		return parse_count("--clips", arg, &c->clips);
	case OPT_CLIP_SECONDS:
		a->set |= SET_GEN_ONLY;
		return parse_secs("--clip-seconds", arg, &c->clip_us);
	case OPT_TIMELINES:
		a->set |= SET_GEN_ONLY;
		return parse_count("--timelines", arg, &c->timelines);
	case OPT_EVENTS:
		a->set |= SET_GEN_ONLY;
		return parse_count("--events", arg, &c->events);
	case OPT_MIN_SECONDS:
		a->set |= SET_GEN_ONLY | SET_MINMAX;
		return parse_secs("--min-seconds", arg, &c->min_us);
	case OPT_MAX_SECONDS:
		a->set |= SET_GEN_ONLY | SET_MINMAX;
		return parse_secs("--max-seconds", arg, &c->max_us);
	case OPT_AUDIO_TRACKS:
		a->set |= SET_AUDIO_TRACKS | SET_GEN_ONLY | SET_TL_ONLY;
		return parse_count("--audio-tracks", arg, &c->audio_tracks);
	case OPT_SIZE:
		return parse_size(a, arg);
	case OPT_START_FRAME:
		a->set |= SET_GEN_ONLY;
		a->seq_start = 1;
		rc = parse_whole("--start-frame", arg, 999999999, &v);
		if (rc == 0)
			a->seq.start = v;
		return rc;
	case OPT_SEED:
		rc = parse_whole("--seed", arg, INT64_MAX, &v);
		if (rc == 0)
			c->seed = (uint64_t)v;
		return rc;
	case OPT_FORCE:
		a->force = 1;
		return OPT_NEXT;
	case OPT_FORMAT:
		return parse_format(a, arg);
	case OPT_INGEST:
		a->ingest = 1;
		rc = parse_secs("--ingest", arg, &a->ing.us);
		if (rc == 0 && a->ing.us == 0)
			rc = bad_value("--ingest", arg,
				       "expected seconds above 0");
		return rc;
	case OPT_WRITE_SIZE:
		a->wsize = 1;
		if (eng_parse_size(arg, &a->ing.write_size) < 0 ||
		    a->ing.write_size == 0 || a->ing.write_size > (1u << 30))
			rc = bad_value("--write-size", arg,
				       "expected bytes from 1 to 1Gi, like "
				       "512, 4Ki or 1Mi");
		return rc;
	}
	return OPT_OTHER;
}

/* The rates, in the mount's -o words (a timeline's bytes as it loads). */
static int parse_rate_opt(struct args *a, int opt, const char *arg)
{
	struct for_opts *fo = &a->fo;
	char why[128];
	int rc = OPT_NEXT;

	switch (opt) {
	case OPT_FPS:
		a->set |= SET_FPS;
		if (eng_parse_fps(arg, &a->c.fps) < 0)
			rc = bad_value("--fps", arg,
				       "expected 30000/1001, 29.97 or 25");
		fo->load.fps = a->c.fps;
		fo->fps_arg = arg;
		return rc;
	case OPT_VIDEO_RATE:
		a->set |= SET_VIDEO_RATE | SET_TL_ONLY;
		rc = parse_rate("--video-rate", arg, &a->c.video_rate);
		fo->load.video_rate = a->c.video_rate;
		fo->video_arg = arg;
		return rc;
	case OPT_AUDIO_RATE:
		a->set |= SET_AUDIO_RATE | SET_TL_ONLY;
		rc = parse_rate("--audio-rate", arg, &a->c.audio_rate);
		/* the mount's -o audio_rate= rule, in its words */
		if (rc == 0 && eng_audio_rate_check(a->c.audio_rate,
						    fo->load.audio_align, why,
						    sizeof(why)) < 0)
			rc = bad_value("--audio-rate", arg, why);
		fo->load.audio_rate = a->c.audio_rate;
		fo->audio_arg = arg;
		return rc;
	}
	return OPT_OTHER;
}

/* Loading timelines that exist (--for, --dump-tl) and encoding clips. */
static int parse_load_opt(struct args *a, int opt, const char *arg)
{
	struct for_opts *fo = &a->fo;
	char why[128];

	switch (opt) {
	case OPT_EDL_ORIGIN:
		/* the mount's -o edl_origin= value, in its words */
		a->set |= SET_LOAD_ONLY;
		fo->origin_arg = arg;
		if (eng_edl_origin_parse(arg, &fo->load, why, sizeof(why)) < 0)
			return bad_value("--edl-origin", arg, why);
		return OPT_NEXT;
	case OPT_STRICT:
		a->set |= SET_LOAD_ONLY;
		fo->load.strict = 1;
		return OPT_NEXT;
	case OPT_PICTURE:
		/* the mount's -o picture= value, in its words */
		a->set |= SET_LOAD_ONLY;
		fo->picture_arg = arg;
		if (eng_picture_option_parse(arg, &fo->load.picture, why,
					     sizeof(why)) < 0)
			return bad_value("--picture", arg, why);
		return OPT_NEXT;
	case OPT_CODEC:
		if (gen_codec_parse(arg, &fo->enc.codec) < 0)
			return bad_value("--codec", arg,
					 "expected prores, dnxhd, h264 or "
					 "uncompressed");
		return OPT_NEXT;
	case OPT_CONTAINER:
		a->container = arg;
		if (gen_container_parse(arg, &fo->enc.cont) < 0)
			return bad_value("--container", arg,
					 "expected mov, mp4, mxf or opatom");
		return OPT_NEXT;
	case OPT_PROFILE:
		fo->enc.profile = arg;
		return OPT_NEXT;
	case OPT_TIMECODE:
		/* checked at each clip's rate when it is written */
		fo->enc.tc_set = 1;
		if (eng_tc_parse(arg, &fo->enc.tc) < 0)
			return bad_value("--timecode", arg,
					 "expected HH:MM:SS:FF (HH:MM:SS;FF "
					 "drop frame)");
		return OPT_NEXT;
	case OPT_FOR:
		a->fors[a->nfor++] = arg;
		return OPT_NEXT;
	case OPT_DUMP_TL:
		if (a->dump) {
			fprintf(stderr, PROG ": --dump-tl given twice\n");
			return OPT_BAD;
		}
		a->dump = arg;
		return OPT_NEXT;
	}
	return OPT_OTHER;
}

/* getopt's own outcomes: help, version and the errors. */
static int parse_other(int opt, char **argv)
{
	switch (opt) {
	case 'h':
		usage(stdout);
		return OPT_DONE;
	case 'V':
		printf(PROG " " ENG_GEN_VERSION "\n");
		return OPT_DONE;
	case OPT_DOC:
		return gen_doc_options(optarg) < 0 ? OPT_BAD : OPT_DONE;
	case ':':
		fprintf(stderr, PROG ": option '%s' needs a value\nTry '" PROG
				" --help'.\n", argv[optind - 1]);
		return OPT_BAD;
	}
	if (optopt)
		fprintf(stderr, PROG ": unknown option '-%c'\n", optopt);
	else
		fprintf(stderr, PROG ": unknown option '%s'\n",
			argv[optind - 1]);
	fprintf(stderr, "Try '" PROG " --help'.\n");
	return OPT_BAD;
}

/* The command line's options into *a: OPT_NEXT, OPT_BAD or OPT_DONE. */
static int parse_args(struct args *a, int argc, char **argv)
{
	int opt, rc;

	opterr = 0; /* our messages name the program, not argv[0] */
	while ((opt = getopt_long(argc, argv, ":hV", gen_long_options(),
				  NULL)) != -1) {
		rc = parse_gen_opt(a, opt, optarg);
		if (rc == OPT_OTHER)
			rc = parse_rate_opt(a, opt, optarg);
		if (rc == OPT_OTHER)
			rc = parse_load_opt(a, opt, optarg);
		if (rc == OPT_OTHER)
			rc = parse_other(opt, argv);
		if (rc != OPT_NEXT)
			return rc < 0 ? OPT_BAD : rc;
		if (opt != OPT_INGEST && opt != OPT_WRITE_SIZE &&
		    opt != OPT_FORMAT && opt != OPT_SEED)
			a->not_ingest = opt_name(opt);
	}
	return OPT_NEXT;
}

/* Options that do not go together: 0, or -1 having said why (the first
 * of these rules a command line breaks). */
static int check_args(const struct args *a)
{
	const struct for_opts *fo = &a->fo;
	int load = a->nfor || a->dump;

	if (load && (a->set & SET_GEN_ONLY))
		fprintf(stderr, PROG ": --clips, --clip-seconds, --timelines, "
				"--events, --min-seconds, --max-seconds, "
				"--audio-tracks and --format make random "
				"timelines: not with %s\n",
			a->dump ? "--dump-tl" : "--for");
	else if (!load && (a->set & SET_LOAD_ONLY))
		fprintf(stderr, PROG ": --edl-origin, --strict and --picture "
				"are for loading timelines: with --for or "
				"--dump-tl (--format gives random ones a "
				"picture)\n");
	else if (fo->picture_arg && fo->video_arg &&
		 fo->load.picture.pix != ENG_PIX_NONE)
		fprintf(stderr, PROG ": --picture %s and --video-rate %s both "
				"set the video tracks' bytes: give one of the "
				"two\n", fo->picture_arg, fo->video_arg);
	else if (load && (fo->load.video_rate == 0 || fo->load.audio_rate == 0))
		fprintf(stderr, PROG ": a rate of 0 plays nothing\n");
	else if (!fo->enc.codec &&
		 (a->container || fo->enc.profile || fo->enc.tc_set))
		fprintf(stderr, PROG ": --container, --profile and --timecode "
				"are for --codec\n");
	else if (fo->enc.tc_set && a->nfor)
		fprintf(stderr, PROG ": --timecode is for random timelines: "
				"--for writes each clip's source timecode of "
				"the edit, which the mount maps the edit's "
				"source in points by\n");
	else if (fo->enc.codec && a->dump)
		fprintf(stderr, PROG ": --dump-tl writes no media: not with "
				"--codec\n");
	else if (fo->enc.codec && a->nfor && fo->video_arg)
		fprintf(stderr, PROG ": --codec %s encodes pictures: not with "
				"--video-rate (give --picture)\n",
			gen_codec_name(fo->enc.codec));
	else
		return 0;
	return -1;
}

/* An image sequence --format's clips and timelines into dir. */
static int run_seq(struct args *a, const char *dir)
{
	struct gen_seq *seq = &a->seq;

	seq->im = a->seqf->im;
	if (a->seq_w) {
		seq->im.width = a->seq_w;
		seq->im.height = a->seq_h;
	}
	seq->name = a->seqf->name;
	seq->clips = a->c.clips;
	seq->fps = (a->set & SET_FPS) ? a->c.fps : (struct eng_fps){ 24, 1 };
	seq->frames = eng_gen_frames(a->c.clip_us, seq->fps);
	seq->seed = a->c.seed;
	gen_seq_config(seq, &a->c, !!(a->set & SET_MINMAX));
	return gen_run_seq(dir, seq, &a->c, a->force);
}

/* Random clips and timelines of a --format (the seed's without one) into
 * dir, the options given explicitly winning over the preset. */
static int run_random(struct args *a, const char *dir)
{
	struct eng_gen_config *c = &a->c;
	const struct eng_gen_format *format = a->format;

	if (!format)
		format = eng_gen_format_find("seed");
	if (format) {
		struct eng_gen_config given = *c;

		eng_gen_format_apply(c, format);
		/* a picture keeps its size at another fps; a rate of one's
		 * own makes V a rate track again */
		if (a->set & SET_FPS) {
			c->fps = given.fps;
			if (c->pic.pix != ENG_PIX_NONE)
				c->video_rate =
					eng_gen_picture_rate(&c->pic, c->fps);
		}
		if (a->set & SET_VIDEO_RATE) {
			c->video_rate = given.video_rate;
			c->pic.pix = ENG_PIX_NONE;
		}
		if (a->set & SET_AUDIO_TRACKS)
			c->audio_tracks = given.audio_tracks;
		if (a->set & SET_AUDIO_RATE)
			c->audio_rate = given.audio_rate;
	}
	return gen_run_random(dir, c, a->force, &a->fo.enc);
}

/* What the parsed command line asks, run: its exit status. */
static int run(struct args *a, int argc, char **argv)
{
	struct for_opts *fo = &a->fo;

	if (a->ingest || a->wsize)
		return run_ingest(&a->ing, a->ingest, a->not_ingest, a->format,
				  a->seqf, argc - optind, argv + optind,
				  a->c.seed);
	if (check_args(a) < 0)
		return EXIT_USAGE;
	/* --for --codec without --picture: editors' HD */
	if (fo->enc.codec && a->nfor && !fo->picture_arg)
		fo->load.picture = (struct eng_picture){ ENG_PIX_2VUY, 1920,
							 1080 };
	fo->seed = a->c.seed;
	fo->force = a->force;
	if (a->dump) {
		if (a->nfor || optind < argc - 1) {
			fprintf(stderr, PROG ": --dump-tl takes no --for and "
					"at most one DIR\nTry '" PROG
					" --help'.\n");
			return EXIT_USAGE;
		}
		return gen_run_dump(a->dump, optind < argc ? argv[optind] :
				    NULL, fo);
	}
	if ((a->seq_w || a->seq_start) && !a->seqf) {
		fprintf(stderr, PROG ": --size and --start-frame are for an "
				"image sequence --format\n");
		return EXIT_USAGE;
	}
	if (a->seqf && (a->nfor || fo->enc.codec || (a->set & SET_TL_ONLY))) {
		fprintf(stderr, PROG ": --format %s writes image sequences "
				"and video timelines of them: not with --for, "
				"--dump-tl, --codec, --video-rate or options "
				"of audio\n", a->seqf->name);
		return EXIT_USAGE;
	}
	if (optind != argc - 1) {
		fprintf(stderr, PROG ": %s\nTry '" PROG " --help'.\n",
			optind == argc ? "missing DIR" : "more than one DIR");
		return EXIT_USAGE;
	}
	if (a->nfor)
		return gen_run_for(argv[optind], a->fors, a->nfor, fo);
	if (a->seqf)
		return run_seq(a, argv[optind]);
	return run_random(a, argv[optind]);
}

int main(int argc, char **argv)
{
	struct args a;
	int ret = EXIT_USAGE;

	memset(&a, 0, sizeof(a));
	a.seq.start = GEN_SEQ_START;
	eng_gen_config_default(&a.c);
	eng_load_options_default(&a.fo.load);
	a.fors = calloc((size_t)argc + 1, sizeof(*a.fors));
	if (!a.fors) {
		fprintf(stderr, PROG ": out of memory\n");
		return EXIT_IO;
	}
	switch (parse_args(&a, argc, argv)) {
	case OPT_NEXT:
		ret = run(&a, argc, argv);
		break;
	case OPT_DONE:
		ret = 0;
		break;
	}
	free(a.fors);
	return ret;
}
