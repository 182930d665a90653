/* SPDX-License-Identifier: MIT */
/*
 * timelinefs-gen --codec/--container: stand-in media in real formats.
 * Our pictures (engine/media/picture.h: the clip/frame code, digits and
 * bar) and tones are made here as before and fed through pipes to the
 * ffmpeg program, which encodes and muxes them: rawvideo uyvy422 (or
 * v210) on fd 3, one s24le mono stream per audio track on fds 4...
 *
 * Why the program and not libavcodec/libavformat in-process: measured on
 * --for transitions.edl at 640x480 ProRes (3 clips, 145 frames, 2 audio
 * tracks), this run took 1.17 s of CPU with ffmpeg's, the same ffmpeg
 * commands reading the raw --for files 1.16-1.18 s: the pipes cost
 * nothing the encoder does not dwarf, and in-process would not be
 * faster.  The code: about 370 of this file's lines drive the program
 * (argument lists, pipes, the poll loop, spawn and wait); in-process needs
 * the same settings as AVOptions plus swscale to the encoders' pixel
 * formats, the muxer's streams and timecode, the send/receive loop and
 * its flushing (estimated no fewer lines, not written).  And an encoder
 * that crashes takes a child with it, not the generator; ffmpeg missing
 * is one message (run_ffmpeg).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "gen.h"
#include "timeline/timecode.h"

extern char **environ;

static const char *const codec_names[] = {
    [GEN_CODEC_NONE] = "none",
    [GEN_CODEC_PRORES] = "prores",
    [GEN_CODEC_DNXHD] = "dnxhd",
    [GEN_CODEC_H264] = "h264",
    [GEN_CODEC_UNCOMPRESSED] = "uncompressed",
};
static const char *const cont_names[] = {
    [GEN_CONT_MOV] = "mov",
    [GEN_CONT_MP4] = "mp4",
    [GEN_CONT_MXF] = "mxf",
    [GEN_CONT_OPATOM] = "opatom",
};

/* The index in [lo, hi] of name s in names[], or -EINVAL. */
static int find_name(const char *const *names, int lo, int hi, const char *s)
{
	int i;

	for (i = lo; i <= hi; i++)
		if (strcmp(s, names[i]) == 0)
			return i;
	return -EINVAL;
}

int gen_codec_parse(const char *s, enum gen_codec *c)
{
	int i = find_name(codec_names, GEN_CODEC_PRORES,
			  GEN_CODEC_UNCOMPRESSED, s);

	if (i >= 0)
		*c = (enum gen_codec)i;
	return i < 0 ? i : 0;
}

int gen_container_parse(const char *s, enum gen_container *c)
{
	int i = find_name(cont_names, GEN_CONT_MOV, GEN_CONT_OPATOM, s);

	if (i >= 0)
		*c = (enum gen_container)i;
	return i < 0 ? i : 0;
}

const char *gen_codec_name(enum gen_codec c)
{
	return codec_names[c];
}

/* DNxHD's 1080 bitrates (Mb/s) by nominal rate: SQ, HQ, HQX (10-bit);
 * the dnxhd encoder takes only these at 1920x1080. */
static const struct {
	unsigned fps;
	unsigned sq, hq;
} dnxhd_1080[] = {
    {24, 115, 175}, {25, 120, 185}, {30, 145, 220},
    {50, 240, 365}, {60, 290, 440},
};

static int dnxhd_rate(struct eng_fps fps, const char *profile)
{
	unsigned n = eng_tc_nominal(fps);
	size_t i;

	for (i = 0; i < sizeof(dnxhd_1080) / sizeof(dnxhd_1080[0]); i++)
		if (dnxhd_1080[i].fps == n)
			return strcmp(profile, "sq") == 0
				   ? (int)dnxhd_1080[i].sq
				   : (int)dnxhd_1080[i].hq;
	return 0;
}

static const char *default_profile(enum gen_codec c)
{
	switch (c) {
	case GEN_CODEC_PRORES:
		return "standard";
	case GEN_CODEC_DNXHD:
		return "sq";
	default:
		return NULL;
	}
}

int gen_enc_check(const struct gen_enc *e, const struct eng_picture *pic,
		  struct eng_fps fps, uint32_t audio_bits)
{
	const char *codec = codec_names[e->codec];
	const char *cont = cont_names[e->cont];
	const char *p = e->profile;

