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
#include "media/gen.h"

/* a space wrap does not break at, printed as one */
#define NBSP "\x1f"

/* Markup of help texts: *word* is bold in the man page and code in the
 * README, plain in -h. */
const struct fs_optdoc fs_optdocs[] = {
	{ "db", "PATH", FS_OT_TEXT, "./timelinefs.db", 0, 0, 0,
	  "SQLite database, appended to; refused relative when started in /",
	  "A relative path is resolved against the folder *timelinefs* is "
	  "started from; started in / (as by *mount*(8), an fstab line or "
	  "systemd) a relative or default database is refused: give an "
	  "absolute path.", FS_OD_README },
	{ "label", "TEXT", FS_OT_TEXT, "none", 0, 0, 0,
	  "label of this run, for A/B comparisons", NULL, FS_OD_README },
	{ "timelines", "DIR", FS_OT_TEXT, "MEDIA_DIR/timelines", 0, 0, 0,
	  "folder of .tl/.edl/.otio files", NULL, FS_OD_README },
	{ "pace", "MODE", FS_OT_TEXT, "realtime", 0, 0, 0,
	  "*realtime*, *off*, or a speed factor like 2, of plays and "
	  "recordings",
	  "A recording's frame k is taken no earlier than its time; off: as "
	  "it comes.", FS_OD_README },
	{ "buffer", "FRAMES", FS_OT_UINT, NULL, 8, 1, 10000,
	  "player read-ahead; a frame is due this many frames after its "
	  "reads are issued", NULL, FS_OD_README },
	{ "backing", "MODE", FS_OT_TEXT, "direct", 0, 0, 0,
	  "*direct* (O_DIRECT: every backing read reads the storage), "
	  "*buffered* (through the page cache, left to the kernel), or "
	  "*dontneed* (buffered, then dropped from the page cache)",
	  "A media file system that refuses O_DIRECT is read buffered, with "
	  "a warning at start.", FS_OD_README },
	{ "direct_io", NULL, FS_OT_FLAG, "off: cached mode", 0, 0, 0,
	  "every open uses direct_io: one FUSE request per read() of the "
	  "reader", NULL, FS_OD_README },
	{ "readahead", "KB", FS_OT_UINT, NULL, 1024, 0, 1024 * 1024,
	  "kernel readahead of the mount in cached mode; 0 leaves the "
	  "kernel's",
	  "Setting it needs root; otherwise the mount warns and the kernel's "
	  "stays.", 0 },
	{ "fps", "R", FS_OT_TEXT, "29.97", 0, 0, 0,
	  "frame rate of EDLs, which carry none",
	  "A *NAME.edl.fps* sidecar file wins.", 0 },
	{ "edl_origin", "WHERE", FS_OT_TEXT, "min", 0, 0, 0,
	  "EDL source timecode of media frame 0: *min*, *zero* or "
	  "HH:MM:SS:FF, HH:MM:SS;FF drop frame", NULL, 0 },
	{ "video_rate", "BYTES", FS_OT_TEXT, "18M", 0, 0, 0,
	  "V track rate of EDL/OTIO timelines", NULL, 0 },
	{ "picture", "FMT:WxH", FS_OT_TEXT, "none", 0, 0, 0,
	  "V track picture of EDL/OTIO timelines instead of a rate, *2vuy* "
	  "(8-bit 4:2:2) or *v210* (10-bit), e.g. *2vuy:720x486*: whole "
	  "pictures at each timeline's frame rate, and NAME.mov",
	  "Not with *-o video_rate=*, which sets the same tracks' bytes.  "
	  "Tracks of real media or image sequences have their media's own "
	  "frames; the mount says once that the option went unused.", 0 },
	{ "audio_rate", "BYTES", FS_OT_TEXT, "144000", 0, 0, 0,
	  "A track rate of EDL/OTIO timelines, a multiple of 3 (24-bit "
	  "samples)", NULL, 0 },
	{ "strict", NULL, FS_OT_FLAG, "off", 0, 0, 0,
	  "skipped EDL/OTIO constructs are errors", NULL, 0 },
	{ "inject", "RULES", FS_OT_TEXT, "none", 0, 0, 0,
	  "delay or fail backing I/O, for tests: "
	  "clip=GLOB:track=GLOB:delay=1ms-20ms[@P]:error=EIO[@P]:seed=N; "
	  "file=GLOB:op=open|close|read picks an image sequence's files and "
	  "operation, op=write|fsync|fallocate those of ingest's track "
	  "files; rules split by ';' or '+', or given as several *-o "
	  "inject=*", NULL, 0 },
	{ "allow_other", NULL, FS_OT_FLAG, "off", 0, 0, 0,
	  "let other users read (adds *default_permissions*)",
	  "As a user other than root it needs *user_allow_other* in "
	  "/etc/fuse.conf.", 0 },
	{ "record", "WHAT", FS_OT_TEXT, "all", 0, 0, 0,
	  "*all* (streams and accesses), *streams* (stream rows only) or "
	  "*off* (run row only)", NULL, FS_OD_README },
	{ "hold", "ROWS", FS_OT_UINT, NULL, STORE_DEFAULT_HOLD, 0, 100000000,
	  "access rows kept in memory while the database refuses writes, "
	  "~100 bytes each", NULL, 0 },
	/* the kernel's field is 16 bits wide */
	{ "max_background", "N", FS_OT_UINT, NULL, FS_MAX_BACKGROUND, 1,
	  65535,
	  "readahead requests the kernel keeps in flight for all readers "
	  "together; readahead shrinks to small requests past 3/4 of it",
	  NULL, 0 },
	{ "splice", "auto|off", FS_OT_TEXT, "auto", 0, 0, 0,
	  "unpaced direct_io reads of 64 KiB and more move frames from the "
	  "page cache to the reader with no copy in the daemon, where the "
	  "kernel allows",
	  "It needs a 2 MiB pipe: a daemon without CAP_SYS_RESOURCE is bound "
	  "by *fs.pipe-max-size* and says so at start.", 0 },
	{ "stream_mem", "BYTES", FS_OT_BYTES, NULL, ENG_PLAYER_MEM_DEFAULT,
	  0, 0,
	  "memory one open of a timeline may take, its ring: buffer+2 of "
	  "its largest frames and 2 MiB more ({seed} for the seed, {v210} "
	  "for v210 1080p); a timeline needing more refuses the mount; N "
	  "readers take N times that", NULL, FS_OD_README },
	{ "streams_mem", "BYTES", FS_OT_TEXT, "half the memory", 0, 0, 0,
	  "memory all open streams may take together: past it smbd's window "
	  "is given up, then an open gets ENOMEM and a log line",
	  "An open that would pass it first gives up a file server's window "
	  "of reads in flight (smbd's 16 MiB more a stream), then fails "
	  "with ENOMEM, with a log line (one a second at most).  A close "
	  "gives its stream's memory back when the kernel's release reaches "
	  "the daemon, just after close() returns.  A timeline none of "
	  "whose streams fits refuses the mount.", FS_OD_README },
	{ "preroll", "SECONDS", FS_OT_MS, NULL, FS_PREROLL_MS, 0,
	  FS_PREROLL_MAX_MS,
	  "a reader of NAME.mov (a player) gets that much of the edit at "
	  "once and stays that far ahead of the stream's clock; not NAME's "
	  "readers",
	  "The burst comes at its first read and at each seek; its frames "
	  "are still due on the clock.  NAME's readers (dd) read on the "
	  "clock.", 0 },
	{ "stream_files", "N", FS_OT_UINT, NULL, ENG_PLAYER_FILES_DEFAULT, 1,
	  1024 * 1024,
	  "clip files one open keeps open; the least recently used is "
	  "closed past it; the default is fewer when *ulimit -n* is below "
	  "8256: 1/128 of it", NULL, 0 },
	{ "frames_in_flight", "N", FS_OT_UINT, NULL, 1, 1,
	  ENG_PLAYER_IN_FLIGHT_MAX,
	  "frames a paced stream reads at once, as an application's reader "
	  "threads: a stalled frame delays only the frames waiting for its "
	  "reader; served in order", NULL, 0 },
	{ "ingest", "PRESET|off", FS_OT_TEXT, "seed", 0, 0, 0,
	  "a file created in the mount's folder *ingest* is recorded to "
	  "MEDIA_DIR/ingest, one file per track (NAME.V.raw, NAME.A1.wav "
	  "...), in this *timelinefs-gen --format* preset or the one its "
	  "name ends in (NAME.PRESET); *off*: no ingest folder", NULL,
	  FS_OD_README },
	{ "ingest_buffer", "N", FS_OT_UINT, NULL, FS_INGEST_BUFFER, 1,
	  FS_INGEST_BUFFER_MAX,
	  "frames a recording's storage may fall behind the writer before a "
	  "frame is dropped; the capture buffer holds that many frames",
	  NULL, 0 },
	{ "ingest_write", "BYTES", FS_OT_TEXT, "frame", 0, 0, 0,
	  "the largest write to a track file, or *frame*: one write per "
	  "track per frame", NULL, 0 },
	{ "ingest_fsync", "WHEN", FS_OT_TEXT, "off", 0, 0, 0,
	  "*off*, *close* (each track file once, at close) or N (every N "
	  "frames and at close)", NULL, 0 },
	{ "ingest_prealloc", "D", FS_OT_TEXT, "off", 0, 0, 0,
	  "*off*, or a duration like 90s, 30m or 2h (at most 24h): each "
	  "track file's blocks for that long reserved at open (*fallocate*(2) "
	  "KEEP_SIZE), given back at close", NULL, 0 },
	{ "ingest_on_drop", "continue|stop", FS_OT_TEXT, "continue", 0, 0, 0,
	  "*stop*: a dropped frame fails the writer's next write with EIO",
	  NULL, 0 },
	{ "ingest_reserve", "BYTES|N%", FS_OT_BYTES, NULL, FS_INGEST_RESERVE,
	  0, 0,
	  "free space the media file system keeps: a write that would take "
	  "it below, with what every recording holds in its buffer, fails "
	  "with ENOSPC, once said in the mount's log; a percentage is of "
	  "the file system's size", NULL, 0 },
	{ "ingest_replace", NULL, FS_OT_FLAG, "off: EEXIST", 0, 0, 0,
	  "a recording may be replaced by a new one of its name", NULL, 0 },
	{ "experiment", "UUID", FS_OT_TEXT, "none", 0, 0, 0,
	  "with *rank=*: this mount is rank R of that *timelinefs-hosts* "
	  "experiment, whose host row the database holds",
	  "timelinefs-hosts writes that row in the database before it "
	  "mounts; a mount without it is refused, saying so.  Without them "
	  "the run gets a host row of its own, one per host name and "
	  "machine (/etc/machine-id).  *.status* names the host, its "
	  "machine and the rank.", 0 },
	{ "rank", "R", FS_OT_UINT, "none", 0, 0, 1000000,
	  "the MPI rank of this host, with *experiment=*", NULL, 0 },
	/* the general options: libfuse's, and the loop's threads, which
	 * the daemon parses itself (libfuse's own help would give its
	 * defaults, 10 and -1, not the daemon's) */
	{ "-h, --help", NULL, FS_OT_SWITCH, NULL, 0, 0, 0,
	  "print the help and exit", NULL, FS_OD_GENERAL },
	{ "-V, --version", NULL, FS_OT_SWITCH, NULL, 0, 0, 0,
	  "print the versions of timelinefs, of libfuse and of SQLite it "
	  "runs with, and exit", NULL, FS_OD_GENERAL },
	{ "-d, -o debug", NULL, FS_OT_SWITCH, NULL, 0, 0, 0,
	  "enable debug output (implies *-f*)", NULL, FS_OD_GENERAL },
	{ "-f", NULL, FS_OT_SWITCH, NULL, 0, 0, 0, "foreground operation",
	  NULL, FS_OD_GENERAL },
	{ "-s", NULL, FS_OT_SWITCH, NULL, 0, 0, 0,
	  "disable multi-threaded operation", NULL, FS_OD_GENERAL },
	{ "-o clone_fd", NULL, FS_OT_SWITCH, NULL, 0, 0, 0,
	  "use a separate FUSE device fd for each thread", NULL,
	  FS_OD_GENERAL },
	{ "max_idle_threads", "N", FS_OT_UINT, NULL, FS_IDLE_THREADS, 0,
	  FS_THREADS_MAX,
	  "worker threads kept when idle; more than *max_threads* refuses "
	  "the mount", NULL, FS_OD_GENERAL },
	{ "max_threads", "N", FS_OT_UINT, NULL, FS_MAX_THREADS, 1,
	  FS_THREADS_MAX,
	  "most worker threads: a paced reader waiting for its frame holds "
	  "one", NULL, FS_OD_GENERAL },
	{ "-o allow_root", NULL, FS_OT_SWITCH, NULL, 0, 0, 0,
	  "allow access by root", NULL, FS_OD_GENERAL },
	{ "-o auto_unmount", NULL, FS_OT_SWITCH, NULL, 0, 0, 0,
	  "unmount when the daemon ends", NULL, FS_OD_GENERAL },
};
const size_t fs_noptdocs = sizeof(fs_optdocs) / sizeof(fs_optdocs[0]);

