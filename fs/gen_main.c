/* SPDX-License-Identifier: MIT */
/*
 * timelinefs-gen: write seeded random clip files (raw video essence, WAVE
 * audio) and .tl timelines editing them.  The plan is engine/media/gen.c's; this
 * file parses options and does the file I/O.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>

#include "media/gen.h"
#include "media/media.h"
#include "timeline/load.h"
#include "timeline/model.h"
#include "timeline/tl.h"
#include "util/diag.h"
#include "util/rng.h"
#include "util/values.h"

#define PROG "timelinefs-gen"
#define BLOCK (1u << 20) /* fill and write unit: a multiple of 8 */
#define EXIT_USAGE 2
#define EXIT_IO 1

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
"              [--video-rate B] [--audio-rate B] [--edl-origin WHERE]\n"
"              [--strict] [--seed N] [--force] DIR\n"
"       " PROG " --dump-tl TIMELINE [--fps R] [--video-rate B]\n"
"              [--audio-rate B] [--edl-origin WHERE] [--strict]\n"
"Write seeded random clips DIR/clipNNNN.V.raw and DIR/clipNNNN.AN.wav and\n"
"timelines DIR/timelines/timelineNN.tl that edit them, for timelinefs.\n"
"The same options and seed give the same bytes.\n"
"\n"
"--for writes the clip files that existing timelines (.tl, .edl, .otio)\n"
"play instead, each just long enough: DIR/CLIP.TRACK.raw for video\n"
"tracks, DIR/CLIP.TRACK.wav for audio (A...) tracks; it copies the\n"
"timelines (and NAME.edl.fps sidecars) into DIR/timelines, so that\n"
"'timelinefs DIR MNT' mounts them; files shared with timelines already\n"
"in DIR/timelines stay long enough for them, and none is shortened.\n"
"Timelines load as the mount loads them: --fps (EDL frame rate, default\n"
"29.97; a NAME.edl.fps sidecar wins; given, it is written as the copy's\n"
"sidecar), --video-rate, --audio-rate, --edl-origin and --strict (mount\n"
"with the same -o video_rate=,audio_rate=,edl_origin=,strict; the last\n"
"line says so).  --dump-tl prints a timeline as the mount resolves it, in\n"
".tl form with every segment at its record frame (a blank, '#' or '%%' in\n"
"a clip name written %%XX, as .tl reads it).\n"
"\n"
"  --clips N            clips to write (default %" PRIu32 ")\n"
"  --clip-seconds S     length of every clip, decimals allowed (default %s)\n"
"  --timelines N        timelines to write (default %" PRIu32 ")\n"
"  --events N           events per timeline (default %" PRIu32 ")\n"
"  --min-seconds S      shortest event (default %s)\n"
"  --max-seconds S      longest event, at most --clip-seconds (default %s)\n"
"  --fps R              frame rate: 30000/1001, 29.97, 25 (default %" PRIu32
"/%" PRIu32 ")\n"
"  --video-rate BYTES   video bytes per second: 18000000, 18M, 18Mi\n"
"                       (default %" PRIu64 ")\n"
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
"  -h, --help           print this help and exit\n"
"  -V, --version        print the version and exit\n"
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

/* Human sizes in powers of 1000, as disks are sold: "3.51 GB". */
static void fmt_bytes(uint64_t b, char *buf, size_t len)
{
	static const char *const unit[] = {"kB", "MB", "GB", "TB", "PB"};
	double v = (double)b;
	int u = -1;

	if (b < 1000) {
		snprintf(buf, len, "%" PRIu64 " B", b);
		return;
	}
	while (v >= 1000 && u < 4) {
		v /= 1000;
		u++;
	}
	snprintf(buf, len, "%.2f %s", v, unit[u]);
}

/* Play time of `frames`: "2.47s" under a minute, else rounded to the
 * second: "1m24s", "1h02m03s". */
static void fmt_duration(int64_t frames, struct eng_fps fps, char *buf,
			 size_t len)
{
	uint64_t s =
	    (uint64_t)(((unsigned __int128)frames * fps.den * 2 + fps.num) /
		       (2 * (uint64_t)fps.num));

	if (s < 60)
		snprintf(buf, len, "%.2fs", (double)frames * fps.den / fps.num);
	else if (s >= 3600)
		snprintf(buf, len, "%" PRIu64 "h%02" PRIu64 "m%02" PRIu64 "s",
			 s / 3600, s / 60 % 60, s % 60);
	else
		snprintf(buf, len, "%" PRIu64 "m%02" PRIu64 "s", s / 60,
			 s % 60);
}

/* "29.97", "25", "23.976": at most 3 decimals, trailing zeros dropped. */
static void fmt_fps(struct eng_fps fps, char *buf, size_t len)
{
	size_t n;

	snprintf(buf, len, "%.3f", (double)fps.num / fps.den);
	n = strlen(buf);
	while (n > 0 && buf[n - 1] == '0')
		buf[--n] = '\0';
	if (n > 0 && buf[n - 1] == '.')
		buf[--n] = '\0';
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
		fmt_fps(f[i].fps, fps, sizeof(fps));
		if (eng_gen_check(&c, &z, NULL) == 0)
			fmt_bytes(z.media_bytes, media, sizeof(media));
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
}

