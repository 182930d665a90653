/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of the player over the real I/O (engine/io/io_real.c): files
 * in a temporary folder, the player's timelines and checks of
 * player_fake.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>

#include <cmocka.h>

#include "io/io.h"
#include "media/mfile.h"
#include "media/genplan.h"
#include "media/media.h"
#include "media/mov.h"
#include "play/movie.h"
#include "play/player.h"
#include "timeline/layout.h"
#include "timeline/model.h"
#include "util/diag.h"
#include "util/values.h"

#include "player_fake.h"

static void write_file(int dirfd, const char *name, uint64_t size)
{
	unsigned char *buf = malloc(size);
	uint64_t i;
	int fd;

	assert_non_null(buf);
	for (i = 0; i < size; i++)
		buf[i] = byte_at(name, i);
	fd = openat(dirfd, name, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, buf, size), (ssize_t)size);
	close(fd);
	free(buf);
}

/* Is page `page` of fd in the page cache?  (mincore of a private
 * mapping, which reads nothing) */
static int resident_page(int fd, size_t page)
{
	size_t ps = (size_t)sysconf(_SC_PAGESIZE);
	unsigned char vec = 0;
	void *m = mmap(NULL, ps, PROT_READ, MAP_PRIVATE, fd,
		       (off_t)(page * ps));

	assert_true(m != MAP_FAILED);
	assert_int_equal(mincore(m, ps, &vec), 0);
	munmap(m, ps);
	return vec & 1;
}

static void test_io_real(void **state)
{
	char dir[] = "/tmp/test_player.XXXXXX";
	struct tl_spec sp = {
		25, 1, { { "V", 250000, 1, 0 }, { "A1", 144000, 3, 44 } },
		{ { "V", "c0", 7, 0, 30 }, { "A1", "c0", 7, 0, 30 } },
	};
	struct eng_timeline *tl = make_tl(&sp);
	unsigned char *want = expected_file(tl, NULL);
	unsigned char *got = malloc(tl->bytes);
	struct eng_io io;
	struct eng_io_real real;
	struct eng_player_config cfg;
	struct eng_player *p;
	struct acc_log log = { calloc(MAX_LOG, sizeof(struct eng_access)),
			       0, 0 };
	unsigned char buf[64];
	uint64_t t, off;
	int dirfd, fd, is_direct = -1;
	ssize_t r;
	size_t i;

	(void)state;
	assert_non_null(got);
	assert_non_null(log.a);
	assert_non_null(mkdtemp(dir));
	dirfd = open(dir, O_RDONLY | O_DIRECTORY);
	assert_true(dirfd >= 0);
	write_file(dirfd, "c0.V", 10000 * 40);
	write_file(dirfd, "c0.A1", 44 + 5760 * 40);
	assert_int_equal(symlinkat("c0.V", dirfd, "link.V"), 0);
	eng_io_real_init(&io, &real, dirfd);
	assert_ptr_equal(io.ctx, &real);

	t = io.now(io.ctx);
	io.sleep_until(io.ctx, t + 2 * MS);
	assert_true(io.now(io.ctx) >= t + 2 * MS);

	assert_int_equal(io.open(io.ctx, "missing", 0, &is_direct), -ENOENT);
	assert_int_equal(io.open(io.ctx, "link.V", 0, &is_direct), -ELOOP);
	fd = io.open(io.ctx, "c0.V", 0, &is_direct);
	assert_true(fd >= 0);
	assert_int_equal(is_direct, 0);
	assert_int_equal(io.pread(io.ctx, fd, buf, 64, 1000), 64);
	for (i = 0; i < 64; i++)
		assert_int_equal(buf[i], byte_at("c0.V", 1000 + i));
	/* short at EOF, 0 past it */
	assert_int_equal(io.pread(io.ctx, fd, buf, 64, 10000 * 40 - 10), 10);
	assert_int_equal(io.pread(io.ctx, fd, buf, 64, 10000 * 40), 0);
	/* dontneed drops the pages a range touches, even a range within
	 * one page, which posix_fadvise alone keeps (a 4800-byte audio
	 * slice would never leave the page cache).  A file of one page: a
	 * larger one may be cached in large folios, which the kernel drops
	 * only whole. */
	io.close(io.ctx, fd);
	write_file(dirfd, "one.V", (uint64_t)sysconf(_SC_PAGESIZE));
	fd = io.open(io.ctx, "one.V", 0, &is_direct);
	assert_true(fd >= 0);
	assert_int_equal(fsync(fd), 0);
	assert_int_equal(posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED), 0);
	if (resident_page(fd, 0)) {
		/* tmpfs: the page cache is the file, nothing is dropped */
		print_message("page cache not droppable here, not checked\n");
	} else {
		assert_int_equal(io.pread(io.ctx, fd, buf, 64, 100), 64);
		assert_true(resident_page(fd, 0));
		io.dontneed(io.ctx, fd, 100, 200);
		assert_false(resident_page(fd, 0));
	}
	io.close(io.ctx, fd);
	assert_int_equal(io.pread(io.ctx, -1, buf, 64, 0), -EBADF);

	/* a whole play with backing=direct, whether or not the file
	 * system takes O_DIRECT (tmpfs may not: then warned_direct) */
	fd = io.open(io.ctx, "c0.A1", 1, &is_direct);
	assert_true(fd >= 0);
	assert_true(is_direct == 1 || real.warned_direct == 1);
	io.close(io.ctx, fd);
	cfg = (struct eng_player_config){
		.buffer = 8, .pace = { ENG_PACE_OFF, 1 },
		.backing = ENG_BACKING_DIRECT, .max_request = 65536,
		.io = &io, .record = log_record, .record_ctx = &log,
	};
	p = new_player(tl, &cfg);
	for (off = 0; (r = eng_player_copy(p, got + off, 65536, off)) > 0;)
		off += (uint64_t)r;
	assert_int_equal(r, 0);
	assert_memory_equal(got, want, tl->bytes);
	assert_int_equal(log.n, 60);
	for (i = 0; i < log.n; i++) {
		assert_int_equal(log.a[i].err, 0);
		assert_true(log.a[i].done_ns >= log.a[i].issued_ns);
	}
	eng_player_free(p);

	unlinkat(dirfd, "link.V", 0);
	unlinkat(dirfd, "one.V", 0);
	unlinkat(dirfd, "c0.V", 0);
	unlinkat(dirfd, "c0.A1", 0);
	close(dirfd);
	rmdir(dir);
	free(log.a);
	free(got);
	free(want);
	eng_tl_free(tl);
}

