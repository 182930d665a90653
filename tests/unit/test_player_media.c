/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of the player (fake clock, fake backing I/O: player_fake.h):
 * real media's frames: their reads, decoding dependencies and decode order
 * (engine/play/player_load.c).
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

/* Video of 24 frames of sizes 1000 + 37 i at 9000 + 5000 i, key frames
 * every `gop` (0: intra-only). */
static struct eng_essence *rm_video(int64_t gop)
{
	struct eng_essence *e = calloc(1, sizeof(*e));
	int64_t i, n = 24;

	assert_non_null(e);
	e->kind = ENG_ESS_VIDEO;
	strcpy(e->codec, "h264");
	e->nframes = n;
	e->off = calloc((size_t)n, sizeof(*e->off));
	e->len = calloc((size_t)n, sizeof(*e->len));
	assert_true(e->off && e->len);
	if (gop)
		e->dep = calloc((size_t)n, sizeof(*e->dep));
	for (i = 0; i < n; i++) {
		e->off[i] = 9000 + 5000 * (uint64_t)i;
		e->len[i] = 1000 + 37 * (uint32_t)i;
		if (gop)
			e->dep[i] = i / gop * gop;
	}
	e->len_min = 1000;
	e->len_max = 1000 + 37 * 23;
	return e;
}

/* 48 kHz stereo 16-bit audio in chunks of 1500 samples, 50 bytes apart:
 * a frame of it at 24 fps (2000 samples) crosses 2 or 3 chunks. */
static struct eng_essence *rm_audio(void)
{
	struct eng_essence *e = calloc(1, sizeof(*e));
	size_t c;

	assert_non_null(e);
	e->kind = ENG_ESS_AUDIO;
	e->sample_rate = 48000;
	e->block = 4;
	e->channels = 2;
	e->bits = 16;
	e->nsamples = 48000 * 2;
	e->nchunks = 64;
	e->chunks = calloc(e->nchunks, sizeof(*e->chunks));
	assert_non_null(e->chunks);
	for (c = 0; c < e->nchunks; c++) {
		e->chunks[c].off = 700 + c * (1500 * 4 + 50);
		e->chunks[c].first = (int64_t)c * 1500;
		e->chunks[c].count = 1500;
	}
	return e;
}

static void rm_free(struct eng_essence *e)
{
	free(e->off);
	free(e->len);
	free(e->dep);
	free(e->chunks);
	free(e);
}

/* V: clip a's media frames 2..9, then b's 7..10 (a cut into a GOP on
 * both sides); A1: a's audio under all 12 frames.  Each clip its own
 * file of the same index (its bytes differ by name). */
static const struct tl_spec rm_spec = {
	24, 1,
	{ { "V", 24000, 1, 0 }, { "A1", 144000, 3, 0 } },
	{
		{ "V", "a", 2, 0, 8 },
		{ "V", "b", 7, 8, 4 },
		{ "A1", "a", 0, 0, 12 },
	},
};

static struct eng_timeline *rm_tl(struct eng_essence *v,
				  struct eng_essence *a)
{
	struct eng_timeline *tl = make_tl(&rm_spec);
	struct eng_diag d = { 0 };
	size_t c;

	for (c = 0; c < tl->nclips; c++) {
		tl->clips[c].media[0].ess = v;
		tl->clips[c].media[1].ess = a;
		/* the audio's first sample is 700 into its media */
		tl->clips[c].media[1].origin = 700;
	}
	assert_int_equal(eng_tl_layout_media(tl, &d), 0);
	eng_diag_free(&d);
	return tl;
}

/* The rows of frame k as the player must make them: where frame k's V
 * starts a run of its media (first), its decoding dependencies, each
 * flagged, then every extent of every slice in order. */
static size_t rm_expect(const struct eng_timeline *tl, int64_t k, int first,
			struct eng_access *out)
{
	struct eng_slice_ext deps[32];
	size_t t, n = 0;
	int i, nd = 0;

