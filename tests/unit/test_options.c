/* SPDX-License-Identifier: MIT */
/*
 * fs/options.c's -o ingest and ingest_* (issue 23): each value parsed
 * into fs_config as docs/design.md "Ingest" says (defaults: the seed
 * preset, buffer 8, one write per track per frame, no fsync, no
 * preallocation, continue on a drop, a 1 GiB reserve), every bad value
 * refused with a message naming the option and the value, and
 * fs_ingest_rec_config's record stream settings (a preallocation's
 * frames at the preset's rate, rounded up; a reserve in percent of the
 * file system).  Before these options, fs_config_read passed them on to
 * libfuse as unknown: none of the fields below was set.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fs.h"
#include "timeline/tl.h"

#include "media_env.h"

/* fs_config_read of "-o OPTS MEDIA MNT" in the env's folder: its
 * return, cfg parsed, the first message in msg. */
static int read_opts(struct env *e, const char *opts, struct fs_config *cfg,
		     char *msg, size_t len)
{
	char o[512], media[128], mnt[128], db[128];
	char *argv[] = { (char *)"timelinefs", (char *)"-o", o, media, mnt,
			 NULL };
	struct fuse_args args = FUSE_ARGS_INIT(5, argv);
	struct eng_diag d = { 0 };
	int rc;

	snprintf(media, sizeof(media), "%s/media", e->dir);
	snprintf(mnt, sizeof(mnt), "%s/mnt", e->dir);
	snprintf(db, sizeof(db), "%s/t.db", e->dir);
	snprintf(o, sizeof(o), "%s%sdb=%s", opts, opts[0] ? "," : "", db);
	rc = fs_config_read(&args, cfg, &d);
	snprintf(msg, len, "%s", d.n ? d.msgs[0] : "");
	eng_diag_free(&d);
	fuse_opt_free_args(&args);
	return rc;
}

static int setup(void **state)
{
	struct env *e;

	if (env_open(state, "/tmp/tlfs-options-XXXXXX") < 0)
		return -1;
	e = *state;
	if (mkdirat(e->dfd, "media", 0755) < 0 ||
	    mkdirat(e->dfd, "media/timelines", 0755) < 0 ||
	    mkdirat(e->dfd, "mnt", 0755) < 0)
		return -1;
	return 0;
}

static void test_defaults(void **state)
{
	struct fs_config c;
	char msg[256];

	assert_int_equal(read_opts(*state, "", &c, msg, sizeof(msg)), 0);
	assert_string_equal(c.ingest_preset, "seed");
	assert_int_equal(c.ingest_buffer, 8);
	assert_int_equal(c.ingest_write_bytes, 0);
	assert_int_equal(c.ingest_fsync_v, ENG_INGEST_FSYNC_OFF);
	assert_int_equal(c.ingest_prealloc_ns, 0);
	assert_int_equal(c.ingest_stop_on_drop, 0);
	assert_int_equal(c.ingest_reserve_bytes, 1024ULL * 1024 * 1024);
	assert_int_equal(c.ingest_reserve_pct, 0);
	assert_int_equal(c.ingest_replace, 0);
	fs_config_free(&c);
}

/* The player configuration the options make, the one fs_player_config
 * starts from and -h's stream figures use: the defaults' (buffer 8,
 * realtime, direct, a filler, requests of FS_MAX_READ), and a parsed
 * mount's values where given. */