	if (pic->pix == ENG_PIX_NONE) {
		fprintf(stderr,
			PROG ": --codec %s needs pictures: not with "
			     "--video-rate or a rate --format (give "
			     "--picture FMT:WxH, or a picture "
			     "--format)\n",
			codec);
		return -EINVAL;
	}
	if (audio_bits != 24) {
		fprintf(stderr,
			PROG ": --codec writes 24-bit audio: not "
			     "%" PRIu32 "-bit\n",
			audio_bits);
		return -EINVAL;
	}
	if (p && e->codec == GEN_CODEC_PRORES && strcmp(p, "proxy") &&
	    strcmp(p, "lt") && strcmp(p, "standard") && strcmp(p, "hq")) {
		fprintf(stderr,
			PROG ": unknown --profile '%s' for prores "
			     "(proxy, lt, standard or hq)\n",
			p);
		return -EINVAL;
	}
	if (p && e->codec == GEN_CODEC_DNXHD && strcmp(p, "sq") &&
	    strcmp(p, "hq") && strcmp(p, "hqx")) {
		fprintf(stderr,
			PROG ": unknown --profile '%s' for dnxhd (sq, "
			     "hq or hqx)\n",
			p);
		return -EINVAL;
	}
	if (p && (e->codec == GEN_CODEC_H264 ||
		  e->codec == GEN_CODEC_UNCOMPRESSED)) {
		fprintf(stderr,
			PROG ": --profile is for prores and dnxhd, "
			     "not %s\n",
			codec);
		return -EINVAL;
	}
	/* what ffmpeg 5.1's muxers write (each refused one was tried) */
	if ((e->cont == GEN_CONT_MP4 && e->codec != GEN_CODEC_H264) ||
	    (e->cont >= GEN_CONT_MXF && (e->codec == GEN_CODEC_PRORES ||
					 e->codec == GEN_CODEC_UNCOMPRESSED))) {
		fprintf(stderr,
			PROG ": --codec %s cannot go in --container %s (%s); "
			     "mov takes every codec, mp4 h264, mxf and opatom "
			     "dnxhd and h264\n",
			codec, cont,
			e->cont == GEN_CONT_MP4
			    ? "ffmpeg's mp4 muxer takes H.264 of these"
			    : "ffmpeg's MXF muxers refuse it");
		return -EINVAL;
	}
	if (e->codec == GEN_CODEC_UNCOMPRESSED && pic->pix != ENG_PIX_2VUY &&
	    pic->pix != ENG_PIX_V210) {
		fprintf(stderr, PROG ": --codec uncompressed writes 2vuy or "
				     "v210 pictures\n");
		return -EINVAL;
	}
	if (e->codec == GEN_CODEC_DNXHD && pic->width == 1920 &&
	    pic->height == 1080 && !dnxhd_rate(fps, p ? p : "sq")) {
		fprintf(stderr, PROG ": DNxHD 1080 has no bitrate at this "
				     "frame rate (24, 25, 30, 50, 60 and their "
				     "1000/1001)\n");
		return -EINVAL;
	}
	if (e->codec != GEN_CODEC_UNCOMPRESSED &&
	    (pic->width % 2 || pic->height % 2)) {
		fprintf(stderr,
			PROG ": --codec %s needs an even picture size, "
			     "not %" PRIu32 "x%" PRIu32 "\n",
			codec, pic->width, pic->height);
		return -EINVAL;
	}
	return 0;
}

/* The names of a clip's files, as the mount resolves them (docs/formats.md
 * "Real-format media"): CLIP.mov (.mxf) holding every track, one OP-Atom
 * file a track, CLIP.V.mxf, CLIP.A1.mxf ..., or CLIP.mp4 with BWF files
 * CLIP.A1.wav ... beside it. */
