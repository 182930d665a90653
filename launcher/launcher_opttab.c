/* SPDX-License-Identifier: MIT */
/*
 * timelinefs-hosts's options, one row each (util/optdoc.h), under the
 * headings of the parts of the run they set: -h's list, the man page's
 * OPTIONS items (make docs-options), getopt's table, the defaults
 * (launcher_main.c's opts_default) and the ranges the counts are checked
 * against come from these rows.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "launcher.h"

#define ROW(name, arg, type, def, def_n, lo, hi, help, more, key) \
	{ name, arg, type, def, def_n, lo, hi, help, more, 0, key }
#define HEADING(name) \
	ROW(name, NULL, ENG_OT_HEADING, NULL, 0, 0, 0, NULL, NULL, 0)

const struct eng_optdoc hl_optdocs[] = {
	HEADING("plan"),
	ROW("media", "DIR", ENG_OT_TEXT, NULL, 0, 0, 0,
	    "the media folder, the same path on every host",
	    "It holds the clips, and the timelines in DIR/timelines.",
	    HL_OPT_MEDIA),
	ROW("workstations", "LIST", ENG_OT_TEXT, NULL, 0, 0, 0,
	    "comma-separated totals over all hosts (10,20,40)",
	    "Each a count of workstations in total over all hosts, one step "
	    "each.", HL_OPT_WS),
	ROW("find-max", NULL, ENG_OT_FLAG, NULL, 0, 0, 0,
	    "find the most workstations that play with 0 late frames in "
	    "every repetition (doubling, then bisecting) and say the bracket",
	    "In total over all hosts, with 0 late (of the causes of "
	    "*--late-causes*), 0 dropped and 0 failed frames: from *--from*, "
	    "doubling while a count passes, then bisecting between the "
	    "largest count that passed and the smallest that failed, to a "
	    "bracket [lo, lo+1].  A count fails at its first bad repetition "
	    "and is not played again.  The verdict is \"lo play, lo+1 do "
	    "not\", \"at least CAP\" (the cap played) or \"not even 1\".",
	    HL_OPT_FINDMAX),
	ROW("from", "N", ENG_OT_UINT, "the number of hosts", 0, 1,
	    HL_MAX_COUNT, "find-max's first count",
	    "Its default is the cap when the number of hosts is above it.",
	    HL_OPT_FROM),
	ROW("max", "N", ENG_OT_UINT, "the hosts' timelines", 0, 1,
	    HL_MAX_COUNT, "find-max's cap",
	    "What the hosts' timelines allow, each workstation its own "
	    "timeline on its host: the hosts times the fewest timelines of "
	    "any host.", HL_OPT_MAX),
	ROW("late-causes", "LIST", ENG_OT_TEXT, "all", 0, 0, 0,
	    "find-max judges the late frames of these causes (storage,issue,"
	    "timer,reader,recording,writer), the others counted and said",
	    "The cause of each is the *late_frame* view's; the list is "
	    "comma-separated, each cause once, or *all*.  The others are "
	    "said in the step's line by cause; dropped and failed frames fail "
	    "a step whatever the list, and so does a late frame the view "
	    "names no cause of.  The answer line says the causes it judged by "
	    "(\"... with 0 late frames of cause storage ...\").  "
	    "*--late-causes storage* asks what the storage feeds on a host "
	    "whose own CPU makes a few frames late (issue, timer).  Only with "
	    "*--find-max*.", HL_OPT_LATE_CAUSES),
	ROW("repeat", "R", ENG_OT_UINT, NULL, 3, 1, 1000,
	    "repetitions of each count", NULL, HL_OPT_REPEAT),
	ROW("warmup", "N", ENG_OT_UINT, NULL, 1, 0, 1000,
	    "warm-up steps before each count, recorded as repetition 0",
	    "Shown, never judged.", HL_OPT_WARMUP),
	HEADING("each host"),
	ROW("cache", "MODE", ENG_OT_TEXT, "drop", 0, 0, 0,
	    "*drop*, *prime* or *keep*, as timelinefs-bench",
	    "The page cache before every repetition.", HL_OPT_CACHE),
	ROW("pace", "MODE", ENG_OT_TEXT, "realtime", 0, 0, 0,
	    "*realtime*, *off* or a factor like 2",
	    "Every host's mount's *-o pace=*.", HL_OPT_PACE),
	ROW("reader", "'CMD'", ENG_OT_TEXT, "dd bs=1M", 0, 0, 0,
	    "the command reading one timeline",
	    "As *timelinefs-bench*'s *--reader*.", HL_OPT_READER),
	ROW("movie", NULL, ENG_OT_FLAG, NULL, 0, 0, 0, "readers get NAME.mov",
	    "The timeline's movie.", HL_OPT_MOVIE),
	ROW("mount-opts", "OPTS", ENG_OT_TEXT, NULL, 0, 0, 0,
	    "more timelinefs -o options (not pace=, db=, label=, experiment=, "
	    "rank=)",
	    "For every host's mount; the launcher sets the five it refuses.",
	    HL_OPT_MOUNTOPTS),
	ROW("label", "TEXT", ENG_OT_TEXT, "uname -r of rank 0", 0, 0, 0,
	    "the runs' label", NULL, HL_OPT_LABEL),
	ROW("db", "PATH", ENG_OT_TEXT, "/var/tmp/timelinefs-%h-%r.db", 0, 0, 0,
	    "each host's database, on its local disk; %h the host name, %r "
	    "the rank",
	    "Never on the storage under test.", HL_OPT_DB),
	ROW("mountpoint", "DIR", ENG_OT_TEXT, "a private temporary folder", 0,
	    0, 0, "each host's mount point, %h %r",
	    "A folder it creates there is removed at the end.", HL_OPT_MNT),
	HEADING("rank 0"),
	ROW("out", "PATH", ENG_OT_TEXT, "./timelinefs.db", 0, 0, 0,
	    "the merged database; each host's copy in PATH.hosts/RANK-HOST.db",
	    NULL, HL_OPT_OUT),
	ROW("start-margin", "S", ENG_OT_MS, NULL, 2000, 0, 0,
	    "a step starts S seconds after rank 0 sends it", NULL,
	    HL_OPT_MARGIN),
	ROW("step-timeout", "S", ENG_OT_MS, NULL, 60000, 0, 0,
	    "a host that has not answered S seconds after its step's "
	    "expected end is dead",
	    "It is marked incomplete, its later steps played by the others.",
	    HL_OPT_TIMEOUT),
	ROW("sync-rounds", "N", ENG_OT_UINT, NULL, 16, 1, 256,
	    "ping-pong rounds of a clock measurement", NULL, HL_OPT_ROUNDS),
	ROW("-h, --help", NULL, ENG_OT_SWITCH, NULL, 0, 0, 0,
	    "print this help and exit", NULL, 'h'),
	ROW("-V, --version", NULL, ENG_OT_SWITCH, NULL, 0, 0, 0,
	    "print the version and exit", NULL, 'V'),
};
const size_t hl_noptdocs = sizeof(hl_optdocs) / sizeof(hl_optdocs[0]);

static const struct eng_optdoc_style style = { "--", ' ', 2, 23, NULL };

const struct eng_optdoc *hl_optdoc(int key)
{
	size_t i;

	for (i = 0; i < hl_noptdocs; i++)
		if (hl_optdocs[i].key == key)
			return &hl_optdocs[i];
	return NULL;
}

/* b's text on stdout, freed: 0, or -1 said */
static int put(struct eng_strbuf *b)
{
	int rc = b->err ? -1 : 0;

	if (rc)
		fprintf(stderr, "%s: out of memory\n", HL_PROG);
	else if (b->p)
		fputs(b->p, stdout);
	free(b->p);
	return rc;
}

