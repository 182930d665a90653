/* SPDX-License-Identifier: MIT */
/* Load a timeline file with the parser its extension names. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "timeline/edl.h"
#include "timeline/load.h"
#include "timeline/model.h"
#include "timeline/otio.h"
#include "timeline/tl.h"
#include "util/diag.h"
#include "util/values.h"

#define TL_FILE_MAX (64u << 20)	/* timelines are text: refuse a mistake */

/* What a file that is not a regular one is, for a message. */
static const char *not_regular(mode_t mode)
{
	if (S_ISDIR(mode))
		return "a directory, not a regular file";
	if (S_ISFIFO(mode))
		return "a FIFO, not a regular file";
	if (S_ISCHR(mode))
		return "a character device, not a regular file";
	if (S_ISBLK(mode))
		return "a block device, not a regular file";
	if (S_ISSOCK(mode))
		return "a socket, not a regular file";
	return "not a regular file";
}

enum eng_tl_format eng_timeline_format(const char *path)
{
	static const struct {
		const char *ext;
		enum eng_tl_format fmt;
	} formats[] = {
		{ ".tl", ENG_TL_TL }, { ".edl", ENG_TL_EDL },
		{ ".otio", ENG_TL_OTIO },
	};
	const char *base = strrchr(path, '/'), *dot;
	size_t i;

	base = base ? base + 1 : path;
	dot = strrchr(base, '.');
	if (!dot || dot == base)	/* no extension, or no name before it */
		return ENG_TL_NONE;
	/* EDLs often come from systems that write upper-case extensions */
	for (i = 0; i < sizeof(formats) / sizeof(formats[0]); i++)
		if (strcasecmp(dot, formats[i].ext) == 0)
			return formats[i].fmt;
	return ENG_TL_NONE;
}

int eng_timeline_load(const char *path, const struct eng_load_options *opt,
		      struct eng_timeline **out, struct eng_diag *diag)
{
	enum eng_tl_format fmt = eng_timeline_format(path);
	struct eng_load_options defaults;
	struct stat sb;
	const char *base, *dot;
	char *name = NULL, *text = NULL;
	size_t len, skip;
	int rc;

	*out = NULL;
	if (fmt == ENG_TL_NONE) {
		eng_diag_add(diag, path, 0,
			     "unsupported timeline format (expected .tl, .edl or .otio)");
		return -ENOTSUP;
	}
	base = strrchr(path, '/');
	base = base ? base + 1 : path;
	dot = strrchr(base, '.');
	if (!opt) {
		eng_load_options_default(&defaults);
		opt = &defaults;
	}
	/* A device is not even opened (opening one can act on it); a file
	 * swapped for a FIFO after this is refused by eng_read_file */
	if (stat(path, &sb) == 0 && !S_ISREG(sb.st_mode)) {
		eng_diag_add(diag, path, 0,
			     "cannot read timeline: %s",
			     not_regular(sb.st_mode));
		return -EINVAL;
	}
	name = strndup(base, (size_t)(dot - base));
	if (!name)
		return -ENOMEM;
	rc = eng_read_file(path, &text, &len);
	if (rc < 0) {
		eng_diag_add(diag, path, 0, "cannot read timeline: %s",
			     rc == -EINVAL ? not_regular(0) : strerror(-rc));
		goto out;
	}
	/* Windows tools (and some NLEs' EDL export) start the file with a
	 * UTF-8 byte-order mark: to a parser it is text on line 1, and an
	 * EDL parser took "\xEF\xBB\xBF001" for no event line and dropped
	 * the first event without a word */
	skip = len >= 3 && memcmp(text, "\xEF\xBB\xBF", 3) == 0 ? 3 : 0;
	switch (fmt) {
	case ENG_TL_TL:
		rc = eng_tl_parse(path, name, text + skip, len - skip, out,
				  diag);
		break;
	case ENG_TL_EDL:
		rc = eng_edl_parse(path, name, text + skip, len - skip, opt,
				   out, diag);
		break;
	case ENG_TL_OTIO:
		rc = eng_otio_parse(path, name, text + skip, len - skip, opt,
				    out, diag);
		break;
	case ENG_TL_NONE:	/* refused above */
		rc = -ENOTSUP;
		break;
	}
out:
	free(text);
	free(name);
	return rc;
}

