/* SPDX-License-Identifier: MIT */
/*
 * Helper of `make bench`: the no-FUSE baselines.  `preadloop IOLOG` replays
 * the reads of a fio v3 iolog with pread into one reused buffer, as fast as
 * it can; `recorder DB ROWS [STREAMS]` times the store's recorder alone;
 * `wakeup THREADS SECONDS` is the timer floor under the pacing error.
 */
#include <errno.h>
#include <pthread.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "store.h"

#define MAX_FILES 256

struct trace_file {
	char *name;
	int fd;
};

struct trace_io {
	int file;
	unsigned long long off, len;
};

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static double cpu_s(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
	       (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
}

static int file_index(struct trace_file *files, int *nfiles, const char *name)
{
	int i;

	for (i = 0; i < *nfiles; i++)
		if (strcmp(files[i].name, name) == 0)
			return i;
	if (*nfiles == MAX_FILES)
		return -ENOSPC;
	files[i].name = strdup(name);
	if (!files[i].name)
		return -ENOMEM;
	files[i].fd = open(name, O_RDONLY);
	if (files[i].fd < 0) {
		fprintf(stderr, "tlbench: %s: %s\n", name, strerror(errno));
		free(files[i].name);
		return -errno;
	}
	(*nfiles)++;
	return i;
}

/* The whole trace is parsed before the clock starts: only the preads are
 * timed, into one buffer as large as the largest read. */
static int preadloop(const char *path)
{
	struct trace_file files[MAX_FILES];
	struct trace_io *io = NULL;
	size_t nio = 0, cap = 0, i;
	unsigned long long maxlen = 0, bytes = 0;
	int nfiles = 0, rc = 1, k;
	char line[4096], name[4000], act[16];
	unsigned long long ts, off, len;
	double t0, c0, t, c;
	char *buf = NULL;
	FILE *f = fopen(path, "r");

	if (!f) {
		fprintf(stderr, "tlbench: %s: %s\n", path, strerror(errno));
		return 1;
	}
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%llu %3999s %15s %llu %llu", &ts, name, act,
			   &off, &len) != 5 || strcmp(act, "read") != 0)
			continue;
		k = file_index(files, &nfiles, name);
		if (k < 0)
			goto out;
		if (nio == cap) {
			struct trace_io *n;

			cap = cap ? 2 * cap : 4096;
			n = realloc(io, cap * sizeof(*io));
			if (!n)
				goto out;
			io = n;
		}
		io[nio].file = k;
		io[nio].off = off;
		io[nio].len = len;
		if (len > maxlen)
			maxlen = len;
		nio++;
	}
	buf = malloc(maxlen ? maxlen : 1);
	if (!buf)
		goto out;
	t0 = now_s();
	c0 = cpu_s();
	for (i = 0; i < nio; i++) {
		ssize_t r = pread(files[io[i].file].fd, buf, io[i].len,
				  (off_t)io[i].off);

		if (r < 0 || (unsigned long long)r != io[i].len) {
			fprintf(stderr, "tlbench: short read in %s\n",
				files[io[i].file].name);
			goto out;
		}
		bytes += (unsigned long long)r;
	}
	t = now_s() - t0;
	c = cpu_s() - c0;
	/* one line, key=value, for the bench script */
	printf("reads=%zu bytes=%llu seconds=%.6f cpu=%.6f\n", nio, bytes, t, c);
	rc = 0;
out:
	for (k = 0; k < nfiles; k++) {
		close(files[k].fd);
		free(files[k].name);
	}
	free(buf);
	free(io);
	fclose(f);
	return rc;
}

#define REC_MAX_STREAMS 256

/*
 * Rows shaped like a real run's: `streams` streams reading 3 tracks per
 * frame, their frames interleaved as the players' are (one frame of each
 * in turn), distinct times.  The interleaving matters: each stream's
 * index entries grow at their own place in access(stream_id), so a run of
 * 16 streams costs the recorder more per row than one stream does.
 */
