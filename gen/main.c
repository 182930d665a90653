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

enum {
	OPT_CLIPS = 256,
	OPT_CLIP_SECONDS,
	OPT_TIMELINES,
	OPT_EVENTS,
	OPT_MIN_SECONDS,
	OPT_MAX_SECONDS,
	OPT_FPS,
	OPT_VIDEO_RATE,
	OPT_AUDIO_TRACKS,
	OPT_AUDIO_RATE,
	OPT_SEED,
	OPT_FORCE,
	OPT_FORMAT,
	OPT_FOR,
	OPT_DUMP_TL,
	OPT_EDL_ORIGIN,
	OPT_STRICT,
	OPT_PICTURE,
	OPT_CODEC,
	OPT_CONTAINER,
	OPT_PROFILE,
	OPT_TIMECODE,
	OPT_SIZE,
	OPT_START_FRAME,
	OPT_INGEST,
	OPT_WRITE_SIZE,
};

static const struct option long_opts[] = {
    {"clips", required_argument, NULL, OPT_CLIPS},
    {"clip-seconds", required_argument, NULL, OPT_CLIP_SECONDS},
    {"timelines", required_argument, NULL, OPT_TIMELINES},
    {"events", required_argument, NULL, OPT_EVENTS},
    {"min-seconds", required_argument, NULL, OPT_MIN_SECONDS},
    {"max-seconds", required_argument, NULL, OPT_MAX_SECONDS},
    {"fps", required_argument, NULL, OPT_FPS},
    {"video-rate", required_argument, NULL, OPT_VIDEO_RATE},
    {"audio-tracks", required_argument, NULL, OPT_AUDIO_TRACKS},
    {"audio-rate", required_argument, NULL, OPT_AUDIO_RATE},
    {"seed", required_argument, NULL, OPT_SEED},
    {"force", no_argument, NULL, OPT_FORCE},
    {"format", required_argument, NULL, OPT_FORMAT},
    {"for", required_argument, NULL, OPT_FOR},
    {"dump-tl", required_argument, NULL, OPT_DUMP_TL},
    {"edl-origin", required_argument, NULL, OPT_EDL_ORIGIN},
    {"strict", no_argument, NULL, OPT_STRICT},
    {"picture", required_argument, NULL, OPT_PICTURE},
    {"codec", required_argument, NULL, OPT_CODEC},
    {"container", required_argument, NULL, OPT_CONTAINER},
    {"profile", required_argument, NULL, OPT_PROFILE},
    {"timecode", required_argument, NULL, OPT_TIMECODE},
    {"size", required_argument, NULL, OPT_SIZE},
    {"start-frame", required_argument, NULL, OPT_START_FRAME},
    {"ingest", required_argument, NULL, OPT_INGEST},
    {"write-size", required_argument, NULL, OPT_WRITE_SIZE},
    {"help", no_argument, NULL, 'h'},
    {"version", no_argument, NULL, 'V'},
    {NULL, 0, NULL, 0},
};