const struct fs_optdoc *fs_optdoc_find(const char *name)
{
	size_t i;

	for (i = 0; i < fs_noptdocs; i++)
		if (strcmp(fs_optdocs[i].name, name) == 0)
			return &fs_optdocs[i];
	return NULL;
}

/* bytes as the option takes them: 256Mi, 1Gi, or the number */
static void bytes_text(uint64_t n, char *buf, size_t len)
{
	static const char *const unit[] = { "Ti", "Gi", "Mi", "Ki" };
	unsigned i;

	for (i = 0; n && i < 4; i++)
		if (n % (1ULL << (40 - 10 * i)) == 0) {
			snprintf(buf, len, "%" PRIu64 "%s",
				 n >> (40 - 10 * i), unit[i]);
			return;
		}
	snprintf(buf, len, "%" PRIu64, n);
}

/* ms as seconds: 0.5, 10 */
static void ms_text(uint64_t ms, char *buf, size_t len)
{
	char frac[8];
	size_t n;

	snprintf(frac, sizeof(frac), "%03u", (unsigned)(ms % 1000));
	for (n = 3; n && frac[n - 1] == '0'; n--)
		frac[n - 1] = '\0';
	snprintf(buf, len, "%" PRIu64 "%s%s", ms / 1000, n ? "." : "", frac);
}