/* The architecture the seccomp filter below checks a syscall against. */
#if defined(__x86_64__)
#define TEST_AUDIT_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define TEST_AUDIT_ARCH AUDIT_ARCH_AARCH64
#endif
/* The low 32 bits of a syscall argument in struct seccomp_data. */
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define TEST_ARG_LO(n) offsetof(struct seccomp_data, args[n])
#else
#define TEST_ARG_LO(n) (offsetof(struct seccomp_data, args[n]) + 4)
#endif

#define SHARED_THREADS 4
#define SHARED_OPENS 20

/* One filler thread of test_io_real_shared. */
struct shared_filler {
	const struct eng_io *io;	/* shared by all */
	const char *bad;		/* NULL, or what went wrong first */
};

/* One filler's opens through the shared struct eng_io_real. */
static void *shared_opens(void *arg)
{
	struct shared_filler *sf = arg;
	const struct eng_io *io = sf->io;
	int i, fd, is_direct;

	for (i = 0; i < SHARED_OPENS; i++) {
		is_direct = -1;
		fd = io->open(io->ctx, "c0.V", 1, &is_direct);
		if (fd < 0 || is_direct != 0) {
			sf->bad = "a direct open did not fall back to buffered";
			break;
		}
		io->close(io->ctx, fd);
		/* the openat fallback refuses a symlink as openat2 did */
		if (io->open(io->ctx, "link.V", 1, &is_direct) != -ELOOP) {
			sf->bad = "a symlink was not -ELOOP";
			break;
		}
	}
	return NULL;
}

/* The child of test_io_real_shared: an old kernel (openat2 is ENOSYS)
 * and a media file system that refuses O_DIRECT (EINVAL), by a seccomp
 * filter; SHARED_THREADS threads open at once.  NULL, or what failed. */
static const char *io_real_shared_child(const struct eng_io *io,
				const struct eng_io_real *real)
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, TEST_AUDIT_ARCH, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_openat2, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ENOSYS),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_openat, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, TEST_ARG_LO(2)),
		BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, O_DIRECT, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EINVAL),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { sizeof(f) / sizeof(f[0]), f };
	pthread_t th[SHARED_THREADS];
	struct shared_filler sf[SHARED_THREADS];
	const char *bad = NULL;
	int i, n;

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 ||
	    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) < 0)
		return "cannot install the seccomp filter";
	for (n = 0; n < SHARED_THREADS; n++) {
		sf[n] = (struct shared_filler){ io, NULL };
		if (pthread_create(&th[n], NULL, shared_opens, &sf[n]))
			break;
	}
	for (i = 0; i < n; i++) {
		pthread_join(th[i], NULL);
		if (sf[i].bad && !bad)
			bad = sf[i].bad;
	}
	if (bad)
		return bad;
	if (n < SHARED_THREADS)
		return "cannot start the threads";
	if (!real->no_openat2 || !real->warned_direct)
		return "no_openat2 or warned_direct not set";
	return NULL;
}