static int write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;
	ssize_t n;

	while (len) {
		n = write(fd, p, len);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/*
 * One output file, written under a temporary name beside the final one and
 * renamed when complete, so an interrupted run never leaves a short clip
 * where timelinefs would take it for a whole one.  The temporary name
 * starts with '.' so it never matches NAME.TRACK.*.
 */
struct out_file {
	char path[4096];
	char tmp[4096];
	int fd;
};

static int out_open(struct out_file *o, const char *dir, const char *name)
{
	int n1, n2;

	n1 = snprintf(o->path, sizeof(o->path), "%s/%s", dir, name);
	n2 = snprintf(o->tmp, sizeof(o->tmp), "%s/.%s.tmp", dir, name);
	if (n1 < 0 || n2 < 0 || (size_t)n2 >= sizeof(o->tmp)) {
		fprintf(stderr, PROG ": path too long: %s/%s\n", dir, name);
		return -ENAMETOOLONG;
	}
	o->fd = open(o->tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (o->fd < 0) {
		fprintf(stderr, PROG ": cannot create %s: %s\n", o->tmp,
			strerror(errno));
		return -errno;
	}
	return 0;
}

static int out_write(struct out_file *o, const void *buf, size_t len)
{
	int rc = write_all(o->fd, buf, len);

	if (rc < 0)
		fprintf(stderr, PROG ": cannot write %s: %s\n", o->tmp,
			strerror(-rc));
	return rc;
}

/* Close and rename into place on success (rc == 0); else remove. */
static int out_close(struct out_file *o, int rc)
{
	if (close(o->fd) < 0 && rc == 0) {
		rc = -errno;
		fprintf(stderr, PROG ": cannot write %s: %s\n", o->tmp,
			strerror(errno));
	}
	if (rc == 0 && rename(o->tmp, o->path) < 0) {
		rc = -errno;
		fprintf(stderr, PROG ": cannot rename %s to %s: %s\n", o->tmp,
			o->path, strerror(errno));
	}
	if (rc < 0)
		unlink(o->tmp);
	return rc;
}

/* Write `len` bytes of the stream r after an optional header. */
static int write_stream(const char *dir, const char *name, struct eng_rng *r,
			const unsigned char *hdr, size_t hdrlen, uint64_t len,
			int pad, unsigned char *buf)
{
	struct out_file o;
	uint64_t left = len;
	size_t n;
	int rc;

	rc = out_open(&o, dir, name);
	if (rc < 0)
		return rc;
	if (hdrlen)
		rc = out_write(&o, hdr, hdrlen);
	while (rc == 0 && left) {
		n = left < BLOCK ? (size_t)left : BLOCK;
		eng_rng_fill(r, buf, n);
		rc = out_write(&o, buf, n);
		left -= n;
	}
	if (rc == 0 && pad)
		rc = out_write(&o, "", 1); /* RIFF pad after odd data */
	return out_close(&o, rc);
}

static int write_clips(const char *dir, const struct eng_gen_config *c,
		       const struct eng_gen_sizes *z)
{
	unsigned char hdr[ENG_GEN_WAV_HEADER], *buf;
	char clip[32], name[64];
	struct eng_rng r;
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
		eng_rng_seed(&r, eng_rng_derive(c->seed, i, 0));
		rc = write_stream(dir, name, &r, NULL, 0, z->video_bytes, 0,
				  buf);
		for (t = 1; t <= c->audio_tracks && rc == 0; t++) {
			snprintf(name, sizeof(name), "%s.A%" PRIu32 ".wav",
				 clip, t);
			eng_rng_seed(&r, eng_rng_derive(c->seed, i, t));
			rc = write_stream(dir, name, &r, hdr, sizeof(hdr),
					  z->audio_bytes,
					  (int)(z->audio_bytes & 1), buf);
		}
	}
	free(buf);
	return rc;
}

static int write_text(const char *dir, const char *name, const char *text,
		      size_t len)
{
	struct out_file o;
	int rc;

	rc = out_open(&o, dir, name);
	if (rc < 0)
		return rc;
	rc = out_write(&o, text, len);
	return out_close(&o, rc);
}

static int make_dir(const char *path)
{
	struct stat sb;

	if (mkdir(path, 0777) == 0)
		return 0;
	if (errno == EEXIST && stat(path, &sb) == 0 && S_ISDIR(sb.st_mode))
		return 0;
	if (errno == EEXIST)
		errno = ENOTDIR;
	fprintf(stderr, PROG ": cannot create directory %s: %s\n", path,
		strerror(errno));
	return -errno;
}

/* Space held by a file we are about to replace: freed as we go. */
static uint64_t held(const char *dir, const char *name)
{
	char path[4096];
	struct stat sb;

	if (snprintf(path, sizeof(path), "%s/%s", dir, name) >=
		(int)sizeof(path) ||
	    stat(path, &sb) < 0 || !S_ISREG(sb.st_mode))
		return 0;
	return (uint64_t)sb.st_blocks * 512;
}

/* Refuse to start a run that cannot fit, rather than fill the disk and
 * stop half way: `need` bytes are to be written, `reclaim` of them replace
 * files already there.  Returns 0 or -ENOSPC (reported). */
static int check_space_bytes(const char *dir, uint64_t need, uint64_t reclaim)
{
	char need_s[32], free_s[32];
	char parent[4096], *slash;
	struct statvfs vfs;
	uint64_t have;

	/* Before DIR is created: ask the folder it will be created in. */
	snprintf(parent, sizeof(parent), "%s", dir);
	while (statvfs(parent, &vfs) < 0) {
		if (errno != ENOENT || strcmp(parent, ".") == 0) {
			fprintf(stderr,
				PROG ": cannot check free space of %s: "
				     "%s\n",
				parent, strerror(errno));
			return -errno;
		}
		slash = strrchr(parent, '/');
		if (!slash)
			strcpy(parent, ".");
		else if (slash == parent)
			parent[1] = '\0';
		else
			*slash = '\0';
	}
	have = (uint64_t)vfs.f_bavail * vfs.f_frsize + reclaim;
	if ((unsigned __int128)need * 105 <= (unsigned __int128)have * 100)
		return 0;
	fmt_bytes(need, need_s, sizeof(need_s));
	fmt_bytes(have, free_s, sizeof(free_s));
	fprintf(stderr,
		PROG ": %s needs %s plus a 5 %% margin but has %s "
		     "free; use --force to write anyway\n",
		dir, need_s, free_s);
	return -ENOSPC;
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
		reclaim += held(dir, name);
		for (t = 1; t <= c->audio_tracks; t++) {
			snprintf(name, sizeof(name), "%s.A%" PRIu32 ".wav",
				 clip, t);
			reclaim += held(dir, name);
		}
	}
	return check_space_bytes(dir, z->media_bytes + text_bytes, reclaim);
}