int fs_optdoc_default(const struct fs_optdoc *o, char *buf, size_t len)
{
	if (o->def)
		snprintf(buf, len, "%s", o->def);
	else if (o->type == FS_OT_UINT)
		snprintf(buf, len, "%" PRIu64, o->def_n);
	else if (o->type == FS_OT_BYTES)
		bytes_text(o->def_n, buf, len);
	else if (o->type == FS_OT_MS)
		ms_text(o->def_n, buf, len);
	else
		return 0;
	return 1;
}

/* "(DEFAULT)", "(DEFAULT, LO to HI)" or "" into buf */
static void parens(const struct fs_optdoc *o, char *buf, size_t len)
{
	char def[64], lo[24], hi[24];
	int has = fs_optdoc_default(o, def, sizeof(def));

	buf[0] = '\0';
	if (o->hi && o->type == FS_OT_MS) {
		ms_text(o->lo, lo, sizeof(lo));
		ms_text(o->hi, hi, sizeof(hi));
	} else {
		snprintf(lo, sizeof(lo), "%" PRIu64, o->lo);
		snprintf(hi, sizeof(hi), "%" PRIu64, o->hi);
	}
	/* buf is the caller's [96]: the parts are bounded above */
	if (has && o->hi)
		snprintf(buf, len, "(%.40s, %.20s to %.20s)", def, lo, hi);
	else if (has)
		snprintf(buf, len, "(%.80s)", def);
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
	else	/* NBSP: "8.9 MiB" is not broken by wrap */
		snprintf(buf, len, "%.1f" NBSP "MiB", (double)n / (1 << 20));
}

