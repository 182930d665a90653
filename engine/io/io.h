/* SPDX-License-Identifier: MIT */
/*
 * The injected clock and backing I/O (struct eng_io) and its real
 * implementation (io_real.c).  Owns the rule that keeps the engine testable:
 * every sleep, clock read and media read of the player goes through an
 * eng_io, which tests replace with a fake clock and fake files.
 */
#ifndef ENG_IO_H
#define ENG_IO_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct eng_io {
	/* CLOCK_MONOTONIC in ns */
	uint64_t (*now)(void *ctx);
	/* Sleep until now() >= ns (absolute). */
	void (*sleep_until)(void *ctx, uint64_t ns);
	/* Open a media file by name inside the media folder, read-only:
	 * a plain name, or a relative path of plain names (an image
	 * sequence's BASE/NAME, which must not leave the folder).
	 * With direct set, try O_DIRECT; *is_direct tells what was got.
	 * Returns an fd or -errno. */
	int (*open)(void *ctx, const char *file, int direct, int *is_direct);
	/* pread; returns bytes read or -errno. */
	ssize_t (*pread)(void *ctx, int fd, void *buf, size_t len,
			 uint64_t off);
	/* Drop [off, off+len) of fd from the page cache, whole pages
	 * included: the pages it starts and ends in too (len 0: to the end
	 * of the file). */
	void (*dontneed)(void *ctx, int fd, uint64_t off, uint64_t len);
	void (*close)(void *ctx, int fd);
	void *ctx;
	/* Optional (NULL: never checked).  Is fd, got from open(file), still
	 * the readable regular file that `file` names?  The player calls it
	 * right after each open and then at most every ENG_MEDIA_CHECK_NS per
	 * open fd, so that a clip deleted, replaced (a symlink swapped in) or
	 * made unreadable while it is played fails its reads instead of
	 * serving the old inode.  0, or -ENOENT (deleted or renamed away),
	 * -ESTALE (the name now holds another file), -ELOOP (now a symlink),
	 * -EACCES (no read permission bit left), other -errno. */
	int (*check)(void *ctx, int fd, const char *file);
	/* Optional: pread that also says which faults were injected into it
	 * (ENG_INJECT_* bits, 0 for none); the player prefers it to pread. */
	ssize_t (*pread_ex)(void *ctx, int fd, void *buf, size_t len,
			    uint64_t off, unsigned *injected);
	/* Optional, both or neither: open and close that also say which
	 * faults were injected into them (inject's op=open, op=close), for
	 * an image sequence's open and close rows; the player prefers them
	 * to open and close. */
	int (*open_ex)(void *ctx, const char *file, int direct,
		       int *is_direct, unsigned *injected);
	void (*close_ex)(void *ctx, int fd, unsigned *injected);
	/* Optional (NULL: the player takes the size the mount resolved):
	 * the bytes of the open file fd (fstat), 0 or -errno.  An image of
	 * a sequence is sized once open, as an application's reader does,
	 * to find its pixel data's end (a DPX's run to the end of the
	 * file); not an access row: an open file's attributes come with
	 * the open. */
	int (*size)(void *ctx, int fd, uint64_t *bytes);
	/* Optional, all or none: ingest's writes (engine/ingest/ingest.h),
	 * on files beneath the media folder.  injected (may be NULL) gets
	 * the ENG_INJECT_* bits of the faults -o inject put into the call.
	 * create: open `file`, a relative path as open() takes
	 * ("ingest/NAME.V.raw"), write-only, O_CREAT|O_NOFOLLOW, mode 0644;
	 * O_EXCL unless replace (then emptied once open, after the link
	 * check below: not O_TRUNC, which would empty a hard-linked clip
	 * before it could be refused); the last folder of the
	 * path is made (0755) when it is missing, no other.  An fd or
	 * -errno (-EEXIST: there is one and replace is 0; -ELOOP: a
	 * symlink on the way).  replace ENG_IO_CREATE_KEEP (2, added for
	 * the repair, engine/ingest/repair.c): open the file that is there
	 * for writing as it is, no O_CREAT, no O_EXCL, no O_TRUNC (-ENOENT
	 * when there is none).
	 * pwrite: all of len at off (short writes continued), len or
	 * -errno.  fsync, fallocate (FALLOC_FL_KEEP_SIZE: blocks reserved,
	 * the size unchanged) and ftruncate: 0 or -errno.  The fd is
	 * closed with close()/close_ex().
	 * space: the bytes an unprivileged writer may still write on the
	 * media folder's file system (statvfs: f_bavail * f_frsize), 0 or
	 * -errno. */
	int (*create)(void *ctx, const char *file, int replace,
		      unsigned *injected);
	ssize_t (*pwrite)(void *ctx, int fd, const void *buf, size_t len,
			  uint64_t off, unsigned *injected);
	int (*fsync)(void *ctx, int fd, unsigned *injected);
	int (*fallocate)(void *ctx, int fd, uint64_t off, uint64_t len,
			 unsigned *injected);
	int (*ftruncate)(void *ctx, int fd, uint64_t len);
	int (*space)(void *ctx, uint64_t *bytes);
	/* Optional (NULL: what a failed ingest create made stays): unlink
	 * `file` (a path as create takes) if it is still the file open as
	 * fd, so that a create that fails takes back only what it made, never
	 * a file put under the name meanwhile.  0 or -errno (-ESTALE: the
	 * name is another file now). */
	int (*remove)(void *ctx, const char *file, int fd);
	/* Optional, all or none: zero copy (cfg.zero_copy).  A pipe is two
	 * ints the player keeps per ring slot and hands back; a backing read
	 * moves the file's pages into it instead of copying them into the
	 * ring, and the caller replies from it (see eng_player_serve).
	 * pipe_new: a pipe that holds `bytes` of data in page-sized pieces,
	 * fds[0] read end, fds[1] write end; -errno if it cannot be had.
	 * splice_in: pread of fd into write end wr; bytes moved or -errno.
	 * pipe_zero: len zero bytes into wr; len or -errno.
	 * pipe_skip: discard len bytes at the read end rd (SIZE_MAX: all it
	 * holds); 0, or -errno (-EIO: it held fewer than len).
	 * pipe_avail: the bytes the read end rd holds, or -errno.
	 * pipe_tee: the first len bytes rd holds, into wr as well, rd left
	 * as it was (tee(2)); len, fewer (wr full), or -errno.
	 * pipe_move: the first len bytes rd holds, moved into wr (splice(2)
	 * between pipes); len, fewer, or -errno.
	 * Nothing of these blocks. */
	int (*pipe_new)(void *ctx, size_t bytes, int fds[2]);
	void (*pipe_free)(void *ctx, const int fds[2]);
	ssize_t (*splice_in)(void *ctx, int fd, uint64_t off, size_t len,
			     int wr);
	ssize_t (*pipe_zero)(void *ctx, int wr, size_t len);
	int (*pipe_skip)(void *ctx, int rd, size_t len);
	ssize_t (*pipe_avail)(void *ctx, int rd);
	ssize_t (*pipe_tee)(void *ctx, int rd, int wr, size_t len);
	ssize_t (*pipe_move)(void *ctx, int rd, int wr, size_t len);
	/* Optional (NULL: a lock cannot be had): an open-file-description
	 * write lock (F_OFD_SETLK) on the whole of fd, a file got from
	 * create(), without waiting; held until that fd is closed.  A
	 * recorder holds one on its note while it records, so that every
	 * mount of the folder sees it live (engine/ingest/ingest.h).  0;
	 * -EAGAIN: another open file holds one (on this host, or on another
	 * where the file system passes locks); other -errno: the file
	 * system cannot lock (-ENOLCK, -EOPNOTSUPP, -EINVAL). */
	int (*lock)(void *ctx, int fd);
};

