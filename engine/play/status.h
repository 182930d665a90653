/* SPDX-License-Identifier: MIT */
/*
 * The live status table (status.c) of the mount's hidden .status file:
 * one line per open stream, from the players' stats and the record
 * streams' (ingest).
 */
#ifndef ENG_STATUS_H
#define ENG_STATUS_H

#include <stddef.h>
#include <stdint.h>

struct eng_status_row {
	/* 1: a record stream (ingest): timeline is "ingest/NAME",
	 * frames_played the whole frames received, frames_total those on
	 * storage, late_frames the dropped ones, worst_ns the slowest
	 * write */
	int record;
	const char *timeline;
	const char *comm;	/* reader's command name */
	int pid;
	int64_t frames_played;	/* the player's head */
	int64_t frames_total;
	uint64_t bytes;		/* served to the reader */
	uint64_t elapsed_ns;	/* since the stream opened */
	int64_t late_frames;
	int64_t failed_frames;
	uint64_t worst_ns;	/* largest read latency */
};

/* Format a table, one line per row plus a header and a totals line (play
 * and record apart when there are record rows), after the line host
 * (eng_status_host's; NULL: none), into buf (always NUL-terminated when
 * cap > 0).  Returns the length the whole text needs, like snprintf. */
size_t eng_status_format(char *buf, size_t cap, const char *host,
			 const struct eng_status_row *rows, size_t n);

/* The line naming the local host (many hosts, docs/hosts.md), without
 * its newline: "host NAME, machine 0123abcd" (the machine id's first 8
 * digits; "machine ?" when unreadable), then ", rank R of experiment
 * UUID" when the mount is one rank of an experiment (experiment not
 * NULL).  Returns the length the whole line needs, like snprintf. */
size_t eng_status_host(char *buf, size_t cap, const char *name,
		       const char *machine_id, const char *experiment,
		       int rank);

#endif /* ENG_STATUS_H */