static int recorder(const char *db, unsigned long long rows,
		    unsigned streams)
{
	static const char *const tracks[] = { "V", "A1", "A2" };
	struct store_run_info ri = { .label = "bench", .kernel = "-",
				     .config_hz = -1, .host = "-",
				     .options = "bench", .media_dir = "-" };
	struct store_timeline_info ti = { .name = "bench", .path = "-",
					  .fps_num = 30000, .fps_den = 1001,
					  .frames = 1, .bytes = 1 };
	struct store *st = NULL;
	struct store_stream *ss[REC_MAX_STREAMS];
	struct store_stats stats;
	char *err = NULL;
	int64_t tid;
	unsigned long long i, per = rows / streams;
	unsigned k;
	double t0, c0, t, c;
	int rc;

	rc = store_open(db, 0, &st, &err);
	if (rc < 0) {
		fprintf(stderr, "tlbench: %s\n", err ? err : "store_open");
		free(err);
		return 1;
	}
	rc = store_run_begin(st, &ri, 0) < 0 ||
	     store_timeline_add(st, &ti, &tid) < 0 || store_start(st) < 0;
	for (k = 0; k < streams && !rc; k++)
		rc = store_stream_open(st, tid,
				       &(struct store_reader){
					       .pid = getpid(),
					       .tid = getpid(),
					       .comm = "tlbench" },
				       0, &ss[k]) < 0;
	if (rc) {
		fprintf(stderr, "tlbench: %s\n", store_errmsg(st));
		store_close(st);
		return 1;
	}
	t0 = now_s();
	c0 = cpu_s();
	for (i = 0; i < rows; i++) {
		/* row i: frame f of stream k, track i % 3 */
		unsigned long long f = i / 3 / streams;
		struct store_access a = {
			.frame = (int64_t)f,
			.track = tracks[i % 3],
			.clip = "clip0001",
			.file_offset = f * 600600,
			.length = i % 3 ? 4800 : 600600,
			.sched_ns = i * 11122,
			.due_ns = i * 11122 + 266933600,
			.issued_ns = i * 11122 + 1000,
			.done_ns = i * 11122 + 60000,
		};

		k = (unsigned)(i / 3 % streams);
		store_access_add(ss[k], &a);
	}
	for (k = 0; k < streams; k++) {
		struct store_stream_totals tot = {
			.closed_ns = rows * 11122, .bytes = per * 600600,
			.frames = (int64_t)(per / 3),
			.requests = (int64_t)(per / 3),
		};

		store_stream_close(ss[k], &tot);
	}
	rc = store_run_end(st, rows * 11122 + 1);
	t = now_s() - t0;	/* includes draining the queue to disk */
	c = cpu_s() - c0;	/* both threads: steadier than t on a busy host */
	store_get_stats(st, &stats);
	printf("rows=%llu streams=%u written=%llu seconds=%.6f "
	       "rows_per_s=%.0f cpu=%.6f queue_full_waits=%llu\n", rows,
	       streams, (unsigned long long)stats.rows_written, t,
	       (double)rows / t, c,
	       (unsigned long long)stats.queue_full_waits);
	store_close(st);
	return rc < 0 || stats.rows_written != rows;
}

/*
 * The floor of the pacing error: THREADS threads wake at 30000/1001 fps
 * the way a paced stream's filler does (engine/play/player_fill.c
 * filler_main: a CLOCK_MONOTONIC condition variable, 1 ns of timer slack,
 * phases spread over a frame), and do nothing else.  How late they wake is what the
 * kernel and the machine give any timer at that moment: a paced stream's
 * pacing error cannot be lower.  Prints the lateness percentiles in us.
 */
#define WAKE_MAX_THREADS 256
#define WAKE_PERIOD_NS 33366667ULL	/* 1001/30000 s */

