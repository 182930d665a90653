/* SPDX-License-Identifier: MIT */
/*
 * Command line: one fuse_opt table into struct fs_config, the two positional
 * arguments, and validation of every value before anything is mounted,
 * with the defaults and ranges of the options' rows (fs_opttab.c).  It
 * touches no FUSE session, so tests/fuzz/fuzz_options.c drives it whole.
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fs.h"
#include "media/genplan.h"

enum {
	KEY_HELP,
	KEY_VERSION,
	KEY_INJECT,
	KEY_ALLOW_OTHER,
	KEY_DOC,
};

#define FS_OPT(t, p, v) { t, offsetof(struct fs_config, p), v }

static const struct fuse_opt fs_opts[] = {
	FS_OPT("db=%s", db, 0),
	FS_OPT("label=%s", label, 0),
	FS_OPT("timelines=%s", timelines, 0),
	FS_OPT("pace=%s", pace, 0),
	FS_OPT("buffer=%s", buffer_arg, 0),
	FS_OPT("backing=%s", backing, 0),
	FS_OPT("direct_io", direct_io, 1),
	FS_OPT("readahead=%s", readahead_arg, 0),
	FS_OPT("fps=%s", fps, 0),
	FS_OPT("edl_origin=%s", edl_origin, 0),
	FS_OPT("video_rate=%s", video_rate, 0),
	FS_OPT("picture=%s", picture, 0),
	FS_OPT("audio_rate=%s", audio_rate, 0),
	FS_OPT("strict", strict, 1),
	FS_OPT("record=%s", record, 0),
	FS_OPT("splice=%s", splice, 0),
	FS_OPT("hold=%s", hold_arg, 0),
	FS_OPT("max_background=%s", max_background_arg, 0),
	FS_OPT("stream_mem=%s", stream_mem_arg, 0),
	FS_OPT("streams_mem=%s", streams_mem_arg, 0),
	FS_OPT("stream_files=%s", stream_files_arg, 0),
	FS_OPT("frames_in_flight=%s", frames_in_flight_arg, 0),
	FS_OPT("preroll=%s", preroll_arg, 0),
	FS_OPT("max_threads=%s", max_threads_arg, 0),
	FS_OPT("max_idle_threads=%s", max_idle_threads_arg, 0),
	FS_OPT("ingest=%s", ingest, 0),
	FS_OPT("ingest_buffer=%s", ingest_buffer_arg, 0),
	FS_OPT("ingest_write=%s", ingest_write, 0),
	FS_OPT("ingest_fsync=%s", ingest_fsync, 0),
	FS_OPT("ingest_prealloc=%s", ingest_prealloc, 0),
	FS_OPT("ingest_on_drop=%s", ingest_on_drop, 0),
	FS_OPT("ingest_reserve=%s", ingest_reserve, 0),
	FS_OPT("ingest_replace", ingest_replace, 1),
	FS_OPT("experiment=%s", experiment, 0),
	FS_OPT("rank=%s", rank_arg, 0),
	FUSE_OPT_KEY("inject=", KEY_INJECT),
	FUSE_OPT_KEY("allow_other", KEY_ALLOW_OTHER),
	FUSE_OPT_KEY("-h", KEY_HELP),
	FUSE_OPT_KEY("--help", KEY_HELP),
	FUSE_OPT_KEY("-V", KEY_VERSION),
	FUSE_OPT_KEY("--version", KEY_VERSION),
	/* the option lists of the docs: make man-options, readme-options */
	FUSE_OPT_KEY("--doc-options=", KEY_DOC),
	/* fstab noise: words for mount(8) and systemd, which reach the daemon
	 * when mount(8) or mount.fuse3 pass them on (relatime and the other
	 * atime words: libfuse knows only noatime; x-* in opt_proc) */
	FUSE_OPT_KEY("defaults", FUSE_OPT_KEY_DISCARD),
	FUSE_OPT_KEY("auto", FUSE_OPT_KEY_DISCARD),
	FUSE_OPT_KEY("noauto", FUSE_OPT_KEY_DISCARD),
	FUSE_OPT_KEY("nofail", FUSE_OPT_KEY_DISCARD),
	FUSE_OPT_KEY("user", FUSE_OPT_KEY_DISCARD),
	FUSE_OPT_KEY("users", FUSE_OPT_KEY_DISCARD),
	FUSE_OPT_KEY("nouser", FUSE_OPT_KEY_DISCARD),
	FUSE_OPT_KEY("owner", FUSE_OPT_KEY_DISCARD),
	FUSE_OPT_KEY("group", FUSE_OPT_KEY_DISCARD),
	FUSE_OPT_KEY("_netdev", FUSE_OPT_KEY_DISCARD),
	FUSE_OPT_KEY("comment=", FUSE_OPT_KEY_DISCARD),
	FUSE_OPT_KEY("relatime", FUSE_OPT_KEY_DISCARD),
	FUSE_OPT_KEY("norelatime", FUSE_OPT_KEY_DISCARD),
	FUSE_OPT_KEY("strictatime", FUSE_OPT_KEY_DISCARD),
	FUSE_OPT_KEY("nostrictatime", FUSE_OPT_KEY_DISCARD),
	FUSE_OPT_KEY("lazytime", FUSE_OPT_KEY_DISCARD),
	FUSE_OPT_KEY("nolazytime", FUSE_OPT_KEY_DISCARD),
	FUSE_OPT_KEY("nodiratime", FUSE_OPT_KEY_DISCARD),
	FUSE_OPT_KEY("diratime", FUSE_OPT_KEY_DISCARD),
	FUSE_OPT_END
};

