/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of the ingest repair (engine/ingest/repair.c) on fake files:
 * a recording cut short (kill -9: tracks ending inside a frame, WAV sizes
 * all ones, its note in state recording) is cut to the last frame every
 * present track holds whole, what is cut set aside in NAME.TRACK.partial,
 * its WAV headers patched (read back by engine/media's reader), its note
 * set to repaired; a closed one, a live one (its note locked, its daemon
 * running) and one whose track is a hard link are left as they are.  And
 * the rule that tells a live recording from a dead one (live.c).
 */
#include <errno.h>
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "ingest/ingest.h"
#include "media/media.h"
#include "util/diag.h"

#define MAX_FILES 16

struct rfile {
	char name[128];
	unsigned char *data;
	uint64_t size;
	int there, open, writable;
	int links;		/* > 1: a hard link (create refuses it) */
	int locked;		/* another daemon holds its lock */
	int fsyncs;
};

struct rfk {
	struct rfile files[MAX_FILES];
	int n;
	int full;		/* a .partial cannot be made: -ENOSPC */
	long writes, truncs, opens, locks;
	struct eng_io io;
};

static struct rfile *rf_find(struct rfk *f, const char *name)
{
	int i;

	for (i = 0; i < f->n; i++)
		if (f->files[i].there && strcmp(f->files[i].name, name) == 0)
			return &f->files[i];
	return NULL;
}

static struct rfile *rf_fd(struct rfk *f, int fd)
{
	int i = fd - 100;

	assert_true(i >= 0 && i < f->n && f->files[i].open);
	return &f->files[i];
}

static void rf_resize(struct rfile *r, uint64_t size)
{
	r->data = realloc(r->data, size ? size : 1);
	assert_non_null(r->data);
	if (size > r->size)
		memset(r->data + r->size, 0, size - r->size);
	r->size = size;
}

static struct rfile *rf_put(struct rfk *f, const char *name, const void *d,
			    uint64_t size)
{
	struct rfile *r = rf_find(f, name);

	if (!r) {
		assert_true(f->n < MAX_FILES);
		r = &f->files[f->n++];
		memset(r, 0, sizeof(*r));
		snprintf(r->name, sizeof(r->name), "%s", name);
		r->there = 1;
	}
	r->size = 0;
	rf_resize(r, size);
	if (d)
		memcpy(r->data, d, size);
	return r;
}

static int rf_open(void *ctx, const char *file, int direct, int *is_direct)
{
	struct rfk *f = ctx;
	struct rfile *r = rf_find(f, file);

	(void)direct;
	*is_direct = 0;
	if (!r)
		return -ENOENT;
	r->open++;
	f->opens++;
	return 100 + (int)(r - f->files);
}

static int rf_create(void *ctx, const char *file, int replace,
		     unsigned *injected)
{
	struct rfk *f = ctx;
	struct rfile *r = rf_find(f, file);

	(void)injected;
	/* the repair opens what is there, as it is; it replaces only
	 * what it sets aside */
	if (replace != ENG_IO_CREATE_KEEP) {
		assert_int_equal(replace, 1);
		assert_non_null(strstr(file, ".partial"));
		if (f->full)
			return -ENOSPC;
		r = rf_put(f, file, NULL, 0);
	}
	if (!r)
		return -ENOENT;
	if (r->links > 1)
		return -EMLINK;
	r->open++;
	r->writable = 1;
	return 100 + (int)(r - f->files);
}

static int rf_lock(void *ctx, int fd)
{
	struct rfk *f = ctx;
	struct rfile *r = rf_fd(f, fd);

	f->locks++;
	return r->locked ? -EAGAIN : 0;
}

static ssize_t rf_pread(void *ctx, int fd, void *buf, size_t len,
			uint64_t off)
{
	struct rfile *r = rf_fd(ctx, fd);

	if (off >= r->size)
		return 0;
	if (len > r->size - off)
		len = (size_t)(r->size - off);
	memcpy(buf, r->data + off, len);
	return (ssize_t)len;
}

static ssize_t rf_pwrite(void *ctx, int fd, const void *buf, size_t len,
			 uint64_t off, unsigned *injected)
{
	struct rfk *f = ctx;
	struct rfile *r = rf_fd(f, fd);

	(void)injected;
	assert_true(r->writable);
	f->writes++;
	if (off + len > r->size)
		rf_resize(r, off + len);
	memcpy(r->data + off, buf, len);
	return (ssize_t)len;
}

static int rf_ftruncate(void *ctx, int fd, uint64_t len)
{
	struct rfk *f = ctx;
	struct rfile *r = rf_fd(f, fd);

	assert_true(r->writable);
	f->truncs++;
	rf_resize(r, len);
	return 0;
}

static int rf_size(void *ctx, int fd, uint64_t *bytes)
{
	*bytes = rf_fd(ctx, fd)->size;
	return 0;
}

static void rf_close(void *ctx, int fd)
{
	rf_fd(ctx, fd)->open--;
}

/* the repair fsyncs only what it sets aside */
static int rf_fsync(void *ctx, int fd, unsigned *injected)
{
	struct rfile *r = rf_fd(ctx, fd);

	(void)injected;
	assert_non_null(strstr(r->name, ".partial"));
	r->fsyncs++;
	return 0;
}

static int rf_unused2(void *ctx, int fd, uint64_t off, uint64_t len,
		      unsigned *injected)
{
	(void)ctx;
	(void)fd;
	(void)off;
	(void)len;
	(void)injected;
	fail_msg("the repair does not fallocate");
	return -ENOSYS;
}

static int rf_space(void *ctx, uint64_t *bytes)
{
	(void)ctx;
	*bytes = UINT64_MAX;
	return 0;
}

static void rf_init(struct rfk *f)
{
	memset(f, 0, sizeof(*f));
	f->io = (struct eng_io){
		.open = rf_open, .pread = rf_pread, .close = rf_close,
		.size = rf_size, .create = rf_create, .pwrite = rf_pwrite,
		.fsync = rf_fsync, .fallocate = rf_unused2,
		.ftruncate = rf_ftruncate, .space = rf_space, .lock = rf_lock,
		.ctx = f,
	};
}

/* This daemon: host ws1, this boot b-now; processes 10 (started 5) and
 * 11 (started 6) run, nothing else. */
static int fake_running(void *ctx, int64_t pid, uint64_t start)
{
	(void)ctx;
	return (pid == 10 && start == 5) || (pid == 11 && start == 6);
}

static const struct eng_ingest_self self = {
	.me = { .host = "ws1", .machine = "m1", .boot = "b-now", .pid = 11,
		.pid_start = 6 },
	.locks_shared = 1,
	.running = fake_running,
};

static void rf_free(struct rfk *f)
{
	int i;

	for (i = 0; i < f->n; i++)
		free(f->files[i].data);
}

static unsigned char byte_at(uint32_t t, uint64_t off)
{
	return (unsigned char)((off * 131 + t * 7 + (off >> 9)) & 0xff);
}

/* eng_ingest_repair of recording `name` (its note ingest/NAME.rec) on f,
 * as this daemon (self). */
static int repair(struct rfk *f, const char *name,
		  struct eng_ingest_repair *rep, struct eng_diag *d)
{
	char note[300];

	snprintf(note, sizeof(note), "ingest/%s.rec", name);
	return eng_ingest_repair(&f->io, &self, note, rep, d);
}

/* Recording `name` of preset seed as a killed daemon leaves it: track t
 * holds essence[t] bytes (UINT64_MAX: no file), WAV sizes all ones. */
static void killed(struct rfk *f, const char *name, const char *state,
		   const uint64_t essence[3])
{
	struct eng_ingest_format fmt;
	unsigned char *buf;
	char file[300], *text;
	uint64_t i, data;
	uint32_t t;

	assert_int_equal(eng_ingest_format_of("seed", &fmt, NULL), 0);
	for (t = 0; t < 3; t++) {
		if (essence[t] == UINT64_MAX)
			continue;
		data = t ? ENG_INGEST_WAV_DATA : 0;
		buf = malloc(data + essence[t] + 1);
		assert_non_null(buf);
		if (t)
			eng_ingest_wav_header(buf, 48000);
		for (i = 0; i < essence[t]; i++)
			buf[data + i] = byte_at(t, i);
		eng_ingest_track_file(&fmt, t, name, file, sizeof(file));
		rf_put(f, file, buf, data + essence[t]);
		free(buf);
	}
	assert_int_equal(eng_ingest_note_text(&fmt, state,
					      strcmp(state, "recording") ? 7
									: -1,
					      &text), 0);
	snprintf(file, sizeof(file), "ingest/%s.rec", name);
	rf_put(f, file, text, strlen(text));
	free(text);
}

/* Track t of the repaired recording: k frames of its essence, a WAV's
 * header whole for them, the pad byte. */
static void check_track(struct rfk *f, const char *name, uint32_t t,
			int64_t k)
{
	struct eng_ingest_format fmt;
	uint64_t ess, i, off, size, data = t ? ENG_INGEST_WAV_DATA : 0;
	struct rfile *r;
	char file[300];

	assert_int_equal(eng_ingest_format_of("seed", &fmt, NULL), 0);
	ess = eng_ingest_upto(&fmt, t, k);
	eng_ingest_track_file(&fmt, t, name, file, sizeof(file));
	r = rf_find(f, file);
	assert_non_null(r);
	assert_false(r->open);
	assert_int_equal(r->size, data + ess + (t ? ess & 1 : 0));
	for (i = 0; i < ess; i++)
		if (r->data[data + i] != byte_at(t, i))
			fail_msg("%s: byte %" PRIu64 " changed", file, i);
	if (!t)
		return;
	assert_int_equal(eng_wav_data(r->data, ENG_INGEST_WAV_DATA, &off,
				      &size), 0);
	assert_int_equal(off, ENG_INGEST_WAV_DATA);
	/* the reader takes a size of 0 as "to the end of the file" */
	assert_true(size == (ess ? ess : UINT64_MAX));
	assert_int_equal(r->data[4092] | r->data[4093] << 8 |
				 r->data[4094] << 16 |
				 (uint32_t)r->data[4095] << 24,
			 ess);
	assert_memory_equal(r->data, "RIFF", 4);
	assert_int_equal(r->data[4] | r->data[5] << 8 | r->data[6] << 16 |
				 (uint32_t)r->data[7] << 24,
			 r->size - 8);
}

static const char *note_text(struct rfk *f, const char *name)
{
	static char text[512];
	char file[300];
	struct rfile *r;

	snprintf(file, sizeof(file), "ingest/%s.rec", name);
	r = rf_find(f, file);
	assert_non_null(r);
	assert_true(r->size < sizeof(text));
	memcpy(text, r->data, r->size);
	text[r->size] = '\0';
	return text;
}

/* What the repair cut from track t, which held `essence` bytes, to k
 * frames: in its .partial, byte for byte. */
static void check_partial(struct rfk *f, const char *name, uint32_t t,
			  int64_t k, uint64_t essence)
{
	struct eng_ingest_format fmt;
	uint64_t i, kept;
	struct rfile *r;
	char file[300];

	assert_int_equal(eng_ingest_format_of("seed", &fmt, NULL), 0);
	kept = eng_ingest_upto(&fmt, t, k);
	eng_ingest_track_file(&fmt, t, name, file, sizeof(file));
	strcat(file, ".partial");
	r = rf_find(f, file);
	if (essence <= kept) {
		assert_null(r);
		return;
	}
	assert_non_null(r);
	assert_int_equal(r->open, 0);
	assert_int_equal(r->fsyncs, 1);
	assert_int_equal(r->size, essence - kept);
	for (i = 0; i < r->size; i++)
		if (r->data[i] != byte_at(t, kept + i))
			fail_msg("%s: byte %" PRIu64 " is not the cut one", file,
				 i);
}

/* Bytes of track t (0: V, else audio) of the seed before frame k. */
static uint64_t upto(uint32_t t, int64_t k)
{
	struct eng_ingest_format fmt;

	assert_int_equal(eng_ingest_format_of("seed", &fmt, NULL), 0);
	return eng_ingest_upto(&fmt, t, k);
}

/* V holds 3 frames and some, A1 4 frames and 5 bytes, A2 2 frames and
 * 2 bytes: frames 0 and 1 are whole everywhere, so k* = 2. */
static void test_cut_to_whole_frames(void **state)
{
	const uint64_t ess[3] = { upto(0, 3) + 1000, upto(1, 4) + 5,
				  upto(2, 2) + 2 };
	struct eng_ingest_repair rep;
	struct eng_diag d = { 0 };
	struct rfk f;
	uint64_t before = 0, after = 0;
	uint32_t t;

	(void)state;
	rf_init(&f);
	killed(&f, "cam1", "recording", ess);
	for (t = 0; t < 3; t++)
		before += ess[t] + (t ? ENG_INGEST_WAV_DATA : 0);
	assert_int_equal(repair(&f, "cam1", &rep, &d), 0);
	assert_int_equal(d.n, 0);
	assert_string_equal(rep.name, "cam1");
	assert_int_equal(rep.repaired, 1);
	assert_int_equal(rep.frames, 2);
	for (t = 0; t < 3; t++) {
		check_track(&f, "cam1", t, 2);
		check_partial(&f, "cam1", t, 2, ess[t]);
		after += f.files[t].size;
	}
	/* upto(A, 2) = 9609 is odd: each WAV has its pad byte, written
	 * where a cut byte was (set aside first) */
	assert_int_equal(upto(1, 2), 9609);
	assert_int_equal(rep.cut, before - after + 2);
	assert_int_equal(rep.bytes, 2 * 614400 + 2 * 9609);
	assert_non_null(strstr(note_text(&f, "cam1"),
			       "preset seed\nstate repaired\nframes 2\n"));
	/* twice is once: a repaired recording is left as it is */
	f.writes = f.truncs = 0;
	assert_int_equal(repair(&f, "cam1", &rep, &d), 0);
	assert_int_equal(rep.repaired, 0);
	assert_int_equal(rep.frames, 2);
	assert_int_equal(f.writes + f.truncs, 0);
	rf_free(&f);
}

/* k* = 1: an odd essence (4803 bytes of 24-bit audio) gets its pad byte;
 * a track that ends exactly on a frame keeps all of it. */
static void test_odd_and_exact(void **state)
{
	/* A2: 9607 bytes, short of frame 1's end at 9609 */
	static const uint64_t ess[3] = { 614400 + 614399, 4803, 4803 + 4804 };
	struct eng_ingest_repair rep;
	struct eng_diag d = { 0 };
	struct rfk f;
	uint32_t t;

	(void)state;
	rf_init(&f);
	killed(&f, "x", "recording", ess);
	assert_int_equal(repair(&f, "x", &rep, &d), 0);
	assert_int_equal(rep.frames, 1);
	for (t = 0; t < 3; t++)
		check_track(&f, "x", t, 1);
	/* A1 lost nothing but gained its pad: nothing set aside */
	assert_int_equal(rep.cut, 614399 + 4804);
	for (t = 0; t < 3; t++)
		check_partial(&f, "x", t, 1, ess[t]);
	rf_free(&f);
}

/* A missing track file (never made, or lost) is skipped: the others keep
 * what they hold (it cut them to 0 frames); a WAV cut inside its header
 * gets it whole again. */
static void test_missing_and_short_header(void **state)
{
	const uint64_t ess[3] = { upto(0, 5) + 7, upto(1, 5), UINT64_MAX };
	struct eng_ingest_repair rep;
	struct eng_diag d = { 0 };
	struct rfk f;

	(void)state;
	rf_init(&f);
	killed(&f, "m", "recording", ess);
	assert_int_equal(repair(&f, "m", &rep, &d), 0);
	assert_int_equal(rep.frames, 5);
	assert_int_equal(rep.missing, 1u << 2);
	assert_int_equal(rep.cut, 7);
	check_track(&f, "m", 0, 5);
	check_track(&f, "m", 1, 5);
	check_partial(&f, "m", 0, 5, ess[0]);
	assert_null(rf_find(&f, "ingest/m.A2.wav"));
	rf_free(&f);

	rf_init(&f);
	killed(&f, "h", "recording",
	       (const uint64_t[3]){ 614400, 4803, 4803 });
	rf_put(&f, "ingest/h.A2.wav", "RIFF\xff\xff", 6);
	assert_int_equal(repair(&f, "h", &rep, &d), 0);
	assert_int_equal(rep.frames, 0);
	check_track(&f, "h", 2, 0);
	assert_int_equal(rf_find(&f, "ingest/h.A2.wav")->size,
			 ENG_INGEST_WAV_DATA);
	rf_free(&f);
}

/* A recording closed cleanly is left as it is. */
static void test_closed_left_alone(void **state)
{
	static const uint64_t ess[3] = { 614400 + 5, 4803, 4803 };
	struct eng_ingest_repair rep;
	struct eng_diag d = { 0 };
	struct rfk f;

	(void)state;
	rf_init(&f);
	killed(&f, "c", "closed", ess);
	assert_int_equal(repair(&f, "c", &rep, &d), 0);
	assert_int_equal(rep.repaired, 0);
	assert_int_equal(rep.frames, 7);
	assert_int_equal(f.writes + f.truncs, 0);
	assert_int_equal(rf_find(&f, "ingest/c.V.raw")->size, 614400 + 5);
	rf_free(&f);
}

static void test_bad_notes(void **state)
{
	struct eng_ingest_repair rep;
	struct eng_diag d = { 0 };
	struct rfk f;

	(void)state;
	rf_init(&f);
	assert_int_equal(repair(&f, "no", &rep, &d), -ENOENT);
	assert_string_equal(d.msgs[0], "ingest/no.rec: cannot open it: "
				       "No such file or directory");
	eng_diag_free(&d);
	rf_put(&f, "ingest/b.rec", "preset seed\nstate what\n", 23);
	assert_int_equal(repair(&f, "b", &rep, &d), -EINVAL);
	assert_string_equal(d.msgs[0], "ingest/b.rec:2: no state 'what' "
				       "(recording, closed, repaired, failed)");
	eng_diag_free(&d);
	assert_int_equal(f.writes + f.truncs, 0);
	rf_free(&f);
}

/* A track file that is a hard link (a clip linked into ingest/) is
 * refused, and the whole repair with it: nothing is cut, nothing set
 * aside (it truncated the clip). */
static void test_hard_link_refused(void **state)
{
	static const uint64_t ess[3] = { 3 * 614400 + 9, 3 * 4803,
					 3 * 4803 };
	struct eng_ingest_repair rep;
	struct eng_diag d = { 0 };
	struct rfk f;

	(void)state;
	rf_init(&f);
	killed(&f, "hl", "recording", ess);
	rf_find(&f, "ingest/hl.A1.wav")->links = 2;
	assert_int_equal(repair(&f, "hl", &rep, &d), -EMLINK);
	assert_string_equal(d.msgs[0],
			    "ingest/hl.A1.wav: cannot open it to repair it: "
			    "Too many links (a hard link: another file's too); "
			    "the recording is left as it is");
	eng_diag_free(&d);
	assert_int_equal(rep.repaired, 0);
	assert_int_equal(f.writes + f.truncs, 0);
	assert_null(rf_find(&f, "ingest/hl.V.raw.partial"));
	assert_int_equal(rf_find(&f, "ingest/hl.V.raw")->size, ess[0]);
	assert_non_null(strstr(note_text(&f, "hl"), "state recording\n"));
	/* the note itself a hard link: refused before anything is read
	 * under its lock */
	rf_find(&f, "ingest/hl.A1.wav")->links = 1;
	rf_find(&f, "ingest/hl.rec")->links = 2;
	f.locks = 0;
	assert_int_equal(repair(&f, "hl", &rep, &d), -EMLINK);
	assert_string_equal(d.msgs[0], "ingest/hl.rec: cannot open it to "
				       "repair its recording: Too many links");
	eng_diag_free(&d);
	assert_int_equal(f.writes + f.truncs + f.locks, 0);
	rf_free(&f);
}

/* What would be cut cannot be set aside (the disk is full): nothing is
 * cut, the note still says recording. */
static void test_set_aside_fails(void **state)
{
	const uint64_t ess[3] = { upto(0, 2) + 5, upto(1, 2) + 4, upto(2, 2) };
	struct eng_ingest_repair rep;
	struct eng_diag d = { 0 };
	struct rfk f;

	(void)state;
	rf_init(&f);
	killed(&f, "full", "recording", ess);
	f.full = 1;
	assert_int_equal(repair(&f, "full", &rep, &d), -ENOSPC);
	assert_string_equal(d.msgs[0], "ingest/full.V.raw.partial: cannot set "
				       "aside what the repair cuts: No space "
				       "left on device; nothing cut");
	eng_diag_free(&d);
	assert_int_equal(f.writes + f.truncs, 0);
	assert_int_equal(rf_find(&f, "ingest/full.V.raw")->size, ess[0]);
	assert_non_null(strstr(note_text(&f, "full"), "state recording\n"));
	rf_free(&f);
}

/* Recording name's note back in state recording, naming daemon ws1
 * (this host and boot) with pid `pid` started at `start`. */
static void owned_by(struct rfk *f, const char *name, int pid, int start)
{
	char file[300], text[512];

	snprintf(text, sizeof(text),
		 "# timelinefs recording\npreset seed\nstate recording\n"
		 "host ws1\nmachine m1\nboot b-now\npid %d %d\n"
		 "lock shared\nrun R\n", pid, start);
	snprintf(file, sizeof(file), "ingest/%s.rec", name);
	rf_put(f, file, text, strlen(text));
}

/* A note whose lock another daemon holds, or whose daemon runs, is left
 * as it is; a dead one is repaired, its owner lines kept. */
static void test_live_left_alone(void **state)
{
	const uint64_t ess[3] = { upto(0, 2) + 5, upto(1, 2), upto(2, 2) };
	struct eng_ingest_repair rep;
	struct eng_diag d = { 0 };
	struct rfk f;

	(void)state;
	rf_init(&f);
	killed(&f, "lv", "recording", ess);
	rf_find(&f, "ingest/lv.rec")->locked = 1;
	assert_int_equal(repair(&f, "lv", &rep, &d), 0);
	assert_int_equal(d.n, 0);
	assert_int_equal(rep.left, 1);
	assert_int_equal(rep.repaired, 0);
	assert_string_equal(rep.why, "recorded now (its note is locked) by "
				     "a daemon pid 0");
	assert_int_equal(f.writes + f.truncs, 0);
	assert_int_equal(f.locks, 1);
	/* unlocked, its daemon (pid 10, started 5) running */
	rf_find(&f, "ingest/lv.rec")->locked = 0;
	owned_by(&f, "lv", 10, 5);
	assert_int_equal(repair(&f, "lv", &rep, &d), 0);
	assert_int_equal(rep.left, 1);
	assert_string_equal(rep.why, "its daemon ws1 pid 10 is running");
	assert_int_equal(f.writes + f.truncs, 0);
	/* pid 10 used again by another process (started 7): gone */
	owned_by(&f, "lv", 10, 7);
	assert_int_equal(repair(&f, "lv", &rep, &d), 0);
	assert_int_equal(rep.left, 0);
	assert_int_equal(rep.repaired, 1);
	assert_int_equal(rep.frames, 2);
	assert_string_equal(rep.run, "R");
	assert_non_null(strstr(note_text(&f, "lv"),
			       "state repaired\nframes 2\nhost ws1\n"
			       "machine m1\nboot b-now\npid 10 7\n"
			       "lock shared\nrun R\n"));
	assert_int_equal(rf_find(&f, "ingest/lv.rec")->open, 0);
	rf_free(&f);
}

/* The rule (ingest.h, eng_ingest_life), case by case. */
static void test_life_rule(void **state)
{
	static const struct {
		const char *host, *machine, *boot;
		int64_t pid;
		uint64_t start;
		int shared, lock, self_shared;
		enum eng_ingest_life want;
	} cases[] = {
		/* its lock held: live, whoever it is */
		{ "ws2", "", "b-2", 1, 1, 1, -EAGAIN, 1, ENG_INGEST_LIVE },
		{ "", "", "", 0, 0, 0, -EAGAIN, 1, ENG_INGEST_LIVE },
		/* no owner lines (an older note), lock free or unknown */
		{ "", "", "", 0, 0, 0, 0, 1, ENG_INGEST_DEAD },
		{ "", "", "", 0, 0, 0, -ENOLCK, 0, ENG_INGEST_DEAD },
		/* this boot: the daemon runs / is gone / pid reused */
		{ "ws1", "m1", "b-now", 10, 5, 1, 0, 1, ENG_INGEST_LIVE },
		{ "ws1", "m1", "b-now", 12, 5, 1, 0, 1, ENG_INGEST_DEAD },
		{ "ws1", "m1", "b-now", 10, 9, 1, -ENOLCK, 1,
		  ENG_INGEST_DEAD },
		/* a container of this kernel, named otherwise */
		{ "ct", "", "b-now", 12, 1, 0, 0, 0, ENG_INGEST_DEAD },
		/* this host, another boot; with another machine id it is
		 * another host of the same name */
		{ "ws1", "m1", "b-old", 10, 5, 1, -ENOLCK, 0,
		  ENG_INGEST_DEAD },
		{ "ws1", "", "b-old", 10, 5, 0, 0, 0, ENG_INGEST_DEAD },
		{ "ws1", "m9", "b-old", 10, 5, 0, 0, 0, ENG_INGEST_UNKNOWN },
		/* another host: dead only when both locks reach the
		 * storage and its lock is free */
		{ "ws2", "m2", "b-2", 10, 5, 1, 0, 1, ENG_INGEST_DEAD },
		{ "ws2", "m2", "b-2", 10, 5, 0, 0, 1, ENG_INGEST_UNKNOWN },
		{ "ws2", "m2", "b-2", 10, 5, 1, 0, 0, ENG_INGEST_UNKNOWN },
		{ "ws2", "m2", "b-2", 10, 5, 1, -ENOLCK, 1,
		  ENG_INGEST_UNKNOWN },
	};
	struct eng_ingest_self me = self;
	struct eng_ingest_owner o;
	char why[400];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		memset(&o, 0, sizeof(o));
		snprintf(o.host, sizeof(o.host), "%s", cases[i].host);
		snprintf(o.machine, sizeof(o.machine), "%s",
			 cases[i].machine);
		snprintf(o.boot, sizeof(o.boot), "%s", cases[i].boot);
		o.pid = cases[i].pid;
		o.pid_start = cases[i].start;
		o.lock_shared = cases[i].shared;
		me.locks_shared = cases[i].self_shared;
		if (eng_ingest_life(&o, &me, cases[i].lock, why,
				    sizeof(why)) != cases[i].want)
			fail_msg("case %zu: not %d (%s)", i, cases[i].want,
				 why);
	}
	memset(&o, 0, sizeof(o));
	snprintf(o.host, sizeof(o.host), "ws2");
	o.pid = 7;
	me.locks_shared = 0;
	eng_ingest_life(&o, &me, 0, why, sizeof(why));
	assert_string_equal(why, "recorded by ws2 pid 7, whose end this mount "
				 "cannot prove (its lock does not reach the "
				 "storage); a mount on ws2 repairs it, or "
				 "remove its host and boot lines once it is "
				 "stopped");
}

