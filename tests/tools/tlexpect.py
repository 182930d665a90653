#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Expected contents of a timelinefs virtual file, computed without the C
engine: an independent reading of DESIGN.md (the .tl format, the byte
layout, media resolution, WAVE data offsets) for the mounted tests.

  tlexpect.py size TIMELINE.tl [MEDIA_DIR]     virtual file size in bytes
                                               (MEDIA_DIR: needed for a
                                               timeline of sequence clips)
  tlexpect.py bytes TIMELINE.tl MEDIA_DIR [--offset O] [--length L]
                                               the bytes (or a range) to stdout
  tlexpect.py sha256 TIMELINE.tl MEDIA_DIR     sha256 of the whole file
  tlexpect.py slices TIMELINE.tl [MEDIA_DIR]   non-gap non-empty slices (the
                                               access rows a full read makes;
                                               with MEDIA_DIR a sequence
                                               frame's open, header reads,
                                               reads and close), then
                                               "TRACK COUNT" per track
  tlexpect.py frames TIMELINE.tl TRACK         per frame of TRACK: "K CLIP SRC"
                                               (the clip and its source frame
                                               that play at timeline frame K)
                                               or "K gap"
  tlexpect.py seqdata FILE...                  per image sequence frame file
                                               (DPX, TIFF, OpenEXR scanline,
                                               else headerless): "FILE" and
                                               its pixel data's extents
                                               "OFFSET LENGTH" (DPX: from its
                                               image data offset; TIFF: its
                                               strips; EXR: the chunks of its
                                               offset table), adjacent ones
                                               joined, in file order
  tlexpect.py seqframes TIMELINE.tl MEDIA_DIR  per frame of each sequence
                                               track: "K TRACK CLIP NUMBER
                                               PATH POLICY" then the image's
                                               pixel data "OFFSET LENGTH"...
                                               (or "missing"), PATH by
                                               OTIO's ImageSequenceReference
                                               formula, relative to MEDIA_DIR
  tlexpect.py movie TIMELINE.tl                what a player finds in NAME.mov:
                                               "frames N", "fps NUM/DEN",
                                               "duration S", then per track
                                               "video NAME FORMAT W H BYTES"
                                               or "audio NAME HZ SAMPLES"

