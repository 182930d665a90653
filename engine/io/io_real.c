/* SPDX-License-Identifier: MIT */
/*
 * The real clock and backing I/O behind struct eng_io: CLOCK_MONOTONIC,
 * absolute sleeps, reads of the media folder's files and ingest's writes
 * of new ones, opened so that a name can never leave the folder or follow
 * a symlink.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>
#ifdef SYS_openat2
#include <linux/openat2.h>
#endif

#include "io/io.h"
#include "util/values.h"

static uint64_t real_now(void *ctx)
{
	struct timespec ts;

	(void)ctx;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * ENG_NS_PER_SEC + (uint64_t)ts.tv_nsec;
}

static void real_sleep_until(void *ctx, uint64_t ns)
{
	struct timespec ts = {
		.tv_sec = (time_t)(ns / ENG_NS_PER_SEC),
		.tv_nsec = (long)(ns % ENG_NS_PER_SEC),
	};

	(void)ctx;
	/* absolute: a signal does not stretch the wait */
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) ==
	       EINTR)
		;
}

/* A name inside the media folder: plain names joined by '/', none empty,
 * "." or ".." (no leading '/', none doubled or trailing). */
static int beneath_name(const char *file)
{
	const char *p = file, *e;

	if (!file || !file[0])
		return 0;
	for (;;) {
		e = strchr(p, '/');
		if (!e)
			e = p + strlen(p);
		if (e == p || (e - p == 1 && p[0] == '.') ||
		    (e - p == 2 && p[0] == '.' && p[1] == '.'))
			return 0;
		if (!*e)
			return 1;
		p = e + 1;
	}
}

/* Without openat2: each folder of the path opened O_NOFOLLOW (a symlink
 * is -ELOOP, as RESOLVE_NO_SYMLINKS makes it) and O_DIRECTORY, the one
 * before closed once the next is open; the last component with flags.
 * No "..", so nothing leaves dirfd. */
static int open_walk(int dirfd, const char *file, int flags)
{
	char comp[NAME_MAX + 1];
	const char *p = file, *e;
	struct stat st;
	int dfd = dirfd, fd;

	while ((e = strchr(p, '/'))) {
		if ((size_t)(e - p) > NAME_MAX) {
			fd = -ENAMETOOLONG;
			goto out;
		}
		memcpy(comp, p, (size_t)(e - p));
		comp[e - p] = '\0';
		/* O_PATH | O_NOFOLLOW opens a symlink itself: told apart
		 * from a folder by its mode (O_DIRECTORY would say ENOTDIR) */
		fd = openat(dfd, comp, O_PATH | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0) {
			fd = -errno;
			goto out;
		}
		if (fstat(fd, &st) < 0 || !S_ISDIR(st.st_mode)) {
			int rc = S_ISLNK(st.st_mode) ? -ELOOP : -ENOTDIR;

			close(fd);
			fd = rc;
			goto out;
		}
		if (dfd != dirfd)
			close(dfd);
		dfd = fd;
		p = e + 1;
	}
	fd = openat(dfd, p, flags | O_NOFOLLOW);
	if (fd < 0) {
		fd = -errno;
		/* O_DIRECTORY on a symlink says ENOTDIR; openat2 ELOOP */
		if (fd == -ENOTDIR && fstatat(dfd, p, &st,
					      AT_SYMLINK_NOFOLLOW) == 0 &&
		    S_ISLNK(st.st_mode))
			fd = -ELOOP;
	}
out:
	if (dfd != dirfd)
		close(dfd);
	return fd;
}

int eng_open_beneath(int dirfd, const char *file, int flags,
		     atomic_int *no_openat2)
{
	int fd;

	if (!beneath_name(file))
		return -EINVAL;
#ifdef SYS_openat2
	/* openat2 confines the lookup in the kernel (no symlink anywhere,
	 * nothing outside dirfd); kernels before 5.6 walk the path */
	if (!no_openat2 ||
	    !atomic_load_explicit(no_openat2, memory_order_relaxed)) {
		struct open_how how;

		memset(&how, 0, sizeof(how));
		how.flags = (uint64_t)flags;
		how.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS |
			      RESOLVE_NO_MAGICLINKS;
		fd = (int)syscall(SYS_openat2, dirfd, file, &how, sizeof(how));
		if (fd >= 0 || errno != ENOSYS)
			return fd < 0 ? -errno : fd;
		if (no_openat2)
			atomic_store_explicit(no_openat2, 1,
					      memory_order_relaxed);
	}
#endif
	return open_walk(dirfd, file, flags);
}