static void fs_config_defaults(struct fs_config *cfg);

void fs_player_config_default(struct eng_player_config *pc)
{
	struct fs_config cfg;

	fs_config_defaults(&cfg);
	fs_player_config_of(&cfg, pc);
}

static int opt_proc(void *data, const char *arg, int key,
		    struct fuse_args *outargs)
{
	struct fs_config *cfg = data;

	(void)outargs;
	switch (key) {
	case KEY_HELP:
		cfg->show_help = 1;
		return 0;
	case KEY_VERSION:
		cfg->show_version = 1;
		return 0;
	case KEY_DOC:
		free(cfg->show_doc);
		cfg->show_doc = strdup(arg + strlen("--doc-options="));
		return cfg->show_doc ? 0 : -1;
	case KEY_INJECT: {
		/* several -o inject= add up: join them as rules */
		const char *spec = arg + strlen("inject=");
		char *joined;

		if (asprintf(&joined, "%s%s%s", cfg->inject ? cfg->inject : "",
			     cfg->inject ? ";" : "", spec) < 0)
			return -1;
		free(cfg->inject);
		cfg->inject = joined;
		return 0;
	}
	case KEY_ALLOW_OTHER:
		/* passed on to libfuse; fs_config_parse adds the checks */
		cfg->allow_other = 1;
		return 1;
	case FUSE_OPT_KEY_OPT:
		/* x-systemd.automount, x-gvfs-show ...: for other programs
		 * that read fstab; fuse_opt matches no prefix without '=' */
		return strncmp(arg, "x-", 2) == 0 ? 0 : 1;
	case FUSE_OPT_KEY_NONOPT:
		if (!cfg->media_dir) {
			cfg->media_dir = strdup(arg);
			return 0;
		}
		if (!cfg->mountpoint) {
			cfg->mountpoint = strdup(arg);
			return 0;
		}
		eng_diag_add(cfg->diag, "timelinefs",
			     0, "unexpected argument '%s'", arg);
		return -1;
	}
	return 1;
}

/* The default -o streams_mem=: half the machine's memory. */
static uint64_t streams_mem_default(void)
{
	long pages = sysconf(_SC_PHYS_PAGES), psz = sysconf(_SC_PAGE_SIZE);

	/* where the machine does not say, the default stream_mem's 16
	 * streams */
	if (pages <= 0 || psz <= 0)
		return 16 * ENG_PLAYER_MEM_DEFAULT;
	return (uint64_t)pages * (uint64_t)psz / 2;
}

static void fs_config_defaults(struct fs_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->buffer = (unsigned)fs_optdoc_find("buffer")->def_n;
	cfg->readahead_kb = (unsigned)fs_optdoc_find("readahead")->def_n;
	cfg->hold = STORE_DEFAULT_HOLD;
	cfg->max_background = FS_MAX_BACKGROUND;
	cfg->stream_mem = ENG_PLAYER_MEM_DEFAULT;
	cfg->streams_mem = streams_mem_default();
	cfg->stream_files = ENG_PLAYER_FILES_DEFAULT;
	cfg->frames_in_flight =
		(unsigned)fs_optdoc_find("frames_in_flight")->def_n;
	cfg->preroll_ms = FS_PREROLL_MS;
	cfg->max_threads = FS_MAX_THREADS;
	cfg->max_idle_threads = FS_IDLE_THREADS;
	cfg->ingest_buffer = FS_INGEST_BUFFER;
	cfg->ingest_reserve_bytes = FS_INGEST_RESERVE;
	cfg->rank = -1;
	/* as parsed from the options' defaults ("realtime", "direct") */
	eng_pace_parse("realtime", &cfg->pace_v);
	eng_backing_parse("direct", &cfg->backing_v);
}

void fs_player_config_of(const struct fs_config *cfg,
			 struct eng_player_config *pc)
{
	memset(pc, 0, sizeof(*pc));
	pc->buffer = cfg->buffer;
	pc->pace = cfg->pace_v;
	pc->backing = cfg->backing_v;
	pc->max_request = FS_MAX_READ;
	/* a cached stream's: the mount's readahead, set at start */
	pc->readahead = cfg->direct_io ? 0 : (uint64_t)cfg->readahead_kb * 1024;
	pc->max_pieces = FS_IOV_MAX;
	/* paced streams issue their frames on schedule from a thread of
	 * their own, whatever the reader does (pace=off ignores it) */
	pc->filler = 1;
	pc->max_files = cfg->stream_files;
	pc->mem_max = cfg->stream_mem;
	pc->frames_in_flight = cfg->frames_in_flight;
}