/* Which file systems pass a lock to every host (mountinfo's type and
 * options). */
static void test_locks_shared(void **state)
{
	static const struct {
		const char *type, *options;
		int want;
	} cases[] = {
		{ "ext4", "rw,relatime", 1 },
		{ "xfs", "rw", 1 },
		{ "tmpfs", "rw", 1 },
		{ "nfs4", "rw,vers=4.2,local_lock=none", 1 },
		{ "nfs", "rw,vers=3,local_lock=all", 0 },
		{ "nfs", "rw,vers=3,nolock", 0 },
		{ "nfs4", "rw,local_lock=posix", 0 },
		{ "cifs", "rw,vers=3.1.1", 1 },
		{ "cifs", "rw,nobrl", 0 },
		{ "fuse.sshfs", "rw", 0 },
		{ "overlay", "rw", 0 },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		if (eng_ingest_locks_shared(cases[i].type, cases[i].options) !=
		    cases[i].want)
			fail_msg("%s %s: not %d", cases[i].type,
				 cases[i].options, cases[i].want);
}

/* The owner lines, written and read back; a note with them parses. */
static void test_owner_lines(void **state)
{
	static const struct eng_ingest_owner o = {
		.host = "ws1", .machine = "m1", .boot = "b", .pid = 3,
		.pid_start = 44, .lock_shared = 0, .run = "u",
	};
	struct eng_ingest_format fmt, g;
	struct eng_ingest_owner back;
	struct eng_diag d = { 0 };
	char state16[16], *text;

	(void)state;
	assert_int_equal(eng_ingest_format_of("seed", &fmt, NULL), 0);
	assert_int_equal(eng_ingest_note_text_owned(&fmt, "recording", -1, &o,
						    &text),
			 0);
	assert_non_null(strstr(text, "state recording\nhost ws1\nmachine "
				     "m1\nboot b\npid 3 44\nlock local\n"
				     "run u\n"));
	assert_int_equal(eng_ingest_note_parse("n.rec", text, strlen(text),
					       &g, state16, &back, &d),
			 0);
	assert_memory_equal(&back, &o, sizeof(o));
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cut_to_whole_frames),
		cmocka_unit_test(test_odd_and_exact),
		cmocka_unit_test(test_missing_and_short_header),
		cmocka_unit_test(test_closed_left_alone),
		cmocka_unit_test(test_bad_notes),
		cmocka_unit_test(test_hard_link_refused),
		cmocka_unit_test(test_set_aside_fails),
		cmocka_unit_test(test_live_left_alone),
		cmocka_unit_test(test_life_rule),
		cmocka_unit_test(test_locks_shared),
		cmocka_unit_test(test_owner_lines),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