static void test_player_config(void **state)
{
	struct eng_player_config pc;
	struct eng_tlm_config tc;
	struct fs_config c;
	char msg[256];

	assert_int_equal(read_opts(*state, "", &c, msg, sizeof(msg)), 0);
	fs_player_config_of(&c, &pc);
	assert_int_equal(pc.buffer, 8);
	assert_int_equal(pc.pace.mode, ENG_PACE_REALTIME);
	assert_true(pc.pace.speed == 1);
	assert_int_equal(pc.backing, ENG_BACKING_DIRECT);
	assert_int_equal(pc.max_request, FS_MAX_READ);
	assert_int_equal(pc.readahead, 1024 * 1024);
	assert_int_equal(pc.max_pieces, FS_IOV_MAX);
	assert_int_equal(pc.filler, 1);
	assert_int_equal(pc.frames_in_flight, 1);
	assert_int_equal(pc.mem_max, ENG_PLAYER_MEM_DEFAULT);
	assert_int_equal(pc.max_files, ENG_PLAYER_FILES_DEFAULT);
	assert_null(pc.io);
	/* timelinefs-gen --for checks a stream's memory with the engine's
	 * defaults (eng_tlm_defaults): the mount's, zero copy as splice=auto
	 * allows */
	eng_tlm_defaults(&tc);
	pc.zero_copy = c.splice_v;
	assert_int_equal(pc.zero_copy, 1);
	assert_memory_equal(&pc, &tc.player, sizeof(pc));
	assert_int_equal(tc.stream_mem, c.stream_mem);
	assert_int_equal(tc.preroll_ns, (uint64_t)c.preroll_ms * 1000000);
	fs_config_free(&c);
	assert_int_equal(read_opts(*state, "buffer=3,pace=2,backing=buffered",
				   &c, msg, sizeof(msg)), 0);
	fs_player_config_of(&c, &pc);
	assert_int_equal(pc.buffer, 3);
	assert_int_equal(pc.pace.mode, ENG_PACE_FACTOR);
	assert_true(pc.pace.speed == 2);
	assert_int_equal(pc.backing, ENG_BACKING_BUFFERED);
	fs_config_free(&c);
	/* the ring holds two readahead windows of a cached stream: the
	 * mount's, none under direct_io */
	assert_int_equal(read_opts(*state, "readahead=4096", &c, msg,
				   sizeof(msg)), 0);
	fs_player_config_of(&c, &pc);
	assert_int_equal(pc.readahead, 4096 * 1024);
	fs_config_free(&c);
	assert_int_equal(read_opts(*state, "readahead=4096,direct_io", &c,
				   msg, sizeof(msg)), 0);
	fs_player_config_of(&c, &pc);
	assert_int_equal(pc.readahead, 0);
	fs_config_free(&c);
}

static const struct good_case {
	const char *opts;
	const char *preset;	/* NULL: off */
	unsigned buffer;
	uint64_t write_bytes;
	enum eng_ingest_fsync fsync;
	unsigned every;
	uint64_t prealloc_s;
	int stop, replace;
	uint64_t reserve;
	unsigned pct;
} good[] = {
	{ "ingest=off", NULL, 8, 0, 0, 0, 0, 0, 0, 1ULL << 30, 0 },
	{ "ingest=sd-pal,ingest_replace", "sd-pal", 8, 0, 0, 0, 0, 0, 1,
	  1ULL << 30, 0 },
	{ "ingest_buffer=1,ingest_write=frame,ingest_fsync=close", "seed", 1,
	  0, ENG_INGEST_FSYNC_CLOSE, 0, 0, 0, 0, 1ULL << 30, 0 },
	{ "ingest_buffer=1024,ingest_write=512,ingest_fsync=30", "seed", 1024,
	  512, ENG_INGEST_FSYNC_EVERY, 30, 0, 0, 0, 1ULL << 30, 0 },
	{ "ingest_write=256Ki,ingest_prealloc=90s,ingest_on_drop=stop",
	  "seed", 8, 256 * 1024, 0, 0, 90, 1, 0, 1ULL << 30, 0 },
	{ "ingest_write=1Gi,ingest_prealloc=30m,ingest_reserve=0", "seed", 8,
	  1ULL << 30, 0, 0, 1800, 0, 0, 0, 0 },
	{ "ingest_prealloc=24h,ingest_on_drop=continue,ingest_reserve=5%",
	  "seed", 8, 0, 0, 0, 86400, 0, 0, 1ULL << 30, 5 },
	{ "ingest_prealloc=off,ingest_reserve=2G,ingest_fsync=off", "seed",
	  8, 0, 0, 0, 0, 0, 0, 2000000000, 0 },
};

