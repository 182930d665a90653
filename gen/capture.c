/* SPDX-License-Identifier: MIT */
/*
 * timelinefs-gen --ingest: a capture tool's writer for a mount's ingest
 * folder (timelinefs-bench --ingest runs one per record stream).  Its
 * bytes are seeded and incompressible, so no storage can shrink them, and
 * generated as they are written, so a writer costs no memory beyond a
 * frame; it must be faster than the stream (the daemon's clock drops a
 * late writer's frames with cause "writer"), hence the rate it reports.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "gen.h"
#include "ingest/ingest.h"

/* One track's byte stream: eng_rng_fill's words, the bytes of a word cut
 * by a frame's end kept for the next frame, so that the stream goes on
 * as if filled at once. */
struct track_stream {
	struct eng_rng rng;
	unsigned char carry[8];
	unsigned ncarry; /* carry's last ncarry bytes are next */
};

static void track_fill(struct track_stream *s, unsigned char *out, size_t n)
{
	size_t k = n < s->ncarry ? n : s->ncarry;
	size_t whole;

	memcpy(out, s->carry + 8 - s->ncarry, k);
	s->ncarry -= (unsigned)k;
	out += k;
	n -= k;
	whole = n & ~(size_t)7;
	eng_rng_fill(&s->rng, out, whole);
	n -= whole;
	if (n) {
		eng_rng_fill(&s->rng, s->carry, 8);
		memcpy(out + whole, s->carry, n);
		s->ncarry = (unsigned)(8 - n);
	}
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int gen_run_ingest(const char *path, const struct gen_ingest *in)
{
	struct track_stream ts[ENG_INGEST_TRACKS_MAX];
	struct eng_ingest_format f;
	struct eng_diag diag = {0};
	unsigned char *frame = NULL, *wbuf = NULL;
	uint64_t fmax, total, off = 0, wfill = 0, writes = 0;
	int64_t frames, k;
	char dur[32], sz[32], ws[32];
	double t0, secs, play;
	uint32_t t;
	int fd = -1, rc;

	rc = eng_ingest_format_of(in->preset ? in->preset : "", &f, &diag);
	if (rc < 0) {
		gen_print_diag(&diag);
		eng_diag_free(&diag);
		return rc;
	}
	eng_diag_free(&diag);
	frames = eng_gen_frames(in->us, f.fps);
	total = eng_ingest_frame_offset(&f, frames);
	fmax = eng_ingest_frame_max(&f);
	frame = malloc(fmax);
	if (in->write_size)
		wbuf = malloc(in->write_size);
	if (!frame || (in->write_size && !wbuf)) {
		fprintf(stderr, PROG ": out of memory\n");
		rc = -ENOMEM;
		goto out;
	}
	for (t = 0; t < f.ntracks; t++) {
		eng_rng_seed(&ts[t].rng,
			     eng_rng_derive(in->seed, GEN_INGEST_DOMAIN, t));
		ts[t].ncarry = 0;
	}
	if (strcmp(path, "-") == 0)
		fd = STDOUT_FILENO;
	else
		fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0) {
		rc = -errno;
		fprintf(stderr, PROG ": cannot create %s: %s\n", path,
			strerror(errno));
		goto out;
	}
	t0 = now_s();
	for (k = 0; k < frames; k++) {
		uint64_t n = 0, len;

		for (t = 0; t < f.ntracks; t++) {
			len = eng_ingest_upto(&f, t, k + 1) -
			      eng_ingest_upto(&f, t, k);
			track_fill(&ts[t], frame + n, (size_t)len);
			n += len;
		}
		if (!in->write_size) {
			/* a card hands over whole frames: one write each */
			rc = gen_write_all(fd, frame, (size_t)n);
			writes++;
			if (rc < 0)
				goto fail;
			off += n;
			continue;
		}
		for (len = 0; len < n;) {
			uint64_t c = in->write_size - wfill;

			if (c > n - len)
				c = n - len;
			memcpy(wbuf + wfill, frame + len, (size_t)c);
			wfill += c;
			len += c;
			if (wfill == in->write_size || off + wfill == total) {
				rc = gen_write_all(fd, wbuf, (size_t)wfill);
				writes++;
				if (rc < 0)
					goto fail;
				off += wfill;
				wfill = 0;
			}
		}
	}
	/* a FUSE file's close is its flush: the last bytes are taken */
	if (fd != STDOUT_FILENO) {
		rc = close(fd) < 0 ? -errno : 0;
		fd = -1;
		if (rc < 0)
			goto fail;
	}
	secs = now_s() - t0;
	play = (double)frames * f.fps.den / f.fps.num;
	gen_fmt_bytes(total, sz, sizeof(sz));
	gen_fmt_duration(frames, f.fps, dur, sizeof(dur));
	if (in->write_size)
		snprintf(ws, sizeof(ws), "%" PRIu64 " bytes", in->write_size);
	else
		snprintf(ws, sizeof(ws), "a frame");
	fprintf(stderr,
		PROG ": ingest: %" PRId64 " frames of %s (%s, %s) to %s in "
		     "%" PRIu64 " writes of %s: %.3f s, %.1f MB/s, %.1f x the "
		     "stream's %.2f MB/s\n",
		frames, f.preset, dur, sz, path, writes, ws, secs,
		secs > 0 ? (double)total / secs / 1e6 : 0.0,
		secs > 0 ? play / secs : 0.0,
		play > 0 ? (double)total / play / 1e6 : 0.0);
	goto out;
fail:
	fprintf(stderr,
		PROG ": cannot write %s at byte %" PRIu64 " (frame %" PRId64
		     "): %s\n",
		path, off, eng_ingest_frame_at(&f, off), strerror(-rc));
out:
	if (fd >= 0 && fd != STDOUT_FILENO)
		close(fd);
	free(wbuf);
	free(frame);
	return rc;
}