static int open_beneath(struct eng_io_real *real, const char *file, int flags)
{
	return eng_open_beneath(real->dirfd, file, flags, &real->no_openat2);
}

static int real_open(void *ctx, const char *file, int direct, int *is_direct)
{
	struct eng_io_real *real = ctx;
	/* O_NONBLOCK: a FIFO swapped in must not hang the open */
	int flags = O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK;
	struct stat st;
	int fd = -EINVAL;

	if (is_direct)
		*is_direct = 0;
	if (!beneath_name(file))
		return -EINVAL;
	if (direct) {
		fd = open_beneath(real, file, flags | O_DIRECT);
		if (fd >= 0) {
			if (is_direct)
				*is_direct = 1;
		} else if (fd == -EINVAL) {
			/* ramfs, tmpfs before Linux 6.6 and some FUSE file
			 * systems refuse O_DIRECT */
			atomic_store_explicit(&real->warned_direct, 1,
					      memory_order_relaxed);
		} else {
			return fd;
		}
	}
	if (fd < 0)
		fd = open_beneath(real, file, flags);
	if (fd < 0)
		return fd;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		if (is_direct)
			*is_direct = 0;
		return -EINVAL;
	}
	return fd;
}

/* file's folder (into dir) and last component: 1, 0 for a plain name (no
 * folder), -ENAMETOOLONG. */
static int split_path(const char *file, char dir[PATH_MAX], const char **base)
{
	const char *slash = strrchr(file, '/');

	*base = slash ? slash + 1 : file;
	if (!slash)
		return 0;
	if ((size_t)(slash - file) >= PATH_MAX)
		return -ENAMETOOLONG;
	memcpy(dir, file, (size_t)(slash - file));
	dir[slash - file] = '\0';
	return 1;
}

/* lstat of a name inside the folder: a path's folders found as open
 * finds them (beneath, no symlink), its last component not followed. */
static int stat_beneath(struct eng_io_real *real, const char *file,
			struct stat *st)
{
	char dir[PATH_MAX];
	const char *base;
	int dfd = real->dirfd, rc;

	rc = split_path(file, dir, &base);
	if (rc < 0)
		return rc;
	if (rc) {
		dfd = open_beneath(real, dir, O_PATH | O_DIRECTORY |
				   O_CLOEXEC);
		if (dfd < 0)
			return dfd;
	}
	rc = 0;
	if (fstatat(dfd, base, st, AT_SYMLINK_NOFOLLOW) < 0)
		rc = -errno;
	if (dfd != real->dirfd)
		close(dfd);
	return rc;
}

static int real_check(void *ctx, int fd, const char *file)
{
	struct eng_io_real *real = ctx;
	struct stat a, b;
	int rc;

	if (fstat(fd, &a) < 0)
		return -errno;
	if (a.st_nlink == 0)
		return -ENOENT;
	if ((rc = stat_beneath(real, file, &b)) < 0)
		return rc;
	if (S_ISLNK(b.st_mode))
		return -ELOOP;
	if (a.st_ino != b.st_ino || a.st_dev != b.st_dev)
		return -ESTALE;
	/* root reads a mode 000 file anyway; an NLE user would not */
	if (!(b.st_mode & 0444))
		return -EACCES;
	return 0;
}

static ssize_t real_pread(void *ctx, int fd, void *buf, size_t len,
			  uint64_t off)
{
	size_t done = 0;
	ssize_t r;

	(void)ctx;
	while (done < len) {
		r = pread(fd, (char *)buf + done, len - done,
			  (off_t)(off + done));
		if (r < 0) {
			if (errno == EINTR)
				continue;
			/* O_DIRECT reads whole blocks: a read that ended
			 * inside one, at the end of the file, goes on at an
			 * offset it refuses (EINVAL) once the file has grown
			 * past it meanwhile (a recording played as it is
			 * written): short, as the file was */
			if (errno == EINVAL && done)
				break;
			return -errno;
		}
		if (r == 0)
			break;
		done += (size_t)r;
	}
	return (ssize_t)done;
}