static void test_good(void **state)
{
	struct fs_config c;
	char msg[256];
	size_t i;

	for (i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		const struct good_case *g = &good[i];

		if (read_opts(*state, g->opts, &c, msg, sizeof(msg)) != 0)
			fail_msg("'%s' refused: %s", g->opts, msg);
		if (g->preset)
			assert_string_equal(c.ingest_preset, g->preset);
		else
			assert_null(c.ingest_preset);
		assert_int_equal(c.ingest_buffer, g->buffer);
		assert_int_equal(c.ingest_write_bytes, g->write_bytes);
		assert_int_equal(c.ingest_fsync_v, g->fsync);
		assert_int_equal(c.ingest_fsync_every, g->every);
		assert_int_equal(c.ingest_prealloc_ns,
				 g->prealloc_s * ENG_NS_PER_SEC);
		assert_int_equal(c.ingest_stop_on_drop, g->stop);
		assert_int_equal(c.ingest_replace, g->replace);
		assert_int_equal(c.ingest_reserve_pct, g->pct);
		if (!g->pct)
			assert_int_equal(c.ingest_reserve_bytes, g->reserve);
		fs_config_free(&c);
	}
}

/* Each refused, the message naming the option and the value. */
static const char *const bad[] = {
	"ingest=nosuch", "ingest=", "ingest=OFF", "ingest=Seed",
	"ingest_buffer=0", "ingest_buffer=1025", "ingest_buffer=8x",
	"ingest_buffer=-1", "ingest_write=0", "ingest_write=2Gi",
	"ingest_write=1073741825", "ingest_write=lots", "ingest_write=Frame",
	"ingest_write=", "ingest_fsync=0", "ingest_fsync=sometimes",
	"ingest_fsync=1000001", "ingest_fsync=-1", "ingest_fsync=",
	"ingest_prealloc=30", "ingest_prealloc=0m", "ingest_prealloc=25h",
	"ingest_prealloc=86401s", "ingest_prealloc=1441m",
	"ingest_prealloc=1.5h", "ingest_prealloc=30ms", "ingest_prealloc=m",
	"ingest_prealloc=-1s", "ingest_prealloc=", "ingest_on_drop=pause",
	"ingest_on_drop=", "ingest_reserve=100%", "ingest_reserve=0%",
	"ingest_reserve=5%%", "ingest_reserve=x", "ingest_reserve=-1",
	"ingest_reserve=%", "ingest_reserve=", "ingest_reserve=1.5%",
	"experiment=", "experiment=xyz",
	"experiment=0f8fad5b-d9cb-469f-a165-70867728950",
	"experiment=0f8fad5b_d9cb-469f-a165-70867728950e",
	"experiment=0f8fad5b-d9cb-469f-a165-70867728950g",
	"rank=", "rank=x", "rank=-1", "rank=1000001", "rank=1.5",
};

static void test_bad(void **state)
{
	struct fs_config c;
	char msg[256], want[128];
	const char *eq;
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		eq = strchr(bad[i], '=');
		snprintf(want, sizeof(want), "timelinefs: bad %.*s '%s': "
			 "expected", (int)(eq - bad[i]), bad[i], eq + 1);
		if (read_opts(*state, bad[i], &c, msg, sizeof(msg)) == 0)
			fail_msg("'%s' taken", bad[i]);
		if (strncmp(msg, want, strlen(want)) != 0)
			fail_msg("'%s': message '%s', expected '%s...'",
				 bad[i], msg, want);
		fs_config_free(&c);
	}
}

/* The record stream settings: a preallocation of D at the preset's rate
 * is ceil(D * fps) frames; a reserve of N% is of the file system. */
