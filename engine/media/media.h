/* SPDX-License-Identifier: MIT */
/*
 * Media resolution (media.c): each (clip, track) a timeline plays to one
 * file of the media folder, its essence offset (WAVE data chunk) and a check
 * that it is long enough.  Owns the naming rule NAME.TRACK.EXT and the rule
 * that a name never leaves the media folder.
 */
#ifndef ENG_MEDIA_H
#define ENG_MEDIA_H

#include <stddef.h>
#include <stdint.h>

#include "timeline/model.h"
#include "util/diag.h"

/* How far into a .wav file the mount looks for its data chunk. */
#define ENG_WAV_HEAD_MAX 65536

/* Find the data chunk of a RIFF/WAVE header held in buf[0..len): sets the
 * offset of the first essence byte and the chunk's size.  -EINVAL when it is
 * not RIFF/WAVE or has no data chunk within len bytes. */
int eng_wav_data(const unsigned char *buf, size_t len, uint64_t *offset,
		 uint64_t *size);

/* Resolve every (clip, track) that a segment uses to the single file
 * MEDIA_DIR/NAME.TRACK.* in the directory open as dirfd (media_dir names it
 * in messages), find its essence offset, and check that it is long enough
 * for every segment.  Only regular files directly in the directory match
 * (symlinks are not followed; a non-regular match is named in the "no media
 * file" message); names never leave it.  *.wav (any case) is RIFF/WAVE: the
 * data chunk must be in its first 64 KiB.  dirfd is neither closed nor
 * moved.  Each missing, ambiguous, unreadable or short file is one message
 * naming timeline, line (of the first use; of the segment needing most for
 * a short file), clip and path.  Fills every clip's media[ntracks] (file
 * NULL where unused or unresolved; a second call starts over); returns 0,
 * -EINVAL or -ENOMEM. */
int eng_media_resolve(struct eng_timeline *tl, int dirfd,
		      const char *media_dir, struct eng_diag *diag);

/* Bytes of essence (after the header) that segment s of track t needs in
 * its clip file: the largest end over its frames of the slice at the
 * source frame's offset with the timeline frame's length (docs/design.md), the
 * rule eng_media_resolve() checks files by and timelinefs-gen --for sizes
 * them by.  0, or -ERANGE when the need does not fit 64 bits. */
int eng_segment_bytes_needed(const struct eng_timeline *tl, size_t t,
			     const struct eng_segment *s, uint64_t *need);

#endif /* ENG_MEDIA_H */
