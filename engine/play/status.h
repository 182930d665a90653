/* SPDX-License-Identifier: MIT */
/*
 * The live status table (status.c) of the mount's hidden .status file:
 * one line per open stream, from the players' stats.
 */
#ifndef ENG_STATUS_H
#define ENG_STATUS_H

#include <stddef.h>
#include <stdint.h>

struct eng_status_row {
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

/* Format a table, one line per row plus a header and a totals line, into
 * buf (always NUL-terminated when cap > 0).  Returns the length the whole
 * text needs, like snprintf. */
size_t eng_status_format(char *buf, size_t cap,
			 const struct eng_status_row *rows, size_t n);

#endif /* ENG_STATUS_H */