int gen_enc_name(const struct gen_enc *e, const char *clip, const char *track,
		 char *buf, size_t len)
{
	int n;

	if (e->cont == GEN_CONT_OPATOM)
		n = snprintf(buf, len, "%s.%s.mxf", clip, track);
	else if (e->cont == GEN_CONT_MP4 && eng_gen_track_is_audio(track))
		n = snprintf(buf, len, "%s.%s.wav", clip, track);
	else
		n = snprintf(buf, len, "%s.%s", clip, cont_names[e->cont]);
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

const char *gen_enc_named(const struct gen_enc *e, const char *file)
{
	const char *dot = file ? strrchr(file, '.') : NULL;

	if (!dot || e->cont == GEN_CONT_OPATOM || file[0] == '.' ||
	    strchr(file, '/') || strcasecmp(dot + 1, cont_names[e->cont]))
		return NULL;
	return file;
}

/* A growing argument list. */
struct args {
	char *v[96];
	char own[96]; /* v[i] was malloc'ed */
	int n;
	int bad;
};

static void arg(struct args *a, const char *s)
{
	if (a->n + 1 >= (int)(sizeof(a->v) / sizeof(a->v[0]))) {
		a->bad = 1;
		return;
	}
	a->own[a->n] = 0;
	a->v[a->n++] = (char *)s;
	a->v[a->n] = NULL;
}

static void argf(struct args *a, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void argf(struct args *a, const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0) {
		a->bad = 1;
		s = NULL;
	}
	va_end(ap);
	if (!s)
		return;
	arg(a, s);
	if (a->v[a->n - 1] == s)
		a->own[a->n - 1] = 1;
	else
		free(s);
}

static void args_free(struct args *a)
{
	int i;

	for (i = 0; i < a->n; i++)
		if (a->own[i])
			free(a->v[i]);
}

/* The encoder's options, as editors' files have them. */
static void video_args(struct args *a, const struct gen_enc *e,
		       const struct eng_picture *pic, struct eng_fps fps)
{
	const char *p = e->profile ? e->profile : default_profile(e->codec);
	int rate;

	switch (e->codec) {
	case GEN_CODEC_PRORES:
		/* a fixed quantizer: prores_ks's rate control searches
		 * per slice and ran 28x slower on our noise (640x480, 60
		 * frames: 9.2 s against 0.33 s).  64 (its largest) came
		 * closest to the rate-controlled size (179 KB a 640x480
		 * frame, against 157 KB), 32 for hq */
		arg(a, "-c:v");
		arg(a, "prores_ks");
		arg(a, "-profile:v");
		arg(a, p);
		arg(a, "-vendor");
		arg(a, "apl0");
		arg(a, "-qscale:v");
		arg(a, strcmp(p, "hq") == 0 ? "32" : "64");
		arg(a, "-pix_fmt");
		arg(a, "yuv422p10le");
		break;
	case GEN_CODEC_DNXHD:
		arg(a, "-c:v");
		arg(a, "dnxhd");
		rate = pic->width == 1920 && pic->height == 1080
			   ? dnxhd_rate(fps, p)
			   : 0;
		if (rate) {
			/* DNxHD 1080: the bitrate names the profile */
			argf(a, "-b:v");
			argf(a, "%dM", rate);
		} else {
			arg(a, "-profile:v");
			argf(a, "dnxhr_%s", p);
		}
		arg(a, "-pix_fmt");
		arg(a, strcmp(p, "hqx") == 0 ? "yuv422p10le" : "yuv422p");
		break;
	case GEN_CODEC_H264:
		/* long GOP as AVCHD/XAVC-L cameras write it: fixed closed
		 * GOPs of half a second, two B-frames between references,
		 * High 4:2:0.  In MXF none: ffmpeg 5.1's MXF muxer writes
		 * no temporal offsets, so B-frames would read back with
		 * pts = dts (players show them out of place) */
		arg(a, "-c:v");
		arg(a, "libx264");
		arg(a, "-preset");
		arg(a, "veryfast");
		arg(a, "-crf");
		arg(a, "18");
		arg(a, "-g");
		argf(a, "%u", (eng_tc_nominal(fps) + 1) / 2);
		arg(a, "-keyint_min");
		argf(a, "%u", (eng_tc_nominal(fps) + 1) / 2);
		arg(a, "-sc_threshold");
		arg(a, "0");
		arg(a, "-bf");
		arg(a, e->cont >= GEN_CONT_MXF ? "0" : "2");
		arg(a, "-flags");
		arg(a, "+cgop");
		arg(a, "-pix_fmt");
		arg(a, "yuv420p");
		arg(a, "-profile:v");
		arg(a, "high");
		break;
	case GEN_CODEC_UNCOMPRESSED:
	default:
		arg(a, "-c:v");
		if (pic->pix == ENG_PIX_V210) {
			arg(a, "v210");
		} else {
			arg(a, "rawvideo");
			arg(a, "-pix_fmt");
			arg(a, "uyvy422");
		}
		break;
	}
}

/* How far an ffmpeg run has got, shown on a terminal only (stderr a tty):
 * "timelinefs-gen: writing NAME (CODEC): N %" redrawn in place at most
 * four times a second, its input fed being the measure (ffmpeg reads it
 * as it encodes); a log gets none of it. */
struct progress {
	const char *what;	/* the file written */
	const char *codec;
	uint64_t total, done;	/* bytes of input */
	int64_t last_ms;	/* when last drawn, -1: never */
	int on;
};

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void progress_show(struct progress *p, int final)
{
	int64_t t;

	if (!p->on)
		return;
	t = now_ms();
	if (!final && p->last_ms >= 0 && t - p->last_ms < 250)
		return;
	p->last_ms = t;
	fprintf(stderr, "\r" PROG ": writing %s (%s): %3u %%%s", p->what,
		p->codec,
		(unsigned)(p->total ? p->done * 100 / p->total : 100),
		final ? "\n" : "");
	fflush(stderr);
}

/* A message after a progress line starts on a line of its own. */
static void progress_break(struct progress *p)
{
	if (p->on && p->last_ms >= 0)
		fputc('\n', stderr);
	p->on = 0;
}

/* One stream fed to ffmpeg through a pipe. */
struct feed {
	int fd; /* write end, -1 when done */
	struct gen_src src;
	uint64_t left;		/* bytes still to make */
	const unsigned char *p; /* pending bytes */
	size_t n;
	unsigned char *buf; /* BLOCK scratch (audio) */
};

static void feed_close(struct feed *f)
{
	if (f->fd >= 0)
		close(f->fd);
	f->fd = -1;
}

/* Feed every stream until each is written: one poll loop, since ffmpeg
 * reads its inputs in its own order and a blocking write to one would
 * wait on a read of another. */
static int feed_all(struct feed *f, size_t n, const char *what,
		    struct progress *pg)
{
	struct pollfd pfd[GEN_ENC_MAX_AUDIO + 1];
	size_t i, live;
	ssize_t w;

	for (;;) {
		for (i = live = 0; i < n; i++) {
			pfd[i].fd = f[i].fd;
			pfd[i].events = POLLOUT;
			pfd[i].revents = 0;
			live += f[i].fd >= 0;
		}
		if (!live)
			return 0;
		if (poll(pfd, n, -1) < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		for (i = 0; i < n; i++) {
			if (f[i].fd < 0 || !pfd[i].revents)
				continue;
			if (pfd[i].revents & (POLLERR | POLLHUP)) {
				progress_break(pg);
				fprintf(stderr,
					PROG ": ffmpeg stopped reading %s "
					     "(see its message above)\n",
					what);
				return -EPIPE;
			}
			if (!f[i].n && f[i].left) {
				f[i].p = gen_src_next(&f[i].src, f[i].buf,
						      f[i].left, &f[i].n);
				f[i].left -= f[i].n;
			}
			w = write(f[i].fd, f[i].p, f[i].n);
			if (w < 0) {
				if (errno == EAGAIN || errno == EINTR)
					continue;
				progress_break(pg);
				fprintf(stderr,
					PROG ": ffmpeg stopped reading %s: "
					     "%s\n",
					what, strerror(errno));
				return -errno;
			}
			f[i].p += w;
			f[i].n -= (size_t)w;
			pg->done += (uint64_t)w;
			progress_show(pg, 0);
			if (!f[i].n && !f[i].left)
				feed_close(&f[i]);
		}
	}
}

/* A pipe whose read end is above the fds ffmpeg gets (3...), so that
 * dup2 onto them never meets one of ours. */
static int feed_pipe(int *rd, int *wr)
{
	int p[2], r, w;

	if (pipe2(p, O_CLOEXEC) < 0)
		return -errno;
	r = fcntl(p[0], F_DUPFD_CLOEXEC, 64);
	w = fcntl(p[1], F_DUPFD_CLOEXEC, 64);
	close(p[0]);
	close(p[1]);
	if (r < 0 || w < 0) {
		if (r >= 0)
			close(r);
		if (w >= 0)
			close(w);
		return -EMFILE;
	}
	fcntl(w, F_SETFL, O_NONBLOCK);
	*rd = r;
	*wr = w;
	return 0;
}

/* Run ffmpeg with argv, its inputs the read ends rd[0..n) as fds 3...,
 * feeding f[0..n); wait for it.  0, or -errno (reported). */
static int run_ffmpeg(struct args *a, const int *rd, struct feed *f, size_t n,
		      const char *what, struct progress *pg)
{
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t at;
	sigset_t dfl;
	pid_t pid;
	size_t i;
	int rc, st, frc;

	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	for (i = 0; i < n; i++)
		posix_spawn_file_actions_adddup2(&fa, rd[i], 3 + (int)i);
	/* we ignore SIGPIPE (a write to an ffmpeg that stopped is an
	 * error we report); ffmpeg gets its default */
	posix_spawnattr_init(&at);
	sigemptyset(&dfl);
	sigaddset(&dfl, SIGPIPE);
	posix_spawnattr_setsigdefault(&at, &dfl);
	posix_spawnattr_setflags(&at, POSIX_SPAWN_SETSIGDEF);
	rc = posix_spawnp(&pid, a->v[0], &fa, &at, a->v, environ);
	posix_spawnattr_destroy(&at);
	posix_spawn_file_actions_destroy(&fa);
	for (i = 0; i < n; i++)
		close(rd[i]);
	if (rc != 0) {
		for (i = 0; i < n; i++)
			feed_close(&f[i]);
		if (rc == ENOENT)
			fprintf(stderr,
				PROG ": --codec needs the ffmpeg program, "
				     "not found%s%s (install ffmpeg, or set "
				     "TLFS_FFMPEG to its path)\n",
				strcmp(a->v[0], "ffmpeg") ? ": " : " in PATH",
				strcmp(a->v[0], "ffmpeg") ? a->v[0] : "");
		else
			fprintf(stderr, PROG ": cannot run %s: %s\n", a->v[0],
				strerror(rc));
		return -rc;
	}
	for (i = 0; i < n; i++)
		pg->total += f[i].left;
	frc = feed_all(f, n, what, pg);
	for (i = 0; i < n; i++)
		feed_close(&f[i]);
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return -errno;
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
		progress_break(pg);
		fprintf(stderr, PROG ": ffmpeg failed writing %s (%s %d)\n",
			what, WIFEXITED(st) ? "exit status" : "signal",
			WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st));
		return -EIO;
	}
	if (frc == 0)
		progress_show(pg, 1);
	return frc;
}