/* ------------------------------------------------------------ --for */

/* One timeline of --for: loaded as the mount will load its copy. */
struct for_tl {
	const char *path; /* as given */
	const char *base; /* file name: the copy's name */
	struct eng_timeline *tl;
	char *text; /* the file, to copy */
	size_t len;
	char *fps;    /* sidecar: its rate as read, then the text to write */
	int had_fps;  /* a sidecar was read */
	int in_place; /* path is already DIR/timelines/base */
};

/* What --for is given besides the timelines. */
struct for_opts {
	struct eng_load_options load;
	const char *fps_arg; /* --fps as given, NULL: not given */
	const char *video_arg;
	const char *audio_arg;
	const char *origin_arg; /* --edl-origin as given */
	uint64_t seed;
	int force;
};

/* A timeline already in DIR/timelines that no --for copy replaces: the
 * mount will load it beside the new ones, so the files they share must
 * stay long enough for it. */
struct for_old {
	char *path;
	struct eng_timeline *tl; /* NULL: it does not load */
	int shares;		 /* files of the plan it reads */
};

static int is_tl_ext(const char *base)
{
	const char *dot = strrchr(base, '.');

	/* any case, as the mount reads it: a.TL takes no --fps sidecar */
	return dot && strcasecmp(dot, ".tl") == 0;
}

static void print_diag(const struct eng_diag *d)
{
	size_t i;

	for (i = 0; i < d->n; i++)
		fprintf(stderr, "%s\n", d->msgs[i]);
}

/* What was skipped (a FIFO named like a timeline or a sidecar), as the
 * mount will skip it; frees them. */
static void print_notes(struct eng_diag *notes)
{
	size_t i;

	for (i = 0; i < notes->n; i++)
		fprintf(stderr, PROG ": note: %s\n", notes->msgs[i]);
	eng_diag_free(notes);
}

/* Load every timeline, with its sidecar, as the mount does. */
static int for_load(struct for_tl *v, size_t n, const struct for_opts *fo,
		    struct eng_diag *diag)
{
	struct eng_diag notes = {0};
	struct eng_load_options o;
	size_t i, j;
	int bad = 0, rc;

	for (i = 0; i < n; i++) {
		const char *slash = strrchr(v[i].path, '/');

		v[i].base = slash ? slash + 1 : v[i].path;
		rc = eng_load_options_for(v[i].path, &fo->load, &o, &v[i].fps,
					  diag, &notes);
		v[i].had_fps = v[i].fps != NULL;
		if (rc < 0 ||
		    eng_timeline_load(v[i].path, &o, &v[i].tl, diag) < 0) {
			bad = 1;
			continue;
		}
		for (j = 0; j < i; j++)
			if (v[j].tl &&
			    strcmp(v[j].tl->name, v[i].tl->name) == 0) {
				eng_diag_add(
				    diag, v[i].path, 0,
				    "same name as %s: both would be /%s",
				    v[j].path, v[i].tl->name);
				bad = 1;
			}
		rc = eng_read_file(v[i].path, &v[i].text, &v[i].len);
		if (rc < 0) {
			eng_diag_add(diag, v[i].path, 0, "cannot read: %s",
				     strerror(-rc));
			bad = 1;
		}
	}
	print_notes(&notes);
	return bad ? -EINVAL : 0;
}

