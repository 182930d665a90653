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
#include "merge.h"

#define PROG MERGE_PROG

/* A uuid, or its first 8 or more characters: hex digits and dashes, at
 * most 36 (the experiment is then looked up in each input). */
static int uuid_like(const char *s)
{
	size_t n = strlen(s);

	return n >= 8 && n <= 36 && strspn(s, "0123456789abcdefABCDEF-") == n;
}

int main(int argc, char *argv[])
{
	struct hosts_merge_stats st;
	struct hosts_db *h = NULL;
	const char *exp = NULL;
	char *err = NULL;
	int opt, i, rc;

	while ((opt = getopt_long(argc, argv, "e:hV", merge_long_options(),
				  NULL)) != -1) {
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
		case MERGE_OPT_DOC:
			return merge_doc_options(optarg) < 0 ? 2 : 0;
		case 'h':
			merge_usage(stdout);
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
