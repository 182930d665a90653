/* SPDX-License-Identifier: MIT */
/*
 * io_real.c's open and check of a relative path beneath the media folder
 * (issue 22: an image sequence's BASE/NAME): folders and files found, never
 * a symlink on the way nor a name leaving the folder, with openat2 and with
 * the component walk of kernels without it.  Before the change open took
 * a plain name only: every path here was -EINVAL.
 * And ingest's writes (issue 23): create beneath the folder, never
 * through a symlink (the folder or the file), O_EXCL unless replace, the
 * last folder made and no other; pwrite, fsync, fallocate KEEP_SIZE,
 * ftruncate and space.  Before io_real had them, io.create was NULL.
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
#include <sys/statvfs.h>
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

static void size_is(struct env *d, const char *name, off_t size)
{
	struct stat st;

	assert_int_equal(fstatat(d->dfd, name, &st, AT_SYMLINK_NOFOLLOW), 0);
	assert_true(S_ISREG(st.st_mode));
	assert_int_equal(st.st_size, size);
}

/* create(): the folder made (once, 0755), the file 0644, O_EXCL unless
 * replace, a symlink at the file or on the way -ELOOP and nothing made
 * through it, a name leaving the folder -EINVAL, a missing folder's
 * parents not made. */
static void creates(struct env *d, int walk)
{
	static const char *const bad[] = {
		"", "/tmp/x", "../x", "ingest/../x", "ingest//x", "ingest/.",
		"ingest/", ".", "..",
	};
	struct eng_io io;
	struct eng_io_real real;
	struct stat st;
	unsigned inj = 99;
	mode_t um = umask(022);
	size_t i;
	int fd;

	eng_io_real_init(&io, &real, d->dfd);
	atomic_store(&real.no_openat2, walk);
	assert_non_null(io.create);
	assert_int_equal(fstatat(d->dfd, "ingest", &st, 0), -1);
	fd = io.create(io.ctx, "ingest/cam1.V.raw", 0, &inj);
	assert_true(fd >= 0);
	assert_int_equal(inj, 0);
	assert_int_equal(io.pwrite(io.ctx, fd, "hello", 5, 3, &inj), 5);
	io.close(io.ctx, fd);
	assert_int_equal(fstatat(d->dfd, "ingest", &st, AT_SYMLINK_NOFOLLOW),
			 0);
	assert_true(S_ISDIR(st.st_mode));
	assert_int_equal(st.st_mode & 0777, 0755);
	assert_int_equal(fstatat(d->dfd, "ingest/cam1.V.raw", &st, 0), 0);
	assert_int_equal(st.st_mode & 0777, 0644);
	size_is(d, "ingest/cam1.V.raw", 8);
	/* there: EEXIST, the file untouched; replace truncates it */
	assert_int_equal(io.create(io.ctx, "ingest/cam1.V.raw", 0, &inj),
			 -EEXIST);
	size_is(d, "ingest/cam1.V.raw", 8);
	fd = io.create(io.ctx, "ingest/cam1.V.raw", 1, &inj);
	assert_true(fd >= 0);
	io.close(io.ctx, fd);
	size_is(d, "ingest/cam1.V.raw", 0);
	/* ENG_IO_CREATE_KEEP (the ingest repair): the file that is there,
	 * as it is; none made where there is none, nor its folder */
	fd = io.create(io.ctx, "ingest/cam1.V.raw", ENG_IO_CREATE_KEEP, &inj);
	assert_true(fd >= 0);
	assert_int_equal(io.pwrite(io.ctx, fd, "abc", 3, 0, &inj), 3);
	io.close(io.ctx, fd);
	fd = io.create(io.ctx, "ingest/cam1.V.raw", ENG_IO_CREATE_KEEP, &inj);
	assert_true(fd >= 0);
	io.close(io.ctx, fd);
	size_is(d, "ingest/cam1.V.raw", 3);
	assert_int_equal(io.create(io.ctx, "ingest/none.V.raw",
				   ENG_IO_CREATE_KEEP, &inj), -ENOENT);
	assert_int_equal(fstatat(d->dfd, "ingest/none.V.raw", &st, 0), -1);
	assert_int_equal(io.create(io.ctx, "keep/x.raw", ENG_IO_CREATE_KEEP,
				   &inj), -ENOENT);
	assert_int_equal(fstatat(d->dfd, "keep", &st, 0), -1);
	/* remove: only while the name is the file the fd has open */
	fd = io.create(io.ctx, "ingest/rm.V.raw", 0, &inj);
	assert_true(fd >= 0);
	assert_int_equal(io.remove(io.ctx, "ingest/rm.V.raw", fd), 0);
	assert_int_equal(fstatat(d->dfd, "ingest/rm.V.raw", &st, 0), -1);
	assert_int_equal(io.remove(io.ctx, "ingest/rm.V.raw", fd), -ENOENT);
	io.close(io.ctx, fd);
	fd = io.create(io.ctx, "ingest/rm.V.raw", 0, &inj);
	assert_true(fd >= 0);
	assert_int_equal(renameat(d->dfd, "ingest/cam1.V.raw", d->dfd,
				  "ingest/rm.V.raw"), 0);
	assert_int_equal(io.remove(io.ctx, "ingest/rm.V.raw", fd), -ESTALE);
	size_is(d, "ingest/rm.V.raw", 3);
	assert_int_equal(renameat(d->dfd, "ingest/rm.V.raw", d->dfd,
				  "ingest/cam1.V.raw"), 0);
	io.close(io.ctx, fd);
	assert_int_equal(io.remove(io.ctx, "../x", fd), -EINVAL);
	/* a plain name goes to the folder itself */
	fd = io.create(io.ctx, "plain.raw", 0, NULL);
	assert_true(fd >= 0);
	io.close(io.ctx, fd);
	size_is(d, "plain.raw", 0);
	/* only the last folder is made */
	assert_int_equal(io.create(io.ctx, "no/such/x.raw", 0, &inj),
			 -ENOENT);
	assert_int_equal(fstatat(d->dfd, "no", &st, 0), -1);
	assert_int_equal(mkdirat(d->dfd, "no", 0755), 0);
	fd = io.create(io.ctx, "no/such/x.raw", 0, &inj);
	assert_true(fd >= 0);
	io.close(io.ctx, fd);
	/* a symlink as the file, either way, made nothing at its target */
	assert_int_equal(symlinkat("../top.raw", d->dfd, "ingest/l.V.raw"), 0);
	assert_int_equal(io.create(io.ctx, "ingest/l.V.raw", 0, &inj), -ELOOP);
	assert_int_equal(io.create(io.ctx, "ingest/l.V.raw", 1, &inj), -ELOOP);
	assert_int_equal(io.create(io.ctx, "ingest/l.V.raw", ENG_IO_CREATE_KEEP,
				   &inj), -ELOOP);
	assert_int_equal(symlinkat("gone.raw", d->dfd, "ingest/d.V.raw"), 0);
	assert_int_equal(io.create(io.ctx, "ingest/d.V.raw", 0, &inj), -ELOOP);
	assert_int_equal(io.create(io.ctx, "ingest/d.V.raw", 1, &inj), -ELOOP);
	assert_int_equal(fstatat(d->dfd, "ingest/gone.raw", &st, 0), -1);
	size_is(d, "top.raw", 3);
	/* a symlink as the folder (to one that exists or not): not followed,
	 * nor replaced by a made folder */
	assert_int_equal(symlinkat("seq", d->dfd, "ing2"), 0);
	assert_int_equal(io.create(io.ctx, "ing2/x.raw", 0, &inj), -ELOOP);
	assert_int_equal(fstatat(d->dfd, "seq/x.raw", &st, 0), -1);
	assert_int_equal(symlinkat("nowhere", d->dfd, "ing3"), 0);
	assert_int_equal(io.create(io.ctx, "ing3/x.raw", 0, &inj), -ELOOP);
	assert_int_equal(fstatat(d->dfd, "nowhere", &st, 0), -1);
	assert_int_equal(io.create(io.ctx, "lnk/a/x.raw", 0, &inj), -ELOOP);
	assert_int_equal(fstatat(d->dfd, "seq/a/x.raw", &st, 0), -1);
	/* not a regular file */
	assert_int_equal(mkfifoat(d->dfd, "ingest/f.V.raw", 0644), 0);
	assert_true(io.create(io.ctx, "ingest/f.V.raw", 1, &inj) < 0);
	assert_int_equal(io.create(io.ctx, "seq", 1, &inj), -EISDIR);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (io.create(io.ctx, bad[i], 1, &inj) != -EINVAL)
			fail_msg("'%s' created (walk %d)", bad[i], walk);
	umask(um);
}

