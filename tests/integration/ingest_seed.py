# SPDX-License-Identifier: MIT
# The seed preset's interleave (engine/media/genplan.c "seed"; the layout's
# upto, timeline/layout.c): V 640x480 UYVY, a picture a frame, then A1
# and A2, 48 kHz 24-bit mono, at 30000/1001.
# (shared by test_ingest.sh and test_ingest_writer.sh)
import json, os, random, sys, time
NUM, DEN = 30000, 1001
TRACKS = [("V", (614400 * NUM + DEN - 1) // DEN, 614400),
          ("A1", 144000, 3), ("A2", 144000, 3)]
def upto(t, k):
    _, rate, align = TRACKS[t]
    return k * rate * DEN // (NUM * align) * align if k > 0 else 0
def frame_offset(k):
    return sum(upto(t, k) for t in range(len(TRACKS)))
def stream(frames, seed, extra=0):
    """A writer's bytes: frames whole frames (and extra bytes more)."""
    return random.Random(seed).randbytes(frame_offset(frames) + extra)
def split(data):
    """Each track's bytes of an interleave, the last frame possibly
    partial (its bytes go to their tracks as they are)."""
    out = [bytearray() for _ in TRACKS]
    k, pos = 0, 0
    while pos < len(data):
        for t in range(len(TRACKS)):
            n = upto(t, k + 1) - upto(t, k)
            out[t] += data[pos:pos + n]
            pos += n
        k += 1
    return out