static void test_rec_config(void **state)
{
	static const struct {
		const char *opts;
		struct eng_fps fps;
		int64_t frames;
		uint64_t fs_bytes, reserve;
	} cases[] = {
		{ "ingest_prealloc=30m", { 30000, 1001 }, 53947, 0, 1ULL << 30 },
		{ "ingest_prealloc=1s", { 30000, 1001 }, 30, 0, 1ULL << 30 },
		{ "ingest_prealloc=90s", { 25, 1 }, 2250, 0, 1ULL << 30 },
		/* a day at 120 fps: no overflow on the way */
		{ "ingest_prealloc=24h", { 120000, 1001 }, 10357643, 0,
		  1ULL << 30 },
		{ "ingest_reserve=5%", { 25, 1 }, 0, 1000000000000ULL,
		  50000000000ULL },
		{ "ingest_reserve=0", { 25, 1 }, 0, 1000, 0 },
	};
	struct eng_rec_config rc;
	struct fs_config c;
	char msg[256];
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		assert_int_equal(read_opts(*state, cases[i].opts, &c, msg,
					   sizeof(msg)), 0);
		memset(&rc, 0xa5, sizeof(rc));
		rc.fmt.fps = cases[i].fps;
		fs_ingest_rec_config(&c, cases[i].fs_bytes, &rc);
		assert_int_equal(rc.prealloc_frames, cases[i].frames);
		assert_int_equal(rc.reserve, cases[i].reserve);
		assert_int_equal(rc.buffer, 8);
		assert_int_equal(rc.write_bytes, 0);
		assert_int_equal(rc.fsync, ENG_INGEST_FSYNC_OFF);
		assert_int_equal(rc.stop_on_drop, 0);
		assert_int_equal(rc.replace, 0);
		assert_int_equal(rc.pace.mode, ENG_PACE_REALTIME);
		fs_config_free(&c);
	}
	assert_int_equal(read_opts(*state, "ingest_fsync=12,ingest_on_drop="
				   "stop,ingest_replace,ingest_buffer=3,"
				   "ingest_write=4096,pace=off", &c, msg,
				   sizeof(msg)), 0);
	fs_ingest_rec_config(&c, 0, &rc);
	assert_int_equal(rc.fsync, ENG_INGEST_FSYNC_EVERY);
	assert_int_equal(rc.fsync_every, 12);
	assert_int_equal(rc.stop_on_drop, 1);
	assert_int_equal(rc.replace, 1);
	assert_int_equal(rc.buffer, 3);
	assert_int_equal(rc.write_bytes, 4096);
	assert_int_equal(rc.pace.mode, ENG_PACE_OFF);
	fs_config_free(&c);
}

/* -o experiment= and rank= (many hosts): both or neither, each kept;
 * the test hook TIMELINEFS_TEST_CLOCK_OFFSET_NS read from the
 * environment, signed, and a bad one refuses the mount naming it. */
static void test_hosts(void **state)
{
	static const char *const bad_off[] = {
		"", "x", "1.5", "--1", "+5", "1e9", " 1", "86400000000001",
		"-86400000000001", "99999999999999999999",
	};
	struct fs_config c;
	char msg[256];
	size_t i;

	unsetenv("TIMELINEFS_TEST_CLOCK_OFFSET_NS");
	assert_int_equal(read_opts(*state, "", &c, msg, sizeof(msg)), 0);
	assert_null(c.experiment);
	assert_int_equal(c.rank, -1);
	assert_int_equal(c.clock_offset_ns, 0);
	fs_config_free(&c);
	assert_int_equal(read_opts(*state, "experiment=0F8FAD5B-d9cb-469f-"
				   "a165-70867728950e,rank=0", &c, msg,
				   sizeof(msg)), 0);
	assert_string_equal(c.experiment,
			    "0F8FAD5B-d9cb-469f-a165-70867728950e");
	assert_int_equal(c.rank, 0);
	fs_config_free(&c);
	assert_int_equal(read_opts(*state, "rank=17", &c, msg, sizeof(msg)),
			 -1);
	assert_string_equal(msg, "timelinefs: -o rank without -o experiment: "
			    "give both (timelinefs-hosts does) or neither");
	fs_config_free(&c);
	assert_int_equal(read_opts(*state, "experiment=0f8fad5b-d9cb-469f-"
				   "a165-70867728950e", &c, msg, sizeof(msg)),
			 -1);
	assert_string_equal(msg, "timelinefs: -o experiment without -o rank: "
			    "give both (timelinefs-hosts does) or neither");
	fs_config_free(&c);

	setenv("TIMELINEFS_TEST_CLOCK_OFFSET_NS", "-2500000", 1);
	assert_int_equal(read_opts(*state, "", &c, msg, sizeof(msg)), 0);
	assert_int_equal(c.clock_offset_ns, -2500000);
	fs_config_free(&c);
	setenv("TIMELINEFS_TEST_CLOCK_OFFSET_NS", "86400000000000", 1);
	assert_int_equal(read_opts(*state, "", &c, msg, sizeof(msg)), 0);
	assert_int_equal(c.clock_offset_ns, 86400000000000LL);
	fs_config_free(&c);
	for (i = 0; i < sizeof(bad_off) / sizeof(bad_off[0]); i++) {
		char want[128];

		setenv("TIMELINEFS_TEST_CLOCK_OFFSET_NS", bad_off[i], 1);
		snprintf(want, sizeof(want), "timelinefs: bad "
			 "TIMELINEFS_TEST_CLOCK_OFFSET_NS '%s' in the "
			 "environment: expected", bad_off[i]);
		if (read_opts(*state, "", &c, msg, sizeof(msg)) == 0)
			fail_msg("offset '%s' taken", bad_off[i]);
		if (strncmp(msg, want, strlen(want)) != 0)
			fail_msg("offset '%s': message '%s'", bad_off[i], msg);
		fs_config_free(&c);
	}
	unsetenv("TIMELINEFS_TEST_CLOCK_OFFSET_NS");
}