int eng_timeline_listed(const char *name)
{
	/* the case eng_timeline_load reads: a "REEL1.EDL" that --for and
	 * --dump-tl take must not be missing from the mount */
	return name[0] != '.' && eng_timeline_format(name) != ENG_TL_NONE;
}

static int cmp_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

void eng_names_free(char **names, size_t n)
{
	size_t i;

	for (i = 0; names && i < n; i++)
		free(names[i]);
	free(names);
}

int eng_timeline_names(const char *dir, char ***out, size_t *nout,
		       struct eng_diag *notes)
{
	char **names = NULL, **nn, *path;
	size_t n = 0, cap = 0;
	struct dirent *de;
	struct stat sb;
	DIR *d;
	int rc = 0;

	*out = NULL;
	*nout = 0;
	d = opendir(dir);
	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		if (!eng_timeline_listed(de->d_name))
			continue;
		/* links followed, as the load opens it; one that cannot be
		 * stat'ed (a dangling link) is listed for the load to say why */
		if (fstatat(dirfd(d), de->d_name, &sb, 0) == 0 &&
		    !S_ISREG(sb.st_mode)) {
			if (asprintf(&path, "%s/%s", dir, de->d_name) < 0) {
				rc = -ENOMEM;
				break;
			}
			eng_diag_add(notes, path, 0,
				     "skipped: %s",
				     not_regular(sb.st_mode));
			free(path);
			continue;
		}
		if (n == cap) {
			cap = cap ? cap * 2 : 32;
			nn = realloc(names, cap * sizeof(*nn));
			if (!nn) {
				rc = -ENOMEM;
				break;
			}
			names = nn;
		}
		names[n] = strdup(de->d_name);
		if (!names[n]) {
			rc = -ENOMEM;
			break;
		}
		n++;
	}
	closedir(d);
	if (rc < 0) {
		eng_names_free(names, n);
		return rc;
	}
	/* readdir's order is the filesystem's: name order is the same on
	 * every machine */
	if (n)
		qsort(names, n, sizeof(*names), cmp_name);
	*out = names;
	*nout = n;
	return 0;
}

/* Bytes skipped around a sidecar's rate: blanks and line ends. */
#define SIDECAR_BLANKS " \t\r\n\v\f"

const char *eng_sidecar_ext(unsigned i)
{
	static const char *const ext[] = {
		".fps", ".fpS", ".fPs", ".fPS", ".Fps", ".FpS", ".FPs", ".FPS",
	};

	return i < sizeof(ext) / sizeof(ext[0]) ? ext[i] : NULL;
}

/* The sidecar of timeline path: *side (malloc'ed) is the first spelling
 * that exists, links followed (NULL: none), *sb its stat.  Two files
 * would be a rate chosen by spelling: -EINVAL, naming both.  On a
 * case-insensitive file system every spelling is the one file. */
static int sidecar_find(const char *path, char **side, struct stat *sb,
			struct eng_diag *diag)
{
	const char *ext;
	struct stat st;
	unsigned i;
	char *p;

	*side = NULL;
	for (i = 0; (ext = eng_sidecar_ext(i)); i++) {
		if (asprintf(&p, "%s%s", path, ext) < 0)
			goto nomem;
		if (stat(p, &st) < 0 ||
		    (*side && st.st_dev == sb->st_dev &&
		     st.st_ino == sb->st_ino)) {
			free(p);
			continue;
		}
		if (*side) {
			eng_diag_add(diag, path, 0,
				     "two frame-rate sidecars, %s and %s: "
				     "remove one", *side, p);
			free(p);
			free(*side);
			*side = NULL;
			return -EINVAL;
		}
		*side = p;
		*sb = st;
	}
	return 0;
nomem:
	free(*side);
	*side = NULL;
	return -ENOMEM;
}