struct waker {
	pthread_t thread;
	pthread_mutex_t lock;	/* one per thread, as one per player */
	pthread_cond_t cv;
	uint64_t first_ns;
	size_t n;
	int64_t *late_ns;	/* [n] */
};

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static void *waker_main(void *arg)
{
	struct waker *w = arg;
	struct timespec ts;
	uint64_t due;
	size_t i;

	prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
	pthread_mutex_lock(&w->lock);
	for (i = 0; i < w->n; i++) {
		due = w->first_ns + i * WAKE_PERIOD_NS;
		ts.tv_sec = (time_t)(due / 1000000000ULL);
		ts.tv_nsec = (long)(due % 1000000000ULL);
		/* nobody signals cv: only the timeout ends a wait */
		while (mono_ns() < due &&
		       pthread_cond_timedwait(&w->cv, &w->lock, &ts) == 0)
			;
		w->late_ns[i] = (int64_t)(mono_ns() - due);
	}
	pthread_mutex_unlock(&w->lock);
	return NULL;
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return x < y ? -1 : x > y;
}

static int wakeup(unsigned threads, double seconds)
{
	struct waker w[WAKE_MAX_THREADS];
	pthread_condattr_t ca;
	size_t n = (size_t)(seconds * 1e9 / (double)WAKE_PERIOD_NS), all = 0;
	int64_t *late;
	uint64_t start;
	unsigned k;
	int rc = 1;

	if (n < 1)
		n = 1;
	late = calloc(n * threads, sizeof(*late));
	if (!late)
		return 1;
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	start = mono_ns() + 10000000ULL;
	for (k = 0; k < threads; k++) {
		pthread_mutex_init(&w[k].lock, NULL);
		pthread_cond_init(&w[k].cv, &ca);
		w[k].first_ns = start + WAKE_PERIOD_NS * k / threads;
		w[k].n = n;
		w[k].late_ns = late + (size_t)k * n;
		if (pthread_create(&w[k].thread, NULL, waker_main, &w[k])) {
			pthread_cond_destroy(&w[k].cv);
			pthread_mutex_destroy(&w[k].lock);
			break;
		}
	}
	pthread_condattr_destroy(&ca);
	threads = k;
	for (k = 0; k < threads; k++) {
		pthread_join(w[k].thread, NULL);
		pthread_cond_destroy(&w[k].cv);
		pthread_mutex_destroy(&w[k].lock);
	}
	all = (size_t)threads * n;
	if (all) {
		qsort(late, all, sizeof(*late), cmp_i64);
		printf("wakeups=%zu p50_us=%.1f p90_us=%.1f p99_us=%.1f "
		       "max_us=%.1f\n", all, (double)late[all / 2] / 1e3,
		       (double)late[all * 9 / 10] / 1e3,
		       (double)late[all * 99 / 100] / 1e3,
		       (double)late[all - 1] / 1e3);
		rc = 0;
	}
	free(late);
	return rc;
}

int main(int argc, char **argv)
{
	if (argc == 3 && strcmp(argv[1], "preadloop") == 0)
		return preadloop(argv[2]);
	if ((argc == 4 || argc == 5) && strcmp(argv[1], "recorder") == 0) {
		unsigned long n = argc == 5 ? strtoul(argv[4], NULL, 10) : 1;

		if (n >= 1 && n <= REC_MAX_STREAMS)
			return recorder(argv[2], strtoull(argv[3], NULL, 10),
					(unsigned)n);
	}
	if (argc == 4 && strcmp(argv[1], "wakeup") == 0) {
		unsigned long n = strtoul(argv[2], NULL, 10);
		double s = strtod(argv[3], NULL);

		if (n >= 1 && n <= WAKE_MAX_THREADS && s > 0 && s < 3600)
			return wakeup((unsigned)n, s);
	}
	fprintf(stderr, "usage: tlbench preadloop IOLOG | "
		"tlbench recorder DB ROWS [STREAMS (1-%d)] | "
		"tlbench wakeup THREADS (1-%d) SECONDS\n",
		REC_MAX_STREAMS, WAKE_MAX_THREADS);
	return 2;
}