static void real_dontneed(void *ctx, int fd, uint64_t off, uint64_t len)
{
	uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE), end;

	(void)ctx;
	/* The kernel keeps the partial pages at either end of the range: a
	 * 4800-byte audio slice would never lose a page.  Widen it to whole
	 * pages; the next slice reads its first page from the storage. */
	if (len) {
		end = (off + len + page - 1) & ~(page - 1);
		off &= ~(page - 1);
		len = end - off;
	}
	posix_fadvise(fd, (off_t)off, (off_t)len, POSIX_FADV_DONTNEED);
}

static void real_close(void *ctx, int fd)
{
	(void)ctx;
	close(fd);
}

/* Zero copy.  Pipes are non-blocking: a full or empty pipe is a short
 * count, never a hung request. */
static int real_pipe_new(void *ctx, size_t bytes, int fds[2])
{
	int rc;

	(void)ctx;
	if (bytes > INT_MAX)
		return -EINVAL;
	if (pipe2(fds, O_NONBLOCK | O_CLOEXEC) < 0)
		return -errno;
	/* the kernel rounds up to a power of two pages; above
	 * /proc/sys/fs/pipe-max-size (or a user's pipe-user-pages) it
	 * refuses, and the player uses its ring */
	rc = fcntl(fds[1], F_SETPIPE_SZ, (int)bytes);
	if (rc < 0 || (size_t)rc < bytes) {
		rc = rc < 0 ? -errno : -ENOSPC;
		close(fds[0]);
		close(fds[1]);
		return rc;
	}
	return 0;
}

static void real_pipe_free(void *ctx, const int fds[2])
{
	(void)ctx;
	close(fds[0]);
	close(fds[1]);
}

static ssize_t real_splice_in(void *ctx, int fd, uint64_t off, size_t len,
			      int wr)
{
	loff_t o = (loff_t)off;
	size_t got = 0;
	ssize_t n;

	(void)ctx;
	while (got < len) {
		n = splice(fd, &o, wr, NULL, len - got, SPLICE_F_NONBLOCK);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return got ? (ssize_t)got : -errno;
		if (n == 0)
			break;		/* end of file: a short clip */
		got += (size_t)n;
	}
	return (ssize_t)got;
}

/* Zero pages to give a pipe references to; never written. */
static unsigned char zero_pages[64 * 1024] __attribute__((aligned(4096)));

static ssize_t real_pipe_zero(void *ctx, int wr, size_t len)
{
	size_t got = 0;
	ssize_t n;

	(void)ctx;
	while (got < len) {
		struct iovec v = {
			.iov_base = zero_pages,
			.iov_len = len - got < sizeof(zero_pages) ?
					   len - got : sizeof(zero_pages),
		};

		n = vmsplice(wr, &v, 1, SPLICE_F_NONBLOCK);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return got ? (ssize_t)got : n < 0 ? -errno : -EIO;
		got += (size_t)n;
	}
	return (ssize_t)got;
}

/* /dev/null, opened once: what a pipe skips is spliced there, its pages
 * let go uncopied (a slot's pipe is emptied at each load of the slot, a
 * reply's prefix skipped at each request: a read() of them cost 6 % of
 * the daemon's CPU in cached mode). */
static int null_fd(void)
{
	static int fd = -1;
	int f = __atomic_load_n(&fd, __ATOMIC_ACQUIRE), expect = -1;

	if (f >= 0)
		return f;
	f = open("/dev/null", O_WRONLY | O_CLOEXEC);
	if (f < 0)
		return -errno;
	if (!__atomic_compare_exchange_n(&fd, &expect, f, 0, __ATOMIC_ACQ_REL,
					 __ATOMIC_ACQUIRE)) {
		close(f);
		f = expect;
	}
	return f;
}

static int real_pipe_skip(void *ctx, int rd, size_t len)
{
	int all = len == SIZE_MAX, nul = null_fd();
	ssize_t n;

	(void)ctx;
	if (nul < 0)
		return nul;
	while (len) {
		n = splice(rd, NULL, nul, NULL, len < INT_MAX ? len : INT_MAX,
			   SPLICE_F_NONBLOCK);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno != EAGAIN)
			return -errno;
		if (n <= 0)	/* empty: fine for "all", short otherwise */
			return all ? 0 : -EIO;
		len -= (size_t)n;
	}
	return 0;
}

/* One call: tee(2) starts at rd's head each time, so a second call would
 * give the same bytes again, not the rest. */
