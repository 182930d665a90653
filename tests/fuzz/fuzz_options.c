/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target for the whole command line (fs/options.c): the input is
 * an argv, one argument per line (or NUL-separated), after "timelinefs".
 * fs_config_read must never crash, leak or hit undefined behaviour; a
 * command line it refuses must come with a message that names what was
 * refused (an option given, the argument, a folder, or what is missing),
 * every message printable; one it accepts must hold only checked values.
 * Each input is parsed in a scratch folder holding media/timelines and
 * mnt (the working folder is restored after it, so that libFuzzer's own
 * relative paths keep working), so that "media mnt" lines get past the
 * path checks to the option values.  The folder is made in $TMPDIR and
 * removed at exit; libFuzzer's single-input runs and crashes skip exit
 * handlers, so run-fuzz.sh points TMPDIR at build/fuzz/tmp and clears it.
 *   make fuzz (tests/run-fuzz.sh) builds and runs it on
 *   build/fuzz/seed/options (tests/fuzz/corpus/options)
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fs.h"

#define FZ_ARGS_MAX 64
#define FZ_INPUT_MAX 4096

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char fz_dir[64];
static int fz_home = -1;	/* the working folder libFuzzer was started in */
static char fz_log[4096];	/* what libfuse's fuse_opt said, this input */
static size_t fz_log_len;

static void fz_cleanup(void)
{
	char p[128];

	snprintf(p, sizeof(p), "%s/media/timelines", fz_dir);
	rmdir(p);
	snprintf(p, sizeof(p), "%s/media", fz_dir);
	rmdir(p);
	snprintf(p, sizeof(p), "%s/mnt", fz_dir);
	rmdir(p);
	rmdir(fz_dir);
}

static void fz_log_func(enum fuse_log_level level, const char *fmt,
			va_list ap)
{
	int n;

	(void)level;
	if (fz_log_len >= sizeof(fz_log) - 1)
		return;
	n = vsnprintf(fz_log + fz_log_len, sizeof(fz_log) - fz_log_len, fmt,
		      ap);
	if (n > 0)
		fz_log_len += (size_t)n < sizeof(fz_log) - fz_log_len
				      ? (size_t)n
				      : sizeof(fz_log) - 1 - fz_log_len;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const char *tmp = getenv("TMPDIR");

	(void)argc;
	(void)argv;
	snprintf(fz_dir, sizeof(fz_dir), "%s/fuzz_options.XXXXXX",
		 tmp && strlen(tmp) < 32 ? tmp : "/tmp");
	fz_home = open(".", O_RDONLY | O_DIRECTORY);
	if (fz_home < 0 || !mkdtemp(fz_dir) || chdir(fz_dir) != 0 ||
	    mkdir("media", 0755) != 0 || mkdir("media/timelines", 0755) != 0 ||
	    mkdir("mnt", 0755) != 0 || fchdir(fz_home) != 0) {
		perror("fuzz_options: scratch folder");
		exit(1);
	}
	atexit(fz_cleanup);
	fuse_set_log_func(fz_log_func);
	return 0;
}

/* The -o strings of argv as fuse_opt sees them ("-o X" and "-oX", none
 * after "--"): *i is where to look on, returns NULL after the last. */
static const char *next_opts(char **argv, int argc, int *i)
{
	for (; *i < argc; (*i)++) {
		const char *a = argv[*i];

		if (strcmp(a, "--") == 0)
			break;
		if (strcmp(a, "-o") == 0 && *i + 1 < argc) {
			*i += 2;
			return argv[*i - 1];
		}
		if (strncmp(a, "-o", 2) == 0 && a[2]) {
			(*i)++;
			return a + 2;
		}
	}
	*i = argc;
	return NULL;
}

/* The value the command line last gave option `name` ("name=VALUE" among
 * the ','-separated -o elements, a backslash quoting the next byte or
 * giving one in octal, as fuse_opt reads them) into out; 0 when it gave
 * none. */