int eng_load_options_for(const char *path, const struct eng_load_options *def,
			 struct eng_load_options *out, char **sidecar,
			 struct eng_diag *diag, struct eng_diag *notes)
{
	char *side = NULL, *text = NULL, *v, *end;
	struct eng_fps fps;
	struct stat sb;
	unsigned line = 1;
	size_t len;
	int rc;

	*out = *def;
	if (sidecar)
		*sidecar = NULL;
	rc = sidecar_find(path, &side, &sb, diag);
	if (rc < 0 || !side)
		goto out;
	/* a FIFO never opened, a device never touched: nothing beside a
	 * timeline can hold up a mount */
	rc = S_ISREG(sb.st_mode) ? eng_read_file(side, &text, &len) : -EINVAL;
	if (rc == -EINVAL) {
		eng_diag_add(notes, side, 0,
			     "skipped: %s: no frame rate from it",
			     not_regular(S_ISREG(sb.st_mode) ? 0 : sb.st_mode));
		rc = 0;
		goto out;
	}
	if (rc < 0) {
		/* an unreadable sidecar is no override: the EDL then plays
		 * at the mount's rate, as before sidecars existed */
		rc = rc == -ENOMEM ? rc : 0;
		goto out;
	}
	/* Editors and Windows tools write a BOM, a line end or blanks
	 * around the one word that matters. */
	v = text;
	if (len >= 3 && memcmp(v, "\xEF\xBB\xBF", 3) == 0)
		v += 3;
	for (; *v && strchr(SIDECAR_BLANKS, *v); v++)
		line += *v == '\n';
	end = v + strcspn(v, SIDECAR_BLANKS);
	*end = '\0';
	if (!*v) {
		/* the whole file is blank: it, not a line past its end */
		eng_diag_add(diag, side, 1,
			     "no frame rate (e.g. 25, 30000/1001 or 29.97)");
		rc = -EINVAL;
	} else if (eng_parse_fps(v, &fps) < 0) {
		/* eng_diag_add escapes and bounds the word */
		eng_diag_add(diag, side, line,
			     "bad frame rate '%s' (e.g. 25, 30000/1001 or 29.97)",
			     v);
		rc = -EINVAL;
	} else if (sidecar && !(*sidecar = strdup(v))) {
		rc = -ENOMEM;
	} else {
		out->fps = fps;
	}
out:
	free(text);
	free(side);
	return rc;
}

int eng_read_file(const char *path, char **text, size_t *len)
{
	struct stat sb;
	size_t cap, n = 0;
	char *buf = NULL, *nb;
	ssize_t r;
	int fd, rc;

	/* O_NONBLOCK: opening a FIFO for reading waits for a writer, for
	 * ever when none comes; it is refused below without a read */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &sb) < 0) {
		rc = -errno;
		goto out;
	}
	if (!S_ISREG(sb.st_mode)) {
		rc = S_ISDIR(sb.st_mode) ? -EISDIR : -EINVAL;
		goto out;
	}
	if (sb.st_size > (off_t)TL_FILE_MAX) {
		rc = -EFBIG;
		goto out;
	}
	/* st_size is a hint only (the file may grow while it is read) */
	cap = (size_t)sb.st_size + 1;
	buf = malloc(cap);
	if (!buf) {
		rc = -ENOMEM;
		goto out;
	}
	for (;;) {
		if (n + 1 >= cap) {
			if (cap > TL_FILE_MAX) {
				rc = -EFBIG;
				goto out;
			}
			cap *= 2;
			nb = realloc(buf, cap);
			if (!nb) {
				rc = -ENOMEM;
				goto out;
			}
			buf = nb;
		}
		r = read(fd, buf + n, cap - n - 1);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			rc = -errno;
			goto out;
		}
		if (r == 0)
			break;
		n += (size_t)r;
	}
	if (n > TL_FILE_MAX) {
		rc = -EFBIG;
		goto out;
	}
	buf[n] = '\0';
	*text = buf;
	*len = n;
	buf = NULL;
	rc = 0;
out:
	free(buf);
	close(fd);
	return rc;
}