static void test_create(void **state)
{
	creates(*state, 0);
}

static void test_create_walk(void **state)
{
	creates(*state, 1);
}

/* A file of two names (a clip hard-linked into ingest/) is not the
 * recorder's to replace nor the repair's to cut: -EMLINK, untouched.
 * lock(): an OFD lock, one holder a file, gone with its fd. */
static void test_link_and_lock(void **state)
{
	struct env *d = *state;
	struct eng_io io;
	struct eng_io_real real;
	int fd, fd2;

	eng_io_real_init(&io, &real, d->dfd);
	fd = io.create(io.ctx, "ingest/a.V.raw", 0, NULL);
	assert_true(fd >= 0);
	assert_int_equal(io.pwrite(io.ctx, fd, "clip", 4, 0, NULL), 4);
	io.close(io.ctx, fd);
	assert_int_equal(linkat(d->dfd, "ingest/a.V.raw", d->dfd, "clip.raw",
				0), 0);
	assert_int_equal(io.create(io.ctx, "ingest/a.V.raw", 1, NULL),
			 -EMLINK);
	assert_int_equal(io.create(io.ctx, "ingest/a.V.raw",
				   ENG_IO_CREATE_KEEP, NULL), -EMLINK);
	size_is(d, "clip.raw", 4);
	assert_int_equal(unlinkat(d->dfd, "clip.raw", 0), 0);
	/* the lock */
	assert_non_null(io.lock);
	fd = io.create(io.ctx, "ingest/a.V.raw", ENG_IO_CREATE_KEEP, NULL);
	fd2 = io.create(io.ctx, "ingest/a.V.raw", ENG_IO_CREATE_KEEP, NULL);
	assert_true(fd >= 0 && fd2 >= 0);
	assert_int_equal(io.lock(io.ctx, fd), 0);
	assert_int_equal(io.lock(io.ctx, fd2), -EAGAIN);
	io.close(io.ctx, fd);
	assert_int_equal(io.lock(io.ctx, fd2), 0);
	io.close(io.ctx, fd2);
	size_is(d, "ingest/a.V.raw", 4);
}