/* eng_io.create's replace: open an existing file for writing, unchanged
 * (the ingest repair cuts and patches a recording in place).  With it, and
 * with replace 1, a file with more than one link is -EMLINK: cutting it
 * would cut the other name's file too (a clip hard-linked into ingest/). */
#define ENG_IO_CREATE_KEEP 2

/* How often the player re-checks an open media fd (struct eng_io.check). */
#define ENG_MEDIA_CHECK_NS (100 * 1000 * 1000ULL)

/* The real clock and I/O on the media folder open as dirfd (io_real.c).
 * open() takes a plain file name or a relative path of them ('/'
 * between components; an empty, "." or ".." component, or a leading '/',
 * is -EINVAL) and resolves it with openat2(RESOLVE_BENEATH |
 * RESOLVE_NO_SYMLINKS) where the kernel has it, else component by
 * component with openat(O_NOFOLLOW) (folders O_DIRECTORY, each closed
 * after the next is open); a symlink anywhere is -ELOOP, anything but
 * a regular file -EINVAL.  check() compares the fd with what the name holds
 * now (fstat vs fstatat) and treats a mode without any read bit as -EACCES
 * even for root.  create() finds the file's folder as open() does (making
 * it, not its parents, when missing) and creates the last component in it
 * with O_NOFOLLOW: a symlink as the file is -ELOOP whether or not replace
 * is set, anything but a regular file -EINVAL (a FIFO -ENXIO, a folder
 * -EISDIR), one of more than one link (replace or KEEP) -EMLINK, found
 * before replace truncates it.  lock() is fcntl(F_OFD_SETLK), EACCES
 * said as -EAGAIN.  One serves every player's filler at once: it holds no state
 * but the dirfd and two flags that any thread may set, atomic (no lock:
 * each says only itself, and a thread that misses a set one just finds it
 * again).  `warned_direct` is set when an O_DIRECT open was refused and a
 * buffered fd was returned. */
struct eng_io_real {
	int dirfd;		/* set by eng_io_real_init, read-only after */
	atomic_int warned_direct;
	atomic_int no_openat2;	/* the kernel has no openat2: O_NOFOLLOW */
};
void eng_io_real_init(struct eng_io *io, struct eng_io_real *real, int dirfd);

/* open() of io_real for any caller with a dirfd (the mount's resolution of
 * an image sequence): file, a name or relative path as above, opened with
 * flags beneath dirfd, no symlink followed.  no_openat2 (may be NULL)
 * remembers a kernel without openat2.  An fd, or -errno (-EINVAL for a
 * name that is not beneath, -ELOOP for a symlink on the way). */
int eng_open_beneath(int dirfd, const char *file, int flags,
		     atomic_int *no_openat2);

#endif /* ENG_IO_H */
