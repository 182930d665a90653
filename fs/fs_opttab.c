/* SPDX-License-Identifier: MIT */
/*
 * timelinefs's options, one row each (name, type, default, range, help),
 * as fio's options.c holds them: -h's list, the man page's OPTIONS
 * section (make man-options) and the README's short list (make
 * readme-options) are printed from these rows, and the defaults and
 * ranges are the constants fs/options.c parses with.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fs.h"
#include "media/genplan.h"
#include "util/optdoc.h"
#include "util/strbuf.h"

/* Markup of help texts (util/optdoc.h): *word* is bold in the man page
 * and code in the README; {seed} and {v210} are a stream's memory. */
const struct eng_optdoc fs_optdocs[] = {
	{ "db", "PATH", ENG_OT_TEXT, "./timelinefs.db", 0, 0, 0,
	  "SQLite database, appended to; refused relative when started in /",
	  "A relative path is resolved against the folder *timelinefs* is "
	  "started from; started in / (as by *mount*(8), an fstab line or "
	  "systemd) a relative or default database is refused: give an "
	  "absolute path.", ENG_OD_README, 0 },
	{ "label", "TEXT", ENG_OT_TEXT, "none", 0, 0, 0,
	  "label of this run, for A/B comparisons", NULL, ENG_OD_README, 0 },
	{ "timelines", "DIR", ENG_OT_TEXT, "MEDIA_DIR/timelines", 0, 0, 0,
	  "folder of .tl/.edl/.otio files", NULL, ENG_OD_README, 0 },
	{ "pace", "MODE", ENG_OT_TEXT, "realtime", 0, 0, 0,
	  "*realtime*, *off*, or a speed factor like 2, of plays and "
	  "recordings",
	  "A recording's frame k is taken no earlier than its time; off: as "
	  "it comes.", ENG_OD_README, 0 },
	{ "buffer", "FRAMES", ENG_OT_UINT, NULL, ENG_TLM_BUFFER, 1, 10000,
	  "player read-ahead; a frame is due this many frames after its "
	  "reads are issued", NULL, ENG_OD_README, 0 },
	{ "backing", "MODE", ENG_OT_TEXT, "direct", 0, 0, 0,
	  "*direct* (O_DIRECT: every backing read reads the storage), "
	  "*buffered* (through the page cache, left to the kernel), or "
	  "*dontneed* (buffered, then dropped from the page cache)",
	  "A media file system that refuses O_DIRECT is read buffered, with "
	  "a warning at start.", ENG_OD_README, 0 },
	{ "direct_io", NULL, ENG_OT_FLAG, "off: cached mode", 0, 0, 0,
	  "every open uses direct_io: one FUSE request per read() of the "
	  "reader", NULL, ENG_OD_README, 0 },
	{ "readahead", "KB", ENG_OT_UINT, NULL, ENG_TLM_READAHEAD_KB, 0,
	  1024 * 1024,
	  "kernel readahead of the mount in cached mode; 0 leaves the "
	  "kernel's",
	  "Setting it needs root; otherwise the mount warns and the kernel's "
	  "stays.  Not given, it is at most the requests' size: where the "
	  "mount asks for 512 KiB requests (zero copy at the stock "
	  "*fs.pipe-max-size*), 512 KiB, so that a window is one request "
	  "(the two requests of a stream's first window, served out of "
	  "order, were a seek).", 0, 0 },
	{ "fps", "R", ENG_OT_TEXT, "29.97", 0, 0, 0,
	  "frame rate of EDLs, which carry none",
	  "A *NAME.edl.fps* sidecar file wins.", 0, 0 },
	{ "edl_origin", "WHERE", ENG_OT_TEXT, "min", 0, 0, 0,
	  "EDL source timecode of media frame 0: *min*, *zero* or "
	  "HH:MM:SS:FF, HH:MM:SS;FF drop frame", NULL, 0, 0 },
	{ "video_rate", "BYTES", ENG_OT_TEXT, "18M", 0, 0, 0,
	  "V track rate of EDL/OTIO timelines", NULL, 0, 0 },
	{ "picture", "FMT:WxH", ENG_OT_TEXT, "none", 0, 0, 0,
	  "V track picture of EDL/OTIO timelines instead of a rate, *2vuy* "
	  "(8-bit 4:2:2) or *v210* (10-bit), e.g. *2vuy:720x486*: whole "
	  "pictures at each timeline's frame rate, and NAME.mov",
	  "Not with *-o video_rate=*, which sets the same tracks' bytes.  "
	  "Tracks of real media or image sequences have their media's own "
	  "frames; the mount says once that the option went unused.", 0, 0 },
	{ "audio_rate", "BYTES", ENG_OT_TEXT, "144000", 0, 0, 0,
	  "A track rate of EDL/OTIO timelines, a multiple of 3 (24-bit "
	  "samples)", NULL, 0, 0 },
	{ "strict", NULL, ENG_OT_FLAG, "off", 0, 0, 0,
	  "skipped EDL/OTIO constructs are errors", NULL, 0, 0 },
	{ "inject", "RULES", ENG_OT_TEXT, "none", 0, 0, 0,
	  "delay or fail backing I/O, for tests: "
	  "clip=GLOB:track=GLOB:delay=1ms-20ms[@P]:error=EIO[@P]:seed=N; "
	  "file=GLOB:op=open|close|read picks an image sequence's files and "
	  "operation, op=write|fsync|fallocate those of ingest's track "
	  "files; rules split by ';' or '+', or given as several *-o "
	  "inject=*", NULL, 0, 0 },
	{ "allow_other", NULL, ENG_OT_FLAG, "off", 0, 0, 0,
	  "let other users read (adds *default_permissions*)",
	  "As a user other than root it needs *user_allow_other* in "
	  "/etc/fuse.conf.", 0, 0 },
	{ "record", "WHAT", ENG_OT_TEXT, "all", 0, 0, 0,
	  "*all* (streams and accesses), *streams* (stream rows only) or "
	  "*off* (run row only)", NULL, ENG_OD_README, 0 },
	{ "hold", "ROWS", ENG_OT_UINT, NULL, STORE_DEFAULT_HOLD, 0, 100000000,
	  "access rows kept in memory while the database refuses writes, "
	  "~100 bytes each", NULL, 0, 0 },
	/* the kernel's field is 16 bits wide */
	{ "max_background", "N", ENG_OT_UINT, NULL, FS_MAX_BACKGROUND, 1,
	  65535,
	  "readahead requests the kernel keeps in flight for all readers "
	  "together; readahead shrinks to small requests past 3/4 of it",
	  NULL, 0, 0 },
	{ "splice", "auto|pipes|off", ENG_OT_TEXT, "auto", 0, 0, 0,
	  "reads on backing=buffered (cached, or direct_io of 64 KiB and "
	  "more) move frames from the page cache to the reader with no copy "
	  "in the daemon, where the kernel allows; auto: an unpaced cached "
	  "stream's replies straight from the clips' files, pipes: through "
	  "the stream's own pipes as a paced one's",
	  "It needs a 2 MiB pipe for 1 MiB reads: a daemon without "
	  "CAP_SYS_RESOURCE is bound by *fs.pipe-max-size* (1 MiB out of the "
	  "box), where a backing=buffered mount asks the kernel for 512 KiB "
	  "reads instead, and says so at start.  Replied from the clips' "
	  "files, a frame's access rows end when its bytes have gone to the "
	  "reader.", 0, 0 },
	{ "stream_mem", "BYTES", ENG_OT_BYTES, NULL, ENG_PLAYER_MEM_DEFAULT,
	  0, 0,
	  "memory one open of a timeline may take, its ring: buffer+2 of "
	  "its largest frames and 2 MiB more ({seed} for the seed, {v210} "
	  "for v210 1080p), a reader of NAME.mov the preroll's frames more; "
	  "a timeline needing more refuses the mount; N readers take N "
	  "times that", NULL, ENG_OD_README, 0 },
	{ "streams_mem", "BYTES", ENG_OT_TEXT, "half the memory", 0, 0, 0,
	  "memory all open streams may take together: past it smbd's window "
	  "is given up, then an open gets ENOMEM and a log line",
	  "An open that would pass it first gives up a file server's window "
	  "of reads in flight (smbd's 16 MiB more a stream), then fails "
	  "with ENOMEM, with a log line (one a second at most).  A close "
	  "gives its stream's memory back when the kernel's release reaches "
	  "the daemon, just after close() returns.  A timeline none of "
	  "whose streams fits refuses the mount.", ENG_OD_README, 0 },
	{ "preroll", "SECONDS", ENG_OT_MS, NULL, FS_PREROLL_MS, 0,
	  FS_PREROLL_MAX_MS,
	  "a reader of NAME.mov (a player) gets that much of the edit at "
	  "once and stays that far ahead of the stream's clock; not NAME's "
	  "readers",
	  "The burst comes at its first read and at each seek; its frames "
	  "are still due on the clock.  NAME's readers (dd) read on the "
	  "clock.", 0, 0 },
	{ "stream_files", "N", ENG_OT_UINT, NULL, ENG_PLAYER_FILES_DEFAULT, 1,
	  1024 * 1024,
	  "clip files one open keeps open; the least recently used is "
	  "closed past it; the default is fewer when *ulimit -n* is below "
	  "8256: 1/128 of it", NULL, 0, 0 },
	{ "frames_in_flight", "N", ENG_OT_UINT, NULL, ENG_TLM_IN_FLIGHT, 1,
	  ENG_PLAYER_IN_FLIGHT_MAX,
	  "frames a paced stream reads at once, as an application's reader "
	  "threads: a stalled frame delays only the frames waiting for its "
	  "reader; served in order", NULL, 0, 0 },
	{ "ingest", "PRESET|off", ENG_OT_TEXT, "seed", 0, 0, 0,
	  "a file created in the mount's folder *ingest* is recorded to "
	  "MEDIA_DIR/ingest, one file per track (NAME.V.raw, NAME.A1.wav "
	  "...), in this *timelinefs-gen --format* preset or the one its "
	  "name ends in (NAME.PRESET); *off*: no ingest folder", NULL,
	  ENG_OD_README, 0 },
	{ "ingest_buffer", "N", ENG_OT_UINT, NULL, FS_INGEST_BUFFER, 1,
	  FS_INGEST_BUFFER_MAX,
	  "frames a recording's storage may fall behind the writer before a "
	  "frame is dropped; the capture buffer holds that many frames",
	  NULL, 0, 0 },
	{ "ingest_write", "BYTES", ENG_OT_TEXT, "frame", 0, 0, 0,
	  "the largest write to a track file, or *frame*: one write per "
	  "track per frame", NULL, 0, 0 },
	{ "ingest_fsync", "WHEN", ENG_OT_TEXT, "off", 0, 0, 0,
	  "*off*, *close* (each track file once, at close) or N (every N "
	  "frames and at close)", NULL, 0, 0 },
	{ "ingest_prealloc", "D", ENG_OT_TEXT, "off", 0, 0, 0,
	  "*off*, or a duration like 90s, 30m or 2h (at most 24h): each "
	  "track file's blocks for that long reserved at open (*fallocate*(2) "
	  "KEEP_SIZE), given back at close", NULL, 0, 0 },
	{ "ingest_on_drop", "continue|stop", ENG_OT_TEXT, "continue", 0, 0, 0,
	  "*stop*: a dropped frame fails the writer's next write with EIO",
	  NULL, 0, 0 },
	{ "ingest_reserve", "BYTES|N%", ENG_OT_BYTES, NULL, FS_INGEST_RESERVE,
	  0, 0,
	  "free space the media file system keeps: a write that would take "
	  "it below, with what every recording holds in its buffer, fails "
	  "with ENOSPC, once said in the mount's log; a percentage is of "
	  "the file system's size", NULL, 0, 0 },
	{ "ingest_replace", NULL, ENG_OT_FLAG, "off: EEXIST", 0, 0, 0,
	  "a recording may be replaced by a new one of its name", NULL, 0, 0 },
	{ "experiment", "UUID", ENG_OT_TEXT, "none", 0, 0, 0,
	  "with *rank=*: this mount is rank R of that *timelinefs-hosts* "
	  "experiment, whose host row the database holds",
	  "timelinefs-hosts writes that row in the database before it "
	  "mounts; a mount without it is refused, saying so.  Without them "
	  "the run gets a host row of its own, one per host name and "
	  "machine (/etc/machine-id).  *.status* names the host, its "
	  "machine and the rank.", 0, 0 },
	{ "rank", "R", ENG_OT_UINT, "none", 0, 0, 1000000,
	  "the MPI rank of this host, with *experiment=*", NULL, 0, 0 },
	/* the general options: libfuse's, and the loop's threads, which
	 * the daemon parses itself (libfuse's own help would give its
	 * defaults, 10 and -1, not the daemon's) */
	{ "-h, --help", NULL, ENG_OT_SWITCH, NULL, 0, 0, 0,
	  "print the help and exit", NULL, ENG_OD_GENERAL, 0 },
	{ "-V, --version", NULL, ENG_OT_SWITCH, NULL, 0, 0, 0,
	  "print the versions of timelinefs, of libfuse and of SQLite it "
	  "runs with, and exit", NULL, ENG_OD_GENERAL, 0 },
	{ "-d, -o debug", NULL, ENG_OT_SWITCH, NULL, 0, 0, 0,
	  "enable debug output (implies *-f*)", NULL, ENG_OD_GENERAL, 0 },
	{ "-f", NULL, ENG_OT_SWITCH, NULL, 0, 0, 0, "foreground operation",
	  NULL, ENG_OD_GENERAL, 0 },
	{ "-s", NULL, ENG_OT_SWITCH, NULL, 0, 0, 0,
	  "disable multi-threaded operation", NULL, ENG_OD_GENERAL, 0 },
	{ "-o clone_fd", NULL, ENG_OT_SWITCH, NULL, 0, 0, 0,
	  "use a separate FUSE device fd for each thread", NULL,
	  ENG_OD_GENERAL, 0 },
	{ "max_idle_threads", "N", ENG_OT_UINT, NULL, FS_IDLE_THREADS, 0,
	  FS_THREADS_MAX,
	  "worker threads kept when idle; more than *max_threads* refuses "
	  "the mount", NULL, ENG_OD_GENERAL, 0 },
	{ "max_threads", "N", ENG_OT_UINT, NULL, FS_MAX_THREADS, 1,
	  FS_THREADS_MAX,
	  "most worker threads: a paced reader waiting for its frame holds "
	  "one", NULL, ENG_OD_GENERAL, 0 },
	{ "-o allow_root", NULL, ENG_OT_SWITCH, NULL, 0, 0, 0,
	  "allow access by root", NULL, ENG_OD_GENERAL, 0 },
	{ "-o auto_unmount", NULL, ENG_OT_SWITCH, NULL, 0, 0, 0,
	  "unmount when the daemon ends", NULL, ENG_OD_GENERAL, 0 },
};
const size_t fs_noptdocs = sizeof(fs_optdocs) / sizeof(fs_optdocs[0]);