static int last_value(char **argv, int argc, const char *name, char *out,
		      size_t size)
{
	char el[8192];	/* above -max_len: never truncated */
	const char *o;
	size_t n = strlen(name), k;
	int i = 1, found = 0;

	while ((o = next_opts(argv, argc, &i)) != NULL) {
		while (*o) {
			for (k = 0; *o && *o != ','; o++) {
				char ch = *o;

				if (*o == '\\' && o[1]) {
					o++;
					ch = *o;
					/* fuse_opt reads \ooo (000-377) as
					 * that byte; \000 ends the value */
					if (o[0] >= '0' && o[0] <= '3' &&
					    o[1] >= '0' && o[1] <= '7' &&
					    o[2] >= '0' && o[2] <= '7') {
						ch = (char)((o[0] - '0') * 64 +
							    (o[1] - '0') * 8 +
							    (o[2] - '0'));
						o += 2;
					}
				}
				if (k + 1 < sizeof(el))
					el[k++] = ch;
			}
			el[k] = '\0';
			if (*o)
				o++;
			if (strncmp(el, name, n) == 0 && el[n] == '=') {
				snprintf(out, size, "%s", el + n + 1);
				found = 1;
			}
		}
	}
	return found;
}

static int given(char **argv, int argc, const char *name)
{
	char v[8];

	return last_value(argv, argc, name, v, sizeof(v));
}

/* A message of fs_config_read names what it refused. */
static int names_it(const char *msg, char **argv, int argc)
{
	static const char *const opts[] = {
		"fps", "video_rate", "audio_rate", "edl_origin", "pace",
		"backing", "buffer", "record", "readahead", "inject", "hold",
		"splice", "max_background", "stream_mem", "stream_files",
		"picture", "frames_in_flight", "ingest", "ingest_buffer",
		"ingest_write", "ingest_fsync", "ingest_prealloc",
		"ingest_on_drop", "ingest_reserve", "experiment", "rank",
		"streams_mem", "preroll", "max_threads", "max_idle_threads",
	};
	static const char *const fixed[] = {
		"timelinefs: need MEDIA_DIR and MOUNTPOINT",
		"timelinefs: unexpected argument '",
		"timelinefs: media folder ",
		"timelinefs: mount point ",
		"timelinefs: timelines folder ",
		/* -o experiment= and rank= go together */
		"timelinefs: -o experiment without -o rank",
		"timelinefs: -o rank without -o experiment",
		/* max_idle_threads above max_threads: both named */
		"timelinefs: max_idle_threads=",
	};
	char want[64];
	size_t i;

	for (i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++)
		if (strncmp(msg, fixed[i], strlen(fixed[i])) == 0)
			return 1;
	if (strncmp(msg, "inject:", 7) == 0)
		return given(argv, argc, "inject");
	for (i = 0; i < sizeof(opts) / sizeof(opts[0]); i++) {
		snprintf(want, sizeof(want), "timelinefs: bad %s '", opts[i]);
		if (strncmp(msg, want, strlen(want)) == 0)
			return given(argv, argc, opts[i]);
	}
	return 0;
}

/* fuse_opt quotes what it refused as `...': it must be in the input. */
static int log_names_it(const uint8_t *data, size_t size)
{
	const char *q = strchr(fz_log, '`'), *e;

	if (!q || !(e = strchr(q + 1, '\'')))
		return 0;
	return e == q + 1 ||
	       memmem(data, size, q + 1, (size_t)(e - q - 1)) != NULL;
}

static int printable(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			return 0;
	return 1;
}

/* s is all digits (leading zeros allowed) and its value is v. */
static int same_number(const char *s, unsigned v)
{
	uint64_t n = 0;

	if (!*s)
		return 0;
	for (; *s; s++) {
		if (*s < '0' || *s > '9' || n > UINT32_MAX)
			return 0;
		n = n * 10 + (uint64_t)(*s - '0');
	}
	return n == v;
}