/* An absolute version of path without requiring it to exist. */
static char *absolute(const char *path)
{
	char cwd[PATH_MAX], *out;

	if (path[0] == '/')
		return strdup(path);
	if (!getcwd(cwd, sizeof(cwd)))
		return NULL;
	if (asprintf(&out, "%s/%s", cwd, path) < 0)
		return NULL;
	return out;
}

/* mount(8) (an fstab line), systemd and most service managers start us in
 * /: a relative database (the default ./timelinefs.db above all) would
 * land in /timelinefs.db, a file nobody looks for beside the system's own
 * that every such mount appends to.  Refused there, naming the cure, so
 * that the refusal is seen where the mount is set up; a database in / is
 * still had by asking for it by its absolute name. */
static int check_db_dir(const char *db, struct eng_diag *diag)
{
	char cwd[PATH_MAX];

	if ((db && db[0] == '/') || !getcwd(cwd, sizeof(cwd)) ||
	    strcmp(cwd, "/") != 0)
		return 0;
	if (db)
		eng_diag_add(diag, "timelinefs", 0, "relative db=%s and the "
			     "working directory is / (as under mount(8) or "
			     "systemd): give an absolute path, e.g. "
			     "-o db=/var/lib/timelinefs/%s", db, db);
	else
		eng_diag_add(diag, "timelinefs", 0, "no -o db= and the working "
			     "directory is / (as under mount(8) or systemd), "
			     "where the default ./timelinefs.db would be "
			     "/timelinefs.db: give -o db=/ABSOLUTE/PATH");
	return -1;
}

/* Replace *p by its canonical path; the target must exist. */
static int canonical(char **p, const char *what, struct eng_diag *diag)
{
	char *r = realpath(*p, NULL);

	if (!r) {
		eng_diag_add(diag, "timelinefs", 0, "%s %s: %s", what, *p,
			     strerror(errno));
		return -1;
	}
	free(*p);
	*p = r;
	return 0;
}

/* "-o NAME=VALUE": a strict decimal in the range of NAME's row
 * (fs_optdocs) into *out, or a message naming the option.  fuse_opt's %u
 * would take "8x", " 8" and "-1". */
static int parse_uint_opt(const char *name, const char *v, const char *unit,
			  unsigned *out, struct eng_diag *diag)
{
	const struct eng_optdoc *o = fs_optdoc_find(name);
	unsigned lo = (unsigned)o->lo, hi = (unsigned)o->hi;
	int64_t n;

	if (!v)
		return 0;
	if (eng_parse_int(v, &n) < 0 || n < lo || n > hi) {
		eng_diag_add(diag, "timelinefs", 0,
			     "bad %s '%s': expected %u to %u %s", name, v, lo,
			     hi, unit);
		return -1;
	}
	*out = (unsigned)n;
	return 0;
}

/* "-o NAME=BYTES": a size above 0 into *out, or a message naming the
 * option with an example. */
static int parse_bytes_opt(const char *name, const char *v,
			   const char *example, uint64_t *out,
			   struct eng_diag *diag)
{
	if (!v)
		return 0;
	if (eng_parse_size(v, out) < 0 || *out == 0) {
		eng_diag_add(diag, "timelinefs", 0, "bad %s '%s': expected "
			     "bytes, e.g. %s", name, v, example);
		return -1;
	}
	return 0;
}

/* "0.5", "1.25s", "0": seconds to the millisecond, at most max_ms, into
 * *ms; or a message naming the option. */
static int parse_seconds_opt(const char *name, const char *v, unsigned max_ms,
			     unsigned *ms, struct eng_diag *diag)
{
	char num[16];
	const char *dot;
	size_t len, i;
	int64_t whole = 0, frac = 0;
	int bad;

	if (!v)
		return 0;
	len = strlen(v);
	if (len && v[len - 1] == 's')
		len--;
	bad = len == 0 || len >= sizeof(num);
	if (!bad) {
		memcpy(num, v, len);
		num[len] = '\0';
		dot = strchr(num, '.');
		if (dot) {
			size_t nf = strlen(dot + 1);

			bad = nf == 0 || nf > 3 || dot == num;
			for (i = 0; !bad && i < nf; i++)
				bad = !isdigit((unsigned char)dot[1 + i]);
			if (!bad) {
				frac = atoi(dot + 1);
				for (i = nf; i < 3; i++)
					frac *= 10;
				num[dot - num] = '\0';
			}
		}
		bad = bad || eng_parse_int(num, &whole) < 0 || whole < 0 ||
		      whole * 1000 + frac > max_ms;
	}
	if (bad) {
		eng_diag_add(diag, "timelinefs", 0, "bad %s '%s': expected "
			     "seconds from 0 to %u, to the millisecond, e.g. "
			     "0.5", name, v, max_ms / 1000);
		return -1;
	}
	*ms = (unsigned)(whole * 1000 + frac);
	return 0;
}