const struct eng_optdoc *fs_optdoc_find(const char *name)
{
	return eng_optdoc_find(fs_optdocs, fs_noptdocs, name);
}

/* What a stream of preset name's timelines takes with the default options
 * (eng_player_mem, as the mount computes it), "8.9 MiB": the figures come
 * from the code, not from a page. */
static void preset_mem(const char *name, char *buf, size_t len)
{
	struct eng_player_config pc;
	uint64_t n;

	fs_player_config_default(&pc);
	if (eng_player_mem_preset(eng_gen_format_find(name), &pc, &n) < 0)
		snprintf(buf, len, "?");
	else
		snprintf(buf, len, "%.1f MiB", (double)n / (1 << 20));
}

/* {seed}, {v210}: a stream's memory of that preset */
static void fill(const char *key, char *buf, size_t len)
{
	preset_mem(strcmp(key, "v210") == 0 ? "v210-1080p29.97" : key, buf,
		   len);
}

static const struct eng_optdoc_style style = { "-o ", '=', 4, 26, fill };

/* b's text on f, freed: 0, or -1 when it could not be made */
static int put(struct eng_strbuf *b, FILE *f)
{
	int rc = b->err ? -1 : 0;

	if (!rc && b->p)
		fputs(b->p, f);
	free(b->p);
	return rc;
}