/* fs_config_each's values of a parsed config, "NAME=VALUE\n" each */
struct values {
	char text[8192];
};

static int add_value(void *ctx, const char *name, const char *value)
{
	struct values *v = ctx;
	size_t n = strlen(v->text);

	snprintf(v->text + n, sizeof(v->text) - n, "%s=%s\n", name, value);
	return 0;
}

/* The options whose default is said in words, not a value the option
 * takes ("none", "half the memory", MEDIA_DIR/timelines). */
static int default_in_words(const char *name)
{
	static const char *const words[] = { "db", "label", "timelines",
					     "streams_mem", "inject",
					     "picture", "experiment", "rank" };
	size_t i;

	for (i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		if (strcmp(words[i], name) == 0)
			return 1;
	return 0;
}

static int is_name(void *ctx, const char *name, const char *value)
{
	(void)value;
	if (!fs_optdoc_find(name))
		fail_msg("-o %s has no row in fs_optdocs", name);
	(*(int *)ctx)++;
	return 0;
}

/* The table -h, the man page and the README are printed from is the one
 * the options are parsed with: every option of fs_config_each has a row,
 * every row is an option fuse_opt knows (a flag turns on), and a row's
 * default, given as the option, changes nothing: the defaults it shows
 * are the code's.  A row saying buffer 9 or fps 25 fails here. */
static void test_optdocs(void **state)
{
	struct values base = { "" }, got;
	struct fs_config c;
	char msg[256], opt[128], def[64];
	size_t i;
	int n = 0;

	assert_int_equal(read_opts(*state, "", &c, msg, sizeof(msg)), 0);
	fs_config_each(&c, add_value, &base);
	fs_config_each(&c, is_name, &n);
	assert_true(n > 30);
	fs_config_free(&c);
	for (i = 0; i < fs_noptdocs; i++) {
		const struct eng_optdoc *o = &fs_optdocs[i];

		if (o->type == ENG_OT_SWITCH)
			continue;
		if (o->type == ENG_OT_FLAG) {
			snprintf(opt, sizeof(opt), "%s", o->name);
		} else {
			if (default_in_words(o->name))
				continue;
			assert_int_equal(eng_optdoc_default(o, def,
							   sizeof(def)), 1);
			snprintf(opt, sizeof(opt), "%s=%s", o->name, def);
		}
		if (read_opts(*state, opt, &c, msg, sizeof(msg)) != 0)
			fail_msg("-o %s: %s", opt, msg);
		got.text[0] = '\0';
		fs_config_each(&c, add_value, &got);
		fs_config_free(&c);
		if (o->type == ENG_OT_FLAG) {
			snprintf(opt, sizeof(opt), "\n%s=on\n", o->name);
			if (!strstr(got.text, opt))
				fail_msg("-o %s is not an option", o->name);
		} else if (strcmp(got.text, base.text) != 0) {
			fail_msg("-o %s=%s, the default -h says, is not the "
				 "default:\n%s\nvs\n%s", o->name, def,
				 got.text, base.text);
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_defaults, setup,
						env_teardown),
		cmocka_unit_test_setup_teardown(test_player_config, setup,
						env_teardown),
		cmocka_unit_test_setup_teardown(test_good, setup,
						env_teardown),
		cmocka_unit_test_setup_teardown(test_bad, setup,
						env_teardown),
		cmocka_unit_test_setup_teardown(test_rec_config, setup,
						env_teardown),
		cmocka_unit_test_setup_teardown(test_hosts, setup,
						env_teardown),
		cmocka_unit_test_setup_teardown(test_optdocs, setup,
						env_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
