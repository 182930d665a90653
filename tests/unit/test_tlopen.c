/* SPDX-License-Identifier: MIT */
/*
 * Unit tests for tlopen.c, the one sequence by which the mount and
 * timelinefs-gen --for open timelines: a file loaded with or without its
 * media, a folder with the rule of one timeline per name, and the
 * folder's own problems (missing, empty), each said with its path.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "media/tlopen.h"
#include "util/diag.h"
#include "tl_dir.h"

/* A media folder with clip c (c.V.raw, 1000 bytes: 100 frames of a 250
 * byte/s track at 25 fps) and an empty timelines folder in it. */
static void dir_make(struct dir *d)
{
	char media[1000];

	dir_open(d, "test_tlopen");
	memset(media, 'x', sizeof(media));
	put(d->path, "c.V.raw", media, sizeof(media));
}

static const char good[] = "fps 25\ntrack V 250\nevent V c 0 10\n";
/* clip d has no media: it loads, it does not place */
static const char nomedia[] = "fps 25\ntrack V 250\nevent V d 0 10\n";

/* Without a media folder a timeline loads unplaced (timelinefs-gen --for
 * before it writes the media); with one, its media must be there. */
static void test_open_one(void **state)
{
	struct eng_load_options def;
	struct eng_diag diag = {0};
	struct eng_timeline *tl;
	char p[160];
	struct dir d;

	(void)state;
	dir_make(&d);
	eng_load_options_default(&def);
	put(d.tl, "a.tl", good, strlen(good));
	put(d.tl, "b.tl", nomedia, strlen(nomedia));
	snprintf(p, sizeof(p), "%s/a.tl", d.tl);
	assert_int_equal(eng_tl_open(p, &def, d.fd, d.path, NULL, &tl, &diag,
				     NULL), 0);
	assert_non_null(tl);
	assert_string_equal(tl->name, "a");
	assert_int_equal(diag.n, 0);
	eng_tl_free(tl);
	snprintf(p, sizeof(p), "%s/b.tl", d.tl);
	assert_int_equal(eng_tl_open(p, &def, -1, NULL, NULL, &tl, &diag,
				     NULL), 0);
	assert_non_null(tl);
	assert_true(eng_tl_place(tl, d.fd, d.path, &diag) < 0);
	assert_true(has(&diag, "b.tl:3:"));
	eng_tl_free(tl);
	eng_diag_free(&diag);
	assert_true(eng_tl_open(p, &def, d.fd, d.path, NULL, &tl, &diag,
				NULL) < 0);
	assert_null(tl);
	assert_true(has(&diag, "b.tl:3:"));
	eng_diag_free(&diag);
	dir_free(&d);
}

/* The folder as the mount loads it: every problem, each timeline that
 * opened kept, one timeline per name. */
static void test_open_folder(void **state)
{
	struct eng_load_options def;
	struct eng_diag diag = {0};
	struct eng_timeline **tls;
	char missing[160];
	struct dir d;
	size_t n;

	(void)state;
	dir_make(&d);
	eng_load_options_default(&def);
	assert_int_equal(eng_tl_open_folder(d.tl, &def, d.fd, d.path, &tls,
					    &n, &diag, NULL), -EINVAL);
	assert_true(has(&diag, "no timeline (*.tl, *.edl, *.otio) in this "
			       "folder"));
	eng_diag_free(&diag);
	snprintf(missing, sizeof(missing), "%s/nosuch", d.path);
	assert_int_equal(eng_tl_open_folder(missing, &def, d.fd, d.path,
					    &tls, &n, &diag, NULL), -EINVAL);
	assert_true(has(&diag, "nosuch: cannot open the timelines folder"));
	eng_diag_free(&diag);

	put(d.tl, "a.tl", good, strlen(good));
	put(d.tl, "b.tl", good, strlen(good));
	assert_int_equal(eng_tl_open_folder(d.tl, &def, d.fd, d.path, &tls,
					    &n, &diag, NULL), 0);
	assert_int_equal(n, 2);
	assert_int_equal(diag.n, 0);
	assert_string_equal(tls[0]->name, "a");
	assert_int_equal(eng_tl_same_name(tls, n, tls[1]), 1);
	eng_tl_free_all(tls, n);

	/* a.TL is /a too; c.tl has no media: both said, a and b kept */
	put(d.tl, "a.TL", good, strlen(good));
	put(d.tl, "c.tl", nomedia, strlen(nomedia));
	assert_int_equal(eng_tl_open_folder(d.tl, &def, d.fd, d.path, &tls,
					    &n, &diag, NULL), -EINVAL);
	assert_int_equal(n, 2);
	assert_true(has(&diag, "same name as"));
	assert_true(has(&diag, "both would be /a"));
	assert_true(has(&diag, "c.tl:3:"));
	eng_tl_free_all(tls, n);
	eng_diag_free(&diag);
	dir_free(&d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_open_one),
		cmocka_unit_test(test_open_folder),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
