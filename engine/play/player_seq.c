/* SPDX-License-Identifier: MIT */
/*
 * A frame of an image sequence (docs/design.md "Image
 * sequences"): each slice whose media is a sequence is its image file,
 * read as a grading or VFX application's reader reads it: the open, the
 * header reads (eng_seq_pixels_of), one read per run of the pixel data,
 * the close, each its own access row (op, image) with its own times.  An
 * image that is not there follows its clip's policy (error, hold, black).
 * The loader calls eng_pl_seq_read for such a slice (eng_pl_load_read).
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "media/imgseq.h"
#include "play/player_i.h"
#include "timeline/layout.h"

const char *eng_op_name(uint32_t op)
{
	static const char *const names[] = {
		"read", "open", "header", "close", "stat", "write", "fsync",
		"fallocate", "truncate", "receive", "await"
	};

	return op < sizeof(names) / sizeof(names[0]) ? names[op] : NULL;
}

/* The image a track last read whole: what a missing image under hold
 * plays again. */
struct seq_last {
	const struct eng_media *m;	/* NULL: none yet */
	uint32_t clip;
	int64_t i;
};

struct eng_pl_seq {
	/* The loaders' (several with frames in flight): held only to copy
	 * last[] or said, never across I/O */
	pthread_mutex_t lock;
	int said;		/* cfg.say was called (once a stream) */
	struct seq_last last[];	/* [ntracks] */
};

int eng_pl_seq_any(const struct eng_timeline *tl)
{
	size_t c, t;

	for (c = 0; c < tl->nclips; c++)
		for (t = 0; tl->clips[c].media && t < tl->ntracks; t++)
			if (tl->clips[c].media[t].seq)
				return 1;
	return 0;
}

size_t eng_pl_seq_mem(const struct eng_timeline *tl)
{
	if (!eng_pl_seq_any(tl))
		return 0;
	return sizeof(struct eng_pl_seq) +
	       tl->ntracks * sizeof(struct seq_last);
}

int eng_pl_seq_new(struct eng_player *p)
{
	struct eng_pl_seq *q;

	if (!eng_pl_seq_any(p->tl))
		return 0;
	q = calloc(1, eng_pl_seq_mem(p->tl));
	if (!q)
		return -ENOMEM;
	if (pthread_mutex_init(&q->lock, NULL)) {
		free(q);
		return -ENOMEM;
	}
	p->seq = q;
	return 0;
}

void eng_pl_seq_free(struct eng_pl_seq *q)
{
	if (!q)
		return;
	pthread_mutex_destroy(&q->lock);
	free(q);
}

/* One image of a slice's sequence: which and its name. */
struct image {
	const struct eng_seqmedia *sm;
	uint32_t clip;		/* whose image: the rows' clip */
	int64_t i;		/* from 0 */
	int64_t number;		/* in its name: start + i * step */
	char name[PATH_MAX];	/* beneath the media folder */
};

/* Image i of clip's media m: 0, or the name formula's -ERANGE or
 * -ENAMETOOLONG (which the mount's resolution refuses). */
static int image_of(uint32_t clip, const struct eng_media *m, int64_t i,
		    struct image *im)
{
	int rc;

	if (i < 0)
		return -ERANGE;
	rc = eng_seqmedia_name(m->seq, i, im->name, sizeof(im->name));
	if (rc < 0)
		return rc;
	im->sm = m->seq;
	im->clip = clip;
	im->i = i;
	/* the name formula refused an overflow of it */
	im->number = eng_seqmedia_number(m->seq, i);
	return 0;
}

/* Say msg (cfg.say), the first time in the stream only. */
static void say_once(struct eng_player *p, const char *msg)
{
	int first;

	if (!p->cfg.say || !msg)
		return;
	pthread_mutex_lock(&p->seq->lock);
	first = !p->seq->said;
	p->seq->said = 1;
	pthread_mutex_unlock(&p->seq->lock);
	if (first)
		p->cfg.say(p->cfg.say_ctx, msg);
}

/* The frame being loaded and the image: what each row is of. */
struct ctx {
	struct eng_player *p;
	struct load *l;
	const struct eng_slice *s;
	const struct image *im;
	int fd, direct;
	int headers;		/* header reads made */
	long bad_row;		/* the row in pend to mark EIO: -1 none */
};

/* The loading frame's rows waiting to be recorded (its load's), and the
 * O_DIRECT bounce buffer (its loader's: frames in flight each have
 * their own). */
static struct eng_access *pend_of(const struct ctx *c)
{
	return c->l->pend;
}

static unsigned char *bounce_of(const struct ctx *c)
{
	return c->l->ld->bounce;
}

static void row_init(const struct ctx *c, uint32_t op, struct eng_access *a)
{
	eng_pl_row_init(c->l, a);
	a->track = (uint32_t)c->s->track;
	a->clip = c->im->clip;
	a->op = op;
	a->is_image = 1;
	a->image = c->im->number;
}

