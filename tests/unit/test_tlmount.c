/* SPDX-License-Identifier: MIT */
/*
 * Unit tests for engine/play/tlmount.c, the one call by which the mount
 * and timelinefs-gen --for make a mount's timelines: the folder opened
 * and placed, the caller's hook between placing and movies (its problems
 * stop the rest), each timeline's NAME.mov or why it has none, and the
 * memory check of a stream, a NAME.mov reader's preroll and all streams,
 * and an open's share of streams_mem (a file server's window given up
 * first).
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "play/tlmount.h"
#include "util/diag.h"
#include "tl_dir.h"

/* p.V.raw: 10 pictures of 2vuy 64x64 (8192 bytes); c.V.raw: 100 frames
 * of a 250 byte/s track at 25 fps. */
static const char pic[] = "fps 25\ntrack V 2vuy 64x64\nevent V p 0 10\n";
static const char raw[] = "fps 25\ntrack V 250\nevent V c 0 10\n";
static const char nomedia[] = "fps 25\ntrack V 250\nevent V d 0 10\n";

static void dir_make(struct dir *d)
{
	static char media[10 * 8192];

	dir_open(d, "test_tlmount");
	memset(media, 'x', sizeof(media));
	put(d->path, "p.V.raw", media, sizeof(media));
	put(d->path, "c.V.raw", media, 1000);
}

static void config(struct eng_tlm_config *c, const struct dir *d,
		   const struct eng_load_options *load)
{
	memset(c, 0, sizeof(*c));
	c->load = load;
	c->media_fd = d->fd;
	c->media_dir = d->path;
	c->player.buffer = 8;
	c->player.max_request = 1 << 20;
	c->player.backing = ENG_BACKING_BUFFERED;
	c->player.filler = 1;	/* as the mount's: a preroll fills ahead */
	c->preroll_ns = 500000000;
}

/* Each timeline's movie, or why none: no picture format, another
 * timeline's own name; without stream_mem no memory check. */
static void test_tlm_movies(void **state)
{
	struct eng_load_options load;
	struct eng_diag diag = { 0 };
	struct eng_tlm_config c;
	struct eng_tlm set;
	struct dir d;

	(void)state;
	dir_make(&d);
	eng_load_options_default(&load);
	config(&c, &d, &load);
	put(d.tl, "a.tl", pic, strlen(pic));
	put(d.tl, "a.mov.tl", pic, strlen(pic));
	put(d.tl, "b.tl", raw, strlen(raw));
	assert_int_equal(eng_tlm_open(d.tl, &c, &set, &diag, NULL), 0);
	assert_int_equal(diag.n, 0);
	assert_int_equal(set.n, 3);
	/* in name order: "a.mov.tl" before "a.tl" */
	assert_string_equal(set.files[0].tl->name, "a.mov");
	assert_non_null(set.files[0].mov.head);
	assert_string_equal(set.files[0].mov_name, "a.mov.mov");
	assert_null(set.files[0].no_movie);
	assert_null(set.files[0].mov_note);
	assert_string_equal(set.files[1].tl->name, "a");
	assert_null(set.files[1].mov.head);
	assert_null(set.files[1].mov_name);
	assert_non_null(strstr(set.files[1].no_movie, "a.mov.tl has that "
				"name"));
	assert_string_equal(set.files[2].no_movie,
			    "track V has no picture format");
	assert_null(set.files[2].mov.head);
	eng_tlm_free(&set);
	assert_null(set.files);
	dir_free(&d);
}

struct hook {
	int calls;
	int rc;
	size_t n;
	int placed;	/* every clip of every timeline had its media */
};

static int hook(void *ctx, const struct eng_tlm *set,
		struct eng_tlm_config *cfg, struct eng_diag *diag)
{
	struct hook *h = ctx;
	size_t i;

	h->calls++;
	h->n = set->n;
	h->placed = 1;
	for (i = 0; i < set->n; i++)
		h->placed &= set->files[i].tl->clips[0].media != NULL &&
			     set->files[i].mov.head == NULL;
	cfg->player.buffer = 100;	/* counted with what the hook says */
	if (h->rc < 0)
		eng_diag_add(diag, "hook", 0, "refused");
	return h->rc;
}

