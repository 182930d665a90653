/* SPDX-License-Identifier: MIT */
/*
 * A media folder with a timelines folder in it, for the tests of opening
 * timelines as the mount does (test_tlopen.c, test_tlmount.c): made under
 * TMPDIR, open as a dirfd, files written into either, and a diagnostic's
 * search.  Include after <cmocka.h> and util/diag.h.
 */
#ifndef TL_DIR_H
#define TL_DIR_H

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct dir {
	char path[64];
	char tl[96];
	int fd;
};

static inline void put(const char *dir, const char *name, const char *text,
		       size_t len)
{
	char p[160];
	FILE *f;

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	f = fopen(p, "w");
	assert_non_null(f);
	assert_int_equal(fwrite(text, 1, len, f), len);
	assert_int_equal(fclose(f), 0);
}

/* A fresh media folder named NAME.XXXXXX with an empty timelines folder
 * in it, open as d->fd. */
static inline void dir_open(struct dir *d, const char *name)
{
	const char *tmp = getenv("TMPDIR");

	snprintf(d->path, sizeof(d->path), "%s/%s.XXXXXX", tmp ? tmp : "/tmp",
		 name);
	assert_non_null(mkdtemp(d->path));
	snprintf(d->tl, sizeof(d->tl), "%s/timelines", d->path);
	assert_int_equal(mkdir(d->tl, 0755), 0);
	d->fd = open(d->path, O_RDONLY | O_DIRECTORY);
	assert_true(d->fd >= 0);
}

static inline void dir_free(struct dir *d)
{
	char cmd[128];

	close(d->fd);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", d->path);
	assert_int_equal(system(cmd), 0);
}

/* Whether a message of d holds text */
static inline int has(const struct eng_diag *d, const char *text)
{
	size_t i;

	for (i = 0; i < d->n; i++)
		if (strstr(d->msgs[i], text))
			return 1;
	return 0;
}

#endif /* TL_DIR_H */