/* Common head of every ffmpeg command line. */
static void head_args(struct args *a)
{
	const char *prog = getenv("TLFS_FFMPEG");

	arg(a, prog && *prog ? prog : "ffmpeg");
	arg(a, "-nostdin");
	arg(a, "-hide_banner");
	arg(a, "-loglevel");
	arg(a, "error");
	arg(a, "-y");
}

static void video_input(struct args *a, const struct eng_picture *pic,
			struct eng_fps fps, int fd)
{
	arg(a, "-f");
	arg(a, pic->pix == ENG_PIX_V210 ? "v210" : "rawvideo");
	if (pic->pix != ENG_PIX_V210) {
		arg(a, "-pix_fmt");
		arg(a, "uyvy422");
	}
	arg(a, "-video_size");
	argf(a, "%" PRIu32 "x%" PRIu32, pic->width, pic->height);
	arg(a, "-framerate");
	argf(a, "%" PRIu32 "/%" PRIu32, fps.num, fps.den);
	arg(a, "-i");
	argf(a, "pipe:%d", fd);
}

static void audio_input(struct args *a, uint32_t rate, int fd)
{
	arg(a, "-f");
	arg(a, "s24le");
	arg(a, "-ar");
	argf(a, "%" PRIu32, rate);
	arg(a, "-ac");
	arg(a, "1");
	arg(a, "-i");
	argf(a, "pipe:%d", fd);
}