static ssize_t real_pipe_tee(void *ctx, int rd, int wr, size_t len)
{
	ssize_t n;

	(void)ctx;
	do
		n = tee(rd, wr, len, SPLICE_F_NONBLOCK);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return errno == EAGAIN ? 0 : -errno;
	return n;
}

static ssize_t real_pipe_move(void *ctx, int rd, int wr, size_t len)
{
	size_t got = 0;
	ssize_t n;

	(void)ctx;
	while (got < len) {
		n = splice(rd, NULL, wr, NULL, len - got, SPLICE_F_NONBLOCK);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno != EAGAIN)
			return got ? (ssize_t)got : -errno;
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	return (ssize_t)got;
}

static ssize_t real_pipe_avail(void *ctx, int rd)
{
	int n;

	(void)ctx;
	if (ioctl(rd, FIONREAD, &n) < 0)
		return -errno;
	return n;
}

static int real_size(void *ctx, int fd, uint64_t *bytes)
{
	struct stat st;

	(void)ctx;
	if (fstat(fd, &st) < 0)
		return -errno;
	*bytes = (uint64_t)st.st_size;
	return 0;
}

/* Ingest's writes.  The folder of `file` is found as open finds a path
 * (beneath, no symlink); its last component alone is then opened with
 * O_NOFOLLOW, so nothing a writer names can reach outside the folder.
 * The folder is made when it is missing, but not its parents: a mount
 * makes MEDIA_DIR/ingest, not a tree a typo asked for. */
static int create_dir(struct eng_io_real *real, const char *dir)
{
	char parent[PATH_MAX];
	const char *base;
	int pfd = real->dirfd, fd, rc;

	fd = open_beneath(real, dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fd != -ENOENT)
		return fd;
	rc = split_path(dir, parent, &base);
	if (rc < 0)
		return rc;
	if (rc) {
		pfd = open_beneath(real, parent, O_PATH | O_DIRECTORY |
				   O_CLOEXEC);
		if (pfd < 0)
			return pfd;
	}
	rc = 0;
	/* EEXIST: another recorder made it first */
	if (mkdirat(pfd, base, 0755) < 0 && errno != EEXIST)
		rc = -errno;
	if (pfd != real->dirfd)
		close(pfd);
	if (rc < 0)
		return rc;
	return open_beneath(real, dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
}

/* A file opened to be replaced or cut in place: one with another name
 * (a hard link) is not ours to change; else replace empties it. */
static int shared_or_trunc(int fd, const struct stat *st, int keep)
{
	if (st->st_nlink > 1)
		return -EMLINK;
	if (!keep && ftruncate(fd, 0) < 0)
		return -errno;
	return 0;
}

static int real_lock(void *ctx, int fd)
{
	struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET };

	(void)ctx;
	if (fcntl(fd, F_OFD_SETLK, &fl) == 0)
		return 0;
	return errno == EACCES ? -EAGAIN : -errno;
}

/* The folder of `file`, found as open finds a path, made first when
 * `make` (create_dir): real->dirfd or an fd to close, or -errno; *base
 * the last component, in dir[PATH_MAX] or file. */