/* The sidecar the copy needs: the original's rate (t->fps, as
 * eng_load_options_for read it), or --fps for formats that take a rate
 * from outside (a .tl declares its own). */
static int for_sidecar(struct for_tl *t, const struct for_opts *fo)
{
	char *word = t->fps;
	int rc = 0;

	t->fps = NULL;
	if (word) {
		if (asprintf(&t->fps, "%s\n", word) < 0)
			rc = -ENOMEM;
	} else if (fo->fps_arg && !is_tl_ext(t->base)) {
		if (asprintf(&t->fps, "%" PRIu32 "/%" PRIu32 "\n",
			     fo->load.fps.num, fo->load.fps.den) < 0)
			rc = -ENOMEM;
	}
	if (rc < 0)
		t->fps = NULL;
	free(word);
	return rc;
}

static int same_file(const char *a, const char *b)
{
	struct stat sa, sb;

	return stat(a, &sa) == 0 && stat(b, &sb) == 0 &&
	       sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

/*
 * Load the timelines already in tldir (those a --for copy replaces aside)
 * as the mount will, and widen the plan's files to what they need.  One
 * that does not load is told and left out: the mount would refuse it
 * anyway, and no file is written shorter than it was (for_on_disk).
 * Returns 0 (*out, *nout set; none when tldir does not exist yet),
 * -EINVAL when one of them has the name of a copy (a.edl there, a.EDL or
 * a.tl copied: both would be /a, and the mount refuses both) or -ENOMEM;
 * each reported.
 */
static int for_existing(const char *tldir, const struct for_tl *v, size_t n,
			const struct for_opts *fo,
			struct eng_gen_media_plan *plan, struct for_old **out,
			size_t *nout)
{
	struct eng_diag notes = {0};
	struct for_old *old = NULL;
	char **names = NULL;
	size_t k = 0, m, i, j, stem;
	int rc, clash = 0;

	*out = NULL;
	*nout = 0;
	rc = eng_timeline_names(tldir, &names, &m, &notes);
	print_notes(&notes);
	if (rc == -ENOMEM)
		goto nomem;
	if (rc < 0) /* no folder yet: nothing there */
		return 0;
	for (i = 0; i < m; i++) {
		for (j = 0; j < n && strcmp(v[j].base, names[i]) != 0; j++)
			;
		if (j < n) /* replaced by the copy */
			free(names[i]);
		else
			names[k++] = names[i];
	}
	/* the mount's rule (fs/main.c): one timeline per name at the mount,
	 * the file name without its extension */
	for (i = 0; i < k; i++) {
		stem = (size_t)(strrchr(names[i], '.') - names[i]);
		for (j = 0; j < n; j++)
			if (strncmp(v[j].tl->name, names[i], stem) == 0 &&
			    !v[j].tl->name[stem]) {
				fprintf(stderr,
					"%s/%s: same name as %s (to be copied "
					"to %s/%s): both would be /%s\n",
					tldir, names[i], v[j].path, tldir,
					v[j].base, v[j].tl->name);
				clash = 1;
			}
	}
	if (clash) {
		fprintf(stderr, PROG ": nothing written\n");
		rc = -EINVAL;
		goto out;
	}
	if (!k)
		goto done;
	old = calloc(k, sizeof(*old));
	if (!old)
		goto nomem;
	for (i = 0; i < k; i++) {
		struct eng_load_options o;
		struct eng_diag diag = {0};

		if (asprintf(&old[i].path, "%s/%s", tldir, names[i]) < 0) {
			old[i].path = NULL;
			goto nomem;
		}
		rc = eng_load_options_for(old[i].path, &fo->load, &o, NULL,
					  &diag, &notes);
		print_notes(&notes);
		if (rc == 0)
			rc = eng_timeline_load(old[i].path, &o, &old[i].tl,
					       &diag);
		if (rc == 0) {
			rc = eng_gen_media_widen(plan, old[i].tl, &diag);
			if (rc >= 0)
				old[i].shares = rc;
		}
		if (rc < 0 && rc != -ENOMEM) {
			print_diag(&diag);
			fprintf(stderr,
				PROG ": note: %s, already there, does not "
				     "load (the mount will refuse it too); "
				     "left as it is\n",
				old[i].path);
			eng_tl_free(old[i].tl);
			old[i].tl = NULL;
			rc = 0;
		}
		eng_diag_free(&diag);
		if (rc < 0)
			goto nomem;
	}
done:
	*out = old;
	*nout = k;
	old = NULL;
	rc = 0;
	goto out;
nomem:
	fprintf(stderr, PROG ": out of memory\n");
	rc = -ENOMEM;
out:
	for (i = 0; old && i < k; i++) {
		free(old[i].path);
		eng_tl_free(old[i].tl);
	}
	free(old);
	eng_names_free(names, k);
	return rc;
}

/*
 * The files of the plan that are already in dir: never written shorter
 * than they are (eng_gen_media_existing), and a WAVE file of another
 * format is refused rather than rewritten.  Returns the number of files
 * refused (each reported).
 */
static unsigned for_on_disk(const char *dir, struct eng_gen_media_plan *plan,
			    size_t *kept)
{
	unsigned char *head;
	char path[4096], why[512];
	struct stat sb;
	unsigned bad = 0;
	ssize_t got;
	size_t i;
	int fd;

	head = malloc(ENG_WAV_HEAD_MAX);
	if (!head) {
		fprintf(stderr, PROG ": out of memory\n");
		return 1;
	}
	*kept = 0;
	for (i = 0; i < plan->n; i++) {
		struct eng_gen_media *m = &plan->files[i];
		uint64_t need = m->bytes;

		if (snprintf(path, sizeof(path), "%s/%s", dir, m->file) >=
		    (int)sizeof(path))
			continue; /* out_open says so */
		/* not a regular file (a link, a folder): the rename below
		 * replaces it or fails, as before */
		fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
		if (fd < 0)
			continue;
		if (fstat(fd, &sb) < 0 || !S_ISREG(sb.st_mode)) {
			close(fd);
			continue;
		}
		got = m->wav ? pread(fd, head, ENG_WAV_HEAD_MAX, 0) : 0;
		if (got < 0) {
			fprintf(stderr, PROG ": cannot read %s: %s\n", path,
				strerror(errno));
			bad++;
		} else if (eng_gen_media_existing(m, head, (size_t)got,
						  (uint64_t)sb.st_size, why,
						  sizeof(why)) < 0) {
			fprintf(stderr,
				PROG ": %s %s: remove it, or use another "
				     "DIR, to have it written anew\n",
				path, why);
			bad++;
		}
		*kept += m->bytes > need;
		close(fd);
	}
	free(head);
	return bad;
}

/*
 * A regular file CLIP.TRACK.OTHER beside the one we write would make the
 * mount find the clip ambiguous: refuse before writing anything.  Returns
 * the number of such files (each reported).
 */
static unsigned for_conflicts(const char *dir,
			      const struct eng_gen_media_plan *plan)
{
	struct dirent *de;
	unsigned bad = 0;
	struct stat sb;
	char *prefix;
	size_t i, n;
	DIR *d;
	int dfd;

	d = opendir(dir);
	if (!d)
		return 0; /* created below: nothing there yet */
	dfd = dirfd(d);
	while ((de = readdir(d))) {
		for (i = 0; i < plan->n; i++) {
			const struct eng_gen_media *m = &plan->files[i];

			if (strcmp(de->d_name, m->file) == 0 ||
			    asprintf(&prefix, "%s.%s.", m->clip, m->track) < 0)
				continue;
			n = strlen(prefix);
			if (strncmp(de->d_name, prefix, n) == 0 &&
			    de->d_name[n] &&
			    fstatat(dfd, de->d_name, &sb,
				    AT_SYMLINK_NOFOLLOW) == 0 &&
			    S_ISREG(sb.st_mode)) {
				fprintf(stderr,
					PROG
					": %s/%s would make clip %s track %s "
					"ambiguous with %s; move it away\n",
					dir, de->d_name, m->clip, m->track,
					m->file);
				bad++;
			}
			free(prefix);
		}
	}
	closedir(d);
	return bad;
}

static int for_write_media(const char *dir, const struct eng_gen_media_plan *p)
{
	unsigned char hdr[ENG_GEN_WAV_HEADER], *buf;
	struct eng_rng r;
	size_t i;
	int rc = 0;

	buf = malloc(BLOCK);
	if (!buf) {
		fprintf(stderr, PROG ": out of memory\n");
		return -ENOMEM;
	}
	for (i = 0; i < p->n && rc == 0; i++) {
		const struct eng_gen_media *m = &p->files[i];

		eng_rng_seed(&r, m->seed);
		if (m->wav)
			eng_wav_header(hdr, m->sample_rate, m->bits, m->bytes);
		rc = write_stream(dir, m->file, &r, hdr,
				  m->wav ? sizeof(hdr) : 0, m->bytes,
				  m->wav && (m->bytes & 1), buf);
	}
	free(buf);
	return rc;
}

/* The mount reads a sidecar of any spelling of ".fps" and refuses two:
 * remove those of dst but the file keep (NULL: all of them). */
static void drop_sidecars(const char *dst, const char *keep, const char *why)
{
	char side[4200];
	struct stat sb;
	const char *ext;
	unsigned i;

	for (i = 0; (ext = eng_sidecar_ext(i)); i++) {
		snprintf(side, sizeof(side), "%s%s", dst, ext);
		/* where case is folded, every spelling is keep itself */
		if (lstat(side, &sb) < 0 || (keep && same_file(side, keep)))
			continue;
		if (unlink(side) == 0)
			printf("removed %s: %s\n", side, why);
	}
}

/* Copy the timelines and their sidecars into DIR/timelines, so that
 * "timelinefs DIR MNT" loads them as they were loaded here. */
static int for_copy(const char *tldir, struct for_tl *v, size_t n)
{
	char dst[4096], side[4096], sname[4096];
	size_t i;

	for (i = 0; i < n; i++) {
		struct for_tl *t = &v[i];

		if (snprintf(dst, sizeof(dst), "%s/%s", tldir, t->base) >=
			(int)sizeof(dst) ||
		    snprintf(side, sizeof(side), "%s/%s.fps", tldir, t->base) >=
			(int)sizeof(side) ||
		    snprintf(sname, sizeof(sname), "%s.fps", t->base) >=
			(int)sizeof(sname)) {
			fprintf(stderr, PROG ": path too long: %s/%s\n", tldir,
				t->base);
			return -ENAMETOOLONG;
		}
		if (same_file(t->path, dst)) {
			/* loaded from there: its sidecar, if any, is the
			 * one that was read */
			t->in_place = 1;
			if (!t->fps || t->had_fps)
				continue;
		} else if (write_text(tldir, t->base, t->text, t->len) < 0) {
			return -EIO;
		}
		if (t->fps) {
			if (write_text(tldir, sname, t->fps, strlen(t->fps)) <
			    0)
				return -EIO;
			drop_sidecars(dst, side, "replaced by the .fps one");
		} else {
			/* a stale one would change how the mount loads it */
			drop_sidecars(dst, NULL,
				      "the timeline was loaded without it");
		}
	}
	return 0;
}

/* Resolve every timeline against what was written: what the mount will
 * check, so a problem shows here and not at mount time. */
static int for_verify(const char *dir, struct for_tl *v, size_t n,
		      const struct for_old *old, size_t nold)
{
	struct eng_diag diag = {0};
	size_t i;
	int fd, rc = 0;

	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, PROG ": cannot open %s: %s\n", dir,
			strerror(errno));
		return -errno;
	}
	for (i = 0; i < n; i++)
		if (eng_media_resolve(v[i].tl, fd, dir, &diag) < 0)
			rc = -EINVAL;
	/* the mount loads those already there too */
	for (i = 0; i < nold; i++)
		if (old[i].tl &&
		    eng_media_resolve(old[i].tl, fd, dir, &diag) < 0)
			rc = -EINVAL;
	close(fd);
	print_diag(&diag);
	eng_diag_free(&diag);
	return rc;
}

