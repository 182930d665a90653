#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""mxfcheck.py FILE TLINDEX_OUT: holds what tests/tools/tlindex found in
an MXF file against ffprobe (test_mxf.sh): every video frame's (offset,
size) is the KLV value of ffprobe's packet (its pos is the key's offset in
frame-wrapped essence, the value's in clip-wrapped), in presentation order
(pts), with the decode order of the stored packets; every audio packet's
samples are where the chunks say; codec, size, rate, channels, bits, the
start timecode, the file package UMID and the material package name as
ffprobe -show_format -show_streams says.  Prints one line per mismatch
and exits 1, else prints "same as ffprobe: N frames, N audio packets"."""
import json
import subprocess
import sys


def probe(path):
    out = subprocess.run(
        ["ffprobe", "-v", "error", "-show_format", "-show_streams",
         "-show_packets", "-of", "json", path],
        check=True, capture_output=True).stdout
    return json.loads(out)


def value_off(data, pos):
    """The KLV value at or after pos: ffprobe's pos of a frame-wrapped
    element is its key's offset."""
    if data[pos:pos + 4] != b"\x06\x0e\x2b\x34":
        return pos
    b = data[pos + 16]
    if b < 0x80:
        return pos + 17
    return pos + 17 + (b & 0x7f)


def tc_frames(text, num, den, drop):
    hh, mm, ss, ff = (int(x) for x in text.replace(";", ":").split(":"))
    fps = round(num / den)
    frames = ((hh * 60 + mm) * 60 + ss) * fps + ff
    if drop:
        d = 2 * fps // 30
        minutes = hh * 60 + mm
        frames -= d * (minutes - minutes // 10)
    return frames


def main():
    path, found = sys.argv[1], sys.argv[2]
    data = open(path, "rb").read()
    info = probe(path)
    bad = []
    streams, frames, chunks, head = {}, {}, {}, {}
    for line in open(found):
        w = line.split()
        if w[0] == "stream" and w[2] == "video":
            # stream I video CODEC FOURCC WxH RATE frames N ...
            streams[int(w[1])] = ["video", w[3], w[5], w[6], w[8]]
        elif w[0] == "stream":
            # stream I audio CODEC FOURCC RATE CH BITS BLOCK BE FLOAT
            # samples N
            streams[int(w[1])] = ["audio", w[3], w[5], w[6], w[7], w[8],
                                  w[12]]
        elif w[0] == "frame":
            # frame I K OFF LEN KEY DEP DECODE
            frames.setdefault(int(w[1]), []).append(
                (int(w[3]), int(w[4]), int(w[6]), int(w[7])))
        elif w[0] == "chunk":
            # chunk I J OFF FIRST COUNT
            chunks.setdefault(int(w[1]), []).append(
                (int(w[3]), int(w[4]), int(w[5])))
        else:
            head[w[0]] = w[1:]
    if len(streams) != len(info["streams"]):
        bad.append("%d streams, ffprobe %d" % (len(streams),
                                                len(info["streams"])))
    nframes = naudio = 0
    for st in info["streams"]:
        i = st["index"]
        got = streams.get(i, ["none"])
        pk = [p for p in info["packets"] if p["stream_index"] == i]
        if st["codec_type"] == "video":
            want = ["video", st["codec_name"], "%dx%d" % (st["width"],
                    st["height"]), st["r_frame_rate"], str(len(pk))]
            if got != want:
                bad.append("stream %d: %s, ffprobe %s" % (i, got, want))
            stored = [(value_off(data, int(p["pos"])), int(p["size"]))
                      for p in pk]
            order = sorted(range(len(pk)), key=lambda s: int(pk[s]["pts"]))
            have = frames.get(i, [])
            for k, s in enumerate(order):
                if k >= len(have) or have[k][:2] != stored[s] or \
                        have[k][3] != s:
                    bad.append("stream %d frame %d: %s, ffprobe (%d, %d) "
                               "stored %d" % (i, k, have[k] if k < len(have)
                                              else None, stored[s][0],
                                              stored[s][1], s))
                    break
                if not have[k][2] <= s:
                    bad.append("stream %d frame %d: depends on %d, after it"
                               % (i, k, have[k][2]))
            nframes += len(pk)
        else:
            bits = st.get("bits_per_sample") or st.get("bits_per_raw_sample")
            want = ["audio", st["codec_name"], st["sample_rate"],
                    str(st["channels"]), str(bits)]
            if got[:5] != want:
                bad.append("stream %d: %s, ffprobe %s" % (i, got[:5], want))
                continue
            block = int(got[5])
            ch = chunks.get(i, [])
            first = 0
            for p in pk:
                off, n = value_off(data, int(p["pos"])), int(p["size"]) // block
                c = [c for c in ch if c[1] <= first < c[1] + c[2]]
                if not c or c[0][0] + (first - c[0][1]) * block != off or \
                        first + n > c[0][1] + c[0][2]:
                    bad.append("stream %d: audio packet at %d (samples %d-%d)"
                               " not in the chunks %s" % (i, off, first,
                                                          first + n, c))
                    break
                first += n
            if int(got[6]) != first:
                bad.append("stream %d: %s samples, ffprobe's packets %d" %
                           (i, got[6], first))
            naudio += len(pk)
    tags = info["format"].get("tags", {})
    if "timecode" in tags:
        num, den = (int(x) for x in head["tc"][1].split("/"))
        want = tc_frames(tags["timecode"], num, den, int(head["tc"][2]))
        if int(head["tc"][0]) != want or \
                int(head["tc"][2]) != (";" in tags["timecode"]):
            bad.append("timecode %s, ffprobe %s (%d)" % (head["tc"],
                                                          tags["timecode"],
                                                          want))
    umid = info["streams"][0].get("tags", {}).get("file_package_umid", "")
    if head.get("package", [""])[0].lower() != umid[2:].lower():
        bad.append("package %s, ffprobe %s" % (head.get("package"), umid))
    name = tags.get("material_package_name", "")
    if " ".join(head.get("clip", [])) != name:
        bad.append("clip name %s, ffprobe %s" % (head.get("clip"), name))
    for b in bad:
        print(b)
    if bad:
        return 1
    print("same as ffprobe: %d frames, %d audio packets" % (nframes, naudio))
    return 0


sys.exit(main())
