/* SPDX-License-Identifier: MIT */
/*
 * Sequence clips resolved (imgseq.h struct eng_seqmedia): a clip's images
 * on one video track as a video stream of their pixel data, from one
 * image's header (and, compressed, every played image's stat), for the
 * layout of real video and the player's per-image reads.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "io/io.h"
#include "media/imgseq.h"
#include "media/media.h"
#include "timeline/model.h"
#include "util/diag.h"

int eng_seqmedia_name(const struct eng_seqmedia *sm, int64_t i, char *buf,
		      size_t len)
{
	return eng_seq_name_of(&sm->name, i, buf, len);
}

int64_t eng_seqmedia_number(const struct eng_seqmedia *sm, int64_t i)
{
	return sm->name.start + i * sm->name.step;
}

void eng_seqmedia_free(struct eng_seqmedia *sm)
{
	if (!sm)
		return;
	free(sm->ess.off);
	free(sm->ess.len);
	/* the name's strings are this struct's own copies */
	free((char *)sm->name.base);
	free((char *)sm->name.prefix);
	free((char *)sm->name.suffix);
	free(sm);
}

/* One resolution: the clip, its track, where messages go. */
struct seqres {
	const struct eng_timeline *tl;
	size_t c, t;
	int dirfd;
	const char *media_dir, *media_real;
	struct eng_diag *diag;
	unsigned nerr;
};

static void __attribute__((format(printf, 3, 4)))
say(struct seqres *x, unsigned line, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	eng_media_vproblem(x->diag, &x->nerr, x->tl, line, x->c, x->t, fmt,
			   ap);
	va_end(ap);
}

/* The images (from 0) the clip's segments on the track play: [lo, hi),
 * the lines of the segments reaching lo and hi, and the first image in
 * the edit's order with its segment's line.  0 when none plays. */
struct played {
	int64_t lo, hi, first;
	unsigned lo_line, hi_line, first_line;
	int set;
};

static void played_of(const struct eng_timeline *tl, size_t c, size_t t,
		      int64_t origin, struct played *p)
{
	const struct eng_track *tr = &tl->tracks[t];
	size_t i;

	memset(p, 0, sizeof(*p));
	/* segments are in the edit's order (eng_tl_finalize) */
	for (i = 0; i < tr->nsegs; i++) {
		const struct eng_segment *s = &tr->segs[i];
		int64_t lo, hi;

		if (s->clip != c)
			continue;
		/* origin and src_in are the parsers' (bounded well below
		 * 2^62); the sum is checked against the limit below */
		lo = origin + s->src_in;
		hi = lo + s->frames;
		if (!p->set) {
			p->first = lo;
			p->first_line = s->line;
		}
		if (!p->set || lo < p->lo) {
			p->lo = lo;
			p->lo_line = s->line;
		}
		if (!p->set || hi > p->hi) {
			p->hi = hi;
			p->hi_line = s->line;
		}
		p->set = 1;
	}
}

#define FOURCC(a, b, c, d) \
	((uint32_t)(a) << 24 | (uint32_t)(b) << 16 | (uint32_t)(c) << 8 | \
	 (uint32_t)(d))

/* A DPX header's fields (SMPTE 268M): big-endian "SDPX" or little-endian
 * "XPDS". */