/* Append ",NAME=VALUE" (NAME alone when val is NULL) to the mount's -o
 * line being built in *o. */
static void mount_opt(char **o, const char *name, const char *val)
{
	char *next;

	if (!*o ||
	    asprintf(&next, "%s%s%s%s%s", *o, **o ? "," : "", name,
		     val ? "=" : "", val ? val : "") < 0)
		return;
	free(*o);
	*o = next;
}

/* The options the mount needs to resolve the timelines as --for did:
 * those that have no sidecar.  Quoted for a shell when a value needs it
 * (01:00:00;00). */
static void print_mount_line(const char *dir, const struct for_opts *fo)
{
	char *o = strdup("");

	if (fo->video_arg)
		mount_opt(&o, "video_rate", fo->video_arg);
	if (fo->audio_arg)
		mount_opt(&o, "audio_rate", fo->audio_arg);
	if (fo->origin_arg)
		mount_opt(&o, "edl_origin", fo->origin_arg);
	if (fo->load.strict)
		mount_opt(&o, "strict", NULL);
	printf("mount them: timelinefs ");
	if (o && *o)
		printf(strspn(o, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRS"
			      "TUVWXYZ0123456789_=,.:/+-") == strlen(o) ?
			       "-o %s " : "-o '%s' ", o);
	printf("%s MOUNTPOINT\n", dir);
	free(o);
}