/* "90s", "30m", "2h": a whole number of seconds, minutes or hours, more
 * than 0 and at most a day (a longer preallocation is a typo: a day of
 * the seed is 1.6 TB a track), in ns. */
static int parse_duration(const char *v, uint64_t *ns)
{
	static const struct {
		char unit;
		uint64_t sec;
	} units[] = { { 's', 1 }, { 'm', 60 }, { 'h', 3600 } };
	char num[16];
	size_t len = strlen(v), i;
	int64_t n;

	if (len < 2 || len > sizeof(num))
		return -EINVAL;
	memcpy(num, v, len - 1);
	num[len - 1] = '\0';
	if (eng_parse_int(num, &n) < 0 || n <= 0)
		return -EINVAL;
	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (v[len - 1] == units[i].unit) {
			if ((uint64_t)n > 86400 / units[i].sec)
				return -ERANGE;
			*ns = (uint64_t)n * units[i].sec * ENG_NS_PER_SEC;
			return 0;
		}
	return -EINVAL;
}

/* -o ingest and ingest_* (docs/design.md "Ingest"): each value checked
 * here, before anything is mounted, with a message naming the option. */
static int parse_ingest_options(struct fs_config *cfg, struct eng_diag *diag)
{
	const struct eng_gen_format *f;
	size_t nf;
	int64_t n;

	if (cfg->ingest && strcmp(cfg->ingest, "off") == 0) {
		cfg->ingest_preset = NULL;
	} else if (cfg->ingest) {
		f = eng_gen_format_find(cfg->ingest);
		if (!f) {
			eng_diag_add(diag, "timelinefs", 0, "bad ingest '%s': "
				     "expected off or a preset of "
				     "timelinefs-gen --format list",
				     cfg->ingest);
			return -1;
		}
		cfg->ingest_preset = f->name;
	} else {
		cfg->ingest_preset = eng_gen_formats(&nf)[0].name;
	}
	if (parse_uint_opt("ingest_buffer", cfg->ingest_buffer_arg, "frames",
			   &cfg->ingest_buffer, diag) < 0)
		return -1;
	/* Linux moves at most 2 GiB - 4 KiB in one write: a larger piece
	 * would be several anyway, and is more likely a typo */
	if (cfg->ingest_write && strcmp(cfg->ingest_write, "frame") != 0 &&
	    (eng_parse_size(cfg->ingest_write, &cfg->ingest_write_bytes) < 0 ||
	     cfg->ingest_write_bytes == 0 ||
	     cfg->ingest_write_bytes > 1024 * 1024 * 1024)) {
		eng_diag_add(diag, "timelinefs", 0, "bad ingest_write '%s': "
			     "expected frame or bytes from 1 to 1Gi, e.g. "
			     "256Ki", cfg->ingest_write);
		return -1;
	}
	if (!cfg->ingest_fsync || strcmp(cfg->ingest_fsync, "off") == 0) {
		cfg->ingest_fsync_v = ENG_INGEST_FSYNC_OFF;
	} else if (strcmp(cfg->ingest_fsync, "close") == 0) {
		cfg->ingest_fsync_v = ENG_INGEST_FSYNC_CLOSE;
	} else if (eng_parse_int(cfg->ingest_fsync, &n) == 0 && n >= 1 &&
		   n <= 1000000) {
		cfg->ingest_fsync_v = ENG_INGEST_FSYNC_EVERY;
		cfg->ingest_fsync_every = (unsigned)n;
	} else {
		eng_diag_add(diag, "timelinefs", 0, "bad ingest_fsync '%s': "
			     "expected off, close or a number of frames from "
			     "1 to 1000000", cfg->ingest_fsync);
		return -1;
	}
	if (cfg->ingest_prealloc && strcmp(cfg->ingest_prealloc, "off") != 0 &&
	    parse_duration(cfg->ingest_prealloc, &cfg->ingest_prealloc_ns) < 0) {
		eng_diag_add(diag, "timelinefs", 0, "bad ingest_prealloc '%s': "
			     "expected off or a duration like 90s, 30m or 2h "
			     "(at most 24h)", cfg->ingest_prealloc);
		return -1;
	}
	if (!cfg->ingest_on_drop ||
	    strcmp(cfg->ingest_on_drop, "continue") == 0) {
		cfg->ingest_stop_on_drop = 0;
	} else if (strcmp(cfg->ingest_on_drop, "stop") == 0) {
		cfg->ingest_stop_on_drop = 1;
	} else {
		eng_diag_add(diag, "timelinefs", 0, "bad ingest_on_drop '%s': "
			     "expected continue or stop", cfg->ingest_on_drop);
		return -1;
	}
	if (cfg->ingest_reserve) {
		size_t len = strlen(cfg->ingest_reserve);
		char pct[8];
		int bad;

		if (len > 1 && cfg->ingest_reserve[len - 1] == '%') {
			bad = len > sizeof(pct);
			if (!bad) {
				memcpy(pct, cfg->ingest_reserve, len - 1);
				pct[len - 1] = '\0';
				bad = eng_parse_int(pct, &n) < 0 || n < 1 ||
				      n > 99;
			}
			if (!bad)
				cfg->ingest_reserve_pct = (unsigned)n;
		} else {
			bad = eng_parse_size(cfg->ingest_reserve,
					     &cfg->ingest_reserve_bytes) < 0;
		}
		if (bad) {
			eng_diag_add(diag, "timelinefs", 0, "bad ingest_reserve "
				     "'%s': expected bytes, e.g. 1Gi or 0, or a "
				     "percentage of the file system from 1%% to "
				     "99%%", cfg->ingest_reserve);
			return -1;
		}
	}
	return 0;
}