/* pwrite (all of it, at its offset), fsync, fallocate KEEP_SIZE (blocks
 * reserved, the size unchanged), ftruncate, and space as statvfs says. */
static void test_write_ops(void **state)
{
	static char big[1 << 20];
	struct env *d = *state;
	struct eng_io io;
	struct eng_io_real real;
	struct statvfs vfs;
	struct stat st;
	uint64_t space;
	unsigned inj = 99;
	char buf[8] = { 0 };
	blkcnt_t blocks;
	int fd;

	eng_io_real_init(&io, &real, d->dfd);
	fd = io.create(io.ctx, "ingest/w.A1.wav", 0, &inj);
	assert_true(fd >= 0);
	memset(big, 'x', sizeof(big));
	assert_int_equal(io.pwrite(io.ctx, fd, big, sizeof(big), 4096, &inj),
			 (ssize_t)sizeof(big));
	assert_int_equal(inj, 0);
	assert_int_equal(io.pwrite(io.ctx, fd, "RIFF", 4, 0, NULL), 4);
	size_is(d, "ingest/w.A1.wav", 4096 + (off_t)sizeof(big));
	assert_int_equal(pread(fd, buf, 4, 0), -1);	/* write-only */
	assert_int_equal(io.fsync(io.ctx, fd, &inj), 0);
	assert_int_equal(fstat(fd, &st), 0);
	blocks = st.st_blocks;
	assert_int_equal(io.fallocate(io.ctx, fd, (uint64_t)st.st_size,
				      8 << 20, &inj), 0);
	assert_int_equal(fstat(fd, &st), 0);
	assert_int_equal(st.st_size, 4096 + (off_t)sizeof(big));
	assert_true(st.st_blocks >= blocks + (8 << 20) / 512);
	assert_int_equal(io.ftruncate(io.ctx, fd, 4100), 0);
	assert_int_equal(fstat(fd, &st), 0);
	assert_int_equal(st.st_size, 4100);
	assert_true(st.st_blocks <= 16 * 8);	/* the fallocated ones gone */
	assert_int_equal(io.pwrite(io.ctx, -1, "x", 1, 0, &inj), -EBADF);
	assert_int_equal(io.fsync(io.ctx, -1, &inj), -EBADF);
	assert_int_equal(io.ftruncate(io.ctx, -1, 0), -EBADF);
	io.close(io.ctx, fd);
	fd = openat(d->dfd, "ingest/w.A1.wav", O_RDONLY);
	assert_int_equal(pread(fd, buf, 5, 0), 5);
	assert_memory_equal(buf, "RIFF\0", 5);
	close(fd);
	assert_int_equal(io.space(io.ctx, &space), 0);
	assert_int_equal(fstatvfs(d->dfd, &vfs), 0);
	/* the file system's other writers move it a little meanwhile */
	assert_true(space / vfs.f_frsize + 4096 >= vfs.f_bavail &&
		    space / vfs.f_frsize <= vfs.f_bavail + 4096);
	assert_true(space > 0);
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
		cmocka_unit_test_setup_teardown(test_create, setup,
						env_teardown),
		cmocka_unit_test_setup_teardown(test_create_walk, setup,
						env_teardown),
		cmocka_unit_test_setup_teardown(test_write_ops, setup,
						env_teardown),
		cmocka_unit_test_setup_teardown(test_link_and_lock, setup,
						env_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