static void for_report(const char *dir, const struct for_tl *v, size_t n,
		       const struct for_old *old, size_t nold, size_t kept,
		       const struct eng_gen_media_plan *p,
		       const struct for_opts *fo, double secs)
{
	uint64_t media = 0;
	char b1[32], b2[32], b3[32];
	size_t i, t, c, nclips;

	for (i = 0; i < p->n; i++)
		media += eng_gen_media_file_bytes(&p->files[i]);
	fmt_bytes(media, b1, sizeof(b1));
	printf("wrote %zu clip files (%s) for %zu timeline%s to %s in %.1f s",
	       p->n, b1, n, n == 1 ? "" : "s", dir, secs);
	if (secs > 0)
		printf(" (%.0f MB/s)", (double)media / secs / 1e6);
	printf("\n");
	for (i = 0; i < n; i++) {
		const struct eng_timeline *tl = v[i].tl;

		for (c = nclips = 0; c < tl->nclips; c++)
			for (t = 0; t < tl->ntracks; t++)
				if (tl->clips[c].media &&
				    tl->clips[c].media[t].file) {
					nclips++;
					break;
				}
		fmt_duration(tl->frames, tl->fps, b1, sizeof(b1));
		fmt_bytes(tl->bytes, b2, sizeof(b2));
		fmt_fps(tl->fps, b3, sizeof(b3));
		printf("  timelines/%s%s plays %s (%" PRId64
		       " frames at %s fps, %s), %zu clips, tracks",
		       v[i].base, v[i].in_place ? " (in place)" : "", b1,
		       tl->frames, b3, b2, nclips);
		for (t = 0; t < tl->ntracks; t++)
			printf(" %s", tl->tracks[t].name);
		printf("\n");
	}
	for (i = 0; i < nold; i++)
		if (old[i].shares)
			printf("  %s, already there, reads %d of these files: "
			       "written long enough for it too\n",
			       old[i].path, old[i].shares);
	if (kept)
		printf("  %zu file%s longer than every timeline needs: "
		       "kept at that length\n",
		       kept, kept == 1 ? " was" : "s were");
	print_mount_line(dir, fo);
}