void fs_ingest_rec_config(const struct fs_config *cfg, uint64_t fs_bytes,
			  struct eng_rec_config *rc)
{
	/* a day of frames: at most 86400 * 120000 / 1 fits with room */
	unsigned __int128 frames =
		((unsigned __int128)cfg->ingest_prealloc_ns * rc->fmt.fps.num +
		 (unsigned __int128)rc->fmt.fps.den * ENG_NS_PER_SEC - 1) /
		((unsigned __int128)rc->fmt.fps.den * ENG_NS_PER_SEC);

	rc->buffer = cfg->ingest_buffer;
	rc->pace = cfg->pace_v;
	rc->write_bytes = cfg->ingest_write_bytes;
	rc->fsync = cfg->ingest_fsync_v;
	rc->fsync_every = cfg->ingest_fsync_every;
	rc->prealloc_frames = rc->fmt.fps.den ? (int64_t)frames : 0;
	rc->stop_on_drop = cfg->ingest_stop_on_drop;
	rc->reserve = cfg->ingest_reserve_pct ?
			      fs_bytes / 100 * cfg->ingest_reserve_pct :
			      cfg->ingest_reserve_bytes;
	rc->replace = cfg->ingest_replace;
}

/* A UUID as timelinefs-hosts writes it: 8-4-4-4-12 hexadecimal digits. */
static int is_uuid(const char *v)
{
	size_t i;

	if (strlen(v) != 36)
		return 0;
	for (i = 0; i < 36; i++) {
		int dash = i == 8 || i == 13 || i == 18 || i == 23;

		if (dash ? v[i] != '-' : !isxdigit((unsigned char)v[i]))
			return 0;
	}
	return 1;
}

/* -o experiment= and rank= (many hosts, docs/hosts.md), and the test hook
 * TIMELINEFS_TEST_CLOCK_OFFSET_NS: ns added to the run's realtime epoch
 * (run.t0_unix_ns), as on a host whose clock is off by that much. */
static int parse_hosts_options(struct fs_config *cfg, struct eng_diag *diag)
{
	const char *off = getenv("TIMELINEFS_TEST_CLOCK_OFFSET_NS");
	unsigned rank;
	int64_t n;

	if (cfg->experiment && !is_uuid(cfg->experiment)) {
		eng_diag_add(diag, "timelinefs", 0, "bad experiment '%s': "
			     "expected a UUID like "
			     "0f8fad5b-d9cb-469f-a165-70867728950e",
			     cfg->experiment);
		return -1;
	}
	if (parse_uint_opt("rank", cfg->rank_arg, "(an MPI rank)",
			   &rank, diag) < 0)
		return -1;
	cfg->rank = cfg->rank_arg ? (int)rank : -1;
	if (!cfg->experiment != !cfg->rank_arg) {
		eng_diag_add(diag, "timelinefs", 0, "-o %s without -o %s: "
			     "give both (timelinefs-hosts does) or neither",
			     cfg->experiment ? "experiment" : "rank",
			     cfg->experiment ? "rank" : "experiment");
		return -1;
	}
	cfg->clock_offset_ns = 0;
	if (off) {
		/* a day either way: more is a typo, not a clock */
		int neg = off[0] == '-';

		if (eng_parse_int(off + neg, &n) < 0 ||
		    n > 86400LL * 1000000000LL) {
			eng_diag_add(diag, "timelinefs", 0, "bad "
				     "TIMELINEFS_TEST_CLOCK_OFFSET_NS '%s' in "
				     "the environment: expected a whole "
				     "number of ns from -86400000000000 to "
				     "86400000000000", off);
			return -1;
		}
		cfg->clock_offset_ns = neg ? -n : n;
	}
	return 0;
}

