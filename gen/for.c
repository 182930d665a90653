/* SPDX-License-Identifier: MIT */
/*
 * timelinefs-gen --for and --dump-tl: clip files for timelines that exist.
 * Each timeline is loaded as the mount will load its copy (engine/timeline/
 * load.h), the engine plans the files (eng_gen_media_*), and this file does
 * what the plan needs of the disk: what is already there, conflicts, space,
 * writing, copying the timelines with their sidecars, and the check that the
 * mount will accept the result.  It stays a front end, not engine code: it
 * is file I/O through and through (stat, readdir, open, rename, unlink,
 * statvfs), and its rules (never shorter, refuse ambiguity) are checked
 * against a real mount by the mounted tests (test_edl_otio.sh,
 * test_names.sh).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "gen.h"
#include "media/media.h"
#include "media/tlopen.h"
#include "play/tlmount.h"
#include "timeline/layout.h"
#include "timeline/tl.h"

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
	/* any case, as the mount reads it: a.TL takes no --fps sidecar */
	return eng_timeline_format(base) == ENG_TL_TL;
}

/* Load every timeline, with its sidecar, as the mount does. */
static int for_load(struct for_tl *v, size_t n, const struct for_opts *fo,
		    struct eng_diag *diag)
{
	struct eng_diag notes = {0};
	size_t i, j;
	int bad = 0, rc;