	for (t = 0; t < tl->ntracks; t++) {
		struct eng_slice s;

		eng_slice_get(tl, k, t, &s);
		if (!s.seg || !s.len)
			continue;
		if (t == 0 && first)
			nd = eng_slice_deps(tl, s.seg->clip, 0,
					    eng_slice_src(tl, 0, s.seg, k),
					    deps, 32);
		for (i = 0; t == 0 && i < nd; i++)
			out[n++] = (struct eng_access){
				.frame = k, .track = 0, .clip = s.seg->clip,
				.file_offset = deps[i].off,
				.length = deps[i].len, .dep = 1 };
		for (i = 0; i < s.next; i++)
			out[n++] = (struct eng_access){
				.frame = k, .track = (uint32_t)t,
				.clip = s.seg->clip,
				.file_offset = s.ext[i].off,
				.length = s.ext[i].len };
	}
	return n;
}

static void rm_check_row(const struct eng_access *got,
			 const struct eng_access *want)
{
	if (got->frame != want->frame || got->track != want->track ||
	    got->clip != want->clip || got->file_offset != want->file_offset ||
	    got->length != want->length || got->dep != want->dep ||
	    got->err)
		fail_msg("row of frame %lld track %u: (%llu, %llu, dep %d), "
			 "want frame %lld track %u (%llu, %llu, dep %d)",
			 (long long)got->frame, got->track,
			 (unsigned long long)got->file_offset,
			 (unsigned long long)got->length, got->dep,
			 (long long)want->frame, want->track,
			 (unsigned long long)want->file_offset,
			 (unsigned long long)want->length, want->dep);
}

/* Reads where the frames really are: a full read of an edit of long-GOP
 * video and chunked audio makes exactly one access row per extent (audio
 * crossing chunks: 2 or 3 a frame), and, where a clip starts inside a GOP
 * (a cut, the first read), first the frames its decoder needs, flagged
 * dep, in no byte of the file but in the frame's time; played on, no
 * more.  Buffered and O_DIRECT alike.  Before issue 21 each slice was
 * one read at k * rate / fps of the file. */
static void test_real_media_reads(void **state)
{
	static const enum eng_backing backings[] = { ENG_BACKING_BUFFERED,
						     ENG_BACKING_DIRECT };
	struct eng_essence *v = rm_video(6), *a = rm_audio();
	struct eng_timeline *tl = rm_tl(v, a);
	struct eng_access *want = calloc(4096, sizeof(*want));
	size_t nslices, b, n, i;
	unsigned char *exp = expected_file(tl, &nslices);
	unsigned char *got = malloc(tl->bytes);
	int64_t k;

	(void)state;
	assert_true(want && got);
	assert_non_null(tl->tracks[0].upto);
	assert_int_equal(tl->slice_extents_max, 3);
	for (b = 0; b < sizeof(backings) / sizeof(backings[0]); b++) {
		struct fake *f = fake_new();
		struct eng_player_config cfg = make_cfg(f, 4, ENG_PACE_OFF, 1,
							backings[b], 65536);
		struct eng_player *p;
		struct eng_player_stats st;
		uint64_t off = 0;
		ssize_t r;

		f->can_direct = 1;
		p = new_player(tl, &cfg);
		while ((r = eng_player_copy(p, got + off, 65536, off)) > 0)
			off += (uint64_t)r;
		assert_int_equal(off, tl->bytes);
		assert_memory_equal(got, exp, tl->bytes);
		for (k = 0, n = 0; k < tl->frames; k++)
			n += rm_expect(tl, k, k == 0 || k == 8, want + n);
		/* a's frame 2 needs 0, 1; b's frame 7 needs 6 */
		assert_int_equal(n, nslices + 3);
		assert_int_equal(f->log.n, n);
		for (i = 0; i < n; i++)
			rm_check_row(&f->log.a[i], &want[i]);
		assert_int_equal(f->log.a[0].length, 1000);
		assert_int_equal(f->log.a[1].file_offset, 14000);
		assert_int_equal(f->unaligned_direct, 0);
		eng_player_stats(p, &st);
		assert_int_equal(st.accesses, n);
		assert_int_equal(st.bytes, tl->bytes);
		assert_int_equal(st.frames, tl->frames);
		check_played(f, p);
		eng_player_free(p);

		/* a first read into b's GOP (frame 10: media 9) reads 6, 7,
		 * 8 first; frame 11 after it none */
		f->log.n = 0;
		p = new_player(tl, &cfg);
		read_frame(p, tl, exp, 10);
		read_frame(p, tl, exp, 11);
		n = rm_expect(tl, 10, 1, want);
		n += rm_expect(tl, 11, 0, want + n);
		assert_int_equal(f->log.n, n);
		for (i = 0; i < n; i++)
			rm_check_row(&f->log.a[i], &want[i]);
		assert_int_equal(f->log.a[0].file_offset, 39000);
		assert_int_equal(f->log.a[2].file_offset, 49000);
		assert_int_equal(f->log.a[3].dep, 0);
		eng_player_free(p);
		fake_free(f);
	}
	free(want);
	free(got);
	free(exp);
	eng_tl_free(tl);
	rm_free(v);
	rm_free(a);
}