/* Start timecode, names and the output: a BWF file (wav) with its time
 * reference, tcs samples since midnight. */
static void tail_args(struct args *a, const struct gen_enc *e,
		      const struct gen_enc_clip *c, const char *tc,
		      uint64_t tcs, const char *tmp, int video, int wav)
{
	if (wav) {
		arg(a, "-write_bext");
		arg(a, "1");
		arg(a, "-metadata");
		argf(a, "time_reference=%" PRIu64, tcs);
		arg(a, "-f");
		arg(a, "wav");
		arg(a, tmp);
		return;
	}
	arg(a, "-timecode");
	arg(a, tc);
	if (e->cont == GEN_CONT_MP4) {
		arg(a, "-write_tmcd");
		arg(a, "1");
	}
	if (e->cont >= GEN_CONT_MXF) {
		/* OP-Atom sets are matched by this name, as Avid does */
		arg(a, "-metadata");
		argf(a, "material_package_name=%s", c->clip);
	} else if (video) {
		arg(a, "-metadata:s:v:0");
		argf(a, "reel_name=%s", c->clip);
	}
	arg(a, "-f");
	arg(a, e->cont == GEN_CONT_OPATOM ? "mxf_opatom" : cont_names[e->cont]);
	arg(a, tmp);
}

/* Rename tmp to DIR/name, or remove it. */
static int finish(const char *dir, const char *name, const char *tmp, int rc)
{
	char path[4096];

	if (rc == 0) {
		snprintf(path, sizeof(path), "%s/%s", dir, name);
		if (rename(tmp, path) < 0) {
			rc = -errno;
			fprintf(stderr, PROG ": cannot rename %s to %s: %s\n",
				tmp, path, strerror(errno));
		}
	}
	if (rc < 0)
		unlink(tmp);
	return rc;
}

