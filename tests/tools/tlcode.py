#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Decode what timelinefs-gen writes into pictures and audio (the layout of
docs/formats.md "Generated media"), written from that text, not from the C
engine, for the tests that play a timeline's movie.

  tlcode.py video FORMAT WxH [FILE]
      FORMAT uyvy422 (2vuy), v210, or rgb48le or rgb24 (the RGB of an
      image sequence: every component of a pixel is read); FILE (default stdin) raw frames one
      after another, as 'ffmpeg -i X.mov -map 0:v:N -f rawvideo -' writes
      them.  Prints one line a frame: "N CLIP FRAME" (CLIP the clip id, or
      its name with --tl), "N black" or "N undecodable".
  tlcode.py audio TIMELINE.tl TRACK [FILE] [--seed S]
      FILE (default stdin) s24le mono samples of TRACK of the movie, as
      'ffmpeg -i X.mov -map 0:a:N -f s24le -' writes them.  Checks every
      sample against the clip's tone and code (or silence in a gap) slice
      by slice, frame by frame as the edit says; prints "N CLIP SAMPLE ok"
      or "N silence ok" a frame, and "bad ..." lines with the first wrong
      sample; then "frames F bad B".  Exit 1 when any is bad.
  tlcode.py clipid NAME   the id of a clip name