/* Regression (issue 17): one struct eng_io_real serves every player's
 * filler thread, and open() set warned_direct and no_openat2 as plain
 * ints: a data race, reported by ThreadSanitizer (make unit
 * SANITIZE=thread: the child exits 66) as soon as two opens fell back
 * at once.  In every build: with openat2 missing and O_DIRECT refused,
 * each open still succeeds buffered, a symlink is still -ELOOP, and both
 * flags are set.  In a child process: the seccomp filter stays there. */
static void test_io_real_shared(void **state)
{
	char dir[] = "/tmp/test_player.XXXXXX";
	struct eng_io io;
	struct eng_io_real real;
	int dirfd, status;
	pid_t pid;

	(void)state;
#if !defined(TEST_AUDIT_ARCH) || !defined(SYS_openat2)
	skip();
#endif
	assert_non_null(mkdtemp(dir));
	dirfd = open(dir, O_RDONLY | O_DIRECTORY);
	assert_true(dirfd >= 0);
	write_file(dirfd, "c0.V", 10000);
	assert_int_equal(symlinkat("c0.V", dirfd, "link.V"), 0);
	eng_io_real_init(&io, &real, dirfd);
	fflush(NULL);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		const char *bad = io_real_shared_child(&io, &real);

		if (bad)
			fprintf(stderr, "test_io_real_shared: %s\n", bad);
		_exit(bad ? 1 : 0);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	unlinkat(dirfd, "link.V", 0);
	unlinkat(dirfd, "c0.V", 0);
	close(dirfd);
	rmdir(dir);
	if (!WIFEXITED(status))
		fail_msg("the child died of signal %d", WTERMSIG(status));
	/* 66: ThreadSanitizer's exit status after a report */
	if (WEXITSTATUS(status) == 66)
		fail_msg("the child's opens raced (see ThreadSanitizer's "
			 "report: on stderr, or in its log_path)");
	if (WEXITSTATUS(status))
		fail_msg("the child failed (the reason is above)");
}

/* The child of test_io_real_grown: pread64 at offset 1000 fails with
 * EINVAL, as O_DIRECT's does at that unaligned offset once the file has
 * grown past it (a seccomp filter: the kernel's race made certain).  0,
 * or 1 with what failed said. */
static int io_real_grown_child(const struct eng_io *io, int fd)
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, TEST_AUDIT_ARCH, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_pread64, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, TEST_ARG_LO(3)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 1000, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EINVAL),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { sizeof(f) / sizeof(f[0]), f };
	unsigned char buf[4096];
	ssize_t r;
	size_t i;

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 ||
	    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) < 0) {
		fprintf(stderr, "test_io_real_grown: no seccomp filter\n");
		return 1;
	}
	r = io->pread(io->ctx, fd, buf, sizeof(buf), 0);
	if (r != 1000) {
		fprintf(stderr, "test_io_real_grown: pread %zd, want 1000\n",
			r);
		return 1;
	}
	for (i = 0; i < 1000; i++)
		if (buf[i] != byte_at("c0.V", i))
			return 1;
	/* an EINVAL before any byte is the read's own */
	r = io->pread(io->ctx, fd, buf, sizeof(buf), 1000);
	if (r != -EINVAL) {
		fprintf(stderr, "test_io_real_grown: pread at 1000 %zd\n", r);
		return 1;
	}
	return 0;
}

/* Regression (issue 23, edit while ingest): io_real's pread goes on after
 * a short read, and under O_DIRECT a read of a recording that ended
 * inside a block went on at an unaligned offset, which the kernel refuses
 * with EINVAL once the file has grown meanwhile: the frame failed
 * (EINVAL) instead of coming short and waiting for the recording
 * (test_edit_ingest.sh under ASan, 1 run in 3).  A short read is what it
 * was: 1000 bytes.  Before: -EINVAL. */