/* One long GOP of 13 frames with B frames: shown I0 B1 B2 P3 B4 B5 P6
 * B7 B8 P9 B10 B11 P12, decoded I0 P3 B1 B2 P6 B4 B5 P9 B7 B8 P12 B10
 * B11 (decode[] by presentation index), every frame needing I0. */
static const int64_t bgop_decode[13] = {0, 2, 3, 1, 5, 6, 4, 8, 9, 7,
					11, 12, 10};
/* Its frames 4..12 read whole: (timeline frame, media frame, dep) of
 * each row, in order */
static const int64_t bgop_rows[][3] = {
	{0, 0, 1}, {0, 3, 1}, {0, 1, 1}, {0, 2, 1}, {0, 6, 1},
	{0, 4, 0}, {1, 5, 0}, {3, 9, 1}, {3, 7, 0}, {4, 8, 0},
	{6, 12, 1}, {6, 10, 0}, {7, 11, 0},
};

/* spec's timeline (NULL: clip c0 on V at its frames 4..12) over that
 * GOP (v->decode set). */
static struct eng_timeline *bgop_tl(struct eng_essence *v,
				    const struct tl_spec *spec)
{
	static const struct tl_spec one = {
		24, 1, { { "V", 24000, 1, 0 } }, { { "V", "c0", 4, 0, 9 } },
	};
	struct eng_timeline *tl = make_tl(spec ? spec : &one);
	struct eng_diag d = { 0 };

	v->nframes = 13;
	v->decode = malloc(sizeof(bgop_decode));
	assert_non_null(v->decode);
	memcpy(v->decode, bgop_decode, sizeof(bgop_decode));
	tl->clips[0].media[0].ess = v;
	assert_int_equal(eng_tl_layout_media(tl, &d), 0);
	eng_diag_free(&d);
	assert_int_equal(tl->dep_ahead_max, 1);
	return tl;
}

static void bgop_free(struct eng_timeline *tl, struct eng_essence *v)
{
	eng_tl_free(tl);
	free(v->decode);
	v->decode = NULL;
	rm_free(v);
}

/* The rows a[0..n) (played ones only where played_only) are bgop_rows. */
static void bgop_check(const struct eng_essence *v,
		       const struct eng_access *a, size_t n, int played_only)
{
	size_t i, j = 0, want = sizeof(bgop_rows) / sizeof(bgop_rows[0]);

	for (i = 0; i < n; i++) {
		const int64_t *r = bgop_rows[j];

		if (played_only && !a[i].played)
			continue;
		assert_true(j < want);
		if (a[i].frame != r[0] || a[i].file_offset != v->off[r[1]] ||
		    a[i].length != v->len[r[1]] || a[i].dep != r[2])
			fail_msg("row %zu: frame %lld at %llu dep %d, want "
				 "frame %lld media %lld dep %d", j,
				 (long long)a[i].frame,
				 (unsigned long long)a[i].file_offset,
				 a[i].dep, (long long)r[0], (long long)r[1],
				 (int)r[2]);
		j++;
	}
	assert_int_equal(j, want);
}