static void usage(FILE *f)
{
	struct eng_gen_config d;
	char cs[32], mn[32], mx[32];

	eng_gen_config_default(&d);
	eng_gen_seconds_str(d.clip_us, cs, sizeof(cs));
	eng_gen_seconds_str(d.min_us, mn, sizeof(mn));
	eng_gen_seconds_str(d.max_us, mx, sizeof(mx));
	/* One source line per help line reads best. */
	/* clang-format off */
	fprintf(f,
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
".tl form with every segment at its record frame (a blank, '#' or '%%' in\n"
"a clip name written %%XX, as .tl reads it); given the media folder DIR,\n"
"with its media resolved as the mount does: real media's frame sizes, and\n"
"source ins as the media's own timecodes; it mounts as the same edit.\n"
"--ingest writes SECONDS of --format's frames (default: the seed preset)\n"
"to FILE in a timeline file's interleave, seeded incompressible bytes, as\n"
"a capture tool writes into a mount's ingest folder, as fast as FILE takes\n"
"them, and says its rate against the stream's on stderr.\n"
"\n"
"  --clips N            clips to write (default %" PRIu32 ")\n"
"  --clip-seconds S     length of every clip, decimals allowed (default %s)\n"
"  --timelines N        timelines to write (default %" PRIu32 ")\n"
"  --events N           events per timeline (default %" PRIu32 ")\n"
"  --min-seconds S      shortest event (default %s)\n"
"  --max-seconds S      longest event, at most --clip-seconds (default %s)\n"
"  --fps R              frame rate: 30000/1001, 29.97, 25 (default %" PRIu32
"/%" PRIu32 ")\n"
"  --video-rate BYTES   video bytes per second: 18000000, 18M, 18Mi; the\n"
"                       video is then random bytes, no picture (default:\n"
"                       the picture's rate, %" PRIu64 ")\n"
"  --audio-tracks N     audio tracks A1..AN per clip, 0 for none (default %"
PRIu32 ")\n"
"  --audio-rate BYTES   bytes per second of each audio track, 24-bit mono,\n"
"                       a multiple of 3 (default %" PRIu64 " = 48 kHz)\n"
"  --format NAME        frame rate, video rate and audio tracks of a real\n"
"                       format (sd-ntsc, prores-hq-1080p29.97, ...); the\n"
"                       four options above override it; '--format list'\n"
"                       lists the presets with their sources\n"
"  --seed N             random seed (default %" PRIu64 ")\n"
"  --force              write even when DIR's file system looks too small\n"
"  --for TIMELINE       write the media TIMELINE plays (repeatable), see above\n"
"  --dump-tl TIMELINE   print TIMELINE as the mount resolves it, as .tl\n"
"  --edl-origin WHERE   EDL source TC of media frame 0: min, zero or\n"
"                       HH:MM:SS:FF (default min), as -o edl_origin=\n"
"  --strict             skipped EDL/OTIO constructs are errors, as -o strict\n"
"  --picture FMT:WxH    EDL/OTIO video tracks are pictures (2vuy:720x486,\n"
"                       v210:1920x1080), as -o picture=: clips of whole\n"
"                       pictures\n""  --codec C            write real encoded clips with the ffmpeg program\n"
"                       (TLFS_FFMPEG names another): prores, dnxhd,\n"
"                       h264 or uncompressed, pictures and tones as above,\n"
"                       each clip as long as raw, start timecode the\n"
"                       EDL's source timecode of its first frame\n"
"  --container K        mov (default: CLIP.mov with V and A1..An), mp4\n"
"                       (h264; CLIP.A1.wav ... BWF beside it), mxf (OP1a:\n"
"                       dnxhd, h264) or opatom (one MXF a track:\n"
"                       CLIP.V.mxf, CLIP.A1.mxf ...)\n"
"  --profile P          prores: proxy, lt, standard (default), hq; dnxhd:\n"
"                       sq (default), hq, hqx\n"
"  --timecode TC        --codec without --for: every clip's start timecode\n"
"                       (default 00:00:00:00)\n"
"  --size WxH           a sequence --format's frames at another size\n"
"                       (320x240 for a quick test)\n"
"  --start-frame N      a sequence's first file number (default 86400,\n"
"                       01:00:00:00 at 24 fps)\n"
"  --ingest SECONDS     write SECONDS of frames to FILE, see above\n"
"  --write-size BYTES   --ingest's writes: BYTES each (512, 4Ki, 1Mi),\n"
"                       across frames (default: one write a frame)\n"
"  -h, --help           print this help and exit\n"
"  -V, --version        print the version and exit\n"
"--for with --codec and no --picture writes 2vuy:1920x1080 pictures.\n"
"An image sequence --format (dpx10-2k, exr-hd, exr-zip-hd, tiff16-uhd,\n"
"frametest-hd ...) writes each clip as a folder of one file a frame,\n"
"DIR/clipNNNN/clipNNNN.0086400.dpx ..., at --fps (default 24), with the\n"
"code and digits in the pixels, timelines of them (video only: seq clips\n"
"in DIR/timelines/timelineNN.tl, every clip whole in clips.otio, events\n"
"no longer than a clip unless given), and no audio.\n"
"\n"
"Exit status: 0 done, 1 I/O error, bad timeline or not enough space,\n"
"2 usage error.\n",
		d.clips, cs, d.timelines, d.events, mn, mx, d.fps.num, d.fps.den,
		d.video_rate, d.audio_tracks, d.audio_rate, d.seed);
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

	for (i = 0; long_opts[i].name; i++)
		if (long_opts[i].val == opt) {
			snprintf(buf, sizeof(buf), "--%s", long_opts[i].name);
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

int main(int argc, char **argv)
{
	struct eng_gen_config c;
	const char *dir;
	const struct eng_gen_format *format = NULL;
	struct for_opts fo;
	const char **fors = NULL, *dump = NULL;
	size_t nfor = 0;
	unsigned int set = 0;
	const char *container = NULL;
	int force = 0, opt, ret = EXIT_USAGE, rc, seq_start = 0;
	const struct eng_seqgen_format *seqf = NULL;
	struct gen_seq seq = {.start = 86400};
	uint32_t seq_w = 0, seq_h = 0;
	struct gen_ingest ing = {0};
	int ingest = 0, wsize = 0;
	const char *not_ingest = NULL;

	eng_gen_config_default(&c);
	memset(&fo, 0, sizeof(fo));
	eng_load_options_default(&fo.load);
	fors = calloc((size_t)argc + 1, sizeof(*fors));
	if (!fors) {
		fprintf(stderr, PROG ": out of memory\n");
		return EXIT_IO;
	}
	opterr = 0; /* our messages name the program, not argv[0] */
	while ((opt = getopt_long(argc, argv, ":hV", long_opts, NULL)) != -1) {
		rc = 0;
		switch (opt) {
		case OPT_CLIPS:
			set |= SET_GEN_ONLY;
			rc = parse_count("--clips", optarg, &c.clips);
			break;
		case OPT_CLIP_SECONDS:
			set |= SET_GEN_ONLY;
			rc = parse_secs("--clip-seconds", optarg, &c.clip_us);
			break;
		case OPT_TIMELINES:
			set |= SET_GEN_ONLY;
			rc = parse_count("--timelines", optarg, &c.timelines);
			break;
		case OPT_EVENTS:
			set |= SET_GEN_ONLY;
			rc = parse_count("--events", optarg, &c.events);
			break;
		case OPT_MIN_SECONDS:
			set |= SET_GEN_ONLY | SET_MINMAX;
			rc = parse_secs("--min-seconds", optarg, &c.min_us);
			break;
		case OPT_MAX_SECONDS:
			set |= SET_GEN_ONLY | SET_MINMAX;
			rc = parse_secs("--max-seconds", optarg, &c.max_us);
			break;
		case OPT_FPS:
			set |= SET_FPS;
			if (eng_parse_fps(optarg, &c.fps) < 0)
				rc = bad_value(
				    "--fps", optarg,
				    "expected 30000/1001, 29.97 or 25");
			fo.load.fps = c.fps;
			fo.fps_arg = optarg;
			break;
		case OPT_VIDEO_RATE:
			set |= SET_VIDEO_RATE | SET_TL_ONLY;
			rc = parse_rate("--video-rate", optarg, &c.video_rate);
			fo.load.video_rate = c.video_rate;
			fo.video_arg = optarg;
			break;
		case OPT_AUDIO_TRACKS:
			set |= SET_AUDIO_TRACKS | SET_GEN_ONLY | SET_TL_ONLY;
			rc = parse_count("--audio-tracks", optarg,
					 &c.audio_tracks);
			break;
		case OPT_AUDIO_RATE: {
			char why[128];

			set |= SET_AUDIO_RATE | SET_TL_ONLY;
			rc = parse_rate("--audio-rate", optarg, &c.audio_rate);
			/* the mount's -o audio_rate= rule, in its words */
			if (rc == 0 &&
			    eng_audio_rate_check(c.audio_rate,
						 fo.load.audio_align, why,
						 sizeof(why)) < 0)
				rc = bad_value("--audio-rate", optarg, why);
			fo.load.audio_rate = c.audio_rate;
			fo.audio_arg = optarg;
			break;
		}
		case OPT_EDL_ORIGIN: {
			char why[128];

			/* the mount's -o edl_origin= value, in its words */
			if (eng_edl_origin_parse(optarg, &fo.load, why,
						 sizeof(why)) < 0)
				rc = bad_value("--edl-origin", optarg, why);
			fo.origin_arg = optarg;
			set |= SET_LOAD_ONLY;
			break;
		}
		case OPT_STRICT:
			set |= SET_LOAD_ONLY;
			fo.load.strict = 1;
			break;
		case OPT_PICTURE: {
			char why[128];

			/* the mount's -o picture= value, in its words */
			if (eng_picture_option_parse(optarg, &fo.load.picture,
						     why, sizeof(why)) < 0)
				rc = bad_value("--picture", optarg, why);
			fo.picture_arg = optarg;
			set |= SET_LOAD_ONLY;
			break;
		}
		case OPT_CODEC:
			if (gen_codec_parse(optarg, &fo.enc.codec) < 0)
				rc = bad_value("--codec", optarg,
					       "expected prores, dnxhd, h264 "
					       "or uncompressed");
			break;
		case OPT_CONTAINER:
			container = optarg;
			if (gen_container_parse(optarg, &fo.enc.cont) < 0)
				rc = bad_value("--container", optarg,
					       "expected mov, mp4, mxf or "
					       "opatom");
			break;
		case OPT_PROFILE:
			fo.enc.profile = optarg;
			break;
		case OPT_TIMECODE:
			/* checked at each clip's rate when it is written */
			if (eng_tc_parse(optarg, &fo.enc.tc) < 0)
				rc = bad_value("--timecode", optarg,
					       "expected HH:MM:SS:FF "
					       "(HH:MM:SS;FF drop frame)");
			fo.enc.tc_set = 1;
			break;
		case OPT_SIZE: {
			char *end;
			unsigned long w, h;

			errno = 0;
			w = strtoul(optarg, &end, 10);
			h = *end == 'x' ? strtoul(end + 1, &end, 10) : 0;
			if (errno || *end || optarg[0] < '0' ||
			    optarg[0] > '9' || !w || !h || w > 16384 ||
			    h > 16384)
				rc = bad_value("--size", optarg,
					       "expected WIDTHxHEIGHT, each "
					       "1 to 16384");
			seq_w = (uint32_t)w;
			seq_h = (uint32_t)h;
			set |= SET_GEN_ONLY;
			break;
		}
		case OPT_START_FRAME: {
			int64_t v;

			if (eng_parse_int(optarg, &v) < 0 ||
			    v > 999999999)
				rc = bad_value("--start-frame", optarg,
					       "expected a whole number from "
					       "0 to 999999999");
			else
				seq.start = v;
			set |= SET_GEN_ONLY;
			seq_start = 1;
			break;
		}
		case OPT_INGEST:
			rc = parse_secs("--ingest", optarg, &ing.us);
			if (rc == 0 && ing.us == 0)
				rc = bad_value("--ingest", optarg,
					       "expected seconds above 0");
			ingest = 1;
			break;
		case OPT_WRITE_SIZE:
			if (eng_parse_size(optarg, &ing.write_size) < 0 ||
			    ing.write_size == 0 || ing.write_size > (1u << 30))
				rc = bad_value("--write-size", optarg,
					       "expected bytes from 1 to 1Gi, "
					       "like 512, 4Ki or 1Mi");
			wsize = 1;
			break;
		case OPT_SEED: {
			int64_t v;

			if (eng_parse_int(optarg, &v) < 0)
				rc = bad_value("--seed", optarg,
					       "expected a whole number");
			else
				c.seed = (uint64_t)v;
			break;
		}
		case OPT_FORCE:
			force = 1;
			break;
		case OPT_FOR:
			fors[nfor++] = optarg;
			break;
		case OPT_DUMP_TL:
			if (dump) {
				fprintf(stderr,
					PROG ": --dump-tl given twice\n");
				goto out;
			}
			dump = optarg;
			break;
		case OPT_FORMAT:
			set |= SET_GEN_ONLY;
			if (strcmp(optarg, "list") == 0) {
				list_formats();
				ret = 0;
				goto out;
			}
			format = eng_gen_format_find(optarg);
			seqf = format ? NULL : eng_seqgen_format_find(optarg);
			if (!format && !seqf) {
				fprintf(stderr,
					PROG ": unknown --format '%s'\n"
					     "Try '" PROG " --format list'.\n",
					optarg);
				goto out;
			}
			break;
		case 'h':
			usage(stdout);
			ret = 0;
			goto out;
		case 'V':
			printf(PROG " " ENG_GEN_VERSION "\n");
			ret = 0;
			goto out;
		case ':':
			fprintf(stderr,
				PROG ": option '%s' needs a value\n"
				     "Try '" PROG " --help'.\n",
				argv[optind - 1]);
			goto out;
		default:
			if (optopt)
				fprintf(stderr, PROG ": unknown option '-%c'\n",
					optopt);
			else
				fprintf(stderr, PROG ": unknown option '%s'\n",
					argv[optind - 1]);
			fprintf(stderr, "Try '" PROG " --help'.\n");
			goto out;
		}
		if (rc < 0)
			goto out;
		if (opt != OPT_INGEST && opt != OPT_WRITE_SIZE &&
		    opt != OPT_FORMAT && opt != OPT_SEED)
			not_ingest = opt_name(opt);
	}
	if (ingest || wsize) {
		ret = run_ingest(&ing, ingest, not_ingest, format, seqf,
				 argc - optind, argv + optind, c.seed);
		goto out;
	}
	if ((nfor || dump) && (set & SET_GEN_ONLY)) {
		fprintf(stderr,
			PROG
			": --clips, --clip-seconds, --timelines, --events, "
			"--min-seconds, --max-seconds, --audio-tracks and "
			"--format make random timelines: not with %s\n",
			dump ? "--dump-tl" : "--for");
		goto out;
	}
	if (!nfor && !dump && (set & SET_LOAD_ONLY)) {
		fprintf(stderr, PROG ": --edl-origin, --strict and --picture "
				     "are for loading timelines: with --for or "
				     "--dump-tl (--format gives random ones a "
				     "picture)\n");
		goto out;
	}
	if (fo.picture_arg && fo.video_arg &&
	    fo.load.picture.pix != ENG_PIX_NONE) {
		fprintf(stderr, PROG ": --picture %s and --video-rate %s both "
				     "set the video tracks' bytes: give one of "
				     "the two\n", fo.picture_arg, fo.video_arg);
		goto out;
	}
	if ((nfor || dump) &&
	    (fo.load.video_rate == 0 || fo.load.audio_rate == 0)) {
		fprintf(stderr, PROG ": a rate of 0 plays nothing\n");
		goto out;
	}
	if (!fo.enc.codec && (container || fo.enc.profile || fo.enc.tc_set)) {
		fprintf(stderr, PROG ": --container, --profile and --timecode "
				     "are for --codec\n");
		goto out;
	}
	if (fo.enc.tc_set && nfor) {
		fprintf(stderr, PROG ": --timecode is for random timelines: "
				     "--for writes each clip's source timecode "
				     "of the edit, which the mount maps the "
				     "edit's source in points by\n");
		goto out;
	}
	if (fo.enc.codec && dump) {
		fprintf(stderr, PROG ": --dump-tl writes no media: not with "
				     "--codec\n");
		goto out;
	}
	if (fo.enc.codec && nfor && fo.video_arg) {
		fprintf(stderr, PROG ": --codec %s encodes pictures: not with "
				     "--video-rate (give --picture)\n",
			gen_codec_name(fo.enc.codec));
		goto out;
	}
	/* --for --codec without --picture: editors' HD */
	if (fo.enc.codec && nfor && !fo.picture_arg)
		fo.load.picture = (struct eng_picture){ ENG_PIX_2VUY, 1920,
							1080 };
	fo.seed = c.seed;
	fo.force = force;
	if (dump) {
		if (nfor || optind < argc - 1) {
			fprintf(stderr,
				PROG ": --dump-tl takes no --for and at "
				     "most one DIR\nTry '" PROG " --help'.\n");
			goto out;
		}
		ret = gen_run_dump(dump, optind < argc ? argv[optind] : NULL,
				   &fo);
		goto out;
	}
	if ((seq_w || seq_start) && !seqf) {
		fprintf(stderr, PROG ": --size and --start-frame are for an "
				     "image sequence --format\n");
		goto out;
	}
	if (seqf && (nfor || dump || fo.enc.codec || (set & SET_TL_ONLY))) {
		fprintf(stderr, PROG ": --format %s writes image sequences "
				     "and video timelines of them: not with "
				     "--for, --dump-tl, --codec, --video-rate "
				     "or options of audio\n", seqf->name);
		goto out;
	}
	if (optind != argc - 1) {
		fprintf(stderr, PROG ": %s\nTry '" PROG " --help'.\n",
			optind == argc ? "missing DIR" : "more than one DIR");
		goto out;
	}
	dir = argv[optind];
	if (nfor) {
		ret = gen_run_for(dir, fors, nfor, &fo);
		goto out;
	}
	if (seqf) {
		seq.im = seqf->im;
		if (seq_w) {
			seq.im.width = seq_w;
			seq.im.height = seq_h;
		}
		seq.name = seqf->name;
		seq.clips = c.clips;
		seq.fps = (set & SET_FPS) ? c.fps : (struct eng_fps){24, 1};
		seq.frames = eng_gen_frames(c.clip_us, seq.fps);
		seq.seed = c.seed;
		gen_seq_config(&seq, &c, !!(set & SET_MINMAX));
		ret = gen_run_seq(dir, &seq, &c, force);
		goto out;
	}
	/* without --format, the seed's: its picture goes the same way */
	if (!format)
		format = eng_gen_format_find("seed");
	if (format) {
		struct eng_gen_config given = c;

		eng_gen_format_apply(&c, format);
		/* a picture keeps its size at another fps; a rate of one's
		 * own makes V a rate track again */
		if (set & SET_FPS) {
			c.fps = given.fps;
			if (c.pic.pix != ENG_PIX_NONE)
				c.video_rate =
					eng_gen_picture_rate(&c.pic, c.fps);
		}
		if (set & SET_VIDEO_RATE) {
			c.video_rate = given.video_rate;
			c.pic.pix = ENG_PIX_NONE;
		}
		if (set & SET_AUDIO_TRACKS)
			c.audio_tracks = given.audio_tracks;
		if (set & SET_AUDIO_RATE)
			c.audio_rate = given.audio_rate;
	}
	ret = gen_run_random(dir, &c, force, &fo.enc);
out:
	free(fors);
	return ret;
}