enum style { PLAIN, MAN, MD };

/* s with its markup in style st and {seed}/{v210} filled in, appended to
 * out (which has room for len bytes) */
static void render(const char *s, enum style st, char *out, size_t len)
{
	size_t n = strlen(out);
	int bold = 0;

	for (; *s && n + 16 < len; s++) {
		if (*s == '*') {
			const char *t = st == MAN ? (bold ? "\\fR" : "\\fB") :
					st == MD ? "`" : "";

			bold = !bold;
			n += (size_t)snprintf(out + n, len - n, "%s", t);
		} else if (*s == '{') {
			const char *end = strchr(s, '}');
			char name[24];

			snprintf(name, sizeof(name), "%.*s", (int)(end - s - 1),
				 s + 1);
			preset_mem(strcmp(name, "v210") == 0 ?
					   "v210-1080p29.97" : name,
				   out + n, len - n);
			n = strlen(out);
			s = end;
		} else if (st == MAN && (*s == '-' || *s == '\\')) {
			out[n++] = '\\';
			out[n++] = *s == '-' ? '-' : 'e';
		} else {
			out[n++] = *s;
		}
	}
	out[n] = '\0';
}

/* text as lines of at most width columns, each after indent spaces
 * (first: the first line's, already printed); man: a line never starts
 * as a request */
