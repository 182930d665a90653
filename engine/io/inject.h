/* SPDX-License-Identifier: MIT */
/*
 * Fault injection (inject.c): an eng_io wrapper, unreliablefs-style, that
 * delays or fails the reads (and, op=, the opens and closes) of chosen
 * media files, and the writes, fsyncs and fallocates of ingest's track
 * files (the mount's -o inject=).
 * Reproducible: its choices come from a seeded eng_rng.
 */
#ifndef ENG_INJECT_H
#define ENG_INJECT_H

#include <stddef.h>
#include <stdint.h>

#include "io/io.h"
#include "util/diag.h"

#define ENG_INJECT_DELAY 1u	/* the read was delayed */
#define ENG_INJECT_ERROR 2u	/* the read failed with an injected errno */
#define ENG_INJECT_MAX_RULES 32

/*
 * A spec is rules separated by ';' or '+'; a rule is ':'-separated
 * key=value fields (',' is never used: mount options split on it):
 *     clip=GLOB        clip name (fnmatch; default *) of a file named
 *                      NAME.TRACK.EXT, or DIR/NAME.TRACK.EXT (ingest's
 *                      "ingest/cam1.V.raw" is clip cam1, track V; an
 *                      image sequence's images are chosen by file=)
 *     track=GLOB       track name (V, A1, A*; default *), the same
 *     delay=D[-D][@P]  sleep D (or uniform in [D1, D2]) before the read;
 *                      D is a number with unit ns, us, ms or s
 *     error=E[@P]      fail the read with errno E (EIO, ENOSPC, ETIMEDOUT,
 *                      EACCES, ENOENT, ESTALE, ENXIO, ENODATA or a number)
 *     file=GLOB        the media file's name as opened, path and all
 *                      (fnmatch, '*' crosses '/'; default *): an image
 *                      sequence's "A001C003/A001C003.0086401.dpx"
 *     op=OP            the operation: read (default; every pread, an
 *                      image's header reads too), open or close (an
 *                      open that fails with E returns -E, no fd; a
 *                      delay comes before the open or close; a close
 *                      has no error to fail: error= with it is refused);
 *                      write, fsync or fallocate: ingest's pwrite, fsync
 *                      and fallocate of a track file (a delay before
 *                      it, an error instead of it: nothing written).
 *                      op=open covers ingest's create of a track file
 *                      too, op=close its close
 *     seed=N           seed of the random choices (default 1; any rule)
 * P is the probability per operation: 0.01, 1% (default 1).  A rule needs
 * a delay or an error.  Every rule matching an operation applies: delays
 * add up, the first matching error wins.
 * Example: "clip=clip000*:track=V:delay=1ms-20ms;track=A1:error=EIO@0.01".
 */
struct eng_inject;

/* Parse spec.  Each problem is added to diag as "inject:RULE: reason"
 * (RULE counts from 1); returns 0, -EINVAL (diag says why) or -ENOMEM;
 * *out is NULL on failure.  Free with eng_inject_free(). */
int eng_inject_parse(const char *spec, struct eng_inject **out,
		     struct eng_diag *diag);
/* Number of rules of a parsed spec. */
size_t eng_inject_rules(const struct eng_inject *inj);
/* Make *out an eng_io that forwards to *inner (which must outlive it, as
 * must inj) with the faults of inj on the reads of the files whose names
 * match (the name io->open is given: NAME.TRACK.EXT, NAME.mov, an image
 * sequence's BASE/NAME.NUMBER.EXT).
 * Its open_ex, close_ex and pread_ex say which faults each got.
 * When inner has ingest's write ops (create ...), so does *out: create,
 * pwrite, fsync and fallocate with faults, ftruncate and space as they
 * are.
 * Delays sleep with inner's clock; choices come from a seeded eng_rng, so
 * a single-threaded sequence of reads is reproducible.  Thread-safe.
 * 0, or -EINVAL when inner lacks pread/open/close/now/sleep_until. */
int eng_inject_wrap(struct eng_inject *inj, const struct eng_io *inner,
		    struct eng_io *out);

struct eng_inject_stats {
	uint64_t reads;		/* preads through the wrapper */
	uint64_t matched;	/* reads of a file some read rule matches */
	uint64_t delayed;	/* operations (reads, opens, closes, writes
				 * ...) delayed */
	uint64_t delay_ns;	/* total injected delay */
	uint64_t errors;	/* operations failed by injection */
	uint64_t opens;		/* opens (and creates) through the wrapper */
	uint64_t closes;	/* closes through the wrapper */
	uint64_t writes;	/* ingest's pwrites through the wrapper */
	uint64_t fsyncs;	/* its fsyncs */
	uint64_t fallocates;	/* its fallocates */
};
void eng_inject_stats(struct eng_inject *inj, struct eng_inject_stats *st);
void eng_inject_free(struct eng_inject *inj);

#endif /* ENG_INJECT_H */
