/* SPDX-License-Identifier: MIT */
/*
 * timelinefs-gen: the files it writes, each under a temporary name renamed
 * when complete, and the free-space check before a run.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "gen.h"

int gen_write_all(int fd, const void *buf, size_t len)
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
	int rc = gen_write_all(o->fd, buf, len);

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

void gen_src_random(struct gen_src *s, uint64_t seed)
{
	memset(s, 0, sizeof(*s));
	s->kind = GEN_SRC_RANDOM;
	eng_rng_seed(&s->rng, seed);
}

int gen_src_picture(struct gen_src *s, const struct eng_picture *p,
		    uint64_t seed, const char *clip)
{
	memset(s, 0, sizeof(*s));
	s->kind = GEN_SRC_PICTURE;
	s->pic = *p;
	eng_pic_layout(p, &s->layout);
	s->seed = seed;
	s->clip_id = eng_pic_clip_id(clip);
	s->frame = malloc(eng_picture_bytes(p));
	if (!s->frame) {
		fprintf(stderr, PROG ": out of memory\n");
		return -ENOMEM;
	}
	return 0;
}

void gen_src_tone(struct gen_src *s, uint32_t rate, uint64_t seed,
		  const char *clip)
{
	memset(s, 0, sizeof(*s));
	s->kind = GEN_SRC_TONE;
	s->rate = rate;
	s->seed = seed;
	s->clip_id = eng_pic_clip_id(clip);
}

void gen_src_free(struct gen_src *s)
{
	free(s->frame);
	s->frame = NULL;
}

const unsigned char *gen_src_next(struct gen_src *s, unsigned char *buf,
				     uint64_t left, size_t *n)
{
	uint64_t fs;
	size_t k;

	switch (s->kind) {
	case GEN_SRC_PICTURE:
		fs = eng_picture_bytes(&s->pic);
		eng_pic_render(&s->pic, &s->layout, s->seed, s->clip_id,
			       s->pos++, s->frame);
		*n = left < fs ? (size_t)left : (size_t)fs;
		return s->frame;
	case GEN_SRC_TONE:
		/* whole samples; a tail shorter than one is cut from one */
		k = (left < BLOCK ? (size_t)left : BLOCK) / 3 + 1;
		if (k > BLOCK / 3)
			k = BLOCK / 3;
		eng_tone_render(s->seed, s->clip_id, s->rate, s->pos, k, buf);
		s->pos += k;
		*n = left < 3 * k ? (size_t)left : 3 * k;
		return buf;
	case GEN_SRC_RANDOM:
	default:
		*n = left < BLOCK ? (size_t)left : BLOCK;
		eng_rng_fill(&s->rng, buf, *n);
		return buf;
	}
}

/* Write `len` bytes of s after an optional header. */
int gen_write_stream(const char *dir, const char *name, struct gen_src *s,
		     const unsigned char *hdr, size_t hdrlen, uint64_t len,
		     int pad, unsigned char *buf)
{
	const unsigned char *p;
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
		p = gen_src_next(s, buf, left, &n);
		rc = out_write(&o, p, n);
		left -= n;
	}
	if (rc == 0 && pad)
		rc = out_write(&o, "", 1); /* RIFF pad after odd data */
	return out_close(&o, rc);
}

int gen_write_text(const char *dir, const char *name, const char *text,
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

int gen_make_dir(const char *path)
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
uint64_t gen_held(const char *dir, const char *name)
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
int gen_check_space_bytes(const char *dir, uint64_t need, uint64_t reclaim)
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
	gen_fmt_bytes(need, need_s, sizeof(need_s));
	gen_fmt_bytes(have, free_s, sizeof(free_s));
	fprintf(stderr,
		PROG ": %s needs %s plus a 5 %% margin but has %s "
		     "free; use --force to write anyway\n",
		dir, need_s, free_s);
	return -ENOSPC;
}