void fs_usage(const char *prog)
{
	struct eng_strbuf b = { 0 };
	size_t i;

	eng_strbuf_printf(&b, "usage: %s [options] MEDIA_DIR MOUNTPOINT\n\n"
			  "Mount the timelines of MEDIA_DIR as files; reading "
			  "one plays it.\n\ntimelinefs options (-o "
			  "opt[,opt...]), with defaults (and ranges):\n",
			  prog);
	for (i = 0; i < fs_noptdocs; i++)
		if (!(fs_optdocs[i].flags & ENG_OD_GENERAL))
			eng_optdoc_usage(&b, &fs_optdocs[i], &style);
	eng_strbuf_printf(&b, "\nSizes take K/M/G (powers of 1000) or "
			  "Ki/Mi/Gi (powers of 1024).\n\ngeneral options:\n");
	for (i = 0; i < fs_noptdocs; i++)
		if (fs_optdocs[i].flags & ENG_OD_GENERAL)
			eng_optdoc_usage(&b, &fs_optdocs[i], &style);
	if (put(&b, stdout) < 0)
		fprintf(stderr, "timelinefs: out of memory\n");
}

/* NAME, default ("-" none), in the README: for the tests */
static void list_row(struct eng_strbuf *b, const struct eng_optdoc *o)
{
	char def[64];

	if (o->type == ENG_OT_SWITCH)
		return;
	if (!eng_optdoc_default(o, def, sizeof(def)))
		snprintf(def, sizeof(def), "-");
	eng_strbuf_printf(b, "%s\t%s\t%d\n", o->name, def,
			  !!(o->flags & ENG_OD_README));
}

int fs_optdoc_print(const char *what, FILE *f)
{
	struct eng_strbuf b = { 0 };
	int man = strcmp(what, "man") == 0, md = strcmp(what, "readme") == 0;
	size_t i;

	if (!man && !md && strcmp(what, "list") != 0) {
		fprintf(stderr, "timelinefs: --doc-options=%s: expected man, "
			"readme or list\n", what);
		return -1;
	}
	for (i = 0; i < fs_noptdocs; i++) {
		const struct eng_optdoc *o = &fs_optdocs[i];

		if (man && i && (o->flags & ENG_OD_GENERAL) &&
		    !(o[-1].flags & ENG_OD_GENERAL))
			eng_strbuf_printf(&b, ".PP\nGeneral options:\n");
		if (man)
			eng_optdoc_man(&b, o, &style);
		else if (md && (o->flags & ENG_OD_README))
			eng_optdoc_md(&b, o, &style);
		else if (!man && !md)
			list_row(&b, o);
	}
	return put(&b, f);
}