/* The hook: after placing, before the movies; its refusal stops the
 * rest; never called when a timeline fails to load or place. */
static void test_tlm_hook(void **state)
{
	struct eng_load_options load;
	struct eng_diag diag = { 0 };
	struct eng_tlm_config c;
	struct hook h = { 0 };
	struct eng_tlm set;
	uint64_t need, slots;
	struct dir d;

	(void)state;
	dir_make(&d);
	eng_load_options_default(&load);
	config(&c, &d, &load);
	c.placed = hook;
	c.placed_ctx = &h;
	put(d.tl, "a.tl", pic, strlen(pic));
	put(d.tl, "b.tl", raw, strlen(raw));
	/* the hook's buffer=100 is the one the memory check counts */
	c.player.buffer = 100;
	assert_int_equal(eng_tlm_open(d.tl, &c, &set, &diag, NULL), 0);
	assert_int_equal(eng_player_mem(set.files[0].tl, &c.player, &need,
					&slots), 0);
	eng_tlm_free(&set);
	config(&c, &d, &load);
	c.placed = hook;
	c.placed_ctx = &h;
	c.stream_mem = need - 1;
	h.calls = 0;
	assert_int_equal(eng_tlm_open(d.tl, &c, &set, &diag, NULL), -EINVAL);
	assert_int_equal(h.calls, 1);
	assert_int_equal(h.n, 2);
	assert_true(h.placed);
	assert_true(has(&diag, "buffer=100"));
	eng_tlm_free(&set);
	eng_diag_free(&diag);

	/* refused by the hook: no movie built, its problem said */
	h.rc = -EINVAL;
	c.stream_mem = 0;
	assert_int_equal(eng_tlm_open(d.tl, &c, &set, &diag, NULL), -EINVAL);
	assert_int_equal(h.calls, 2);
	assert_int_equal(set.n, 2);
	assert_null(set.files[0].mov.head);
	assert_true(has(&diag, "hook: refused"));
	eng_tlm_free(&set);
	eng_diag_free(&diag);

	/* a timeline without its media: said, the hook not called */
	put(d.tl, "c.tl", nomedia, strlen(nomedia));
	assert_int_equal(eng_tlm_open(d.tl, &c, &set, &diag, NULL), -EINVAL);
	assert_int_equal(h.calls, 2);
	assert_int_equal(set.n, 2);
	assert_true(has(&diag, "c.tl:3:"));
	eng_tlm_free(&set);
	eng_diag_free(&diag);
	dir_free(&d);
}

/* Memory: a stream past stream_mem; a NAME.mov reader (its preroll's
 * frames more) past it where the plain stream fits; past streams_mem
 * only when every stream fits stream_mem; 0 for either: no check. */