A sequence clip (`seq CLIP PATTERN first=N [step=S] [missing=error|hold|
black]`, docs/formats.md "Sequence clips") plays on the video tracks (a
name starting with V) one image file a frame: frame k's bytes are the
pixel data its own header gives (as seqdata), a gap frame none; where the
image is missing, the clip's policy: black (zeros), hold (the track's last
image before it, zeros where there is none), error (an error here: the
mount's reader gets EIO).  Its size is the clip's first played image's.

A clip line (`clip CLIP [file=NAME] [origin=HH:MM:SS:FF]`, what
--dump-tl keeps of an EDL or OTIO clip) changes nothing here: it names a
real media file and the timecode a clip's source counts from, and the
media read here are raw, NAME.TRACK.* from their first byte, where a
source frame is the file's frame.  A timecode SRC_IN (real media only)
is an error.

size, bytes and sha256 take --mov: the same of NAME.mov, the timeline as a
QuickTime movie (docs/design.md; the field choices of the QuickTime notes:
ftyp qt, moov first, a black picture per picture size that has gaps, then
one mdat holding the file above).  A timeline that cannot be a movie exits
1 saying why.

Streams in constant memory.  Exit 1 on a bad timeline or media, 2 on usage.
"""

import argparse
import hashlib
import heapq
import os
import re
import stat
import sys
from bisect import bisect_right
from fractions import Fraction

WAV_HEAD_MAX = 65536


class TlError(Exception):
    pass


# ------------------------------------------------------------------ values

def parse_uint(s, what):
    if not re.fullmatch(r"[0-9]+", s):
        raise ValueError("bad %s '%s'" % (what, s))
    return int(s)


def parse_fps(s):
    """(num, den): "30000/1001", "25", "29.97" (NTSC decimals: N*1000/1001)."""
    m = re.fullmatch(r"([0-9]+)/([0-9]+)", s)
    if m:
        n, d = int(m.group(1)), int(m.group(2))
        if n == 0 or d == 0:
            raise ValueError("bad frame rate '%s'" % s)
        f = Fraction(n, d)
        return f.numerator, f.denominator
    if re.fullmatch(r"[0-9]+", s):
        if int(s) == 0:
            raise ValueError("bad frame rate '%s'" % s)
        return int(s), 1
    m = re.fullmatch(r"([0-9]+)\.([0-9]+)", s)
    if not m:
        raise ValueError("bad frame rate '%s'" % s)
    v = Fraction(s)
    if v == 0:
        raise ValueError("bad frame rate '%s'" % s)
    decimals = len(m.group(2))
    scale = 10 ** decimals
    if decimals >= 2 and v.denominator != 1:
        # nearest N with N*1000/1001 written to this many decimals == s
        n = int(v * Fraction(1001, 1000) + Fraction(1, 2))
        ntsc = Fraction(n * 1000, 1001)
        if n > 0 and int(ntsc * scale + Fraction(1, 2)) == v * scale:
            return n * 1000, 1001
    return v.numerator, v.denominator


def parse_size(s):
    m = re.fullmatch(r"([0-9]+)(?:([kKMGT])(i?))?B?", s)
    if not m:
        raise ValueError("bad rate '%s'" % s)
    v = int(m.group(1))
    if m.group(2):
        power = "KMGT".index(m.group(2).upper()) + 1
        v *= (1024 if m.group(3) else 1000) ** power
    return v


def clip_name(word):
    """The clip a .tl word names: %XX (two hex digits) is the byte XX, the
    spelling of a blank, '#' or '%' in a dump; any other '%' is itself."""
    raw = word.encode("utf-8", "surrogateescape")
    name = re.sub(rb"%([0-9A-Fa-f]{2})",
                  lambda m: bytes([int(m.group(1), 16)]), raw)
    if (name in (b".", b"..") or b"/" in name or
            any(c < 0x20 or c == 0x7f for c in name)):
        raise ValueError("bad clip '%s'" % word)
    return name.decode("utf-8", "surrogateescape")


# ------------------------------------------------------------------ model

PIX = ("2vuy", "v210")


def picture_bytes(pix, w, h):
    """Bytes of one frame: 2vuy 4:2:2 8-bit is 2 bytes a pixel; v210
    packs 6 pixels in 16 bytes, rows padded to 48 pixels (128 bytes)."""
    if pix == "2vuy":
        return w * h * 2
    return (w + 47) // 48 * 128 * h


class Track:
    def __init__(self, name, rate, align, pic=None):
        self.name = name
        self.rate = rate
        self.align = align
        self.pic = pic       # (format, width, height) or None
        self.defs = []       # (rec_in, frames, clip, src_in) as defined
        self.pieces = []     # flattened: (rec_in, rec_end, clip, src_in)
        self.starts = []
        self.seq = False     # plays sequence clips (a video track)

    def end(self):
        return max((r + f for r, f, _, _ in self.defs), default=0)


class Timeline:
    def __init__(self, path):
        self.path = path
        self.fps = None
        self.tracks = []
        self.frames = 0
        self.seqs = {}       # clip -> Seq
        self.records = set() # clips recorded through the mount (record)
        self.clip_lines = set()  # clips with a clip line
        self.table = {}      # track index -> upto table (sequences)
        self.images = {}     # track index -> its frames' Images (Media)

    def upto(self, t, k):
        """Bytes of track t before frame k: whole pictures on a picture
        track, else the floor of the rate at the track's alignment."""
        if t in self.table:
            u = self.table[t]
            return u[k] if k < len(u) else u[-1]
        tr = self.tracks[t]
        if tr.seq:
            raise TlError("%s: track %s plays image sequences: its layout "
                          "needs MEDIA_DIR" % (self.path, tr.name))
        if tr.pic:
            return k * picture_bytes(*tr.pic)
        num, den = self.fps
        return (k * tr.rate * den // (num * tr.align)) * tr.align

    def offset(self, k):
        return sum(self.upto(t, k) for t in range(len(self.tracks)))

    def size(self):
        return self.offset(self.frames)


def media_track(tl, t):
    """A track "Tx" declared after a track "T" (the outgoing side of a
    transition) reads T's files."""
    name = tl.tracks[t].name
    if len(name) > 1 and name.endswith("x"):
        for u in range(t):
            if tl.tracks[u].name == name[:-1]:
                return media_track(tl, u)
    return name


def flatten(defs):
    """Later definitions win: sweep the boundaries, keeping the covering
    definitions in a heap by definition order (latest on top)."""
    bounds = sorted({r for r, _, _, _ in defs} | {r + f for r, f, _, _ in defs})
    order = sorted(range(len(defs)), key=lambda i: defs[i][0])
    heap, nxt, out = [], 0, []
    for j in range(len(bounds) - 1):
        a, b = bounds[j], bounds[j + 1]
        while nxt < len(order) and defs[order[nxt]][0] <= a:
            i = order[nxt]
            heapq.heappush(heap, (-i, defs[i][0] + defs[i][1]))
            nxt += 1
        while heap and heap[0][1] <= a:
            heapq.heappop(heap)
        if not heap:
            continue
        i = -heap[0][0]
        rec, _, clip, src = defs[i]
        piece = (a, b, clip, src + (a - rec))
        prev = out[-1] if out else None
        if (prev and prev[1] == a and prev[2] == clip and
                prev[3] + (prev[1] - prev[0]) == piece[3]):
            out[-1] = (prev[0], b, clip, prev[3])
        else:
            out.append(piece)
    return out


class Seq:
    """An image sequence clip: image i is the file BASE/PREFIX NUMBER
    SUFFIX, NUMBER = start + i * step."""

    def __init__(self, base, prefix, suffix, padding, start, step, missing):
        self.base, self.prefix, self.suffix = base, prefix, suffix
        self.padding, self.start, self.step = padding, start, step
        self.missing = missing

    def name(self, i):
        """OTIO's target_url_for_image_number: base, a '/' where base has
        none, prefix, '-' for a negative number, its magnitude padded to
        padding digits (more digits kept), suffix."""
        n = self.start + i * self.step
        digits = str(abs(n)).rjust(self.padding, "0")
        base = self.base
        if base and not base.endswith("/"):
            base += "/"
        return base + self.prefix + ("-" if n < 0 else "") + digits + \
            self.suffix

    def number(self, i):
        return self.start + i * self.step


def parse_seq(toks):
    """PATTERN first=N [step=S] [missing=P]: PATTERN's folder part, then
    one %0Nd or %d in the name, %% a literal %, %20 a blank, %23 a '#'."""
    pat, opts = toks[0], toks[1:]
    m = re.fullmatch(r"((?:[^%]|%%|%20|%23)*)%(0[0-9]+|)d"
                     r"((?:[^%]|%%|%20|%23)*)", pat)
    if not m:
        raise ValueError("bad pattern '%s'" % pat)
    def unquote(t):
        # %% a '%', %20 a blank, %23 a '#' (the .tl's words)
        return re.sub(r"%(%|20|23)", lambda x: {"%": "%", "20": " ",
                                                 "23": "#"}[x.group(1)], t)
    head, pad, suffix = unquote(m.group(1)), m.group(2), unquote(m.group(3))
    padding = int(pad) if pad else 0
    base, _, prefix = head.rpartition("/")
    if "/" in suffix or padding > 64 or base.startswith("/") or \
            any(c in ("", ".", "..") for c in base.split("/") if base):
        raise ValueError("bad pattern '%s'" % pat)
    kv = {}
    for o in opts:
        k, eq, v = o.partition("=")
        if not eq or k not in ("first", "step", "missing") or k in kv:
            raise ValueError("bad '%s'" % o)
        kv[k] = v
    if "first" not in kv or not re.fullmatch(r"-?[0-9]+", kv["first"]):
        raise ValueError("seq needs first=N")
    step = parse_uint(kv.get("step", "1"), "step")
    missing = kv.get("missing", "error").lower()
    if step < 1 or missing not in ("error", "hold", "black"):
        raise ValueError("bad step or missing")
    return Seq(base, prefix, suffix, padding, int(kv["first"]), step,
               missing)


def parse_tl(path):
    tl = Timeline(path)
    names = {}
    with open(path, "rb") as f:
        text = f.read().decode("utf-8", "surrogateescape")
    for lineno, line in enumerate(text.split("\n"), 1):
        toks = []
        for tok in line.split():
            if tok.startswith("#"):
                break
            toks.append(tok)
        if not toks:
            continue
        where = "%s:%d" % (path, lineno)
        try:
            if toks[0] == "fps":
                if len(toks) != 2 or tl.fps:
                    raise ValueError("bad fps line")
                tl.fps = parse_fps(toks[1])
            elif toks[0] == "track" and len(toks) == 4 and \
                    re.fullmatch(r"[0-9]+x[0-9]+", toks[3]):
                # track NAME FORMAT WIDTHxHEIGHT: a picture track
                name = toks[1]
                if tl.fps is None or toks[2] not in PIX:
                    raise ValueError("bad picture track line")
                if not re.fullmatch(r"[A-Za-z0-9_]{1,15}", name) or name in names:
                    raise ValueError("bad or duplicate track '%s'" % name)
                w, h = (int(v) for v in toks[3].split("x"))
                if w == 0 or h == 0 or w % 2 or w > 16384 or h > 16384:
                    raise ValueError("bad picture size '%s'" % toks[3])
                fb = picture_bytes(toks[2], w, h)
                num, den = tl.fps
                names[name] = len(tl.tracks)
                tl.tracks.append(Track(name, -(-fb * num // den), fb,
                                       (toks[2], w, h)))
            elif toks[0] == "track":
                if tl.fps is None or len(toks) not in (3, 4):
                    raise ValueError("bad track line")
                name, rate, align = toks[1], parse_size(toks[2]), 1
                if not re.fullmatch(r"[A-Za-z0-9_]{1,15}", name) or name in names:
                    raise ValueError("bad or duplicate track '%s'" % name)
                if len(toks) == 4:
                    if not toks[3].startswith("align="):
                        raise ValueError("bad '%s'" % toks[3])
                    align = parse_uint(toks[3][6:], "align")
                if rate == 0 or align == 0:
                    raise ValueError("zero rate or align")
                names[name] = len(tl.tracks)
                tl.tracks.append(Track(name, rate, align))
            elif toks[0] == "seq":
                clip = clip_name(toks[1]) if len(toks) >= 4 else None
                if clip is None or clip in tl.seqs or clip in tl.records:
                    raise ValueError("bad or duplicate seq line")
                tl.seqs[clip] = parse_seq(toks[2:])
            elif toks[0] == "record":
                clip = clip_name(toks[1]) if len(toks) == 2 else None
                if clip is None or clip in tl.records or clip in tl.seqs:
                    raise ValueError("bad or duplicate record line")
                tl.records.add(clip)
            elif toks[0] == "clip":
                clip = clip_name(toks[1]) if len(toks) >= 3 else None
                if clip is None or clip in tl.clip_lines:
                    raise ValueError("bad or duplicate clip line")
                for kv in toks[2:]:
                    if kv.startswith("file="):
                        clip_name(kv[5:])
                    elif not re.fullmatch(
                            r"origin=\d\d[:;.,]\d\d[:;.,]\d\d[:;.,]\d{2,3}", kv):
                        raise ValueError("bad '%s'" % kv)
                tl.clip_lines.add(clip)
            elif toks[0] == "event":
                if tl.fps is None or len(toks) not in (5, 6):
                    raise ValueError("bad event line")
                tracks = []
                for n in toks[1].split(","):
                    if n not in names or names[n] in tracks:
                        raise ValueError("bad track list '%s'" % toks[1])
                    tracks.append(names[n])
                clip = clip_name(toks[2])
                src = parse_uint(toks[3], "SRC_IN")
                frames = parse_uint(toks[4], "FRAMES")
                if frames == 0:
                    raise ValueError("zero FRAMES")
                if len(toks) == 6:
                    if not toks[5].startswith("@"):
                        raise ValueError("bad '%s'" % toks[5])
                    rec = parse_uint(toks[5][1:], "REC_IN")
                else:
                    # appends after the latest end among its tracks
                    rec = max(tl.tracks[t].end() for t in tracks)
                for t in tracks:
                    tl.tracks[t].defs.append((rec, frames, clip, src))
            else:
                raise ValueError("unknown directive '%s'" % toks[0])
        except ValueError as e:
            raise TlError("%s: %s" % (where, e))
    if tl.fps is None or not tl.tracks:
        raise TlError("%s: no fps or no track" % path)
    for tr in tl.tracks:
        tr.pieces = flatten(tr.defs)
        tr.starts = [p[0] for p in tr.pieces]
        if tr.pieces:
            tl.frames = max(tl.frames, tr.pieces[-1][1])
        uses = [p[2] in tl.seqs for p in tr.pieces]
        tr.seq = tr.name.startswith("V") and any(uses)
        if tr.seq and not all(uses):
            raise TlError("%s: track %s mixes sequence clips and others" %
                          (path, tr.name))
    if tl.frames == 0:
        raise TlError("%s: no event" % path)
    return tl


# ------------------------------------------------------------------ media

def wav_data(path, head):
    """(offset, declared size or None) of the data chunk of a RIFF/WAVE."""
    if len(head) < 12 or head[0:4] not in (b"RIFF", b"RF64") or head[8:12] != b"WAVE":
        raise TlError("%s is not RIFF/WAVE" % path)
    pos = 12
    while pos + 8 <= len(head):
        cid = head[pos:pos + 4]
        csize = int.from_bytes(head[pos + 4:pos + 8], "little")
        if cid == b"data":
            return pos + 8, (None if csize in (0, 0xFFFFFFFF) else csize)
        pos += 8 + csize + (csize & 1)
    raise TlError("%s has no data chunk" % path)


class Image:
    """The image file a frame of a sequence track plays."""

    def __init__(self, clip, number, rel, path, ext, n, missing):
        self.clip, self.number, self.rel, self.path = clip, number, rel, path
        self.ext = ext       # pixel data extents, None: missing
        self.len = n         # the frame's bytes in the virtual file
        self.missing = missing


class Media:
    """Resolves (clip, track) to MEDIA_DIR/CLIP.TRACK.* and reads it."""

    def __init__(self, tl, media_dir):
        self.tl = tl
        self.dir = media_dir
        self.names = os.listdir(media_dir)
        self.files = {}      # (clip, t) -> (path, header, size)
        self.open = {}
        self.images = {}     # t -> per frame: None (gap) or Image
        for t, tr in enumerate(tl.tracks):
            if tr.seq:
                self.seq_layout(t)
                continue
            for a, b, clip, src in tr.pieces:
                path, header, size = self.resolve(clip, t)
                # frame k reads at the source frame's offset, for the
                # timeline frame's length (DESIGN.md): the two cadences
                # differ, so the end is not simply upto(src + frames)
                need = max(tl.upto(t, src + k - a) + tl.upto(t, k + 1) -
                           tl.upto(t, k) for k in range(a, b))
                if need > size:
                    raise TlError("%s: clip %s track %s: %s holds %d bytes "
                                  "of essence, %d needed" %
                                  (tl.path, clip, tr.name, path, size, need))

    def seq_layout(self, t):
        """Each frame's image on sequence track t, and the track's upto
        table: a frame the image's pixel bytes, a gap frame none."""
        tl, tr = self.tl, self.tl.tracks[t]
        frames = [None] * tl.frames
        size = {}            # clip -> its first played image's bytes
        for a, b, clip, src in tr.pieces:
            sq = tl.seqs[clip]
            for k in range(a, b):
                i = src + k - a
                rel = sq.name(i)
                path = os.path.join(self.dir, rel)
                try:
                    ext = seq_extents(path)
                except FileNotFoundError:
                    ext = None
                if clip not in size:
                    if ext is None:
                        raise TlError("%s: clip %s: its first image %s is "
                                      "missing" % (tl.path, clip, rel))
                    size[clip] = sum(n for _, n in ext)
                n = size[clip] if ext is None else sum(x for _, x in ext)
                frames[k] = Image(clip, sq.number(i), rel, path, ext, n,
                                  sq.missing)
        u = [0]
        for im in frames:
            u.append(u[-1] + (im.len if im else 0))
        self.images[t] = tl.images[t] = frames
        tl.table[t] = u

    def seq_read(self, t, k):
        """Frame k's bytes of sequence track t (a whole slice)."""
        im = self.images[t][k]
        if im.ext is not None:
            data = b""
            with open(im.path, "rb") as f:
                for off, n in im.ext:
                    f.seek(off)
                    data += f.read(n)
            return data
        if im.missing == "black":
            return bytes(im.len)
        if im.missing == "hold":
            for j in range(k - 1, -1, -1):
                prev = self.images[t][j]
                if prev and prev.ext is not None:
                    data = self.seq_read(t, j)[:im.len]
                    return data + bytes(im.len - len(data))
            return bytes(im.len)
        raise TlError("%s: frame %d: image %s is missing (missing=error: "
                      "the reader gets EIO)" % (self.tl.path, k, im.rel))

    def resolve(self, clip, t):
        key = (clip, t)
        if key in self.files:
            return self.files[key]
        prefix = "%s.%s." % (clip, media_track(self.tl, t))
        found = []
        if clip in self.tl.records:
            # a recorded clip is the mount's recording only (formats.md
            # "Media files", rule 4): read once it is closed
            audio = media_track(self.tl, t).startswith("A")
            found = ["ingest/" + prefix + ("wav" if audio else "raw")]
        for n in [] if found else self.names:
            if n.startswith(prefix) and len(n) > len(prefix):
                st = os.lstat(os.path.join(self.dir, n))
                if stat.S_ISREG(st.st_mode):
                    found.append(n)
        if len(found) != 1:
            raise TlError("%s: clip %s track %s: %s %s/%s*" %
                          (self.tl.path, clip, self.tl.tracks[t].name,
                           "no file" if not found else "several files",
                           self.dir, prefix))
        path = os.path.join(self.dir, found[0])
        size = os.path.getsize(path)
        header = 0
        if found[0].lower().endswith(".wav"):
            with open(path, "rb") as f:
                header, declared = wav_data(path, f.read(WAV_HEAD_MAX))
            if header > size:
                raise TlError("%s: data chunk past the end" % path)
            size -= header
            if declared is not None:
                size = min(size, declared)
        self.files[key] = (path, header, size)
        return self.files[key]

    def read(self, clip, t, off, length):
        path, header, _ = self.files[(clip, t)]
        f = self.open.get(path)
        if f is None:
            if len(self.open) >= 64:
                self.open.pop(next(iter(self.open))).close()
            f = self.open[path] = open(path, "rb")
        f.seek(header + off)
        data = f.read(length)
        if len(data) != length:
            raise TlError("%s: short read at %d" % (path, header + off))
        return data

    def close(self):
        for f in self.open.values():
            f.close()


# ------------------------------------------------------------------ sequences

# Scan lines per chunk of each OpenEXR compression (the file layout).
EXR_LINES = {0: 1, 1: 1, 2: 1, 3: 16, 4: 32, 5: 16, 6: 32, 7: 32, 8: 32,
             9: 256}


def join_extents(ext):
    out = []
    for off, n in ext:
        if out and out[-1][0] + out[-1][1] == off:
            out[-1] = (out[-1][0], out[-1][1] + n)
        else:
            out.append((off, n))
    return out


def dpx_extents(path, b, size):
    if b[:4] == b"SDPX":
        e = ">"
    elif b[:4] == b"XPDS":
        e = "<"
    else:
        raise TlError("%s: not a DPX file" % path)
    if len(b) < 2048:
        raise TlError("%s: DPX header cut short" % path)
    u32 = lambda o: int.from_bytes(b[o:o + 4], "big" if e == ">" else
                                   "little")
    u16 = lambda o: int.from_bytes(b[o:o + 2], "big" if e == ">" else
                                   "little")
    off, w, h = u32(4), u32(772), u32(776)
    desc, bits, pack = b[800], b[803], u16(804)
    eol = u32(812)
    comps = {50: 3, 51: 4, 52: 4, 6: 1}.get(desc)
    if comps is None:
        raise TlError("%s: DPX descriptor %d not read" % (path, desc))
    n = w * comps
    if bits == 10 and pack in (1, 2):
        line = (n + 2) // 3 * 4
    elif bits == 16 or (bits == 12 and pack):
        line = 2 * n
    elif bits == 8:
        line = n
    else:
        raise TlError("%s: DPX %d-bit packing %d not read" %
                      (path, bits, pack))
    if eol != 0xFFFFFFFF:
        line += eol
    if off + line * h > size:
        raise TlError("%s: DPX pixel data %d at %d passes the file's %d "
                      "bytes" % (path, line * h, off, size))
    return [(off, line * h)]


def tiff_extents(path, f, b, size):
    e = "little" if b[:2] == b"II" else "big"
    u = lambda x: int.from_bytes(x, e)
    ifd = u(b[4:8])
    f.seek(ifd)
    n = u(f.read(2))
    ents = f.read(12 * n)
    tags = {}
    for i in range(n):
        ent = ents[12 * i:12 * i + 12]
        tag, typ, cnt = u(ent[0:2]), u(ent[2:4]), u(ent[4:8])
        width = {3: 2, 4: 4}.get(typ)
        if width is None:
            continue
        if cnt * width <= 4:
            raw = ent[8:8 + cnt * width]
        else:
            f.seek(u(ent[8:12]))
            raw = f.read(cnt * width)
        tags[tag] = [u(raw[width * k:width * k + width]) for k in range(cnt)]
    if tags.get(259, [1]) != [1] or 273 not in tags or 279 not in tags:
        raise TlError("%s: TIFF not uncompressed strips" % path)
    ext = list(zip(tags[273], tags[279]))
    for off, n in ext:
        if off + n > size:
            raise TlError("%s: TIFF strip at %d passes the file" %
                          (path, off))
    return join_extents(ext)


def exr_extents(path, f, size):
    f.seek(4)
    ver = int.from_bytes(f.read(4), "little")
    if ver & 0xFF != 2 or ver & 0x1600:
        raise TlError("%s: EXR not a single-part scanline file" % path)
    attrs = {}
    while True:
        name = b""
        while True:
            c = f.read(1)
            if not c:
                raise TlError("%s: EXR header cut short" % path)
            if c == b"\0":
                break
            name += c
        if not name:
            break
        while f.read(1) not in (b"\0", b""):
            pass
        n = int.from_bytes(f.read(4), "little")
        attrs[name] = f.read(n)
    dw = attrs.get(b"dataWindow")
    comp = attrs.get(b"compression")
    if dw is None or comp is None or comp[0] not in EXR_LINES:
        raise TlError("%s: EXR without dataWindow or known compression" %
                      path)
    y0 = int.from_bytes(dw[4:8], "little", signed=True)
    y1 = int.from_bytes(dw[12:16], "little", signed=True)
    lines = EXR_LINES[comp[0]]
    chunks = (y1 - y0 + lines) // lines
    table = f.read(8 * chunks)
    ext = []
    for i in range(chunks):
        off = int.from_bytes(table[8 * i:8 * i + 8], "little")
        f.seek(off + 4)
        n = int.from_bytes(f.read(4), "little")
        if off + 8 + n > size:
            raise TlError("%s: EXR chunk %d at %d passes the file" %
                          (path, i, off))
        ext.append((off, 8 + n))
    ext.sort()
    return join_extents(ext)


def seq_extents(path):
    """The (offset, length) extents of an image file's pixel data."""
    size = os.path.getsize(path)
    with open(path, "rb") as f:
        b = f.read(2048)
        if b[:4] in (b"SDPX", b"XPDS"):
            return dpx_extents(path, b, size)
        if b[:4] in (b"II*\0", b"MM\0*"):
            return tiff_extents(path, f, b, size)
        if b[:4] == b"\x76\x2f\x31\x01":
            return exr_extents(path, f, size)
    return [(0, size)]


# ------------------------------------------------------------------ output

def piece_at(tr, k):
    i = bisect_right(tr.starts, k) - 1
    if i >= 0 and k < tr.pieces[i][1]:
        return tr.pieces[i]
    return None


def first_frame(tl, off):
    """The frame holding byte off (off < size)."""
    lo, hi = 0, tl.frames
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if tl.offset(mid) <= off:
            lo = mid
        else:
            hi = mid
    return lo


def chunks(tl, media, offset=0, length=None):
    """Yield the bytes of [offset, offset + length) in pieces."""
    size = tl.size()
    end = size if length is None else min(size, offset + length)
    if offset >= end:
        return
    k = first_frame(tl, offset)
    pos = tl.offset(k)
    zeros = b""
    while pos < end:
        for t, tr in enumerate(tl.tracks):
            lo, hi = tl.upto(t, k), tl.upto(t, k + 1)
            n = hi - lo
            if n == 0 or pos + n <= offset:
                pos += n
                continue
            if pos >= end:
                break
            a = max(offset - pos, 0)        # skip into the slice
            b = min(n, end - pos)           # stop within it
            p = piece_at(tr, k)
            if p is None:
                if len(zeros) < b - a:
                    zeros = bytes(b - a)
                yield zeros[:b - a]
            elif tr.seq:
                yield media.seq_read(t, k)[a:b]
            else:
                src_off = tl.upto(t, p[3] + k - p[0])
                yield media.read(p[2], t, src_off + a, b - a)
            pos += n
        k += 1


# ------------------------------------------------------------------ movie

U32 = 0xFFFFFFFF


def be(v, n):
    return v.to_bytes(n, "big")


def atom(kind, *parts):
    body = b"".join(parts)
    return be(8 + len(body), 4) + kind.encode() + body


def full_atom(kind, version, flags, *parts):
    return atom(kind, be(version << 24 | flags, 4), *parts)


# the unity matrix of QuickTime's 3x3 (16.16, 16.16, 2.30 columns)
MATRIX = b"".join(be(v, 4) for v in (0x10000, 0, 0, 0, 0x10000, 0, 0, 0,
                                     0x40000000))


class Movie:
    """The QuickTime header of a timeline's movie, its size and where the
    timeline's bytes start in it."""

    def __init__(self, tl):
        self.tl = tl
        self.kinds = []
        if any(tr.seq for tr in tl.tracks):
            raise TlError("no QuickTime mapping for DPX/TIFF/EXR image "
                          "sequences")
        for t, tr in enumerate(tl.tracks):
            if tr.pic:
                self.kinds.append("video")
            elif tr.align == 3 and tr.rate % 3 == 0 and tr.rate // 3 < 65536:
                for k in range(tl.frames):
                    if tl.upto(t, k + 1) == tl.upto(t, k):
                        raise TlError("track %s: frame %d has no audio "
                                      "sample" % (tr.name, k))
                self.kinds.append("audio")
            elif tr.align == 3:
                raise TlError("track %s: audio rate not 3 bytes times a "
                              "sample rate below 65536" % tr.name)
            elif tr.name.startswith("A"):
                raise TlError("track %s: audio not of 24-bit samples "
                              "(align=3)" % tr.name)
            else:
                raise TlError("track %s has no picture format" % tr.name)
        if tl.frames > U32:
            raise TlError("too many frames for a movie")
        self.gaps = [self.kinds[t] == "video" and
                     any(piece_at(tr, k) is None for k in range(tl.frames))
                     for t, tr in enumerate(tl.tracks)]
        self.frame_off = [0] * (tl.frames + 1)
        for k in range(1, tl.frames + 1):
            self.frame_off[k] = tl.offset(k)
        # pass 1 decides stco or co64 (the offsets' values change no
        # size), pass 2 gives the header's size, pass 3 the real offsets
        self.co64 = False
        self.base = 0
        self.sizing = True      # offsets written as 0 until they are known
        head = self.build()
        self.co64 = len(head) + tl.size() > U32
        self.base = len(self.build())
        self.sizing = False
        self.head = self.build()
        assert len(self.head) == self.base
        self.size = self.base + tl.size()

    def black(self, pic):
        n = picture_bytes(*pic)
        if pic[0] == "2vuy":
            # Cb Y Cr Y: 128 16 128 16, black in video range
            return b"\x80\x10" * (n // 2)
        # v210: Cb=Cr=512 and Y=64 packed 10 bits at a time, little
        # endian words: Cb Y Cr | Y Cb Y | Cr Y Cb | Y Cr Y
        w0 = 512 | 64 << 10 | 512 << 20
        w1 = 64 | 512 << 10 | 64 << 20
        return (w0.to_bytes(4, "little") + w1.to_bytes(4, "little")) * (n // 8)

    def blacks(self, at):
        """The black mdat at movie offset at: one picture per distinct
        picture among the video tracks that have gaps; offsets by track."""
        self.black_at = {}
        if not any(self.gaps):
            return b""
        body, seen = b"", {}
        for t, tr in enumerate(self.tl.tracks):
            if not self.gaps[t]:
                continue
            if tr.pic not in seen:
                seen[tr.pic] = at + 8 + len(body)
                body += self.black(tr.pic)
            self.black_at[t] = seen[tr.pic]
        return atom("mdat", body)

    def chunk_offsets(self, t):
        tl = self.tl
        out = []
        for k in range(tl.frames):
            if self.kinds[t] == "video" and piece_at(tl.tracks[t], k) is None:
                out.append(self.black_at.get(t, 0))
                continue
            off = self.frame_off[k]
            for u in range(t):
                off += tl.upto(u, k + 1) - tl.upto(u, k)
            out.append(self.base + off)
        return out

    def vdesc(self, tr):
        pix, w, h = tr.pic
        name = (b"Component Y'CbCr 8-bit 4:2:2" if pix == "2vuy" else
                b"Component Y'CbCr 10-bit 4:2:2")
        hd = h > 576
        colr = atom("colr", b"nclc", be(1 if hd else 6, 2), be(1, 2),
                    be(1 if hd else 6, 2))
        return atom(pix, bytes(6), be(1, 2),       # data reference 1
                    be(0, 2), be(0, 2), be(0, 4),  # version, revision, vendor
                    be(0, 4), be(0x200, 4),        # temporal, spatial quality
                    be(w, 2), be(h, 2), be(72 << 16, 4), be(72 << 16, 4),
                    be(0, 4), be(1, 2),            # data size, frames/sample
                    bytes([len(name)]) + name.ljust(31, b"\0"),
                    be(24, 2), be(0xFFFF, 2),      # depth, no color table
                    colr, atom("fiel", b"\x01\x00"),
                    atom("pasp", be(1, 4), be(1, 4)))

    def adesc(self, tr):
        wave = atom("wave", atom("frma", b"in24"), atom("enda", be(1, 2)),
                    be(8, 4) + bytes(4))
        return atom("in24", bytes(6), be(1, 2),
                    be(1, 2), be(0, 2), be(0, 4),  # sound description v1
                    be(1, 2), be(16, 2), be(0, 2), be(0, 2),
                    be((tr.rate // 3) << 16, 4),
                    be(1, 4), be(3, 4), be(3, 4), be(2, 4), wave)

    def stbl(self, t):
        tl, tr = self.tl, self.tl.tracks[t]
        video = self.kinds[t] == "video"
        samples = tl.upto(t, tl.frames) // 3
        stsd = full_atom("stsd", 0, 0, be(1, 4),
                         self.vdesc(tr) if video else self.adesc(tr))
        if video:
            stts = full_atom("stts", 0, 0, be(1, 4), be(tl.frames, 4),
                             be(tl.fps[1], 4))
        else:
            stts = full_atom("stts", 0, 0, be(1, 4), be(samples, 4), be(1, 4))
        runs, prev = [], None
        for k in range(tl.frames):
            per = 1 if video else (tl.upto(t, k + 1) - tl.upto(t, k)) // 3
            if per != prev:
                runs.append(be(k + 1, 4) + be(per, 4) + be(1, 4))
                prev = per
        stsc = full_atom("stsc", 0, 0, be(len(runs), 4), *runs)
        if video:
            stsz = full_atom("stsz", 0, 0, be(picture_bytes(*tr.pic), 4),
                             be(tl.frames, 4))
        else:
            stsz = full_atom("stsz", 0, 0, be(3, 4), be(samples, 4))
        offs = self.chunk_offsets(t)
        width = 8 if self.co64 else 4
        stco = full_atom("co64" if self.co64 else "stco", 0, 0,
                         be(len(offs), 4),
                         b"".join(be(0 if self.sizing else o, width)
                                  for o in offs))
        return atom("stbl", stsd, stts, stsc, stsz, stco)

    def trak(self, t, mdur):
        tl, tr = self.tl, self.tl.tracks[t]
        video = self.kinds[t] == "video"
        v1 = mdur > U32
        tw = 8 if v1 else 4
        tkhd = full_atom("tkhd", int(v1), 0xF, bytes(2 * tw), be(t + 1, 4),
                         be(0, 4), be(mdur, tw), bytes(8), be(0, 2), be(0, 2),
                         be(0 if video else 0x100, 2), be(0, 2), MATRIX,
                         be(tr.pic[1] << 16 if video else 0, 4),
                         be(tr.pic[2] << 16 if video else 0, 4))
        if video:
            scale, dur = tl.fps[0], tl.frames * tl.fps[1]
        else:
            scale, dur = tr.rate // 3, tl.upto(t, tl.frames) // 3
        v1 = dur > U32
        tw = 8 if v1 else 4
        mdhd = full_atom("mdhd", int(v1), 0, bytes(2 * tw), be(scale, 4),
                         be(dur, tw), be(0, 2), be(0, 2))
        hdlr = full_atom("hdlr", 0, 0, b"mhlr",
                         b"vide" if video else b"soun", bytes(12), b"\0")
        if video:
            mhd = full_atom("vmhd", 0, 1, be(0x40, 2), bytes(6))
        else:
            mhd = full_atom("smhd", 0, 0, bytes(4))
        dhlr = full_atom("hdlr", 0, 0, b"dhlr", b"alis", bytes(12), b"\0")
        dinf = atom("dinf", full_atom("dref", 0, 0, be(1, 4),
                                      full_atom("alis", 0, 1)))
        minf = atom("minf", mhd, dhlr, dinf, self.stbl(t))
        return atom("trak", tkhd, atom("mdia", mdhd, hdlr, minf))

    def build(self):
        tl = self.tl
        ftyp = atom("ftyp", b"qt  ", be(0x200, 4), b"qt  ")
        mdur = tl.frames * tl.fps[1]
        v1 = mdur > U32
        tw = 8 if v1 else 4
        mvhd = full_atom("mvhd", int(v1), 0, bytes(2 * tw), be(tl.fps[0], 4),
                         be(mdur, tw), be(0x10000, 4), be(0x100, 2),
                         bytes(10), MATRIX, bytes(24),
                         be(len(tl.tracks) + 1, 4))
        # the black mdat's offset does not depend on the offsets in moov:
        # its pictures' offsets are known before the traks are built
        moov_len = len(atom("moov", mvhd, *[self.trak_sized(t, mdur)
                                           for t in range(len(tl.tracks))]))
        blacks = self.blacks(len(ftyp) + moov_len)
        moov = atom("moov", mvhd, *[self.trak(t, mdur)
                                    for t in range(len(tl.tracks))])
        assert len(moov) == moov_len
        n = tl.size()
        if 8 + n > U32:
            mdat = be(1, 4) + b"mdat" + be(16 + n, 8)
        else:
            mdat = be(8 + n, 4) + b"mdat"
        return ftyp + moov + blacks + mdat

    def trak_sized(self, t, mdur):
        """A trak of the right size (gap offsets not known yet)."""
        self.black_at = {}
        return self.trak(t, mdur)


def movie_chunks(tl, media, mv, offset=0, length=None):
    """The bytes of [offset, offset + length) of the movie, in pieces."""
    end = mv.size if length is None else min(mv.size, offset + length)
    if offset >= end:
        return
    if offset < mv.base:
        yield mv.head[offset:min(end, mv.base)]
    if end > mv.base:
        start = max(offset, mv.base) - mv.base
        yield from chunks(tl, media, start, end - mv.base - start)


def count_slices(tl):
    """Per track the access rows a full read makes: a row a non-empty
    slice; on a sequence track (its images known: Media) each image's
    rows, open, header reads, a read a run, close (seq_rows)."""
    per = []
    for t, tr in enumerate(tl.tracks):
        n = 0
        images = tl.images.get(t)
        for a, b, _, _ in tr.pieces:
            for k in range(a, b):
                if images is not None:
                    n += seq_rows(images, k)
                elif tl.upto(t, k + 1) > tl.upto(t, k):
                    n += 1
        per.append((tr.name, n))
    return per


def seq_rows(images, k):
    """The rows of frame k of a sequence track: an image's open, header
    reads, reads (one a run), close; a missing one's failed open, then
    under hold the rows of the last image before it (black, error:
    none)."""
    im = images[k]
    if im.ext is not None:
        return 2 + header_reads(im.path) + len(im.ext)
    if im.missing == "hold":
        for j in range(k - 1, -1, -1):
            if images[j] is not None and images[j].ext is not None:
                return 1 + seq_rows(images, j)
    return 1


HEADER_READ = 4096


def header_reads(path):
    """How many reads a reader of one window makes of path's header: it
    asks for each field in turn ((offset, length) below, as the format's
    layout puts them); a field not in the window is one read from where
    it starts of HEADER_READ bytes or the field, the file's end
    permitting.  DPX: its 2048-byte header; EXR: the magic and version,
    each attribute, the end of the header, each entry of the offset
    table; TIFF: the byte order and first IFD's offset, the IFD's count,
    each entry, the strip (tile) offsets and byte counts held out of
    line, 1024 of each in turn;
    a headerless file: none."""
    size = os.path.getsize(path)
    asks = []
    with open(path, "rb") as f:
        b = f.read(8)
        if b[:4] in (b"SDPX", b"XPDS"):
            asks = [(0, 2048)]
        elif b[:4] == b"\x76\x2f\x31\x01":
            asks = [(0, 8)]
            pos, dw, comp = 8, None, None
            while True:
                f.seek(pos)
                head = f.read(1024)
                if head[:1] == b"\0":
                    asks.append((pos, 1))
                    pos += 1
                    break
                name, _, rest = head.partition(b"\0")
                typ, _, rest = rest.partition(b"\0")
                n = int.from_bytes(rest[:4], "little")
                start = pos + len(name) + len(typ) + 2 + 4
                asks.append((pos, start + n - pos))
                f.seek(start)
                val = f.read(n)
                if name == b"dataWindow":
                    dw = val
                if name == b"compression":
                    comp = val[0]
                pos = start + n
            y0 = int.from_bytes(dw[4:8], "little", signed=True)
            y1 = int.from_bytes(dw[12:16], "little", signed=True)
            lines = EXR_LINES[comp]
            # the offset table an entry at a time
            asks += [(pos + 8 * i, 8)
                     for i in range((y1 - y0 + lines) // lines)]
        elif b[:4] in (b"II*\0", b"MM\0*"):
            e = "little" if b[:2] == b"II" else "big"
            ifd = int.from_bytes(b[4:8], e)
            f.seek(ifd)
            n = int.from_bytes(f.read(2), e)
            ents = f.read(12 * n)
            asks = [(0, 8), (ifd, 2)]
            tables = [None, None]   # offsets, byte counts: (at, width)
            for i in range(n):
                asks.append((ifd + 2 + 12 * i, 12))
                ent = ents[12 * i:12 * i + 12]
                tag = int.from_bytes(ent[0:2], e)
                width = {3: 2, 4: 4}.get(int.from_bytes(ent[2:4], e), 0)
                cnt = int.from_bytes(ent[4:8], e)
                if tag in (273, 279, 324, 325) and cnt * width > 4:
                    tables[tag in (279, 325)] = (
                        int.from_bytes(ent[8:12], e), width, cnt)
            # the two tables in turn, TIFF_BATCH (1024) strips a piece
            cnt = max(t[2] for t in tables if t) if any(tables) else 0
            for i in range(0, cnt, 1024):
                for t in tables:
                    if t:
                        asks.append((t[0] + i * t[1],
                                     min(1024, cnt - i) * t[1]))
    reads, lo, hi = 0, 0, 0
    for at, n in asks:
        if lo <= at and at + n <= hi:
            continue
        reads += 1
        lo, hi = at, min(size, at + max(n, HEADER_READ))
    return reads


def frames(tl, track, out):
    names = [tr.name for tr in tl.tracks]
    if track not in names:
        raise TlError("%s: no track %s" % (tl.path, track))
    tr = tl.tracks[names.index(track)]
    for k in range(tl.frames):
        p = piece_at(tr, k)
        if p is None:
            out.write("%d gap\n" % k)
        else:
            out.write("%d %s %d\n" % (k, p[2], p[3] + k - p[0]))
def movie(tl):
    """The movie's streams as a player reports them: a picture track is
    a video stream of one picture a frame; any other track is 24-bit
    mono PCM at rate / 3 samples a second (the timeline's bytes of it /
    3 samples)."""
    num, den = tl.fps
    out = ["frames %d" % tl.frames, "fps %d/%d" % (num, den),
           "duration %.6f" % (tl.frames * den / num)]
    for t, tr in enumerate(tl.tracks):
        if tr.pic:
            out.append("video %s %s %d %d %d" % ((tr.name,) + tr.pic +
                                               (picture_bytes(*tr.pic),)))
        else:
            out.append("audio %s %d %d" % (tr.name, tr.rate // 3,
                                           tl.upto(t, tl.frames) // 3))
    return out


def main(argv):
    ap = argparse.ArgumentParser(prog="tlexpect.py",
                                 description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("size")
    p.add_argument("timeline")
    p.add_argument("media_dir", nargs="?")
    p.add_argument("--mov", action="store_true")
    p = sub.add_parser("bytes")
    p.add_argument("timeline")
    p.add_argument("media_dir")
    p.add_argument("--offset", type=int, default=0)
    p.add_argument("--length", type=int, default=None)
    p.add_argument("--mov", action="store_true")
    p = sub.add_parser("sha256")
    p.add_argument("timeline")
    p.add_argument("media_dir")
    p.add_argument("--mov", action="store_true")
    p = sub.add_parser("slices")
    p.add_argument("timeline")
    p.add_argument("media_dir", nargs="?")
    p = sub.add_parser("frames")
    p.add_argument("timeline")
    p.add_argument("track")
    p = sub.add_parser("movie")
    p.add_argument("timeline")
    p = sub.add_parser("seqframes")
    p.add_argument("timeline")
    p.add_argument("media_dir")
    p = sub.add_parser("seqdata")
    p.add_argument("files", nargs="+")
    args = ap.parse_args(argv)
    if args.cmd == "bytes" and (args.offset < 0 or
                                (args.length is not None and args.length < 0)):
        ap.error("--offset and --length must not be negative")
    try:
        if args.cmd == "seqdata":
            for path in args.files:
                print(path, " ".join("%d %d" % e for e in seq_extents(path)))
            return 0
        tl = parse_tl(args.timeline)
        mv = Movie(tl) if getattr(args, "mov", False) else None
        if args.cmd == "seqframes" or (args.cmd in ("size", "slices") and
                                       args.media_dir):
            media = Media(tl, args.media_dir)
            media.close()
        if args.cmd == "seqframes":
            for t in sorted(media.images):
                for k, im in enumerate(media.images[t]):
                    if im is None:
                        continue
                    print(k, tl.tracks[t].name, im.clip, im.number, im.rel,
                          im.missing, " ".join("%d %d" % e for e in im.ext)
                          if im.ext is not None else "missing")
        elif args.cmd == "size":
            print(mv.size if mv else tl.size())
        elif args.cmd == "frames":
            frames(tl, args.track, sys.stdout)
        elif args.cmd == "movie":
            print("\n".join(movie(tl)))
        elif args.cmd == "slices":
            per = count_slices(tl)
            print(sum(n for _, n in per))
            for name, n in per:
                print(name, n)
        else:
            media = Media(tl, args.media_dir)
            try:
                if mv:
                    pieces = movie_chunks(tl, media, mv, args.offset,
                                          args.length) \
                        if args.cmd == "bytes" else movie_chunks(tl, media, mv)
                elif args.cmd == "bytes":
                    pieces = chunks(tl, media, args.offset, args.length)
                else:
                    pieces = chunks(tl, media)
                if args.cmd == "bytes":
                    out = sys.stdout.buffer
                    for c in pieces:
                        out.write(c)
                    out.flush()
                else:
                    h = hashlib.sha256()
                    for c in pieces:
                        h.update(c)
                    print(h.hexdigest())
            finally:
                media.close()
    except (TlError, OSError) as e:
        print("tlexpect: %s" % e, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