static void wrap(FILE *f, const char *text, unsigned first, unsigned indent,
		 unsigned width, int man)
{
	unsigned col = first;
	const char *w = text;

	while (*w) {
		size_t n = strcspn(w, " ");

		if (col > indent && col + 1 + n > width) {
			fprintf(f, "\n%*s", (int)indent, "");
			col = indent;
		} else if (col > indent) {
			fputc(' ', f);
			col++;
		}
		/* a man line starting with . or ' would be a request */
		if (man && col == indent && (*w == '.' || *w == '\''))
			fputs("\\&", f);
		for (size_t i = 0; i < n; i++)
			if (w[i] == NBSP[0])
				fputc(' ', f);
			else
				fputc(w[i], f);
		col += (unsigned)n;
		w += n;
		while (*w == ' ')
			w++;
	}
	fputc('\n', f);
}

/* "-o NAME=ARG", "-o NAME" or the switch as written */
static void head(const struct fs_optdoc *o, char *buf, size_t len)
{
	if (o->type == FS_OT_SWITCH)
		snprintf(buf, len, "%s", o->name);
	else
		snprintf(buf, len, "-o %s%s%s", o->name, o->arg ? "=" : "",
			 o->arg ? o->arg : "");
}

static void usage_row(FILE *f, const struct fs_optdoc *o)
{
	char h[64], text[2048] = "", p[96];
	int w;

	head(o, h, sizeof(h));
	render(o->help, PLAIN, text, sizeof(text));
	parens(o, p, sizeof(p));
	if (p[0])
		snprintf(text + strlen(text), sizeof(text) - strlen(text),
			 " %s", p);
	w = fprintf(f, "    %s", h);
	if (w > 25) {
		fprintf(f, "\n%26s", "");
		w = 26;
	} else {
		fprintf(f, "%*s", 26 - w, "");
		w = 26;
	}
	wrap(f, text, (unsigned)w, 26, 78, 0);
}