/* Track options (so both .tl and the load options see the rate defaults). */
static int parse_load_options(struct fs_config *cfg, struct eng_diag *diag)
{
	struct eng_load_options *o = &cfg->load;
	char why[128];

	eng_load_options_default(o);
	o->strict = cfg->strict;
	if (cfg->fps && eng_parse_fps(cfg->fps, &o->fps) < 0) {
		eng_diag_add(diag, "timelinefs", 0, "bad fps '%s': expected "
			     "N/D, N or 29.97-style decimal", cfg->fps);
		return -1;
	}
	if (cfg->video_rate && (eng_parse_size(cfg->video_rate,
					       &o->video_rate) < 0 ||
				o->video_rate == 0)) {
		eng_diag_add(diag, "timelinefs", 0, "bad video_rate '%s': "
			     "expected bytes per second, e.g. 18M",
			     cfg->video_rate);
		return -1;
	}
	/* A picture gives the video tracks their bytes (whole pictures at
	 * each timeline's frame rate), as video_rate does: one of the two. */
	if (cfg->picture && eng_picture_option_parse(cfg->picture, &o->picture,
						     why, sizeof(why)) < 0) {
		eng_diag_add(diag, "timelinefs", 0, "bad picture '%s': %s",
			     cfg->picture, why);
		return -1;
	}
	if (cfg->video_rate && o->picture.pix != ENG_PIX_NONE) {
		eng_diag_add(diag, "timelinefs", 0, "bad picture '%s': "
			     "-o video_rate=%s also sets the video tracks' "
			     "bytes; give one of the two", cfg->picture,
			     cfg->video_rate);
		return -1;
	}
	if (cfg->audio_rate && eng_parse_size(cfg->audio_rate,
					      &o->audio_rate) < 0) {
		eng_diag_add(diag, "timelinefs", 0, "bad audio_rate '%s': "
			     "expected bytes per second, e.g. 144000",
			     cfg->audio_rate);
		return -1;
	}
	/* the rule timelinefs-gen --audio-rate follows, in its words */
	if (cfg->audio_rate && eng_audio_rate_check(o->audio_rate, o->audio_align, why,
				 sizeof(why)) < 0) {
		eng_diag_add(diag, "timelinefs", 0, "bad audio_rate '%s': %s",
			     cfg->audio_rate, why);
		return -1;
	}
	/* the timecode's frame depends on each EDL's rate: its parser
	 * tells a frame that does not exist there */
	if (cfg->edl_origin && eng_edl_origin_parse(cfg->edl_origin, o, why,
						    sizeof(why)) < 0) {
		eng_diag_add(diag, "timelinefs", 0, "bad edl_origin '%s': %s",
			     cfg->edl_origin, why);
		return -1;
	}
	return 0;
}

int fs_config_read(struct fuse_args *args, struct fs_config *cfg,
		   struct eng_diag *diag)
{
	struct stat sb;
	int e;