/* A cut at B4 (clip a's frames 4..12), read whole: the packets in decode
 * order, each once, as a decoder reads them: I0 P3 B1 B2 P6 (dep) then
 * B4; B5; P6 already read (its bytes kept, no read); P9 (dep) then B7;
 * B8; P9 none; P12 (dep) then B10; B11; P12 none.  Before, P6 was read
 * twice (a dependency of B4, then again as frame 2) and B7 came before
 * the P9 it needs (reads in presentation order after the cut).  The
 * bytes served are the edit's, and the same with 3 frames in flight. */
static void test_real_media_decode_order(void **state)
{
	struct eng_essence *v = rm_video(13);
	struct eng_timeline *tl = bgop_tl(v, NULL);
	struct fake *f = fake_new();
	struct eng_player_config cfg = make_cfg(f, 4, ENG_PACE_OFF, 1,
						ENG_BACKING_BUFFERED, 65536);
	struct eng_player *p;
	size_t nslices;
	unsigned char *exp = expected_file(tl, &nslices);
	unsigned char *got = malloc(tl->bytes);
	uint64_t off = 0;
	ssize_t r;

	(void)state;
	assert_non_null(got);
	p = new_player(tl, &cfg);
	while ((r = eng_player_copy(p, got + off, 65536, off)) > 0)
		off += (uint64_t)r;
	assert_int_equal(off, tl->bytes);
	assert_memory_equal(got, exp, tl->bytes);
	eng_player_free(p);
	bgop_check(v, f->log.a, f->log.n, 0);
	fake_free(f);
	free(got);
	free(exp);
	bgop_free(tl, v);
}

/* tl read whole on real threads: 3 frames in flight (reads of 3 ms,
 * frames of 4 ms at pace 10), its bytes the edit's; the rows in m (the
 * caller's mt_destroy). */
static void bgop_threads(const struct eng_timeline *tl, struct mt *m)
{
	unsigned char *exp = expected_file(tl, NULL);
	unsigned char *got = malloc(tl->bytes);
	struct eng_player_config cfg;
	struct eng_player *p;
	uint64_t off = 0;
	ssize_t r;

	assert_non_null(got);
	mt_init(m);
	m->real = 1;
	m->delay_ns = 3 * MS;
	m->hold_first = 1;
	cfg = (struct eng_player_config){
		.buffer = 4, .pace = { ENG_PACE_FACTOR, 10 },
		.backing = ENG_BACKING_BUFFERED, .max_request = 65536,
		.io = &m->io, .record = mt_record, .record_ctx = m,
		.filler = 1, .frames_in_flight = 3,
	};
	p = new_player(tl, &cfg);
	assert_int_equal(eng_player_start(p), 0);
	while ((r = eng_player_copy(p, got + off, 65536, off)) > 0)
		off += (uint64_t)r;
	assert_int_equal(off, tl->bytes);
	assert_memory_equal(got, exp, tl->bytes);
	eng_player_stop(p);
	eng_player_free(p);
	free(got);
	free(exp);
}

/* The same on real threads (bgop_threads), the frame kept by one
 * loader's load copied by another's: the same rows. */
static void test_real_media_decode_order_threads(void **state)
{
	struct eng_essence *v = rm_video(13);
	struct eng_timeline *tl = bgop_tl(v, NULL);
	struct mt m;

	(void)state;
	bgop_threads(tl, &m);
	bgop_check(v, m.log, m.nlog, 1);
	assert_true(m.inflight_peak >= 2);
	mt_destroy(&m);
	bgop_free(tl, v);
}