/* Keep row a for recording; rows in pend are at most ENG_PL_SEQ_ROWS a
 * slice (eng_pl_reads_max). */
static void row_keep(struct ctx *c, const struct eng_access *a)
{
	c->bad_row = eng_pl_keep(c->l, a);
}

/* len bytes at off of the open image into dst, timed in a: bytes read
 * (short at the file's end) or -errno. */
static ssize_t image_pread(struct ctx *c, void *dst, size_t len, uint64_t off,
			   struct eng_access *a)
{
	return eng_pl_pread(c->p, bounce_of(c), c->fd, c->direct, dst, len,
			    off, a);
}

/* eng_src.read_at of the image's header: each call one header read, one
 * row.  More than ENG_PL_SEQ_HEADER_READS is not a header an
 * application's reader takes in a frame's time, and no row is left
 * unrecorded: -E2BIG. */
static long header_read_at(void *ctx, uint64_t off, void *buf, size_t len)
{
	struct ctx *c = ctx;
	struct eng_access a;
	ssize_t r;

	if (c->headers == ENG_PL_SEQ_HEADER_READS)
		return -E2BIG;
	c->headers++;
	row_init(c, ENG_OP_HEADER, &a);
	a.file_offset = off;
	a.length = len;
	r = image_pread(c, buf, len, off, &a);
	if (r < 0)
		a.err = (int)-r;
	row_keep(c, &a);
	return (long)r;
}

/* The last row kept is where the image's header check failed: EIO. */
static void mark_bad(struct ctx *c)
{
	if (c->bad_row >= 0 && !pend_of(c)[c->bad_row].err)
		pend_of(c)[c->bad_row].err = EIO;
}

/* Where the image's pixel data are: its header's runs (DPX, TIFF, EXR;
 * a headerless image is all pixels), of len bytes unless fit.  0, or a
 * failure with its message in diag. */
static int image_pixels(struct ctx *c, uint64_t size, uint64_t len, int fit,
			struct eng_seq_pixels *px, struct eng_diag *diag)
{
	const struct image *im = c->im;
	struct eng_src src = {
	    .name = im->name,
	    .size = size,
	    .read_at = header_read_at,
	    .ctx = c,
	};
	int rc = 0;

	if (im->sm->fmt == ENG_SEQ_RAW) {
		rc = eng_seq_raw_pixels(im->name, size, px, diag);
	} else {
		rc = eng_seq_pixels_of(&src, px, NULL, diag);
		if (rc == -E2BIG)
			eng_diag_add(diag, im->name, 0,
				     "more than %d header reads",
				     ENG_PL_SEQ_HEADER_READS);
		if (!rc && px->fmt != im->sm->fmt) {
			eng_diag_add(diag, im->name, 0,
				     "not of its sequence's format (that of "
				     "its first image)");
			rc = -EINVAL;
		}
	}
	if (!rc && !fit && px->bytes != len) {
		eng_diag_add(diag, im->name, 0,
			     "%" PRIu64 " bytes of pixel data, where the "
			     "sequence's image %" PRId64 " has %" PRIu64
			     " (as the mount found it)",
			     px->bytes, im->i, len);
		rc = -EINVAL;
	}
	return rc;
}

/* The data reads of px into dst[0..len) (zero copy: the slot's pipe),
 * one a run; with fit, cut at len and padded with zeros to it.  0, or -1
 * for a failed read. */
static int image_data(struct ctx *c, const struct eng_seq_pixels *px,
		      unsigned char *dst, uint64_t len)
{
	struct eng_player *p = c->p;
	uint64_t pos = 0;
	int j;

	for (j = 0; j < px->n && pos < len; j++) {
		uint64_t n = px->ext[j].len;
		struct eng_access a;
		ssize_t r;

		if (n > len - pos)
			n = len - pos;
		row_init(c, ENG_OP_READ, &a);
		a.file_offset = px->ext[j].off;
		a.length = n;
		if (p->zc > 0) {
			eng_pl_zc_splice(p, c->fd, a.file_offset, n, &a);
		} else {
			r = image_pread(c, dst + pos, (size_t)n, a.file_offset,
					&a);
			if (r < 0)
				a.err = (int)-r;
			else if ((uint64_t)r < n)
				a.err = EIO;
		}
		row_keep(c, &a);
		if (a.err)
			return -1;
		pos += n;
	}
	if (pos < len)
		eng_pl_zeros(p, c->l, dst + pos, (size_t)(len - pos));
	return 0;
}

enum { IMG_READ, IMG_MISSING, IMG_FAILED };