	fs_config_defaults(cfg);
	/* opt_proc's messages: it is handed cfg only */
	cfg->diag = diag;
	if (fuse_opt_parse(args, cfg, fs_opts, opt_proc) == -1) {
		cfg->diag = NULL;
		return -1;
	}
	cfg->diag = NULL;
	if (cfg->show_help || cfg->show_version || cfg->show_doc)
		return 0;
	if (!cfg->media_dir || !cfg->mountpoint) {
		eng_diag_add(diag, "timelinefs", 0, "need MEDIA_DIR and "
			     "MOUNTPOINT (see timelinefs -h)");
		return -1;
	}
	if (canonical(&cfg->media_dir, "media folder", diag) < 0 ||
	    canonical(&cfg->mountpoint, "mount point", diag) < 0)
		return -1;
	/* FUSE would mount on a file too, as a file: not a folder of
	 * timelines, and then the root's type would not match */
	e = stat(cfg->mountpoint, &sb) < 0 ? errno :
	    !S_ISDIR(sb.st_mode) ? ENOTDIR : 0;
	if (e) {
		eng_diag_add(diag, "timelinefs", 0, "mount point %s: %s",
			     cfg->mountpoint, strerror(e));
		return -1;
	}
	if (!cfg->timelines &&
	    asprintf(&cfg->timelines, "%s/timelines", cfg->media_dir) < 0)
		return -1;
	if (canonical(&cfg->timelines, "timelines folder", diag) < 0)
		return -1;
	if (check_db_dir(cfg->db, diag) < 0)
		return -1;
	{
		char *db = absolute(cfg->db ? cfg->db : "timelinefs.db");

		if (!db)
			return -1;
		free(cfg->db);
		cfg->db = db;
	}
	if (cfg->pace && eng_pace_parse(cfg->pace, &cfg->pace_v) < 0) {
		eng_diag_add(diag, "timelinefs", 0, "bad pace '%s': expected "
			     "realtime, off or a positive factor", cfg->pace);
		return -1;
	}
	if (cfg->backing &&
	    eng_backing_parse(cfg->backing, &cfg->backing_v) < 0) {
		eng_diag_add(diag, "timelinefs", 0, "bad backing '%s': "
			     "expected direct, buffered or dontneed",
			     cfg->backing);
		return -1;
	}
	if (parse_uint_opt("buffer", cfg->buffer_arg, "frames",
			   &cfg->buffer, diag) < 0)
		return -1;
	if (!cfg->record || strcmp(cfg->record, "all") == 0) {
		cfg->record_v = FS_RECORD_ALL;
	} else if (strcmp(cfg->record, "streams") == 0) {
		cfg->record_v = FS_RECORD_STREAMS;
	} else if (strcmp(cfg->record, "off") == 0) {
		cfg->record_v = FS_RECORD_OFF;
	} else {
		eng_diag_add(diag, "timelinefs", 0, "bad record '%s': "
			     "expected all, streams or off", cfg->record);
		return -1;
	}
	if (!cfg->splice || strcmp(cfg->splice, "auto") == 0) {
		cfg->splice_v = ENG_SPLICE_AUTO;
	} else if (strcmp(cfg->splice, "pipes") == 0) {
		cfg->splice_v = ENG_SPLICE_PIPES;
	} else if (strcmp(cfg->splice, "off") == 0) {
		cfg->splice_v = 0;
	} else {
		eng_diag_add(diag, "timelinefs", 0, "bad splice '%s': "
			     "expected auto, pipes or off", cfg->splice);
		return -1;
	}
	if (parse_uint_opt("hold", cfg->hold_arg, "rows",
			   &cfg->hold, diag) < 0)
		return -1;
	/* the kernel's field is 16 bits wide */
	if (parse_uint_opt("max_background", cfg->max_background_arg,
			   "requests", &cfg->max_background, diag) < 0)
		return -1;
	if (parse_uint_opt("readahead", cfg->readahead_arg, "KiB",
			   &cfg->readahead_kb, diag) < 0)
		return -1;
	if (parse_bytes_opt("stream_mem", cfg->stream_mem_arg, "256Mi",
			    &cfg->stream_mem, diag) < 0 ||
	    parse_bytes_opt("streams_mem", cfg->streams_mem_arg, "4Gi",
			    &cfg->streams_mem, diag) < 0)
		return -1;
	if (parse_uint_opt("stream_files", cfg->stream_files_arg, "files",
			   &cfg->stream_files, diag) < 0)
		return -1;
	if (parse_uint_opt("frames_in_flight", cfg->frames_in_flight_arg, "frames",
			   &cfg->frames_in_flight, diag) < 0)
		return -1;
	if (parse_seconds_opt("preroll", cfg->preroll_arg, FS_PREROLL_MAX_MS,
			      &cfg->preroll_ms, diag) < 0)
		return -1;
	if (parse_uint_opt("max_threads", cfg->max_threads_arg, "threads",
			   &cfg->max_threads, diag) < 0 ||
	    parse_uint_opt("max_idle_threads", cfg->max_idle_threads_arg,
			   "threads", &cfg->max_idle_threads, diag) < 0)
		return -1;
	if (cfg->max_idle_threads > cfg->max_threads) {
		eng_diag_add(diag, "timelinefs", 0, "max_idle_threads=%u is "
			     "more than max_threads=%u: give at most as many "
			     "idle threads as threads", cfg->max_idle_threads,
			     cfg->max_threads);
		return -1;
	}
	if (parse_ingest_options(cfg, diag) < 0)
		return -1;
	if (parse_hosts_options(cfg, diag) < 0)
		return -1;
	/* its messages are "inject:RULE: reason", each naming the rule */
	if (cfg->inject) {
		size_t before = diag ? diag->n : 0;

		if (eng_inject_parse(cfg->inject, &cfg->inject_v, diag) < 0) {
			if (!diag || diag->n == before)
				eng_diag_add(diag, "timelinefs", 0,
					     "bad inject '%s'", cfg->inject);
			return -1;
		}
	}
	/* other users' processes may read: let the kernel check the modes
	 * (0444 files, 0555 root) instead of trusting every caller */
	if (cfg->allow_other &&
	    fuse_opt_add_arg(args, "-odefault_permissions") < 0)
		return -1;
	return parse_load_options(cfg, diag);
}

int fs_config_parse(struct fuse_args *args, struct fs_config *cfg)
{
	struct eng_diag diag = { 0 };
	size_t i;
	int rc;

	rc = fs_config_read(args, cfg, &diag);
	for (i = 0; i < diag.n; i++)
		fprintf(stderr, "%s\n", diag.msgs[i]);
	eng_diag_free(&diag);
	return rc;
}