static void test_io_real_grown(void **state)
{
	char dir[] = "/tmp/test_player.XXXXXX";
	struct eng_io io;
	struct eng_io_real real;
	int dirfd, fd, is_direct, status;
	pid_t pid;

	(void)state;
#if !defined(TEST_AUDIT_ARCH)
	skip();
#endif
	assert_non_null(mkdtemp(dir));
	dirfd = open(dir, O_RDONLY | O_DIRECTORY);
	assert_true(dirfd >= 0);
	write_file(dirfd, "c0.V", 1000);
	eng_io_real_init(&io, &real, dirfd);
	fd = io.open(io.ctx, "c0.V", 0, &is_direct);
	assert_true(fd >= 0);
	fflush(NULL);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0)
		_exit(io_real_grown_child(&io, fd));
	assert_int_equal(waitpid(pid, &status, 0), pid);
	io.close(io.ctx, fd);
	unlinkat(dirfd, "c0.V", 0);
	close(dirfd);
	rmdir(dir);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
}

/* Zero copy through real pipes: splice from the file, vmsplice of zeros
 * for the gap, skips by read(); the bytes come out of the read ends. */
static void test_io_real_zc(void **state)
{
	char dir[] = "/tmp/test_player.XXXXXX";
	struct eng_timeline *tl = zc_tl();
	unsigned char *want = expected_file(tl, NULL);
	unsigned char *got = malloc(tl->bytes);
	struct eng_io io;
	struct eng_io_real real;
	struct eng_player_config cfg;
	struct eng_player *p;
	struct iovec iov[ENG_ZC_MAX_SLOTS];
	struct eng_answer ans = { .iov = iov, .iovmax = ENG_ZC_MAX_SLOTS,
				  .pipes = 1 };
	struct acc_log log = { calloc(MAX_LOG, sizeof(struct eng_access)),
			       0, 0 };
	uint64_t off = 0;
	ssize_t n;
	int dirfd, i, fds[2];

	(void)state;
	assert_non_null(got);
	assert_non_null(log.a);
	assert_non_null(mkdtemp(dir));
	dirfd = open(dir, O_RDONLY | O_DIRECTORY);
	assert_true(dirfd >= 0);
	write_file(dirfd, "c0.V", 200000 * 27);
	write_file(dirfd, "c1.V", 200000 * 17);
	write_file(dirfd, "c0.A1", 44 + 5760 * 47);
	eng_io_real_init(&io, &real, dirfd);
	/* a pipe bigger than the system allows is refused, not shrunk */
	assert_true(io.pipe_new(io.ctx, (size_t)1 << 30, fds) < 0);
	cfg = (struct eng_player_config){
		.buffer = 8, .pace = { ENG_PACE_OFF, 1 },
		/* requests of 512 KiB, as a mount at the stock
		 * pipe-max-size asks for: the reply pipe fits 1 MiB */
		.backing = ENG_BACKING_BUFFERED, .max_request = 512 * 1024,
		.io = &io, .record = log_record, .record_ctx = &log,
		.zero_copy = 1,
	};
	p = new_player(tl, &cfg);
	for (;;) {
		size_t got_n = 0;

		/* odd sizes, and a skip into the middle of a frame */
		n = eng_player_serve(p, off, off ? 300001 : 131072, &ans);
		if (n > 0 && ans.pipe < 0) {
			/* only where the host allows less than Debian's
			 * stock 1 MiB (a slot's pipe and the reply pipe
			 * fit that) */
			FILE *pm = fopen("/proc/sys/fs/pipe-max-size", "r");
			unsigned long max = 0;

			if (pm && fscanf(pm, "%lu", &max) != 1)
				max = 0;
			if (pm)
				fclose(pm);
			print_message("zero copy refused, pipe-max-size %lu\n",
				      max);
			assert_true(max < 1024 * 1024);
			eng_player_answered(p, &ans, 1);
			n = -EXDEV;
			break;
		}
		assert_true(n >= 0);
		while (got_n < ans.pipe_len) {
			ssize_t r = read(ans.pipe, got + off + got_n,
					 ans.pipe_len - got_n);

			assert_true(r > 0);
			got_n += (size_t)r;
		}
		assert_int_equal(got_n, (size_t)n);
		eng_player_answered(p, &ans, 1);
		if (n == 0)
			break;
		off += (uint64_t)n;
	}
	if (n == 0) {
		assert_int_equal(off, tl->bytes);
		assert_memory_equal(got, want, tl->bytes);
		for (i = 0; i < (int)log.n; i++)
			assert_int_equal(log.a[i].err, 0);
	}
	eng_player_free(p);
	unlinkat(dirfd, "c0.V", 0);
	unlinkat(dirfd, "c1.V", 0);
	unlinkat(dirfd, "c0.A1", 0);
	close(dirfd);
	rmdir(dir);
	free(log.a);
	free(got);
	free(want);
	eng_tl_free(tl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_io_real),
		cmocka_unit_test(test_io_real_shared),
		cmocka_unit_test(test_io_real_grown),
		cmocka_unit_test(test_io_real_zc),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
