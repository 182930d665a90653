/* SPDX-License-Identifier: MIT */
/*
 * timelinefs-merge OUT.db IN.db...: the hosts' databases of an experiment
 * (or any timelinefs databases) merged into one, as timelinefs-hosts does
 * on rank 0 at its end, by hand (schema/experiment.h, hosts_merge; with
 * --experiment, hosts_merge_experiment: one experiment).  Run again
 * after a partial failure: a run already in OUT is not added twice.  Each
 * input is one transaction: a bad one stops the program with its reason,
 * OUT keeping every input merged before it.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "experiment.h"

#define PROG "timelinefs-merge"

static void usage(FILE *f)
{
	fputs(
	    "usage: " PROG " [options] OUT.db IN.db...\n"
	    "Merge timelinefs databases (the hosts' of a timelinefs-hosts\n"
	    "experiment, or any) into OUT.db, created when absent: every\n"
	    "run of each IN.db that OUT.db does not hold yet (by its uuid),\n"
	    "with its streams, accesses, bench steps, experiment and host\n"
	    "rows, their ids renumbered.  Merging an input again adds\n"
	    "nothing; an input is merged whole or not at all, and never\n"
	    "changed.  Prints per input: IN: N runs added, M already merged.\n"
	    "\n"
	    "  -e, --experiment UUID\n"
	    "                 only that experiment of each IN.db: its\n"
	    "                 experiment, host and share rows and the runs of\n"
	    "                 its hosts (a host's own database keeps every\n"
	    "                 experiment run there); UUID may be the first 8\n"
	    "                 or more characters of one; an IN.db without it\n"
	    "                 is an error\n"
	    "  -h, --help     print this help and exit\n"
	    "  -V, --version  print the version and exit\n"
	    "\n"
	    "Exit status: 0 every input merged; 1 an input or OUT.db could\n"
	    "not be (the message names the file and why; the inputs before\n"
	    "it stay merged); 2 usage error.\n",
	    f);
}

/* A uuid, or its first 8 or more characters: hex digits and dashes, at
 * most 36 (the experiment is then looked up in each input). */
static int uuid_like(const char *s)
{
	size_t n = strlen(s);

	return n >= 8 && n <= 36 && strspn(s, "0123456789abcdefABCDEF-") == n;
}

int main(int argc, char *argv[])
{
	static const struct option longs[] = {
	    {"experiment", required_argument, NULL, 'e'},
	    {"help", no_argument, NULL, 'h'},
	    {"version", no_argument, NULL, 'V'},
	    {NULL, 0, NULL, 0},
	};
	struct hosts_merge_stats st;
	struct hosts_db *h = NULL;
	const char *exp = NULL;
	char *err = NULL;
	int opt, i, rc;

	while ((opt = getopt_long(argc, argv, "e:hV", longs, NULL)) != -1) {
		switch (opt) {
		case 'e':
			if (!uuid_like(optarg)) {
				fprintf(stderr,
					PROG ": --experiment %s: not a uuid "
					     "nor its first 8 or more "
					     "characters (hex digits and "
					     "dashes)\n",
					optarg);
				return 2;
			}
			exp = optarg;
			break;
		case 'h':
			usage(stdout);
			return 0;
		case 'V':
			printf(PROG " " TLFS_VERSION "\n");
			return 0;
		default:
			fprintf(stderr, "Try '" PROG " --help'.\n");
			return 2;
		}
	}
	if (argc - optind < 2) {
		fprintf(stderr, PROG ": need OUT.db and at least one IN.db\n"
				     "Try '" PROG " --help'.\n");
		return 2;
	}
	rc = hosts_db_open(argv[optind], &h, &err);
	if (rc < 0) {
		fprintf(stderr, PROG ": %s\n", err ? err : strerror(-rc));
		free(err);
		return 1;
	}
	for (i = optind + 1; i < argc; i++) {
		rc = hosts_merge_experiment(h, argv[i], exp, &st, &err);
		if (rc < 0) {
			fprintf(stderr, PROG ": %s\n",
				err ? err : strerror(-rc));
			if (i > optind + 1)
				fprintf(stderr,
					PROG ": %s keeps the %d "
					     "input%s merged before it\n",
					argv[optind], i - optind - 1,
					i - optind - 1 == 1 ? "" : "s");
			free(err);
			hosts_db_close(h);
			return 1;
		}
		printf("%s: %lld run%s added, %lld already merged", argv[i],
		       (long long)st.runs_added, st.runs_added == 1 ? "" : "s",
		       (long long)st.runs_present);
		if (st.runs_added)
			printf(" (%lld streams, %lld accesses, %lld bench "
			       "steps)",
			       (long long)st.streams_added,
			       (long long)st.access_added,
			       (long long)st.steps_added);
		printf("\n");
		/* a run without an end is taken as it is now: merged
		 * again, it is not updated */
		if (st.runs_unended)
			fprintf(stderr,
				PROG
				": %s: %lld of the runs added "
				"had not ended (a mount still running, or a "
				"daemon that died): merged as they are now, "
				"and never again\n",
				argv[i], (long long)st.runs_unended);
	}
	hosts_db_close(h);
	return 0;
}