/* timelinefs-gen --for T [--for T ...] DIR */
static int run_for(const char *dir, const char **paths, size_t n,
		   const struct for_opts *fo)
{
	struct eng_gen_media_plan plan = {0};
	struct eng_diag diag = {0};
	struct timespec t0, t1;
	struct for_old *old = NULL;
	size_t nold = 0, kept = 0;
	struct for_tl *v;
	char tldir[4096], side[4200];
	uint64_t need = 0, reclaim = 0;
	size_t i;
	int ret = EXIT_IO, rc;

	v = calloc(n, sizeof(*v));
	if (!v) {
		fprintf(stderr, PROG ": out of memory\n");
		return EXIT_IO;
	}
	for (i = 0; i < n; i++)
		v[i].path = paths[i];
	rc = for_load(v, n, fo, &diag);
	for (i = 0; rc == 0 && i < n; i++) {
		rc = eng_gen_media_add(&plan, v[i].tl, fo->seed, &diag);
		if (rc == 0)
			rc = for_sidecar(&v[i], fo);
	}
	if (rc < 0) {
		print_diag(&diag);
		if (rc == -ENOMEM)
			fprintf(stderr, PROG ": out of memory\n");
		else
			fprintf(stderr, PROG ": nothing written\n");
		goto out;
	}
	if (snprintf(tldir, sizeof(tldir), "%s/timelines", dir) >=
	    (int)sizeof(tldir)) {
		fprintf(stderr, PROG ": path too long: %s\n", dir);
		goto out;
	}
	/* Incremental use: what is already in DIR keeps playing.  The
	 * timelines there widen the files they share with these, and no
	 * file is written shorter than it is. */
	if (for_existing(tldir, v, n, fo, &plan, &old, &nold) < 0)
		goto out;
	if (for_conflicts(dir, &plan) + for_on_disk(dir, &plan, &kept)) {
		fprintf(stderr, PROG ": nothing written\n");
		goto out;
	}
	for (i = 0; i < plan.n; i++) {
		need += eng_gen_media_file_bytes(&plan.files[i]);
		reclaim += held(dir, plan.files[i].file);
	}
	for (i = 0; i < n; i++) {
		need += v[i].len;
		reclaim += held(tldir, v[i].base);
		snprintf(side, sizeof(side), "%s.fps", v[i].base);
		reclaim += held(tldir, side);
	}
	if (!fo->force && check_space_bytes(dir, need, reclaim) < 0)
		goto out;
	if (make_dir(dir) < 0 || make_dir(tldir) < 0)
		goto out;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (for_write_media(dir, &plan) < 0 || for_copy(tldir, v, n) < 0)
		goto out;
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (for_verify(dir, v, n, old, nold) < 0) {
		fprintf(stderr,
			PROG ": with the media in %s timelinefs would not "
			     "mount these timelines\n",
			dir);
		goto out;
	}
	for_report(dir, v, n, old, nold, kept, &plan, fo,
		   (double)(t1.tv_sec - t0.tv_sec) +
		       (double)(t1.tv_nsec - t0.tv_nsec) / 1e9);
	ret = 0;
out:
	for (i = 0; i < n; i++) {
		eng_tl_free(v[i].tl);
		free(v[i].text);
		free(v[i].fps);
	}
	free(v);
	for (i = 0; i < nold; i++) {
		free(old[i].path);
		eng_tl_free(old[i].tl);
	}
	free(old);
	eng_gen_media_free(&plan);
	eng_diag_free(&diag);
	return ret;
}

/* timelinefs-gen --dump-tl T: the resolved edit as .tl on stdout. */
static int run_dump(const char *path, const struct for_opts *fo)
{
	struct eng_load_options o;
	struct eng_timeline *tl = NULL;
	struct eng_diag diag = {0}, notes = {0};
	char *text = NULL;
	size_t len;
	int ret = EXIT_IO, rc;

	rc = eng_load_options_for(path, &fo->load, &o, NULL, &diag, &notes);
	print_notes(&notes);
	if (rc < 0 ||
	    eng_timeline_load(path, &o, &tl, &diag) < 0 ||
	    eng_tl_write(tl, ENG_TL_WRITE_ESCAPE, &text, &len, &diag) < 0) {
		print_diag(&diag);
		goto out;
	}
	if (fwrite(text, 1, len, stdout) != len || fflush(stdout) != 0) {
		fprintf(stderr, PROG ": cannot write: %s\n", strerror(errno));
		goto out;
	}
	ret = 0;
out:
	free(text);
	eng_tl_free(tl);
	eng_diag_free(&diag);
	return ret;
}

struct tl_out {
	char *text;
	size_t len;
	int64_t frames;
};

