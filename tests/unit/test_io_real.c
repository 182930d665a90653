/* SPDX-License-Identifier: MIT */
/*
 * io_real.c's open and check of a relative path beneath the media folder
 * (issue 22: an image sequence's BASE/NAME): folders and files found, never
 * a symlink on the way nor a name leaving the folder, with openat2 and with
 * the component walk of kernels without it.  Before the change open took
 * a plain name only: every path here was -EINVAL.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "io/io.h"
#include "timeline/tl.h"
#include "util/diag.h"

#include "media_env.h"

static void put_text(int dfd, const char *name, const char *text)
{
	int fd = openat(dfd, name, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
}

/* seq/a/img.0001.dpx "one", seq/a/img.0002.dpx "two", top.raw, a folder
 * link "lnk" -> seq, a file link seq/a/link.dpx -> img.0001.dpx */
static int setup(void **state)
{
	struct env *d;

	if (env_open(state, "/tmp/tlfs-ioreal-XXXXXX") < 0)
		return -1;
	d = *state;
	if (mkdirat(d->dfd, "seq", 0755) < 0 ||
	    mkdirat(d->dfd, "seq/a", 0755) < 0)
		return -1;
	put_text(d->dfd, "seq/a/img.0001.dpx", "one");
	put_text(d->dfd, "seq/a/img.0002.dpx", "two");
	put_text(d->dfd, "top.raw", "top");
	if (symlinkat("seq", d->dfd, "lnk") < 0 ||
	    symlinkat("img.0001.dpx", d->dfd, "seq/a/link.dpx") < 0)
		return -1;
	return 0;
}

static void read_is(struct eng_io *io, int fd, const char *want)
{
	char buf[16] = {0};

	assert_true(fd >= 0);
	assert_int_equal(io->pread(io->ctx, fd, buf, sizeof(buf) - 1, 0),
			 (ssize_t)strlen(want));
	assert_string_equal(buf, want);
	io->close(io->ctx, fd);
}

static void opens(struct env *d, int walk)
{
	static const char *const bad[] = {
		"", "/", "/tmp", "../x", "seq/../top.raw", "seq//a/img.0001.dpx",
		"seq/./a/img.0001.dpx", "./top.raw", "seq/a/", "seq/a/.",
		"seq/a/..", ".", "..",
	};
	struct eng_io io;
	struct eng_io_real real;
	size_t i;
	int isd;

	eng_io_real_init(&io, &real, d->dfd);
	/* the walk of kernels without openat2 */
	atomic_store(&real.no_openat2, walk);
	read_is(&io, io.open(io.ctx, "seq/a/img.0002.dpx", 0, &isd), "two");
	read_is(&io, io.open(io.ctx, "top.raw", 0, &isd), "top");
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (io.open(io.ctx, bad[i], 0, &isd) != -EINVAL)
			fail_msg("'%s' opened (walk %d)", bad[i], walk);
	assert_int_equal(io.open(io.ctx, "seq/a/img.0003.dpx", 0, &isd),
			 -ENOENT);
	assert_int_equal(io.open(io.ctx, "seq/b/img.0001.dpx", 0, &isd),
			 -ENOENT);
	/* a symlink anywhere: the folder or the file */
	assert_int_equal(io.open(io.ctx, "lnk/a/img.0001.dpx", 0, &isd),
			 -ELOOP);
	assert_int_equal(io.open(io.ctx, "seq/a/link.dpx", 0, &isd), -ELOOP);
	/* a folder is not a media file; a file is not a folder */
	assert_int_equal(io.open(io.ctx, "seq/a", 0, &isd), -EINVAL);
	assert_int_equal(io.open(io.ctx, "top.raw/x", 0, &isd), -ENOTDIR);
	/* the public form the mount's resolution uses */
	read_is(&io, eng_open_beneath(d->dfd, "seq/a/img.0001.dpx",
				      O_RDONLY | O_CLOEXEC, NULL), "one");
	assert_int_equal(eng_open_beneath(d->dfd, "../etc/passwd", O_RDONLY,
					  NULL), -EINVAL);
}

static void test_open_path(void **state)
{
	opens(*state, 0);
}

static void test_open_path_walk(void **state)
{
	opens(*state, 1);
}

/* check() of a path: the file's folder found as open finds it, so a
 * folder swapped for a symlink is -ELOOP, not followed */
static void checks(struct env *d, int walk)
{
	struct eng_io io;
	struct eng_io_real real;
	int fd, isd;

	eng_io_real_init(&io, &real, d->dfd);
	atomic_store(&real.no_openat2, walk);
	fd = io.open(io.ctx, "seq/a/img.0001.dpx", 0, &isd);
	assert_true(fd >= 0);
	assert_int_equal(io.check(io.ctx, fd, "seq/a/img.0001.dpx"), 0);
	/* another file under the name, the first kept under another */
	assert_int_equal(renameat(d->dfd, "seq/a/img.0001.dpx", d->dfd,
				  "seq/a/keep.dpx"), 0);
	assert_int_equal(renameat(d->dfd, "seq/a/img.0002.dpx", d->dfd,
				  "seq/a/img.0001.dpx"), 0);
	assert_int_equal(io.check(io.ctx, fd, "seq/a/img.0001.dpx"), -ESTALE);
	io.close(io.ctx, fd);
	fd = io.open(io.ctx, "seq/a/img.0001.dpx", 0, &isd);
	assert_true(fd >= 0);
	/* the folder moved away and a symlink to it put in its place */
	assert_int_equal(renameat(d->dfd, "seq/a", d->dfd, "seq/b"), 0);
	assert_int_equal(symlinkat("b", d->dfd, "seq/a"), 0);
	assert_int_equal(io.check(io.ctx, fd, "seq/a/img.0001.dpx"), -ELOOP);
	assert_int_equal(unlinkat(d->dfd, "seq/a", 0), 0);
	assert_int_equal(io.check(io.ctx, fd, "seq/a/img.0001.dpx"), -ENOENT);
	assert_int_equal(renameat(d->dfd, "seq/b", d->dfd, "seq/a"), 0);
	assert_int_equal(io.check(io.ctx, fd, "seq/a/img.0001.dpx"), 0);
	io.close(io.ctx, fd);
	put_text(d->dfd, "seq/a/img.0002.dpx", "two");
}

static void test_check_path(void **state)
{
	checks(*state, 0);
}

static void test_check_path_walk(void **state)
{
	checks(*state, 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_open_path, setup,
						env_teardown),
		cmocka_unit_test_setup_teardown(test_open_path_walk, setup,
						env_teardown),
		cmocka_unit_test_setup_teardown(test_check_path, setup,
						env_teardown),
		cmocka_unit_test_setup_teardown(test_check_path_walk, setup,
						env_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