void fs_usage(const char *prog)
{
	size_t i;

	printf("usage: %s [options] MEDIA_DIR MOUNTPOINT\n\n", prog);
	printf("Mount the timelines of MEDIA_DIR as files; reading one plays "
	       "it.\n\ntimelinefs options (-o opt[,opt...]), with "
	       "defaults:\n");
	for (i = 0; i < fs_noptdocs; i++)
		if (!(fs_optdocs[i].flags & FS_OD_GENERAL))
			usage_row(stdout, &fs_optdocs[i]);
	printf("\nSizes take K/M/G (powers of 1000) or Ki/Mi/Gi (powers of "
	       "1024).\n\ngeneral options:\n");
	for (i = 0; i < fs_noptdocs; i++)
		if (fs_optdocs[i].flags & FS_OD_GENERAL)
			usage_row(stdout, &fs_optdocs[i]);
}

/* One .TP item of the man page. */
static void man_row(FILE *f, const struct fs_optdoc *o)
{
	char text[4096] = "", h[64] = "", p[96], arg[64] = "";

	fputs(".TP\n", f);
	if (o->type == FS_OT_SWITCH) {
		render(o->name, MAN, h, sizeof(h));
		fprintf(f, ".B %s\n", h);
	} else {
		render(o->name, MAN, h, sizeof(h));
		if (!o->arg) {
			fprintf(f, ".B \\-o %s\n", h);
		} else {
			render(o->arg, MAN, arg, sizeof(arg));
			fprintf(f, ".BI \"\\-o %s=\" \"%s\"\n", h, arg);
		}
	}
	render(o->help, MAN, text, sizeof(text));
	parens(o, p, sizeof(p));
	if (p[0]) {
		strcat(text, " ");
		render(p, MAN, text, sizeof(text));
	}
	strcat(text, ".");
	if (o->more) {
		strcat(text, " ");
		render(o->more, MAN, text, sizeof(text));
	}
	wrap(f, text, 0, 0, 72, 1);
}

static void md_row(FILE *f, const struct fs_optdoc *o)
{
	char text[4096] = "", h[64], p[96];

	head(o, h, sizeof(h));
	render(o->help, MD, text, sizeof(text));
	parens(o, p, sizeof(p));
	if (p[0])
		snprintf(text + strlen(text), sizeof(text) - strlen(text),
			 " %s", p);
	/* an item's lines after the first indented under its text */
	wrap(f, text, (unsigned)fprintf(f, "- `%s`:", h), 2, 78, 0);
}

int fs_optdoc_print(const char *what, FILE *f)
{
	size_t i;

	if (strcmp(what, "man") == 0) {
		for (i = 0; i < fs_noptdocs; i++) {
			if (i && (fs_optdocs[i].flags & FS_OD_GENERAL) &&
			    !(fs_optdocs[i - 1].flags & FS_OD_GENERAL))
				fputs(".PP\nGeneral options:\n", f);
			man_row(f, &fs_optdocs[i]);
		}
		return 0;
	}
	if (strcmp(what, "list") == 0) {
		/* NAME, default ("-" none), in the README: for the tests */
		for (i = 0; i < fs_noptdocs; i++) {
			const struct fs_optdoc *o = &fs_optdocs[i];
			char def[64];

			if (o->type == FS_OT_SWITCH)
				continue;
			if (!fs_optdoc_default(o, def, sizeof(def)))
				snprintf(def, sizeof(def), "-");
			fprintf(f, "%s\t%s\t%d\n", o->name, def,
				!!(o->flags & FS_OD_README));
		}
		return 0;
	}
	if (strcmp(what, "readme") == 0) {
		for (i = 0; i < fs_noptdocs; i++)
			if (fs_optdocs[i].flags & FS_OD_README)
				md_row(f, &fs_optdocs[i]);
		return 0;
	}
	fprintf(stderr, "timelinefs: --doc-options=%s: expected man, readme "
		"or list\n", what);
	return -1;
}