static int feed_init(struct feed *f, const struct gen_enc_clip *c, size_t t,
		     int *rd)
{
	char track[24];
	int rc;

	memset(f, 0, sizeof(*f));
	f->fd = -1;
	if (t == 0) {
		rc = gen_src_picture(&f->src, c->pic,
				     eng_gen_media_seed(c->seed, c->clip, "V"),
				     c->clip);
		f->left = (uint64_t)c->frames * eng_picture_bytes(c->pic);
	} else {
		snprintf(track, sizeof(track), "A%zu", t);
		gen_src_tone(&f->src, c->sample_rate,
			     eng_gen_media_seed(c->seed, c->clip, track),
			     c->clip);
		f->left = 3 * c->samples;
		f->buf = malloc(BLOCK);
		rc = f->buf ? 0 : -ENOMEM;
		if (rc < 0)
			fprintf(stderr, PROG ": out of memory\n");
	}
	if (rc == 0)
		rc = feed_pipe(rd, &f->fd);
	if (rc < 0 && rc != -ENOMEM)
		fprintf(stderr, PROG ": cannot make a pipe: %s\n",
			strerror(-rc));
	return rc;
}

static void feed_free(struct feed *f)
{
	feed_close(f);
	gen_src_free(&f->src);
	free(f->buf);
	f->buf = NULL;
}

/* One ffmpeg run writing tracks [t0, t1) of c (0 the picture, k audio
 * track Ak) into DIR/name. */