static int file_folder(struct eng_io_real *real, const char *file,
		       char *dir, const char **base, int make)
{
	int rc;

	if (!beneath_name(file))
		return -EINVAL;
	rc = split_path(file, dir, base);
	if (rc <= 0)
		return rc < 0 ? rc : real->dirfd;
	return make ? create_dir(real, dir)
		    : open_beneath(real, dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
}

static int real_create(void *ctx, const char *file, int replace,
		       unsigned *injected)
{
	struct eng_io_real *real = ctx;
	char dir[PATH_MAX];
	const char *base;
	/* O_NONBLOCK: a FIFO put under the name is ENXIO, not a hang.
	 * ENG_IO_CREATE_KEEP (the repair) opens what is there, unchanged:
	 * O_TRUNC would empty the recording it keeps. */
	int keep = replace == ENG_IO_CREATE_KEEP;
	/* replace truncates after the checks below: not through a link */
	int flags = O_WRONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK |
		    (keep ? 0 : O_CREAT | (replace ? 0 : O_EXCL));
	int dfd, fd, rc;
	struct stat st;

	if (injected)
		*injected = 0;
	dfd = file_folder(real, file, dir, &base, !keep);
	if (dfd < 0)
		return dfd;
	fd = openat(dfd, base, flags, 0644);
	rc = fd < 0 ? -errno : 0;
	/* O_EXCL says EEXIST for a symlink too: say what is there */
	if (rc == -EEXIST && fstatat(dfd, base, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
	    S_ISLNK(st.st_mode))
		rc = -ELOOP;
	if (fd >= 0 && (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode))) {
		close(fd);
		fd = -1;
		rc = -EINVAL;
	}
	if (fd >= 0 && replace)
		rc = shared_or_trunc(fd, &st, keep);
	if (fd >= 0 && rc < 0)
		close(fd);
	if (dfd != real->dirfd)
		close(dfd);
	return rc < 0 ? rc : fd;
}

static ssize_t real_pwrite(void *ctx, int fd, const void *buf, size_t len,
			   uint64_t off, unsigned *injected)
{
	size_t done = 0;
	ssize_t r;

	(void)ctx;
	if (injected)
		*injected = 0;
	while (done < len) {
		r = pwrite(fd, (const char *)buf + done, len - done,
			   (off_t)(off + done));
		if (r < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (r == 0)	/* never for a regular file; not a loop */
			return -EIO;
		done += (size_t)r;
	}
	return (ssize_t)done;
}

static int real_fsync(void *ctx, int fd, unsigned *injected)
{
	(void)ctx;
	if (injected)
		*injected = 0;
	return fsync(fd) < 0 ? -errno : 0;
}

static int real_fallocate(void *ctx, int fd, uint64_t off, uint64_t len,
			  unsigned *injected)
{
	(void)ctx;
	if (injected)
		*injected = 0;
	if (off > INT64_MAX || len > INT64_MAX - off)
		return -EFBIG;
	return fallocate(fd, FALLOC_FL_KEEP_SIZE, (off_t)off, (off_t)len) < 0 ?
		       -errno : 0;
}

static int real_ftruncate(void *ctx, int fd, uint64_t len)
{
	(void)ctx;
	if (len > INT64_MAX)
		return -EFBIG;
	return ftruncate(fd, (off_t)len) < 0 ? -errno : 0;
}

static int real_remove(void *ctx, const char *file, int fd)
{
	struct eng_io_real *real = ctx;
	char dir[PATH_MAX];
	const char *base;
	struct stat a, b;
	int dfd = file_folder(real, file, dir, &base, 0), rc = 0;

	if (dfd < 0)
		return dfd;
	if (fstat(fd, &a) < 0 || fstatat(dfd, base, &b, AT_SYMLINK_NOFOLLOW) < 0)
		rc = -errno;
	else if (a.st_dev != b.st_dev || a.st_ino != b.st_ino)
		rc = -ESTALE;
	else if (unlinkat(dfd, base, 0) < 0)
		rc = -errno;
	if (dfd != real->dirfd)
		close(dfd);
	return rc;
}

static int real_space(void *ctx, uint64_t *bytes)
{
	struct eng_io_real *real = ctx;
	struct statvfs vfs;

	if (fstatvfs(real->dirfd, &vfs) < 0)
		return -errno;
	*bytes = (uint64_t)vfs.f_bavail * (uint64_t)vfs.f_frsize;
	return 0;
}

void eng_io_real_init(struct eng_io *io, struct eng_io_real *real, int dirfd)
{
	real->dirfd = dirfd;
	atomic_init(&real->warned_direct, 0);
	atomic_init(&real->no_openat2, 0);
	io->now = real_now;
	io->sleep_until = real_sleep_until;
	io->open = real_open;
	io->pread = real_pread;
	io->dontneed = real_dontneed;
	io->close = real_close;
	io->check = real_check;
	io->pread_ex = NULL;
	io->open_ex = NULL;
	io->close_ex = NULL;
	io->size = real_size;
	io->create = real_create;
	io->pwrite = real_pwrite;
	io->fsync = real_fsync;
	io->fallocate = real_fallocate;
	io->ftruncate = real_ftruncate;
	io->space = real_space;
	io->remove = real_remove;
	io->pipe_new = real_pipe_new;
	io->pipe_free = real_pipe_free;
	io->splice_in = real_splice_in;
	io->pipe_zero = real_pipe_zero;
	io->pipe_skip = real_pipe_skip;
	io->pipe_avail = real_pipe_avail;
	io->pipe_tee = real_pipe_tee;
	io->pipe_move = real_pipe_move;
	io->lock = real_lock;
	io->ctx = real;
}