/* An accepted command line holds checked values only. */
static void check_accepted(const struct fs_config *c, char **argv, int argc)
{
	char val[8192];	/* as el in last_value */

	/* answered, not mounted (-h, -V, --doc-options): nothing checked */
	if (c->show_help || c->show_version || c->show_doc)
		return;
	if (!c->media_dir || c->media_dir[0] != '/' || !c->mountpoint ||
	    c->mountpoint[0] != '/' || !c->timelines ||
	    c->timelines[0] != '/' || !c->db || c->db[0] != '/')
		__builtin_trap();
	if (c->buffer < 1 || c->buffer > 10000 ||
	    c->readahead_kb > 1024 * 1024 || c->hold > 100000000 ||
	    c->max_background < 1 || c->max_background > 65535 ||
	    c->stream_mem == 0 || c->stream_files < 1 ||
	    c->stream_files > 1024 * 1024 || c->frames_in_flight < 1 ||
	    c->frames_in_flight > ENG_PLAYER_IN_FLIGHT_MAX)
		__builtin_trap();
	/* the value as given is the value used: no "8x" read as 8 */
	if (last_value(argv, argc, "buffer", val, sizeof(val)) &&
	    !same_number(val, c->buffer))
		__builtin_trap();
	if (last_value(argv, argc, "hold", val, sizeof(val)) &&
	    !same_number(val, c->hold))
		__builtin_trap();
	if (last_value(argv, argc, "max_background", val, sizeof(val)) &&
	    !same_number(val, c->max_background))
		__builtin_trap();
	if (last_value(argv, argc, "readahead", val, sizeof(val)) &&
	    !same_number(val, c->readahead_kb))
		__builtin_trap();
	if (last_value(argv, argc, "stream_files", val, sizeof(val)) &&
	    !same_number(val, c->stream_files))
		__builtin_trap();
	if (last_value(argv, argc, "frames_in_flight", val, sizeof(val)) &&
	    !same_number(val, c->frames_in_flight))
		__builtin_trap();
	if (!c->load.fps.num || !c->load.fps.den || !c->load.video_rate ||
	    !c->load.audio_rate || !(c->pace_v.speed > 0))
		__builtin_trap();
	if (!!c->inject != !!c->inject_v)
		__builtin_trap();
	/* ingest: checked ranges, off only when asked, as given */
	if (c->ingest_buffer < 1 || c->ingest_buffer > FS_INGEST_BUFFER_MAX ||
	    c->ingest_write_bytes > 1024 * 1024 * 1024 ||
	    (c->ingest_fsync_v == ENG_INGEST_FSYNC_EVERY &&
	     c->ingest_fsync_every < 1) ||
	    c->ingest_prealloc_ns > 86400 * ENG_NS_PER_SEC ||
	    c->ingest_reserve_pct > 99 ||
	    !c->ingest_preset != (c->ingest && strcmp(c->ingest, "off") == 0))
		__builtin_trap();
	if (last_value(argv, argc, "ingest_buffer", val, sizeof(val)) &&
	    !same_number(val, c->ingest_buffer))
		__builtin_trap();
	/* an accepted picture is one a track can have, never beside a
	 * video_rate */
	if (c->load.picture.pix != ENG_PIX_NONE &&
	    (c->video_rate || !c->load.picture.width ||
	     c->load.picture.width % 2 ||
	     c->load.picture.width > ENG_PICTURE_MAX ||
	     !c->load.picture.height ||
	     c->load.picture.height > ENG_PICTURE_MAX))
		__builtin_trap();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf, *argv[FZ_ARGS_MAX + 2], *p, *end;
	struct fuse_args args;
	struct fs_config cfg;
	struct eng_diag d = { 0 };
	int argc = 0, rc;
	size_t i;

	if (size > FZ_INPUT_MAX)
		return 0;
	buf = malloc(size + 1);
	if (!buf)
		return 0;
	memcpy(buf, data, size);
	buf[size] = '\0';
	argv[argc++] = (char *)"timelinefs";
	for (p = buf; p <= buf + size && argc <= FZ_ARGS_MAX; p = end + 1) {
		for (end = p; end < buf + size && *end && *end != '\n'; end++)
			;
		*end = '\0';
		/* a trailing newline ends the last argument */
		if (end == buf + size && p == end && argc > 1)
			break;
		argv[argc++] = p;
	}
	argv[argc] = NULL;
	fz_log_len = 0;
	fz_log[0] = '\0';

	args = (struct fuse_args)FUSE_ARGS_INIT(argc, argv);
	if (chdir(fz_dir) != 0)
		__builtin_trap();
	rc = fs_config_read(&args, &cfg, &d);
	if (fchdir(fz_home) != 0)
		__builtin_trap();
	for (i = 0; i < d.n; i++)
		if (!printable(d.msgs[i]))
			__builtin_trap();
	if (rc < 0) {
		/* fs's own reasons, or fuse_opt's (a malformed -o) */
		if (d.n == 0 && !log_names_it(data, size))
			__builtin_trap();
		for (i = 0; i < d.n; i++)
			if (!names_it(d.msgs[i], argv, argc))
				__builtin_trap();
	} else {
		if (d.n != 0 || fz_log_len != 0)
			__builtin_trap();
		check_accepted(&cfg, argv, argc);
	}
	fs_config_free(&cfg);
	fuse_opt_free_args(&args);
	eng_diag_free(&d);
	free(buf);
	return 0;
}