void hl_usage(void)
{
	struct eng_strbuf b = { 0 };
	size_t i;

	eng_strbuf_printf(
	    &b,
	    "usage: mpirun [mpirun options] timelinefs-hosts --media DIR\n"
	    "           (--workstations LIST | --find-max) [options]\n"
	    "\n"
	    "One experiment over many client hosts, one MPI rank per host\n"
	    "(mpirun --hostfile clients --map-by ppr:1:node): each rank "
	    "mounts\n"
	    "timelinefs on its own view of the media and plays its share of\n"
	    "every step's workstations with timelinefs-bench; the steps start\n"
	    "together (rank 0's start time, each host's clock offset measured\n"
	    "by ping-pong at start and end); rank 0 merges every host's\n"
	    "database into --out.  Run without mpirun, it is one host.\n");
	for (i = 0; i < hl_noptdocs; i++)
		eng_optdoc_usage(&b, &hl_optdocs[i], &style);
	eng_strbuf_printf(
	    &b,
	    "\n"
	    "Exit status: 0 every host complete, 1 a host incomplete or a "
	    "failure\n"
	    "(said on stdout and in the host table), 2 usage error, 128+N a "
	    "signal.\n");
	put(&b);
}

int hl_doc_options(const char *what)
{
	struct eng_strbuf b = { 0 };

	if (eng_optdoc_write(&b, hl_optdocs, hl_noptdocs, what, &style) < 0) {
		fprintf(stderr, "%s: --doc-options=%s: expected man or list\n",
			HL_PROG, what);
		return -1;
	}
	return put(&b);
}

const struct option *hl_long_options(void)
{
	static struct option opts[sizeof(hl_optdocs) / sizeof(hl_optdocs[0]) +
				  4];

	if (!opts[0].name)
		eng_optdoc_longopts(hl_optdocs, hl_noptdocs, HL_OPT_DOC, opts);
	return opts;
}