static uint32_t dpx_u32(const unsigned char *p, int le)
{
	return le ? (uint32_t)p[3] << 24 | (uint32_t)p[2] << 16 |
		    (uint32_t)p[1] << 8 | p[0]
		  : (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
		    (uint32_t)p[2] << 8 | p[3];
}

static uint32_t dpx_u16(const unsigned char *p, int le)
{
	return le ? (uint32_t)p[1] << 8 | p[0] : (uint32_t)p[0] << 8 | p[1];
}

/* A DPX image as a QuickTime sample: one element of RGB (descriptor 50),
 * unencoded, big-endian, 10-bit packed in method A (R in bits 31-22, G
 * 21-12, B 11-2 of each 32-bit word, no row padding) is AJA's 'R10k'
 * (FFmpeg's r10k decoder, r210dec.c: those bits, rows unaligned); 16-bit
 * is 'b48r' (RGB48BE, libavformat's isom_tags.c).  A little-endian DPX
 * would need FFmpeg's own "DpxE" extradata, which QuickTime's R10k does
 * not have.  The fourcc with *w and *ht, or 0 and why. */
static uint32_t dpx_movie(const unsigned char *h, uint64_t bytes,
			  uint32_t *w, uint32_t *ht, char *why, size_t len)
{
	int le = !memcmp(h, "XPDS", 4);
	uint32_t elems = dpx_u16(h + 770, le), desc = h[800], bits = h[803];
	uint32_t packing = dpx_u16(h + 804, le), enc = dpx_u16(h + 806, le);
	uint64_t need;
	uint32_t fc;

	*w = dpx_u32(h + 772, le);
	*ht = dpx_u32(h + 776, le);
	if (le) {
		snprintf(why, len, "little-endian dpx: QuickTime's R10k and "
			 "b48r samples are big-endian");
		return 0;
	}
	if (elems != 1 || desc != 50 || enc != 0) {
		snprintf(why, len, "dpx of %" PRIu32 " element(s), descriptor %"
			 PRIu32 ", encoding %" PRIu32 ": only one element "
			 "of RGB (50), unencoded, has a QuickTime mapping",
			 elems, desc, enc);
		return 0;
	}
	if (bits == 10 && packing == 1) {
		fc = FOURCC('R', '1', '0', 'k');
		need = 4;
	} else if (bits == 16) {
		fc = FOURCC('b', '4', '8', 'r');
		need = 6;
	} else {
		snprintf(why, len, "dpx of %" PRIu32 "-bit RGB, packing %" PRIu32
			 ": only 10-bit packed in method A (1) (R10k) and "
			 "16-bit (b48r) have a QuickTime mapping", bits,
			 packing);
		return 0;
	}
	need *= (uint64_t)*w * *ht;
	if (!*w || !*ht || *w > 65535 || *ht > 65535 || bytes < need) {
		snprintf(why, len, "dpx of %" PRIu32 "x%" PRIu32 " with %"
			 PRIu64 " bytes of pixel data: not a movie's picture "
			 "(%" PRIu64 " bytes)", *w, *ht, bytes, need);
		return 0;
	}
	return fc;
}

/* Headerless 8-bit RGB (frametest's frames) is QuickTime's 'raw ' of
 * depth 24 (RGB24 to FFmpeg): its width and height are those of the
 * tframetest size of that many bytes (profile.c's -w ...-24bit, as
 * seqgen.c's frametest-* presets: seqgen.o is not linked here, it needs
 * zlib), none else being known.  Each row is a multiple of 16 bytes, so
 * no reader's row alignment applies. */
static uint32_t raw_movie(uint64_t bytes, uint32_t *w, uint32_t *h,
			  char *why, size_t len)
{
	static const uint32_t sizes[][2] = {
		{720, 480}, {1280, 720}, {1920, 1080}, {2048, 1080},
		{3840, 2160}, {7680, 4320},
	};
	size_t i;

	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
		if ((uint64_t)sizes[i][0] * sizes[i][1] * 3 == bytes) {
			*w = sizes[i][0];
			*h = sizes[i][1];
			return FOURCC('r', 'a', 'w', ' ');
		}
	snprintf(why, len, "headerless images of %" PRIu64 " bytes: not "
		 "one of frametest's 8-bit RGB sizes, so of no known width "
		 "and height", bytes);
	return 0;
}

/* What the movie makes of the resolved image (imgseq.h nomovie); fd its
 * file, for DPX's image header. */
static void movie_of(struct eng_seqmedia *sm, int fd)
{
	unsigned char h[808];
	uint32_t w = 0, ht = 0, fc = 0;
	char *why = sm->nomovie;
	size_t len = sizeof(sm->nomovie);

	switch (sm->px.fmt) {
	case ENG_SEQ_DPX:
		if (pread(fd, h, sizeof(h), 0) != (ssize_t)sizeof(h))
			snprintf(why, len, "dpx: its image header is short");
		else
			fc = dpx_movie(h, sm->px.bytes, &w, &ht, why, len);
		break;
	case ENG_SEQ_RAW:
		fc = raw_movie(sm->px.bytes, &w, &ht, why, len);
		break;
	case ENG_SEQ_TIFF:
		if (pread(fd, h, 2, 0) == 2 && !memcmp(h, "II", 2))
			snprintf(why, len, "little-endian tiff: QuickTime's "
				 "16-bit RGB (b48r) is big-endian");
		else
			snprintf(why, len, "tiff: its strips are no QuickTime "
				 "sample this reads");
		break;
	case ENG_SEQ_EXR:
		snprintf(why, len, "openexr%s: its half floats are stored a "
			 "channel a line, as no QuickTime sample is",
			 sm->px.compression ? " (compressed)" : "");
		break;
	default:
		snprintf(why, len, "images of an unknown format");
		break;
	}
	sm->ess.fourcc = fc;
	sm->ess.width = w;
	sm->ess.height = ht;
	if (fc)
		sm->nomovie[0] = 0;
}

/* Image i's file: open beneath the folder, its pixel data from its
 * header (or all of it, headerless).  0, -EINVAL with a message, or
 * -ENOMEM. */
static int read_image(struct seqres *x, struct eng_seqmedia *sm, int64_t i,
		      unsigned line, struct eng_seq_pixels *px)
{
	struct eng_diag d = { 0 };
	char name[PATH_MAX], path[PATH_MAX + 256];
	struct stat st;
	int fd, rc;

	if (eng_seqmedia_name(sm, i, name, sizeof(name)) < 0) {
		say(x, line, "image %" PRId64 " of the sequence has no file "
		    "name: its number overflows or the name is too long", i);
		return -EINVAL;
	}
	snprintf(path, sizeof(path), "%s/%s", x->media_dir, name);
	/* O_NONBLOCK: a FIFO put in place of an image must not hang */
	fd = eng_open_beneath(x->dirfd, name, O_RDONLY | O_NONBLOCK |
			      O_CLOEXEC, NULL);
	if (fd < 0) {
		say(x, line, "cannot open %s, the first image the edit plays"
		    ": %s", path, strerror(-fd));
		return -EINVAL;
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		say(x, line, "%s, the first image the edit plays, is not a "
		    "regular file", path);
		close(fd);
		return -EINVAL;
	}
	if (eng_seq_headerless(sm->name.suffix)) {
		rc = eng_seq_raw_pixels(path, (uint64_t)st.st_size, px, &d);
	} else {
		struct eng_src src;

		eng_src_fd(&src, &fd, path, (uint64_t)st.st_size);
		rc = eng_seq_pixels_of(&src, px, NULL, &d);
	}
	if (rc == 0)
		movie_of(sm, fd);
	close(fd);
	if (rc == -EINVAL) {
		/* imgseq's message names the file and the reason */
		x->nerr++;
		eng_diag_add_escaped(x->diag, x->tl->path, line,
				     d.n ? d.msgs[0] : path,
				     "clip %s track %s:",
				     x->tl->clips[x->c].name,
				     x->tl->tracks[x->t].name);
	} else if (rc < 0 && rc != -ENOMEM) {
		say(x, line, "cannot read %s: %s", path, strerror(-rc));
		rc = -EINVAL;
	}
	eng_diag_free(&d);
	return rc;
}

/* A compressed sequence's images differ in size: each played one's is
 * its file's size less the bytes before the pixel data (the header and
 * table every image of the sequence repeats; the player checks it).  A
 * missing or damaged image keeps the resolved image's size: the player
 * meets it when it opens it and follows the clip's missing policy. */
static int stat_images(struct seqres *x, struct eng_seqmedia *sm)
{
	const struct eng_track *tr = &x->tl->tracks[x->t];
	struct eng_seq_name leaf = sm->name;
	char name[NAME_MAX + 1];
	struct stat st;
	uint64_t off = sm->px.ext[0].off;
	size_t i;
	int dfd = x->dirfd;

	if (sm->name.base[0]) {
		dfd = eng_open_beneath(x->dirfd, sm->name.base, O_PATH |
				       O_DIRECTORY | O_CLOEXEC, NULL);
		if (dfd < 0)
			return 0;	/* the first image opened: racing */
	}
	leaf.base = "";
	for (i = 0; i < tr->nsegs; i++) {
		const struct eng_segment *s = &tr->segs[i];
		int64_t j, j0 = x->tl->clips[x->c].seq->origin + s->src_in;

		if (s->clip != x->c)
			continue;
		for (j = j0; j < j0 + s->frames; j++) {
			if (eng_seq_name_of(&leaf, j, name, sizeof(name)) < 0 ||
			    fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
			    !S_ISREG(st.st_mode) ||
			    (uint64_t)st.st_size <= off ||
			    (uint64_t)st.st_size - off > UINT32_MAX)
				continue;
			sm->ess.len[j] = (uint32_t)((uint64_t)st.st_size - off);
		}
	}
	if (dfd != x->dirfd)
		close(dfd);
	return 0;
}

/* The folder inside the media folder that the full path dir names (""
 * for the media folder itself), as the media folder is given or as its
 * real path (real, "" where none); malloc'ed, NULL when it names none
 * (or on ENOMEM). */
static char *dir_inside(const char *media_dir, const char *real,
			const char *dir)
{
	const char *roots[2] = { media_dir, real }, *rest;
	char *in;
	size_t k, n;

	if (!dir || dir[0] != '/')
		return NULL;
	for (k = 0; k < 2; k++) {
		n = strlen(roots[k]);
		while (n > 1 && roots[k][n - 1] == '/')
			n--;
		if (!n || strncmp(dir, roots[k], n) != 0)
			continue;
		rest = dir + n;
		if (n > 1 && *rest && *rest != '/')
			continue;	/* /media2 is not in /media */
		while (*rest == '/')
			rest++;
		in = strdup(rest);
		if (!in)
			return NULL;
		for (n = strlen(in); n && in[n - 1] == '/'; n--)
			in[n - 1] = '\0';
		if (eng_seq_base_ok(in))
			return in;
		free(in);
	}
	return NULL;
}

/* Whether image i of sm, its folder `base`, is a name beneath the media
 * folder. */
static int holds_image(struct seqres *x, struct eng_seqmedia *sm,
		       const char *base, int64_t i)
{
	const char *own = sm->name.base;
	char name[PATH_MAX];
	int rc, fd;

	sm->name.base = base;
	rc = eng_seqmedia_name(sm, i, name, sizeof(name));
	sm->name.base = own;
	if (rc < 0)
		return 0;
	fd = eng_open_beneath(x->dirfd, name, O_PATH | O_CLOEXEC, NULL);
	if (fd < 0)
		return 0;
	close(fd);
	return 1;
}

/*
 * The folder of a sequence's images: the first that holds image i (the
 * first the edit plays) of the folder OTIO's target_url_base names by
 * its full path inside the media folder, the pattern's own (OTIO's last
 * component), and for a pattern without a folder MEDIA_DIR/CLIP, where
 * timelinefs-gen writes a sequence; the pattern's own when none does
 * (opening it then says why).  malloc'ed, NULL on ENOMEM.
 */
static char *seq_folder(struct seqres *x, struct eng_seqmedia *sm,
			const struct eng_seq_ref *ref, int64_t i)
{
	char *in = dir_inside(x->media_dir, x->media_real, ref->dir), *res;
	const char *cand[3];
	size_t n = 0, k;

	if (in)
		cand[n++] = in;
	cand[n++] = ref->base;
	if (!ref->base[0])
		cand[n++] = x->tl->clips[x->c].name;
	for (k = 0; k < n && !holds_image(x, sm, cand[k], i); k++)
		;
	res = strdup(k < n ? cand[k] : ref->base);
	free(in);
	return res;
}

int eng_seqmedia_resolve(const struct eng_timeline *tl, size_t c, size_t t,
			 int dirfd, const char *media_dir,
			 const char *media_real, struct eng_seqmedia **out,
			 unsigned *nerr, struct eng_diag *diag)
{
	const struct eng_seq_ref *ref = tl->clips[c].seq;
	struct seqres x = {
		.tl = tl, .c = c, .t = t, .dirfd = dirfd,
		.media_dir = media_dir, .media_real = media_real ?
		media_real : "", .diag = diag,
	};
	struct eng_seqmedia *sm = NULL;
	struct played p;
	char first[PATH_MAX], *folder;
	int64_t i;
	int rc = -ENOMEM;

	*out = NULL;
	played_of(tl, c, t, ref->origin, &p);
	if (!p.set) {
		rc = 0;
		goto out;
	}
	sm = calloc(1, sizeof(*sm));
	if (!sm)
		goto out;
	sm->name.base = strdup(ref->base);
	sm->name.prefix = strdup(ref->prefix);
	sm->name.suffix = strdup(ref->suffix);
	if (!sm->name.base || !sm->name.prefix || !sm->name.suffix)
		goto out;
	sm->name.start = ref->start;
	sm->name.step = ref->step;
	sm->name.padding = ref->padding;
	sm->missing = ref->missing;
	if (eng_seqmedia_name(sm, 0, first, sizeof(first)) < 0)
		snprintf(first, sizeof(first), "?");
	if (p.lo < 0)
		say(&x, p.lo_line, "the edit plays image %" PRId64 " of the "
		    "sequence, %" PRId64 " before its first, %s/%s (source "
		    "frame 0 is image %" PRId64 ")", p.lo, -p.lo, media_dir,
		    first, ref->origin);
	if (p.hi > ENG_SEQ_IMAGES_MAX)
		say(&x, p.hi_line, "the edit plays image %" PRId64 " of the "
		    "sequence: a sequence clip has at most %d images",
		    p.hi - 1, ENG_SEQ_IMAGES_MAX);
	else if (eng_seqmedia_name(sm, p.hi - 1, first, sizeof(first)) < 0)
		say(&x, p.hi_line, "image %" PRId64 " of the sequence has no "
		    "file name: its number overflows or the name is too long",
		    p.hi - 1);
	/* OTIO's rate: an image every step / rate s (frame_for_time),
	 * which must be the timeline's frame, one image a source frame
	 * (otio_parse.c checks it too; a timeline made otherwise meets it
	 * here) */
	if (ref->rate.num && ref->rate.den &&
	    (unsigned __int128)ref->rate.num * tl->fps.den !=
	    (unsigned __int128)ref->step * tl->fps.num * ref->rate.den) {
		if (eng_seq_pattern(ref, first, sizeof(first)) < 0)
			snprintf(first, sizeof(first), "?");
		say(&x, ref->line, "%s/%s: images at rate %" PRIu32 "/%" PRIu32
		    " over step %" PRId64 " are not the timeline's %" PRIu32
		    "/%" PRIu32 " frames a second: a frame plays one image",
		    media_dir, first, ref->rate.num, ref->rate.den, ref->step,
		    tl->fps.num, tl->fps.den);
	}
	if (x.nerr) {
		rc = -EINVAL;
		goto out;
	}
	sm->image = p.first;
	folder = seq_folder(&x, sm, ref, p.first);
	if (!folder)
		goto out;
	free((char *)sm->name.base);
	sm->name.base = folder;
	rc = read_image(&x, sm, p.first, p.first_line, &sm->px);
	if (rc < 0)
		goto out;
	rc = -EINVAL;
	sm->fmt = sm->px.fmt;
	sm->compression = sm->px.compression;
	if (sm->fmt == ENG_SEQ_TIFF && sm->compression != 1) {
		eng_seqmedia_name(sm, p.first, first, sizeof(first));
		say(&x, p.first_line, "%s/%s: compressed tiff (compression %"
		    PRIu32 "): its strips differ frame to frame, only "
		    "uncompressed tiff sequences are read", media_dir, first,
		    sm->compression);
		goto out;
	}
	if (sm->px.bytes > UINT32_MAX) {
		eng_seqmedia_name(sm, p.first, first, sizeof(first));
		say(&x, p.first_line, "%s/%s: %" PRIu64 " bytes of pixel data,"
		    " more than a frame may hold (4 GiB)", media_dir, first,
		    sm->px.bytes);
		goto out;
	}
	sm->varies = sm->fmt == ENG_SEQ_EXR && sm->compression != 0;
	rc = -ENOMEM;
	sm->ess.kind = ENG_ESS_VIDEO;
	eng_seq_codec(&sm->px, sm->ess.codec, sizeof(sm->ess.codec));
	/* the timeline's: the rate was checked above, and an image has no
	 * rate of its own that readers agree on */
	sm->ess.fps = tl->fps;
	sm->ess.nframes = p.hi;
	sm->ess.off = malloc((size_t)p.hi * sizeof(*sm->ess.off));
	sm->ess.len = malloc((size_t)p.hi * sizeof(*sm->ess.len));
	if (!sm->ess.off || !sm->ess.len)
		goto out;
	for (i = 0; i < p.hi; i++) {
		sm->ess.off[i] = sm->px.ext[0].off;
		sm->ess.len[i] = (uint32_t)sm->px.bytes;
	}
	if (sm->varies && (rc = stat_images(&x, sm)) < 0)
		goto out;
	sm->ess.len_min = sm->ess.len_max = sm->px.bytes;
	for (i = 0; i < p.hi; i++) {
		if (sm->ess.len[i] < sm->ess.len_min)
			sm->ess.len_min = sm->ess.len[i];
		if (sm->ess.len[i] > sm->ess.len_max)
			sm->ess.len_max = sm->ess.len[i];
	}
	*out = sm;
	sm = NULL;
	rc = 0;
out:
	eng_seqmedia_free(sm);
	if (nerr)
		*nerr += x.nerr;
	return rc;
}