int fs_config_each(const struct fs_config *cfg,
		   int (*fn)(void *ctx, const char *name, const char *value),
		   void *ctx)
{
	char buffer[16], ra[16], hold[16], mb[16], smem[24], sfiles[16];
	char ssmem[24];
	char fif[16], ibuf[16], rank[16], mt[16], mit[16], pre[16];
	const char *const v[][2] = {
		{ "db", cfg->db },
		{ "label", cfg->label ? cfg->label : "" },
		{ "timelines", cfg->timelines },
		{ "pace", cfg->pace ? cfg->pace : "realtime" },
		{ "buffer", buffer },
		{ "backing", cfg->backing ? cfg->backing : "direct" },
		{ "direct_io", cfg->direct_io ? "on" : "off" },
		{ "readahead", ra },
		{ "fps", cfg->fps ? cfg->fps : "29.97" },
		{ "edl_origin", cfg->edl_origin ? cfg->edl_origin : "min" },
		{ "video_rate", cfg->video_rate ? cfg->video_rate : "18M" },
		{ "picture", cfg->picture ? cfg->picture : "none" },
		{ "audio_rate", cfg->audio_rate ? cfg->audio_rate : "144000" },
		{ "strict", cfg->strict ? "on" : "off" },
		{ "inject", cfg->inject ? cfg->inject : "" },
		{ "allow_other", cfg->allow_other ? "on" : "off" },
		{ "record", cfg->record ? cfg->record : "all" },
		{ "hold", hold },
		{ "max_background", mb },
		{ "splice", cfg->splice ? cfg->splice : "auto" },
		{ "stream_mem", smem },
		{ "streams_mem", ssmem },
		{ "stream_files", sfiles },
		{ "frames_in_flight", fif },
		{ "preroll", pre },
		{ "max_threads", mt },
		{ "max_idle_threads", mit },
		{ "ingest", cfg->ingest_preset ? cfg->ingest_preset : "off" },
		{ "ingest_buffer", ibuf },
		{ "ingest_write", cfg->ingest_write ? cfg->ingest_write :
			"frame" },
		{ "ingest_fsync", cfg->ingest_fsync ? cfg->ingest_fsync : "off" },
		{ "ingest_prealloc", cfg->ingest_prealloc ?
			cfg->ingest_prealloc : "off" },
		{ "ingest_on_drop", cfg->ingest_on_drop ? cfg->ingest_on_drop :
			"continue" },
		{ "ingest_reserve", cfg->ingest_reserve ? cfg->ingest_reserve :
			"1Gi" },
		{ "ingest_replace", cfg->ingest_replace ? "on" : "off" },
		{ "experiment", cfg->experiment ? cfg->experiment : "" },
		{ "rank", rank },
	};
	size_t i;
	int rc = 0;

	snprintf(buffer, sizeof(buffer), "%u", cfg->buffer);
	snprintf(ra, sizeof(ra), "%u", cfg->readahead_kb);
	snprintf(hold, sizeof(hold), "%u", cfg->hold);
	snprintf(mb, sizeof(mb), "%u", cfg->max_background);
	snprintf(smem, sizeof(smem), "%" PRIu64, cfg->stream_mem);
	snprintf(ssmem, sizeof(ssmem), "%" PRIu64, cfg->streams_mem);
	snprintf(sfiles, sizeof(sfiles), "%u", cfg->stream_files);
	snprintf(fif, sizeof(fif), "%u", cfg->frames_in_flight);
	snprintf(mt, sizeof(mt), "%u", cfg->max_threads);
	snprintf(pre, sizeof(pre), "%u.%03u", cfg->preroll_ms / 1000,
		 cfg->preroll_ms % 1000);
	snprintf(mit, sizeof(mit), "%u", cfg->max_idle_threads);
	snprintf(ibuf, sizeof(ibuf), "%u", cfg->ingest_buffer);
	if (cfg->rank >= 0)
		snprintf(rank, sizeof(rank), "%d", cfg->rank);
	else
		rank[0] = '\0';
	for (i = 0; i < sizeof(v) / sizeof(v[0]) && rc == 0; i++)
		rc = fn(ctx, v[i][0], v[i][1] ? v[i][1] : "");
	return rc;
}

void fs_config_free(struct fs_config *cfg)
{
	free(cfg->media_dir);
	free(cfg->mountpoint);
	free(cfg->db);
	free(cfg->label);
	free(cfg->timelines);
	free(cfg->pace);
	free(cfg->backing);
	free(cfg->fps);
	free(cfg->edl_origin);
	free(cfg->video_rate);
	free(cfg->picture);
	free(cfg->audio_rate);
	free(cfg->record);
	free(cfg->splice);
	free(cfg->buffer_arg);
	free(cfg->readahead_arg);
	free(cfg->hold_arg);
	free(cfg->max_background_arg);
	free(cfg->stream_mem_arg);
	free(cfg->streams_mem_arg);
	free(cfg->stream_files_arg);
	free(cfg->frames_in_flight_arg);
	free(cfg->max_threads_arg);
	free(cfg->preroll_arg);
	free(cfg->max_idle_threads_arg);
	free(cfg->ingest);
	free(cfg->ingest_buffer_arg);
	free(cfg->ingest_write);
	free(cfg->ingest_fsync);
	free(cfg->ingest_prealloc);
	free(cfg->ingest_on_drop);
	free(cfg->ingest_reserve);
	free(cfg->inject);
	free(cfg->experiment);
	free(cfg->rank_arg);
	free(cfg->show_doc);
	eng_inject_free(cfg->inject_v);
	free(cfg->options);
}