static void test_tlm_mem(void **state)
{
	struct eng_load_options load;
	struct eng_diag diag = { 0 };
	struct eng_player_config pc;
	struct eng_tlm_config c;
	struct eng_tlm set;
	uint64_t plain, movie, slots;
	struct dir d;

	(void)state;
	dir_make(&d);
	eng_load_options_default(&load);
	config(&c, &d, &load);
	c.preroll_ns = 10000000000ULL;	/* 250 frames more */
	put(d.tl, "a.tl", pic, strlen(pic));
	assert_int_equal(eng_tlm_open(d.tl, &c, &set, &diag, NULL), 0);
	pc = c.player;
	assert_int_equal(eng_player_mem(set.files[0].tl, &pc, &plain, &slots),
			 0);
	eng_tlm_movie_config(set.files[0].tl, c.preroll_ns, &pc);
	assert_int_equal(pc.preroll, 250);
	assert_int_equal(eng_player_mem(set.files[0].tl, &pc, &movie, &slots),
			 0);
	assert_true(movie > plain);
	eng_tlm_free(&set);

	static const struct {
		uint64_t stream_mem, streams_mem;
		int rc;
		const char *said;
	} cases[] = {
		{ 1, 0, -EINVAL, "each stream of this timeline needs" },
		{ 2, 0, -EINVAL, "each reader of its a.mov needs" },
		{ 3, 1, -EINVAL, "fits streams_mem=" },
		{ 3, 0, 0, NULL },
		{ 3, 3, 0, NULL },
		{ 0, 1, 0, NULL },	/* no stream_mem: no check at all */
	};
	/* 1: below the stream, 2: between it and a movie reader, 3: the
	 * movie reader's need; streams_mem 1: below the stream's */
	uint64_t at[] = { 0, plain - 1, movie - 1, movie };
	uint64_t all[] = { 0, plain - 1, 0, movie };
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		print_message("case %zu\n", i);
		c.stream_mem = at[cases[i].stream_mem];
		c.streams_mem = all[cases[i].streams_mem];
		assert_int_equal(eng_tlm_open(d.tl, &c, &set, &diag, NULL),
				 cases[i].rc);
		if (cases[i].said) {
			assert_int_equal(diag.n, 1);
			assert_true(has(&diag, cases[i].said));
		} else {
			assert_int_equal(diag.n, 0);
		}
		eng_tlm_free(&set);
		eng_diag_free(&diag);
	}
	dir_free(&d);
}

/* An open within streams_mem: a window given up before a refusal, the
 * refusal's need without it, a stream without a window refused on its
 * own need. */
static void test_tlm_reserve(void **state)
{
	struct eng_load_options load;
	struct eng_diag diag = { 0 };
	struct eng_player_config pc;
	struct eng_tlm_config c;
	struct eng_tlm set;
	uint64_t plain, smb, need, win;
	const struct eng_timeline *tl;
	struct dir d;

	(void)state;
	dir_make(&d);
	eng_load_options_default(&load);
	config(&c, &d, &load);
	put(d.tl, "a.tl", pic, strlen(pic));
	assert_int_equal(eng_tlm_open(d.tl, &c, &set, &diag, NULL), 0);
	tl = set.files[0].tl;
	pc = c.player;
	assert_int_equal(eng_player_mem(tl, &pc, &plain, NULL), 0);
	pc.window = ENG_PLAYER_WINDOW_SMB;
	assert_int_equal(eng_player_mem(tl, &pc, &smb, NULL), 0);
	assert_true(smb > plain);

	/* room for the window: kept */
	assert_int_equal(eng_tlm_reserve(tl, &pc, smb, smb, &need, &win), 0);
	assert_int_equal(need, smb);
	assert_int_equal(win, 0);
	assert_int_equal(pc.window, ENG_PLAYER_WINDOW_SMB);
	/* room without it only: given up */
	assert_int_equal(eng_tlm_reserve(tl, &pc, smb, smb - 1, &need, &win),
			 0);
	assert_int_equal(need, plain);
	assert_int_equal(win, ENG_PLAYER_WINDOW_SMB);
	assert_int_equal(pc.window, 0);
	/* not even without it: refused on that need, the window kept */
	pc.window = ENG_PLAYER_WINDOW_SMB;
	assert_int_equal(eng_tlm_reserve(tl, &pc, smb, plain - 1, &need,
					 &win), -ENOMEM);
	assert_int_equal(need, plain);
	assert_int_equal(win, 0);
	assert_int_equal(pc.window, ENG_PLAYER_WINDOW_SMB);
	/* no window: its own need, exactly the budget fits */
	pc.window = 0;
	assert_int_equal(eng_tlm_reserve(tl, &pc, plain, plain, &need, &win),
			 0);
	assert_int_equal(need, plain);
	assert_int_equal(eng_tlm_reserve(tl, &pc, plain, plain - 1, &need,
					 &win), -ENOMEM);
	assert_int_equal(need, plain);
	assert_int_equal(win, 0);
	eng_tlm_free(&set);
	dir_free(&d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tlm_movies),
		cmocka_unit_test(test_tlm_hook),
		cmocka_unit_test(test_tlm_mem),
		cmocka_unit_test(test_tlm_reserve),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