/* Cut after cut on real threads: 11 events of B4 B5, then B4..P12 played
 * on.  Each cut drops the P6 its run read ahead and never plays (an
 * orphan where its read is still going on), and the last run keeps P6
 * and P9 for their turn: the rows are a decoder's, as simulated here,
 * and the bytes the edit's.  Were an orphan never freed, the 5 frames a
 * player keeps here (1 + 3 loaders + 1) would be taken by the last run,
 * which would read P6, P9 and P12 again: 93 rows, not 90. */
static void test_real_media_decode_order_cuts(void **state)
{
	struct tl_spec spec = { 24, 1, { { "V", 24000, 1, 0 } }, { { 0 } } };
	struct eng_essence *v = rm_video(13);
	struct eng_timeline *tl;
	struct eng_access *want = calloc(256, sizeof(*want));
	struct mt m;
	size_t nw = 0, i, j;
	int64_t k, rec = 0, next = 0;

	(void)state;
	assert_non_null(want);
	for (i = 0; i < 12; i++) {
		spec.segs[i] = (struct seg_spec){ "V", "c0", 4, rec,
						  i < 11 ? 2 : 9 };
		rec += spec.segs[i].frames;
	}
	tl = bgop_tl(v, &spec);
	/* a decoder's reads: each event a run from the key frame */
	for (k = 0; k < tl->frames; k++) {
		const struct eng_segment *sg = eng_segment_at(&tl->tracks[0], k);
		int64_t src = sg->src_in + (k - sg->rec_in), ds = v->decode[src];

		if (k == sg->rec_in)
			next = 0;
		for (; next <= ds; next++) {
			for (j = 0; v->decode[j] != next; j++)
				;
			want[nw++] = (struct eng_access){
				.frame = k, .file_offset = v->off[j],
				.length = v->len[j], .dep = next < ds };
		}
	}
	bgop_threads(tl, &m);
	assert_int_equal(m.nlog, nw);
	for (i = 0; i < nw; i++)
		rm_check_row(&m.log[i], &want[i]);
	mt_destroy(&m);
	free(want);
	bgop_free(tl, v);
}

/* A frame's decoding dependencies count toward its completion: a slow
 * read of one makes the frame late (and the frames due meanwhile), and
 * is its worst read. */
static void test_real_media_dep_late(void **state)
{
	struct eng_essence *v = rm_video(6), *a = rm_audio();
	struct eng_timeline *tl = rm_tl(v, a);
	unsigned char *exp = expected_file(tl, NULL);
	struct fake *f = fake_new();
	struct eng_player_config cfg = make_cfg(f, 2, ENG_PACE_REALTIME, 1,
						ENG_BACKING_BUFFERED, 65536);
	struct eng_player *p;
	struct eng_player_stats st;

	(void)state;
	f->slow_read = 0;	/* the first: a dependency of frame 0 */
	f->slow_ns = 500 * MS;	/* due after 2 frames: 83 ms */
	p = new_player(tl, &cfg);
	read_frame(p, tl, exp, 0);
	eng_player_stats(p, &st);
	assert_int_equal(f->log.a[0].dep, 1);
	assert_true(f->log.a[0].done_ns > f->log.a[0].due_ns);
	assert_int_equal(f->log.a[0].frame, 0);
	assert_true(st.worst_ns >= 500 * MS);
	assert_true(st.late_frames >= 1);
	check_played(f, p);
	eng_player_free(p);
	fake_free(f);
	free(exp);
	eng_tl_free(tl);
	rm_free(v);
	rm_free(a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_real_media_reads),
		cmocka_unit_test(test_real_media_dep_late),
		cmocka_unit_test(test_real_media_decode_order),
		cmocka_unit_test(test_real_media_decode_order_threads),
		cmocka_unit_test(test_real_media_decode_order_cuts),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