/*
 * Image im of slice s into dst[0..len): open, header reads, data reads,
 * close, each one row.  fit (hold: another image than the slice's) cuts
 * its pixel data at len or pads them with zeros; without it pixel data of
 * another size than len fail (a message).  IMG_READ, IMG_MISSING (the open
 * found no file: only its row) or IMG_FAILED.
 */
static int read_image(struct eng_player *p, struct load *l,
		      const struct eng_slice *s, const struct image *im,
		      unsigned char *dst, uint64_t len, int fit)
{
	const struct eng_io *io = p->cfg.io;
	struct ctx c = { .p = p, .l = l, .s = s, .im = im, .bad_row = -1 };
	struct eng_diag diag = { 0 };
	struct eng_seq_pixels px;
	struct eng_access a;
	uint64_t size;
	int res = IMG_READ;

	row_init(&c, ENG_OP_OPEN, &a);
	a.issued_ns = io->now(io->ctx);
	if (io->open_ex)
		c.fd = io->open_ex(io->ctx, im->name,
				   p->cfg.backing == ENG_BACKING_DIRECT,
				   &c.direct, &a.injected);
	else
		c.fd = io->open(io->ctx, im->name,
				p->cfg.backing == ENG_BACKING_DIRECT,
				&c.direct);
	a.done_ns = io->now(io->ctx);
	if (c.fd < 0)
		a.err = -c.fd;
	row_keep(&c, &a);
	if (c.fd < 0)
		return c.fd == -ENOENT ? IMG_MISSING : IMG_FAILED;
	c.direct = c.direct && p->cfg.backing == ENG_BACKING_DIRECT;
	/* the size the mount found where the io cannot tell */
	if (!io->size || io->size(io->ctx, c.fd, &size) < 0)
		size = im->i < im->sm->ess.nframes ?
			       im->sm->ess.off[im->i] + im->sm->ess.len[im->i] :
			       0;
	if (image_pixels(&c, size, len, fit, &px, &diag) < 0) {
		mark_bad(&c);
		say_once(p, diag.n ? diag.msgs[0] : NULL);
		res = IMG_FAILED;
	} else if (image_data(&c, &px, dst, len) < 0) {
		res = IMG_FAILED;
	}
	eng_diag_free(&diag);
	/* the pages it read go with it where the cache must not hide the
	 * storage (an O_DIRECT open has none) */
	if (p->cfg.backing != ENG_BACKING_BUFFERED && !c.direct && io->dontneed)
		io->dontneed(io->ctx, c.fd, 0, 0);
	row_init(&c, ENG_OP_CLOSE, &a);
	a.issued_ns = io->now(io->ctx);
	if (io->close_ex)
		io->close_ex(io->ctx, c.fd, &a.injected);
	else
		io->close(io->ctx, c.fd);
	a.done_ns = io->now(io->ctx);
	row_keep(&c, &a);
	return res;
}

void eng_pl_seq_read(struct eng_player *p, struct load *l,
		     const struct eng_slice *s, unsigned char *at)
{
	const struct eng_timeline *tl = p->tl;
	uint32_t clip = s->seg->clip;
	const struct eng_media *m = &tl->clips[clip].media[s->track];
	struct seq_last *last = &p->seq->last[s->track];
	struct seq_last held;
	struct image im;
	int res;

	if (image_of(clip, m, eng_slice_src(tl, s->track, s->seg, l->k),
		     &im) < 0)
		goto fail;	/* eng_tl_layout_media refuses it */
	res = read_image(p, l, s, &im, at, s->len, 0);
	if (res == IMG_READ) {
		/* the last image read whole, whichever loader's it was */
		pthread_mutex_lock(&p->seq->lock);
		*last = (struct seq_last){ m, clip, im.i };
		pthread_mutex_unlock(&p->seq->lock);
		return;
	}
	if (res != IMG_MISSING)
		goto fail;
	pthread_mutex_lock(&p->stats_lock);
	p->st.missing_images++;
	pthread_mutex_unlock(&p->stats_lock);
	pthread_mutex_lock(&p->seq->lock);
	held = *last;
	pthread_mutex_unlock(&p->seq->lock);
	switch (m->seq->missing) {
	case ENG_SEQ_MISS_HOLD:
		/* nothing read yet: nothing to hold, as black */
		if (!held.m)
			break;
		if (image_of(held.clip, held.m, held.i, &im) < 0 ||
		    read_image(p, l, s, &im, at, s->len, 1) != IMG_READ)
			goto fail;
		return;
	case ENG_SEQ_MISS_BLACK:
		break;
	default:
		goto fail;
	}
	eng_pl_zeros(p, l, at, (size_t)s->len);
	return;
fail:
	/* a failed frame's requests fail: what it left in a pipe is
	 * discarded when the slot is reused */
	l->failed = 1;
	if (p->zc <= 0)
		memset(at, 0, (size_t)s->len);
}
