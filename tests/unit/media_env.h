/* SPDX-License-Identifier: MIT */
/*
 * A media folder for the media resolution tests (test_media.c,
 * test_resolve.c): a temporary folder open as a dirfd, files in it, and a
 * .tl timeline from text.  Include after <cmocka.h> and the engine
 * headers.
 */
#ifndef MEDIA_ENV_H
#define MEDIA_ENV_H

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct env {
	char dir[64];
	int dfd;
};

/* A fresh folder from the mkdtemp template tmpl (at most 63 bytes), open
 * as e->dfd: a cmocka setup's state. */
static inline int env_open(void **state, const char *tmpl)
{
	struct env *e = calloc(1, sizeof(*e));

	if (!e)
		return -1;
	snprintf(e->dir, sizeof(e->dir), "%s", tmpl);
	if (!mkdtemp(e->dir)) {
		free(e);
		return -1;
	}
	e->dfd = open(e->dir, O_RDONLY | O_DIRECTORY);
	if (e->dfd < 0)
		return -1;
	*state = e;
	return 0;
}

static inline int env_teardown(void **state)
{
	struct env *e = *state;
	char cmd[128];

	close(e->dfd);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", e->dir);
	if (system(cmd) != 0)
		return -1;
	free(e);
	return 0;
}

/* A file of `len` bytes: `head` then zeros (sparse). */
static inline void put(struct env *e, const char *name, const void *head,
		size_t hlen, uint64_t len)
{
	int fd = openat(e->dfd, name, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	assert_true(fd >= 0);
	if (hlen)
		assert_int_equal(write(fd, head, hlen), (ssize_t)hlen);
	assert_int_equal(ftruncate(fd, (off_t)len), 0);
	close(fd);
}

static inline struct eng_timeline *tl_from(const char *text)
{
	struct eng_timeline *tl = NULL;
	struct eng_diag d = { 0 };
	size_t i;

	if (eng_tl_parse("t.tl", "t", text, strlen(text), &tl, &d) < 0) {
		for (i = 0; i < d.n; i++)
			print_message("%s\n", d.msgs[i]);
		fail_msg("timeline does not parse");
	}
	eng_diag_free(&d);
	return tl;
}

static inline void print_diag(const struct eng_diag *d)
{
	size_t i;

	for (i = 0; i < d->n; i++)
		print_message("  %s\n", d->msgs[i]);
}

#endif /* MEDIA_ENV_H */