	for (i = 0; i < n; i++) {
		const char *slash = strrchr(v[i].path, '/');

		v[i].base = slash ? slash + 1 : v[i].path;
		/* no media yet: placed by for_verify once written */
		rc = eng_tl_open(v[i].path, &fo->load, -1, NULL, &v[i].fps,
				 &v[i].tl, diag, &notes);
		v[i].had_fps = v[i].fps != NULL;
		if (rc < 0) {
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
	gen_print_notes(&notes);
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
	gen_print_notes(&notes);
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
	/* the mount's rule (eng_tl_open_folder): one timeline per name,
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
		struct eng_diag diag = {0};

		if (asprintf(&old[i].path, "%s/%s", tldir, names[i]) < 0) {
			old[i].path = NULL;
			goto nomem;
		}
		rc = eng_tl_open(old[i].path, &fo->load, -1, NULL, NULL,
				 &old[i].tl, &diag, &notes);
		gen_print_notes(&notes);
		if (rc == 0) {
			rc = eng_gen_media_widen(plan, old[i].tl, &diag);
			if (rc >= 0)
				old[i].shares = rc;
		}
		if (rc < 0 && rc != -ENOMEM) {
			gen_print_diag(&diag);
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
	struct gen_src s;
	size_t i;
	int rc = 0;

	buf = malloc(BLOCK);
	if (!buf) {
		fprintf(stderr, PROG ": out of memory\n");
		return -ENOMEM;
	}
	for (i = 0; i < p->n && rc == 0; i++) {
		const struct eng_gen_media *m = &p->files[i];

		if (m->pic.pix != ENG_PIX_NONE)
			rc = gen_src_picture(&s, &m->pic, m->seed, m->clip);
		else if (m->tone)
			gen_src_tone(&s, m->sample_rate, m->seed, m->clip);
		else
			gen_src_random(&s, m->seed);
		if (m->wav)
			eng_wav_header(hdr, m->sample_rate, m->bits, m->bytes);
		if (rc == 0)
			rc = gen_write_stream(dir, m->file, &s, hdr,
					      m->wav ? sizeof(hdr) : 0,
					      m->bytes,
					      m->wav && (m->bytes & 1), buf);
		gen_src_free(&s);
	}
	free(buf);
	return rc;
}

/* The frame rate, start timecode and file name of clip `name`: those of
 * the first timeline that plays it (its EDL origin, 00:00:00:00 for a
 * format without source timecode; the file it names, when of the
 * container written). */
static void clip_tc(const struct for_tl *v, size_t n, const char *name,
		    const struct gen_enc *enc, struct gen_enc_clip *c)
{
	size_t i, k;

	c->fps = v[0].tl->fps;
	c->tc = 0;
	c->tc_drop = 0;
	for (i = 0; i < n; i++)
		for (k = 0; k < v[i].tl->nclips; k++)
			if (strcmp(v[i].tl->clips[k].name, name) == 0) {
				c->fps = v[i].tl->fps;
				c->file = gen_enc_named(enc,
							v[i].tl->clips[k].file);
				if (v[i].tl->clips[k].tc_set) {
					c->tc = v[i].tl->clips[k].tc;
					c->tc_drop = v[i].tl->clips[k].tc_drop;
				}
				return;
			}
}

/* Frames of a clip that its file m of the plan needs: whole pictures,
 * or the frames its audio samples span, rounded up. */
static int64_t media_frames(const struct eng_gen_media *m, struct eng_fps fps)
{
	unsigned __int128 s;
	uint64_t fb;

	if (m->pic.pix != ENG_PIX_NONE) {
		fb = eng_picture_bytes(&m->pic);
		return (int64_t)((m->bytes + fb - 1) / fb);
	}
	if (!m->wav || !m->sample_rate)
		return 0;
	s = (unsigned __int128)(m->bytes / 3) * fps.num;
	return (int64_t)((s + (unsigned __int128)m->sample_rate * fps.den -
			  1) /
			 ((unsigned __int128)m->sample_rate * fps.den));
}

/*
 * --codec: one clip at a time, every track the edit plays of it in its
 * file(s) (docs/formats.md "Real-format media"): as many frames as its
 * longest need, every audio track as long, A1..An up to the highest An
 * the edit plays (an edit of A2 alone still finds it as the second
 * audio stream), start timecode the EDL's origin for the clip.
 * *files counts the files written.
 */
static int for_encode(const char *dir, const struct eng_gen_media_plan *p,
		      const struct for_tl *v, size_t n,
		      const struct for_opts *fo, size_t *files)
{
	struct gen_enc_clip c;
	uint32_t an;
	size_t i, j;
	int64_t f;
	int rc = 0;

	*files = 0;
	for (i = 0; i < p->n && rc == 0; i++) {
		const struct eng_gen_media *m = &p->files[i];

		for (j = 0; j < i && strcmp(p->files[j].clip, m->clip); j++)
			;
		if (j < i) /* written with its first file */
			continue;
		memset(&c, 0, sizeof(c));
		c.clip = m->clip;
		c.pic = &fo->load.picture;
		clip_tc(v, n, m->clip, &fo->enc, &c);
		c.seed = fo->seed;
		c.sample_rate = 48000;
		for (j = i; j < p->n; j++) {
			const struct eng_gen_media *o = &p->files[j];

			if (strcmp(o->clip, m->clip))
				continue;
			f = media_frames(o, c.fps);
			if (f > c.frames)
				c.frames = f;
			if (o->wav) {
				c.sample_rate = o->sample_rate;
				if (sscanf(o->track, "A%" SCNu32, &an) == 1 &&
				    an > c.naudio)
					c.naudio = an;
			}
		}
		if (c.frames < 1)
			c.frames = 1;
		c.samples = (uint64_t)(((unsigned __int128)c.frames *
					    c.sample_rate * c.fps.den +
					c.fps.num - 1) /
				       c.fps.num);
		rc = gen_enc_write(dir, &fo->enc, &c);
		*files += fo->enc.cont == GEN_CONT_OPATOM ||
				  fo->enc.cont == GEN_CONT_MP4
			      ? c.naudio + 1
			      : 1;
	}
	return rc;
}

/* --codec: check the plan can be encoded, and name its files as they
 * will be (CLIP.mov ..., CLIP.TRACK.mxf) for the checks before
 * writing.  0, or -EINVAL / -ENOMEM (reported). */
static int for_codec_plan(struct eng_gen_media_plan *p,
			  const struct for_tl *v, size_t n,
			  const struct for_opts *fo)
{
	struct gen_enc_clip c;
	char name[4096];
	size_t i;
	char *dup;
	int audio;

	for (i = 0; i < p->n; i++)
		if (p->files[i].wav && p->files[i].bits != 24) {
			fprintf(stderr, PROG ": --codec writes 24-bit audio, "
					     "not %u-bit\n",
				(unsigned)p->files[i].bits);
			return -EINVAL;
		}
	if (gen_enc_check(&fo->enc, &fo->load.picture, v[0].tl->fps, 24) < 0)
		return -EINVAL;
	for (i = 0; i < p->n; i++) {
		struct eng_gen_media *m = &p->files[i];

		audio = eng_gen_track_is_audio(m->track);
		memset(&c, 0, sizeof(c));
		clip_tc(v, n, m->clip, &fo->enc, &c);
		/* the file the timeline names, where it holds this track */
		if (c.file && (!audio || fo->enc.cont == GEN_CONT_MOV ||
			       fo->enc.cont == GEN_CONT_MXF))
			snprintf(name, sizeof(name), "%s", c.file);
		else if (gen_enc_name(&fo->enc, m->clip,
				      audio ? m->track : "V", name,
				      sizeof(name)) < 0) {
			fprintf(stderr, PROG ": clip name too long: %s\n",
				m->clip);
			return -EINVAL;
		}
		dup = strdup(name);
		if (!dup) {
			fprintf(stderr, PROG ": out of memory\n");
			return -ENOMEM;
		}
		free(m->file);
		m->file = dup;
	}
	return 0;
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
		} else if (gen_write_text(tldir, t->base, t->text, t->len) < 0) {
			return -EIO;
		}
		if (t->fps) {
			if (gen_write_text(tldir, sname, t->fps, strlen(t->fps)) <
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

/* The timelines folder as the mount will make it from what was written
 * (eng_tlm_open): the timelines copied and those already there, resolved,
 * laid out, their movies and each stream's memory with the mount's
 * default limits (gen's mount line sets none of them; streams_mem, the
 * mounting machine's, is left to the mount), so that a problem shows here
 * and not at mount time. */
static int for_verify(const char *dir, const char *tldir,
		      const struct for_opts *fo)
{
	struct eng_diag diag = {0}, notes = {0};
	struct eng_tlm_config tc;
	struct eng_tlm set;
	int fd, rc;

	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, PROG ": cannot open %s: %s\n", dir,
			strerror(errno));
		return -errno;
	}
	eng_tlm_defaults(&tc);
	tc.load = &fo->load;
	tc.media_fd = fd;
	tc.media_dir = dir;
	rc = eng_tlm_open(tldir, &tc, &set, &diag, &notes);
	eng_tlm_free(&set);
	close(fd);
	gen_print_notes(&notes);
	gen_print_diag(&diag);
	eng_diag_free(&diag);
	if (rc == -ENOMEM)
		fprintf(stderr, PROG ": out of memory\n");
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
	if (fo->picture_arg)
		mount_opt(&o, "picture", fo->picture_arg);
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
		       const struct for_opts *fo, size_t files, double secs)
{
	uint64_t media = 0;
	char b1[32], b2[32], b3[32];
	size_t i, j, t, c, nclips;

	for (i = 0; i < p->n; i++) {
		/* --codec: the files as written, each once */
		for (j = 0; fo->enc.codec && j < i &&
			    strcmp(p->files[j].file, p->files[i].file);
		     j++)
			;
		if (!fo->enc.codec)
			media += eng_gen_media_file_bytes(&p->files[i]);
		else if (j == i)
			media += gen_held(dir, p->files[i].file);
	}
	gen_fmt_bytes(media, b1, sizeof(b1));
	printf("wrote %zu clip file%s (%s) for %zu timeline%s to %s in %.1f s",
	       fo->enc.codec ? files : p->n,
	       (fo->enc.codec ? files : p->n) == 1 ? "" : "s", b1, n,
	       n == 1 ? "" : "s", dir, secs);
	if (secs > 0)
		printf(" (%.0f MB/s)", (double)media / secs / 1e6);
	printf("\n");
	if (fo->enc.codec)
		printf("  %s in %s, start timecode the edit's source "
		       "timecode of each clip's first frame\n",
		       fo->enc.codec == GEN_CODEC_PRORES	 ? "ProRes"
		       : fo->enc.codec == GEN_CODEC_DNXHD ? "DNxHD/HR"
		       : fo->enc.codec == GEN_CODEC_H264  ? "H.264"
							  : "uncompressed",
		       fo->enc.cont == GEN_CONT_OPATOM ? "OP-Atom MXF"
		       : fo->enc.cont == GEN_CONT_MXF	? "MXF OP1a"
		       : fo->enc.cont == GEN_CONT_MP4	? "MP4 (audio BWF)"
							: "QuickTime");
	for (i = 0; i < n; i++) {
		const struct eng_timeline *tl = v[i].tl;

		/* --codec skips the raw resolver: every clip has files */
		nclips = fo->enc.codec ? tl->nclips : 0;
		for (c = 0; !fo->enc.codec && c < tl->nclips; c++)
			for (t = 0; t < tl->ntracks; t++)
				if (tl->clips[c].media &&
				    tl->clips[c].media[t].file) {
					nclips++;
					break;
				}
		gen_fmt_duration(tl->frames, tl->fps, b1, sizeof(b1));
		gen_fmt_bytes(tl->bytes, b2, sizeof(b2));
		gen_fmt_fps(tl->fps, b3, sizeof(b3));
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
int gen_run_for(const char *dir, const char **paths, size_t n,
		   const struct for_opts *fo)
{
	struct eng_gen_media_plan plan = {0};
	struct eng_diag diag = {0};
	struct timespec t0, t1;
	struct for_old *old = NULL;
	size_t nold = 0, kept = 0, files = 0;
	unsigned images = 0;
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
		gen_print_diag(&diag);
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
	if (fo->enc.codec && for_codec_plan(&plan, v, n, fo) < 0)
		goto out;
	/* --codec rewrites its files whole, at the length needed now */
	if (for_conflicts(dir, &plan) +
	    (fo->enc.codec ? 0 : for_on_disk(dir, &plan, &kept))) {
		fprintf(stderr, PROG ": nothing written\n");
		goto out;
	}
	for (i = 0; i < plan.n; i++) {
		need += eng_gen_media_file_bytes(&plan.files[i]);
		reclaim += gen_held(dir, plan.files[i].file);
	}
	for (i = 0; i < n; i++) {
		need += v[i].len;
		reclaim += gen_held(tldir, v[i].base);
		snprintf(side, sizeof(side), "%s.fps", v[i].base);
		reclaim += gen_held(tldir, side);
	}
	if (!fo->force && gen_check_space_bytes(dir, need, reclaim) < 0)
		goto out;
	if (gen_make_dir(dir) < 0 || gen_make_dir(tldir) < 0)
		goto out;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	if ((fo->enc.codec ? for_encode(dir, &plan, v, n, fo, &files)
			   : for_write_media(dir, &plan)) < 0)
		goto out;
	/* sequence clips' images, beside the plan's files */
	for (i = 0; i < n; i++)
		if (gen_for_seqs(dir, v[i].tl, fo->seed, &images) < 0)
			goto out;
	if (images)
		printf("wrote %u stand-in images of sequence clips\n", images);
	if (for_copy(tldir, v, n) < 0)
		goto out;
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (for_verify(dir, tldir, fo) < 0) {
		fprintf(stderr,
			PROG ": with the media in %s timelinefs would not "
			     "mount these timelines\n",
			dir);
		goto out;
	}
	for_report(dir, v, n, old, nold, kept, &plan, fo, files,
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
int gen_run_dump(const char *path, const char *media_dir,
		 const struct for_opts *fo)
{
	struct eng_timeline *tl = NULL;
	struct eng_diag diag = {0}, notes = {0};
	char *text = NULL;
	size_t len;
	int ret = EXIT_IO, rc, fd = -1;

	if (media_dir) {
		fd = open(media_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (fd < 0) {
			fprintf(stderr, PROG ": cannot open %s: %s\n",
				media_dir, strerror(errno));
			return EXIT_IO;
		}
	}
	/* with the media folder, as the mount resolves it: tracks of real
	 * media get their media's frame sizes (and the comment saying so) */
	rc = eng_tl_open(path, &fo->load, fd, media_dir, NULL, &tl, &diag,
			 &notes);
	gen_print_notes(&notes);
	if (rc < 0 || eng_tl_write(tl, ENG_TL_WRITE_ESCAPE, &text, &len, &diag) < 0) {
		gen_print_diag(&diag);
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
	if (fd >= 0)
		close(fd);
	return ret;
}