int main(int argc, char **argv)
{
	struct eng_gen_config c;
	struct eng_gen_sizes z;
	struct eng_diag diag = {0};
	struct eng_gen_event *ev = NULL;
	struct tl_out *tls = NULL;
	char tldir[4096], name[64], b1[32], b2[32], b3[32];
	const char *dir;
	uint64_t text_bytes = 0, play_bytes = 0;
	int64_t play_frames = 0, lo = INT64_MAX, hi = 0;
	struct timespec t0, t1;
	double secs;
	const struct eng_gen_format *format = NULL;
	struct for_opts fo;
	const char **fors = NULL, *dump = NULL;
	size_t nfor = 0;
	unsigned int set = 0;
	int force = 0, opt, ret = EXIT_USAGE, rc;
	uint32_t i;
	size_t k;

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
			set |= SET_GEN_ONLY;
			rc = parse_secs("--min-seconds", optarg, &c.min_us);
			break;
		case OPT_MAX_SECONDS:
			set |= SET_GEN_ONLY;
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
			set |= SET_VIDEO_RATE;
			rc = parse_rate("--video-rate", optarg, &c.video_rate);
			fo.load.video_rate = c.video_rate;
			fo.video_arg = optarg;
			break;
		case OPT_AUDIO_TRACKS:
			set |= SET_AUDIO_TRACKS | SET_GEN_ONLY;
			rc = parse_count("--audio-tracks", optarg,
					 &c.audio_tracks);
			break;
		case OPT_AUDIO_RATE: {
			char why[128];

			set |= SET_AUDIO_RATE;
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
			if (!format) {
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
		fprintf(stderr, PROG ": --edl-origin and --strict are for "
				     "loading timelines: with --for or "
				     "--dump-tl\n");
		goto out;
	}
	if ((nfor || dump) &&
	    (fo.load.video_rate == 0 || fo.load.audio_rate == 0)) {
		fprintf(stderr, PROG ": a rate of 0 plays nothing\n");
		goto out;
	}
	fo.seed = c.seed;
	fo.force = force;
	if (dump) {
		if (nfor || optind != argc) {
			fprintf(stderr,
				PROG ": --dump-tl takes no --for and "
				     "no DIR\nTry '" PROG " --help'.\n");
			goto out;
		}
		ret = run_dump(dump, &fo);
		goto out;
	}
	if (optind != argc - 1) {
		fprintf(stderr, PROG ": %s\nTry '" PROG " --help'.\n",
			optind == argc ? "missing DIR" : "more than one DIR");
		goto out;
	}
	dir = argv[optind];
	if (nfor) {
		ret = run_for(dir, fors, nfor, &fo);
		goto out;
	}
	if (format) {
		struct eng_gen_config given = c;

		eng_gen_format_apply(&c, format);
		if (set & SET_FPS)
			c.fps = given.fps;
		if (set & SET_VIDEO_RATE)
			c.video_rate = given.video_rate;
		if (set & SET_AUDIO_TRACKS)
			c.audio_tracks = given.audio_tracks;
		if (set & SET_AUDIO_RATE)
			c.audio_rate = given.audio_rate;
	}
	if (eng_gen_check(&c, &z, &diag) < 0) {
		for (k = 0; k < diag.n; k++)
			fprintf(stderr, "%s\n", diag.msgs[k]);
		goto out;
	}

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
	if (make_dir(dir) < 0 || make_dir(tldir) < 0)
		goto out;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (write_clips(dir, &c, &z) < 0)
		goto out;
	for (i = 0; i < c.timelines; i++) {
		eng_gen_timeline_name(i, b1, sizeof(b1));
		snprintf(name, sizeof(name), "%s.tl", b1);
		if (write_text(tldir, name, tls[i].text, tls[i].len) < 0)
			goto out;
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	secs = (double)(t1.tv_sec - t0.tv_sec) +
	       (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;

	fmt_bytes(z.media_bytes, b1, sizeof(b1));
	fmt_fps(c.fps, b3, sizeof(b3));
	printf("wrote %" PRIu32 " clips (%" PRIu64 " files, %s) and %" PRIu32
	       " timelines to %s in %.1f s",
	       c.clips, z.media_files, b1, c.timelines, dir, secs);
	if (secs > 0)
		printf(" (%.0f MB/s)", (double)z.media_bytes / secs / 1e6);
	printf("\n");
	for (i = 0; i < c.timelines; i++) {
		uint64_t bytes = eng_gen_timeline_bytes(&c, tls[i].frames);

		eng_gen_timeline_name(i, name, sizeof(name));
		fmt_duration(tls[i].frames, c.fps, b1, sizeof(b1));
		fmt_bytes(bytes, b2, sizeof(b2));
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
	fmt_duration(play_frames, c.fps, b1, sizeof(b1));
	fmt_bytes(play_bytes, b2, sizeof(b2));
	printf("timelines play %s in total (%s), ", b1, b2);
	fmt_duration(lo, c.fps, b1, sizeof(b1));
	fmt_duration(hi, c.fps, b2, sizeof(b2));
	printf("from %s to %s each\n", b1, b2);
	ret = 0;
out:
	if (tls)
		for (i = 0; i < c.timelines; i++)
			free(tls[i].text);
	free(tls);
	free(ev);
	free(fors);
	eng_diag_free(&diag);
	return ret;
}
