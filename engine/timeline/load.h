/* SPDX-License-Identifier: MIT */
/*
 * Loading a timeline file (load.c, load_options.c): the options of the
 * formats that carry no rates, the choice of parser by extension, the .fps
 * sidecar and the listing of a timelines folder.  The mount and
 * timelinefs-gen --for both load through here, so that they agree on what a
 * folder holds and how each file plays.  It reads the files itself (the
 * timeline text, the sidecar, the folder), at load time only: a stream's
 * reads of media go through struct eng_io.
 */
#ifndef ENG_LOAD_H
#define ENG_LOAD_H

#include <stddef.h>
#include <stdint.h>

#include "timeline/model.h"
#include "timeline/timecode.h"
#include "util/diag.h"

/* What formats that carry no rates need to build a timeline (EDL, OTIO).
 * The .tl format declares its own and ignores these. */
struct eng_load_options {
	struct eng_fps fps;	/* EDL frame rate: default 30000/1001 */
	uint64_t video_rate;	/* bytes/s of V tracks: default 18000000 */
	/* The picture of the video tracks (pix ENG_PIX_NONE, the default:
	 * none, video_rate rules): each a picture track at the timeline's
	 * own rate, so that it can be a movie. */
	struct eng_picture picture;
	uint64_t audio_rate;	/* bytes/s of A tracks: default 144000 */
	uint32_t audio_align;	/* default 3 (24-bit mono) */
	enum {
		ENG_EDL_ORIGIN_MIN,	/* earliest source TC used = frame 0 */
		ENG_EDL_ORIGIN_ZERO,	/* 00:00:00:00 = frame 0 */
		ENG_EDL_ORIGIN_TC,	/* edl_origin_tc = frame 0 */
	} edl_origin;
	/* for ENG_EDL_ORIGIN_TC: counted by each EDL at its own rate (its
	 * sidecar or FPS comment), drop frame when written so or when the
	 * EDL's first event is under FCM: DROP FRAME */
	struct eng_tc edl_origin_tc;
	int strict;		/* skipped constructs become errors */
};

/* Fill o with the defaults above. */
void eng_load_options_default(struct eng_load_options *o);

/* The value of the mount's -o edl_origin= and timelinefs-gen
 * --edl-origin: "min", "zero" or a timecode (eng_tc_parse), into
 * o->edl_origin and o->edl_origin_tc.  Whether the timecode's frame
 * exists depends on each EDL's rate, so the EDL parser tells that.
 * Returns 0, or -EINVAL with the reason (lower case, no option name) in
 * why[len]. */
int eng_edl_origin_parse(const char *s, struct eng_load_options *o,
			 char *why, size_t len);

/* Whether `rate` bytes per second is an audio rate of an EDL/OTIO audio
 * track of `align`-byte mono samples (audio_align, 3): positive, whole
 * samples per second (a multiple of align), and a sample rate a WAVE
 * header can hold.  The mount's -o audio_rate= and timelinefs-gen's
 * --audio-rate both refuse what this refuses, with its reason.  Returns 0,
 * or -EINVAL with the reason (lower case, no option name) in why[len]. */
int eng_audio_rate_check(uint64_t rate, uint32_t align, char *why,
			 size_t len);

/* The value of the mount's -o picture= and timelinefs-gen --picture:
 * FORMAT:WIDTHxHEIGHT ("2vuy:720x486"), or "none", into *out.  Returns 0,
 * or -EINVAL with the reason (lower case, no option name) in why[len]. */
int eng_picture_option_parse(const char *s, struct eng_picture *out,
			     char *why, size_t len);

/* Read a whole file into a NUL-terminated buffer (for the parsers); the
 * caller frees *text.  Returns 0 or -errno; -EFBIG over 64 MiB (a timeline
 * is text: that is a mistake, not an edit); -EISDIR for a folder and
 * -EINVAL for another file that is not a regular file (a FIFO, device or
 * socket), which is opened non-blocking and never read: a FIFO without a
 * writer would block its reader for ever.  *len excludes the NUL. */
int eng_read_file(const char *path, char **text, size_t *len);

/* The formats of timeline files, by their extension in any case. */
enum eng_tl_format { ENG_TL_NONE, ENG_TL_TL, ENG_TL_EDL, ENG_TL_OTIO };
/* The format eng_timeline_load reads path as, from its file name's
 * extension (.tl, .edl, .otio in any case: "REEL1.EDL" is an EDL);
 * ENG_TL_NONE for another or none ("x.tl.bak", a name ".tl"). */
enum eng_tl_format eng_timeline_format(const char *path);

/* Load a timeline file by its extension (.tl, .edl, .otio, in any case);
 * the timeline's name is the file name without directory and extension
 * ("REEL1.EDL" is "REEL1").  -ENOTSUP for an unknown extension, -EINVAL
 * for a path that is not a regular file (never opened: a FIFO would block
 * the load), each with a message; else as the parsers. */
int eng_timeline_load(const char *path, const struct eng_load_options *opt,
		      struct eng_timeline **out, struct eng_diag *diag);

/* Whether the mount loads the file `name` of its timelines folder: not
 * hidden, extension .tl, .edl or .otio in any case (Avid and others write
 * "REEL1.EDL"), as eng_timeline_load reads them.  timelinefs-gen --for
 * uses it to find the timelines already in DIR/timelines. */
int eng_timeline_listed(const char *name);

/* The names of the files of folder dir that eng_timeline_listed takes,
 * in strcmp order.  A listed name that is not a regular file once links
 * are followed (a FIFO, device, socket or folder named x.tl) is left out
 * with a note "DIR/NAME: skipped: ..." added to notes (may be NULL): such
 * a file would block or fail the load, and a folder is no place for it to
 * stop a mount.  Returns 0 with *names (NULL when there are none) and *n
 * set, to be freed with eng_names_free; or opendir's negative errno, or
 * -ENOMEM. */
int eng_timeline_names(const char *dir, char ***names, size_t *n,
		       struct eng_diag *notes);
void eng_names_free(char **names, size_t n);

/* The i-th spelling of a sidecar's suffix, ".fps" first (i = 0), then
 * ".fpS" ... ".FPS"; NULL past the last.  The sidecar of timeline PATH is
 * PATH followed by any one of them ("REEL1.EDL.fps" or "REEL1.EDL.FPS"),
 * as the extension of the timeline itself is read in any case. */
const char *eng_sidecar_ext(unsigned i);

/* The load options for the timeline file `path`: *def, with the frame rate
 * of a sidecar file PATH.fps ("NAME.edl.fps" holding e.g. "25", "23.976"
 * or "24000/1001"; ".fps" in any case, see eng_sidecar_ext) when one can
 * be read.  The rate is the first word after any UTF-8 BOM, blanks and
 * line ends; what follows it is ignored.  The mount and timelinefs-gen
 * --for both use it, so they load a timeline alike.  When sidecar is not
 * NULL, *sidecar is that word, malloc'ed (what --for writes beside the
 * copy), or NULL when there is no sidecar.  A sidecar that is not a
 * regular file (a FIFO, a device) is skipped, never opened blocking,
 * with a note added to notes (may be NULL).  Returns 0, -EINVAL for a
 * sidecar with no or a bad rate (one message naming its file and line
 * and quoting the word) or for two sidecars of one timeline (one message
 * naming both; *out is then *def), or -ENOMEM. */
int eng_load_options_for(const char *path, const struct eng_load_options *def,
			 struct eng_load_options *out, char **sidecar,
			 struct eng_diag *diag, struct eng_diag *notes);

#endif /* ENG_LOAD_H */