Exit 2 on usage, 1 on bad input or a bad audio frame.
"""

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tlexpect  # noqa: E402  (the timeline model, independent of C)

M64 = (1 << 64) - 1
MAGIC = 0xA5
GOLDEN = 0x9E3779B97F4A7C15


# ------------------------------------------------------------------ ids

def fnv1a64(b):
    v = 0xCBF29CE484222325
    for c in b:
        v = ((v ^ c) * 0x100000001B3) & M64
    return v


def clip_id(name):
    """N for "clipN" (digits, N < 65536), else FNV-1a-64 folded to 16."""
    digits = name[4:]
    if name.startswith("clip") and digits and digits.isascii() and \
            digits.isdigit() and int(digits) < 65536:
        return int(digits)
    v = fnv1a64(name.encode("utf-8", "surrogateescape"))
    v ^= v >> 32
    return (v ^ (v >> 16)) & 0xFFFF


def code_word(cid, frame):
    v = (cid & 0xFFFF) << 24 | (frame & 0xFFFFFF)
    check = ((v * GOLDEN) & M64) >> 48
    return MAGIC << 56 | v << 16 | check


# ------------------------------------------------------------------ layout

class Layout:
    """Where the code sits (docs/formats.md), in 6-pixel groups and rows."""

    def __init__(self, w, h):
        self.groups = w // 6
        self.ok = self.groups >= 32 and h >= 96
        if not self.ok:
            return
        self.cell_w = self.groups // 32
        self.code_x = (self.groups - 32 * self.cell_w) // 2
        self.cell_h = h // 24
        glyph_h = (h // 6) & ~1
        glyph_w = max(3, glyph_h * 11 // 20 // 6)
        stroke_w = max(1, (glyph_w + 2) // 4)
        stroke_h = min(stroke_w * 6, glyph_h // 5)
        box_w = 7 * (glyph_w + stroke_w) + stroke_w
        box_y = 2 * self.cell_h + self.cell_h // 2
        box_h = 3 * stroke_h + 2 * glyph_h
        bar_y = h - max(4, h // 16)
        self.ok = (self.code_x + box_w <= self.groups and
                   box_y + box_h <= bar_y)


RGB_BYTES = {"rgb48le": 6, "rgb24": 3}


def row_bytes(fmt, w):
    if fmt in RGB_BYTES:
        return w * RGB_BYTES[fmt]
    return w * 2 if fmt == "2vuy" else (w + 47) // 48 * 128


def group_luma(fmt, frame, stride, g, y):
    """The 6 luma values of group g of row y, on a 10-bit scale (RGB:
    the 18 components of its 6 pixels)."""
    o = y * stride
    if fmt == "rgb48le":
        o += 36 * g
        return [int.from_bytes(frame[o + 2 * k:o + 2 * k + 2], "little") >> 6
                for k in range(18)]
    if fmt == "rgb24":
        o += 18 * g
        return [frame[o + k] << 2 for k in range(18)]
    if fmt == "2vuy":
        o += 12 * g
        return [frame[o + 2 * k + 1] << 2 for k in range(6)]
    o += 16 * g
    out = []
    for k in range(4):
        w = int.from_bytes(frame[o + 4 * k:o + 4 * k + 4], "little")
        comps = [(w >> (10 * c)) & 0x3FF for c in range(3)]
        # Cb Y Cr | Y Cb Y | Cr Y Cb | Y Cr Y
        out += [comps[c] for c in range(3) if (3 * k + c) % 2 == 1]
    return out


def decode(fmt, w, h, lay, frame):
    """(clip id, frame number), "black" or "undecodable"."""
    if not lay.ok:
        return "undecodable"
    stride = row_bytes(fmt, w)
    code, pure = 0, True
    for r in range(2):
        for c in range(32):
            g = lay.code_x + c * lay.cell_w + lay.cell_w // 2
            v = None
            for s in range(2):
                y = r * lay.cell_h + lay.cell_h // 4 + s * (lay.cell_h // 2)
                luma = group_luma(fmt, frame, stride, g, y)
                light = sum(1 for x in luma if x >= 512)
                if light not in (0, len(luma)):
                    return "undecodable"
                b = 1 if light else 0
                if v is not None and b != v:
                    return "undecodable"
                v = b
                pure = pure and all(x == 64 for x in luma)
            code = code << 1 | v
    if code == 0:
        return "black" if pure else "undecodable"
    cid, fno = (code >> 40) & 0xFFFF, (code >> 16) & 0xFFFFFF
    if code != code_word(cid, fno):
        return "undecodable"
    return cid, fno


# ------------------------------------------------------------------ audio

def splitmix64(x):
    """(new state, output) of one splitmix64 step."""
    x = (x + GOLDEN) & M64
    z = x
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M64
    return x, z ^ (z >> 31)


def rng_derive(seed, a, b):
    x, z = splitmix64(seed)
    x = z ^ a
    x, z = splitmix64(x)
    x = z ^ b
    return splitmix64(x)[1]


def media_seed(seed, clip, track):
    return rng_derive(seed, fnv1a64(clip.encode("utf-8", "surrogateescape")),
                      fnv1a64(track.encode()))


def tone_hz(cid):
    return 200 + 25 * (cid % 32)


def sample(mseed, cid, rate, i):
    """Sample i of a clip's track: tone in bits 12-23, hash in 0-11."""
    step = ((tone_hz(cid) << 32) // rate) & 0xFFFFFFFF
    phase = (i * step) & 0xFFFFFFFF
    x = phase - (1 << 32) if phase >= 1 << 31 else phase
    y = (x * ((1 << 31) - abs(x))) >> 39
    z = (mseed + (i + 1) * GOLDEN) & M64
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M64
    z ^= z >> 31
    return (y & ~0xFFF) | (z & 0xFFF)


def check_audio(tl, track, data, seed, out):
    t = [tr.name for tr in tl.tracks].index(track)
    tr = tl.tracks[t]
    if tr.align != 3:
        raise tlexpect.TlError("track %s is not 24-bit audio" % track)
    rate = tr.rate // 3
    media = tlexpect.media_track(tl, t)
    pos = bad = 0
    for k in range(tl.frames):
        lo, hi = tl.upto(t, k), tl.upto(t, k + 1)
        got = data[pos:pos + hi - lo]
        pos += hi - lo
        p = tlexpect.piece_at(tr, k)
        if len(got) != hi - lo:
            out.write("bad %d short: %d of %d bytes\n" % (k, len(got), hi - lo))
            bad += 1
            break
        if p is None:
            if any(got):
                out.write("bad %d not silence in a gap\n" % k)
                bad += 1
            else:
                out.write("%d silence ok\n" % k)
            continue
        clip = p[2]
        first = tl.upto(t, p[3] + k - p[0]) // 3
        cid, ms = clip_id(clip), media_seed(seed, clip, media)
        for j in range(0, len(got), 3):
            v = int.from_bytes(got[j:j + 3], "little", signed=True)
            want = sample(ms, cid, rate, first + j // 3)
            if v != want:
                what = "tone" if v >> 12 != want >> 12 else "code"
                out.write("bad %d %s sample %d: %d, want %d (%s)\n" %
                          (k, clip, first + j // 3, v, want, what))
                bad += 1
                break
        else:
            out.write("%d %s %d ok\n" % (k, clip, first))
    if pos != len(data):
        out.write("bad: %d bytes after the last frame\n" % (len(data) - pos))
        bad += 1
    out.write("frames %d bad %d\n" % (tl.frames, bad))
    return bad


# ------------------------------------------------------------------ main

def main(argv):
    ap = argparse.ArgumentParser(prog="tlcode.py",
                                 description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("video")
    p.add_argument("format",
                   choices=["uyvy422", "2vuy", "v210", "rgb48le", "rgb24"])
    p.add_argument("size")
    p.add_argument("file", nargs="?")
    p.add_argument("--tl", help="name clips after this timeline's")
    p = sub.add_parser("audio")
    p.add_argument("timeline")
    p.add_argument("track")
    p.add_argument("file", nargs="?")
    p.add_argument("--seed", type=int, default=1)
    p = sub.add_parser("clipid")
    p.add_argument("name")
    args = ap.parse_args(argv)
    out = sys.stdout
    try:
        if args.cmd == "clipid":
            print(clip_id(args.name))
            return 0
        f = open(args.file, "rb") if args.file else sys.stdin.buffer
        if args.cmd == "audio":
            tl = tlexpect.parse_tl(args.timeline)
            return 1 if check_audio(tl, args.track, f.read(), args.seed,
                                    out) else 0
        fmt = "2vuy" if args.format in ("uyvy422", "2vuy") else args.format
        w, h = (int(v) for v in args.size.split("x"))
        names = {}
        if args.tl:
            tl = tlexpect.parse_tl(args.tl)
            for tr in tl.tracks:
                for piece in tr.pieces:
                    names[clip_id(piece[2])] = piece[2]
        lay = Layout(w, h)
        fs = row_bytes(fmt, w) * h
        n = 0
        while True:
            frame = f.read(fs)
            if not frame:
                break
            if len(frame) != fs:
                out.write("%d short: %d of %d bytes\n" % (n, len(frame), fs))
                return 1
            r = decode(fmt, w, h, lay, frame)
            if isinstance(r, tuple):
                out.write("%d %s %d\n" % (n, names.get(r[0], r[0]), r[1]))
            else:
                out.write("%d %s\n" % (n, r))
            n += 1
    except (tlexpect.TlError, OSError, ValueError) as e:
        print("tlcode: %s" % e, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