static int encode(const char *dir, const struct gen_enc *e,
		  const struct gen_enc_clip *c, const char *tc, uint64_t tcs,
		  size_t t0, size_t t1, const char *name)
{
	struct feed f[GEN_ENC_MAX_AUDIO + 1];
	int rd[GEN_ENC_MAX_AUDIO + 1];
	struct progress pg = {0};
	struct args a = {0};
	char tmp[4096];
	size_t i, n = t1 - t0;
	int rc = 0;

	if (snprintf(tmp, sizeof(tmp), "%s/.%s.tmp", dir, name) >=
	    (int)sizeof(tmp)) {
		fprintf(stderr, PROG ": path too long: %s/%s\n", dir, name);
		return -ENAMETOOLONG;
	}
	for (i = 0; i < n; i++) {
		f[i].fd = -1;
		f[i].buf = NULL;
		memset(&f[i].src, 0, sizeof(f[i].src));
	}
	for (i = 0; i < n && rc == 0; i++)
		rc = feed_init(&f[i], c, t0 + i, &rd[i]);
	if (rc < 0) {
		while (i--)
			if (f[i].fd >= 0)
				close(rd[i]);
		goto out;
	}
	head_args(&a);
	for (i = 0; i < n; i++) {
		if (t0 + i == 0)
			video_input(&a, c->pic, c->fps, 3 + (int)i);
		else
			audio_input(&a, c->sample_rate, 3 + (int)i);
	}
	for (i = 0; i < n; i++) {
		arg(&a, "-map");
		argf(&a, "%zu:0", i);
	}
	if (t0 == 0)
		video_args(&a, e, c->pic, c->fps);
	if (t1 > 1 || t0 > 0) {
		arg(&a, "-c:a");
		arg(&a, "pcm_s24le");
	}
	/* ffmpeg 5.1's mp4 muxer takes no PCM: BWF files beside it */
	tail_args(&a, e, c, tc, tcs, tmp, t0 == 0,
		  e->cont == GEN_CONT_MP4 && t0 > 0);
	if (a.bad) {
		fprintf(stderr, PROG ": out of memory\n");
		for (i = 0; i < n; i++)
			close(rd[i]);
		rc = -ENOMEM;
		goto out;
	}
	pg.what = name;
	pg.codec = gen_codec_name(e->codec);
	pg.last_ms = -1;
	pg.on = isatty(STDERR_FILENO);
	rc = run_ffmpeg(&a, rd, f, n, name, &pg);
	rc = finish(dir, name, tmp, rc);
out:
	for (i = 0; i < n; i++)
		feed_free(&f[i]);
	args_free(&a);
	return rc;
}

int gen_enc_write(const char *dir, const struct gen_enc *e,
		  const struct gen_enc_clip *c)
{
	char name[4096], tc[16], track[24];
	size_t t, n = (size_t)c->naudio + 1;
	int64_t tcf = c->tc;
	uint64_t tcs;
	int rc;

	signal(SIGPIPE, SIG_IGN);
	if (c->naudio > GEN_ENC_MAX_AUDIO) {
		fprintf(stderr,
			PROG ": clip %s: %" PRIu32 " audio tracks, "
			     "--codec writes at most %d\n",
			c->clip, c->naudio, GEN_ENC_MAX_AUDIO);
		return -EINVAL;
	}
	if (e->tc_set) {
		snprintf(tc, sizeof(tc), "%s", e->tc.text);
		if (eng_tc_frames(&e->tc, c->fps, 0, &tcf) < 0) {
			fprintf(stderr,
				PROG ": --timecode %s is no timecode at the "
				     "frame rate of clip %s\n",
				e->tc.text, c->clip);
			return -EINVAL;
		}
	} else if (eng_tc_format(c->tc, c->fps, c->tc_drop, tc, sizeof(tc)) <
		   0) {
		fprintf(stderr,
			PROG ": clip %s: no timecode for frame %" PRId64
			     " at this rate\n",
			c->clip, c->tc);
		return -EINVAL;
	}
	/* BWF's time reference: the start's samples since midnight (the
	 * frames counted are real frames, drop frame or not) */
	tcs = (uint64_t)((unsigned __int128)tcf * c->sample_rate * c->fps.den /
			 c->fps.num);
	if (e->cont == GEN_CONT_MOV || e->cont == GEN_CONT_MXF) {
		rc = c->file ? 0 : gen_enc_name(e, c->clip, "V", name,
						sizeof(name));
		if (c->file)
			snprintf(name, sizeof(name), "%s", c->file);
		return rc < 0 ? rc : encode(dir, e, c, tc, tcs, 0, n, name);
	}
	for (t = 0, rc = 0; t < n && rc == 0; t++) {
		if (t == 0)
			snprintf(track, sizeof(track), "V");
		else
			snprintf(track, sizeof(track), "A%zu", t);
		rc = gen_enc_name(e, c->clip, track, name, sizeof(name));
		if (t == 0 && c->file)
			snprintf(name, sizeof(name), "%s", c->file);
		if (rc == 0)
			rc = encode(dir, e, c, tc, tcs, t, t + 1, name);
	}
	return rc;
}
