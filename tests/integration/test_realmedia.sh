#!/bin/sh
# SPDX-License-Identifier: MIT
# Mounted: an EDL over real media made here by ffmpeg (ProRes MOV, DNxHD
# MXF OP1a, an OP-Atom set of one video and two audio files named by the
# clip, another found by its material package name, H.264 MP4, a BWF
# WAV), its source timecodes the media's own (tmcd, the material
# package's, BWF's time reference): the access rows of a full read are
# exactly the (clip, offset, size) of the frames the edit uses as ffprobe
# -show_packets gives them (an MXF packet's position is its KLV key: the
# frame is its value), in edit order, an H.264 edit from mid-GOP first
# reading the frames from its key frame as decoding dependencies (dep);
# audio the byte range of each frame's samples.  Bad input is refused at mount with one message naming clip,
# file and reason: an edit past the clip's last frame, a stream of the
# wrong kind, a truncated file.  Skips without ffmpeg/ffprobe/sqlite3.
. "$(dirname "$0")/lib.sh"

need_tools ffmpeg ffprobe sqlite3

M=$T/media
mkdir -p "$M/timelines"
ff() {
	ffmpeg -nostdin -v error -y "$@" || { not_ok "ffmpeg $*"; finish; }
}
SRC="-f lavfi -i testsrc2=size=320x240:rate=25"
HD="-f lavfi -i testsrc2=size=1280x720:rate=25"
SINE="-f lavfi -i sine=frequency=440:sample_rate=48000"
# shellcheck disable=SC2086
{
	ff $SRC -t 2 -c:v prores_ks -profile:v 0 -timecode 01:00:00:00 "$M/pr.mov"
	ff $HD -t 2 -c:v dnxhd -profile:v dnxhr_lb -pix_fmt yuv422p \
		-timecode 01:00:10:00 -f mxf "$M/dnx.mxf"
	ff $SRC -t 2 -c:v libx264 -bf 0 -g 5 -pix_fmt yuv420p \
		-timecode 01:00:20:00 "$M/h264.mp4"
	ff $HD -t 2 -c:v dnxhd -profile:v dnxhr_lb -pix_fmt yuv422p \
		-timecode 01:00:30:00 -f mxf_opatom "$M/oa.V.mxf"
	ff $SINE -t 2 -c:a pcm_s24le -timecode 01:00:30:00 \
		-f mxf_opatom "$M/oa.A1.mxf"
	ff -f lavfi -i sine=frequency=660:sample_rate=48000 -t 2 \
		-c:a pcm_s24le -timecode 01:00:30:00 -f mxf_opatom "$M/oa.A2.mxf"
	# an OP-Atom set found by its material package name, as Avid
	# names its files (not by the clip)
	ff $HD -t 2 -c:v dnxhd -profile:v dnxhr_lb -pix_fmt yuv422p \
		-metadata material_package_name=shotX -timecode 02:00:00:00 \
		-f mxf_opatom "$M/V01.4F2A1C.mxf"
	ff $SINE -t 2 -c:a pcm_s24le -metadata material_package_name=shotX \
		-timecode 02:00:00:00 -f mxf_opatom "$M/A01.4F2A1D.mxf"
	ff $SINE -t 2 -c:a pcm_s24le -write_bext 1 \
		-metadata time_reference=$((3600 * 48000)) "$M/bwf.wav"
	# 29.97 fps H.264 and PCM in one QuickTime file: a frame's audio
	# is 1601.6 samples, so where a clip's source frame 0 is matters to
	# the sample that each frame's audio starts at
	ff -f lavfi -i testsrc2=size=320x240:rate=30000/1001 $SINE -t 2 \
		-c:v libx264 -bf 0 -g 10 -pix_fmt yuv420p -c:a pcm_s24le \
		-timecode 01:00:00:00 "$M/ntsc.mov"
}

# The edit at 25 fps: each clip named as editing applications write them
# (Resolve's "FROM CLIP NAME: file.ext", a path in "SOURCE FILE:", the
# reel); source timecodes are the media's own.
cat >"$M/timelines/real.edl" <<'EOF'
TITLE: real media
FCM: NON-DROP FRAME

001  AX       V     C        01:00:00:05 01:00:00:15 00:00:00:00 00:00:00:10
* FROM CLIP NAME: pr.mov
002  AX       V     C        01:00:10:10 01:00:10:20 00:00:00:10 00:00:00:20
* FROM CLIP NAME: dnx.mxf
003  oa       V     C        01:00:30:03 01:00:30:13 00:00:00:20 00:00:01:05
004  oa       AA    C        01:00:30:03 01:00:30:13 00:00:00:20 00:00:01:05
005  AX       V     C        01:00:20:05 01:00:20:15 00:00:01:05 00:00:01:15
* FROM CLIP NAME: h264.mp4
006  AX       A     C        01:00:00:12 01:00:00:22 00:00:00:00 00:00:00:10
* SOURCE FILE: /Volumes/Media/bwf.wav
007  shotX    B     C        02:00:01:00 02:00:01:10 00:00:01:15 00:00:02:00
008  AX       V     C        01:00:21:02 01:00:21:05 00:00:02:00 00:00:02:03
* FROM CLIP NAME: h264.mp4
EOF
echo 25 >"$M/timelines/real.edl.fps"

# expect TRACK: "clip offset size" per row of a full read of real.edl,
# from ffprobe's packets (video) and sample positions (audio)
expect() {
	python3 - "$M" "$1" <<'PY'
import subprocess, sys
m, track = sys.argv[1:3]

def packets(f, sel):
    out = subprocess.check_output(
        ["ffprobe", "-v", "error", "-select_streams", sel,
         "-show_entries", "packet=pos,size,flags", "-of",
         "compact=p=0:nk=0", "%s/%s" % (m, f)]).decode().split("\n")
    data = open("%s/%s" % (m, f), "rb").read()
    res = []
    for line in out:
        if not line:
            continue
        kv = dict(x.split("=") for x in line.split("|"))
        pos, size = int(kv["pos"]), int(kv["size"])
        # an MXF packet's pos is its KLV key: the frame is the value
        if data[pos:pos + 4] == b"\x06\x0e\x2b\x34":
            b = data[pos + 16]
            pos += 17 + (b & 0x7f if b & 0x80 else 0)
        res.append((pos, size, "K" in kv["flags"]))
    return res

rows = []
if track == "V":
    # an edit from mid-GOP first reads the frames from its key frame,
    # flagged as decoding dependencies (no B frames: decode order is
    # presentation order)
    for clip, f, first, n in (("pr", "pr.mov", 5, 10),
                              ("dnx", "dnx.mxf", 10, 10),
                              ("oa", "oa.V.mxf", 3, 10),
                              ("h264", "h264.mp4", 5, 10),
                              ("shotX", "V01.4F2A1C.mxf", 25, 10),
                              ("h264", "h264.mp4", 27, 3)):
        p = packets(f, "v:0")
        key = max(k for k in range(first + 1) if p[k][2])
        rows += ["%s %d %d 1" % (clip, o, s) for o, s, _ in p[key:first]]
        rows += ["%s %d %d 0" % (clip, o, s)
                 for o, s, _ in p[first:first + n]]
else:
    # 1920 24-bit samples a frame, from each stream's first sample
    uses = {"A1": (("bwf", "bwf.wav", 12), ("oa", "oa.A1.mxf", 3),
                   ("shotX", "A01.4F2A1D.mxf", 25)),
            "A2": (("oa", "oa.A2.mxf", 3),)}[track]
    for clip, f, first in uses:
        start = packets(f, "a:0")[0][0]
        rows += ["%s %d %d 0" % (clip, start + (first + k) * 5760, 5760)
                 for k in range(10)]
print("\n".join(rows))
PY
}

DB=$T/t.db
# -o picture= (a wrong one) is for raw media: real media's frames are
# their own, and the start says so once
if mount_fs "$M" "$T/mnt" -o pace=off,backing=buffered,db="$DB",picture=2vuy:64x48; then
	ok "an EDL over ProRes, DNxHD, OP-Atom, H.264 and BWF mounts"
	check_eq "-o picture= unused by real media is said once, naming the timeline" \
		"timelinefs: note: -o picture=2vuy:64x48 is not used by $M/timelines/real.edl: its video tracks play real media (QuickTime, MXF, image sequences), whose frames are their own" \
		"$(grep 'picture=' "$DAEMON_LOG")"
	check "a full read of it succeeds" \
		dd if="$T/mnt/real" of=/dev/null bs=1M status=none
	umount_fs "$T/mnt"
	for t in V A1 A2; do
		expect $t >"$T/want.$t"
		q "select a.clip, a.file_offset, a.length, a.dep from access a
		   where a.track = '$t' order by a.frame, a.id" |
			tr '|' ' ' >"$T/got.$t"
		if cmp -s "$T/want.$t" "$T/got.$t"; then
			ok "track $t: the reads are ffprobe's frames, in edit order"
		else
			diff "$T/want.$t" "$T/got.$t" | head -20
			not_ok "track $t: the reads are ffprobe's frames, in edit order"
		fi
	done
	# which file each (clip, track) read: the media table, and the
	# fio iolog of the stream that names those files
	check_eq "the media rows name each clip's file, codec and stream" \
		"bwf|A1|bwf.wav|pcm_s24le|0
dnx|V|dnx.mxf|dnxhd|0
h264|V|h264.mp4|h264|0
oa|A1|oa.A1.mxf|pcm_s24le|0
oa|A2|oa.A2.mxf|pcm_s24le|0
oa|V|oa.V.mxf|dnxhd|0
pr|V|pr.mov|prores|0
shotX|A1|A01.4F2A1D.mxf|pcm_s24le|0
shotX|V|V01.4F2A1C.mxf|dnxhd|0" \
		"$(q "select clip, track, file, codec, stream from media
		      order by clip, track")"
	if "$TOP/mount-scripts/timelinefs-export" --fio-iolog "$DB" 1 \
		"$T/trace.iolog" 2>"$T/export.err"; then
		check_eq "timelinefs-export names the real files" \
			"$M/A01.4F2A1D.mxf $M/V01.4F2A1C.mxf $M/bwf.wav $M/dnx.mxf $M/h264.mp4 $M/oa.A1.mxf $M/oa.A2.mxf $M/oa.V.mxf $M/pr.mov" \
			"$(awk '$3 == "add" { print $2 }' "$T/trace.iolog" | sort | tr '\n' ' ' | sed 's/ $//')"
	else
		not_ok "timelinefs-export names the real files: $(cat "$T/export.err")"
	fi
else
	not_ok "an EDL over ProRes, DNxHD, OP-Atom, H.264 and BWF mounts"
fi

# --dump-tl with the media folder resolves the media as the mount does:
# the video track of real media has its frames' sizes
"$GEN" --dump-tl "$M/timelines/real.edl" "$M" >"$T/dump" 2>"$T/dump.err"
check_eq "--dump-tl EDL DIR: the video track has its media's frame sizes" 1 \
	"$(grep -c '^track V [0-9]* # frames of its media.s sizes' "$T/dump")"
"$GEN" --dump-tl "$M/timelines/real.edl" >"$T/dump" 2>"$T/dump.err"
check_eq "--dump-tl EDL without DIR reads no media" 0 \
	"$(grep -c 'frames of its media' "$T/dump")"

# A dump mounts as the same edit, byte for byte: --dump-tl EDL DIR and
# OTIO DIR over media with start timecodes, and the EDL's without DIR
# (which cannot know the media: clip lines with each clip's origin),
# mounted as .tl files beside them.  The OTIO clip's available range starts 3 frames before its first
# use, at 29.97 fps with PCM audio.  Regression: the dump wrote every real
# clip's source from frame 0 (event V h264 0 10 @30, the media's frames
# 5-14 read by the EDL); mounted, the dump of real.edl read other bytes.
otio_clip() {	# KIND START DURATION: a clip of ntsc.mov from 01:00:00:00
	cat <<EOF
{"OTIO_SCHEMA": "Track.1", "name": "", "kind": "$1", "children": [
 {"OTIO_SCHEMA": "Clip.1", "name": "nt",
  "source_range": {"OTIO_SCHEMA": "TimeRange.1",
   "start_time": {"OTIO_SCHEMA": "RationalTime.1", "rate": 29.97, "value": $2},
   "duration": {"OTIO_SCHEMA": "RationalTime.1", "rate": 29.97, "value": $3}},
  "media_reference": {"OTIO_SCHEMA": "ExternalReference.1",
   "target_url": "file:///Volumes/Media/ntsc.mov",
   "available_range": {"OTIO_SCHEMA": "TimeRange.1",
    "start_time": {"OTIO_SCHEMA": "RationalTime.1", "rate": 29.97, "value": 108000},
    "duration": {"OTIO_SCHEMA": "RationalTime.1", "rate": 29.97, "value": 59}}}}]}
EOF
}
{
	echo '{"OTIO_SCHEMA": "Timeline.1", "name": "nt",'
	echo ' "global_start_time": {"OTIO_SCHEMA": "RationalTime.1", "rate": 29.97, "value": 0},'
	echo ' "tracks": {"OTIO_SCHEMA": "Stack.1", "children": ['
	otio_clip Video 108003 40
	echo ,
	otio_clip Audio 108003 40
	echo ']}}'
} >"$M/timelines/nt.otio"
for f in real.edl nt.otio; do
	n=${f%.*}
	"$GEN" --dump-tl "$M/timelines/$f" "$M" >"$T/dump-$n.tl" 2>"$T/dump.err" ||
		cat "$T/dump.err"
done
check_eq "--dump-tl EDL DIR: a real clip's source in is its media's timecode" \
	"event V h264 01:00:20:05 10 @30" "$(grep '^event V h264 .* @30$' "$T/dump-real.tl")"
cp "$T/dump-real.tl" "$M/timelines/real_dump.tl"
cp "$T/dump-nt.tl" "$M/timelines/nt_dump.tl"
"$GEN" --dump-tl "$M/timelines/real.edl" >"$M/timelines/real_nodir.tl"
if mount_fs "$M" "$T/mnt" -o pace=off,backing=buffered,db="$T/dump.db"; then
	for n in real:real_dump nt:nt_dump real:real_nodir; do
		check "$n: the dump mounts as the same edit, byte for byte" \
			cmp "$T/mnt/${n%:*}" "$T/mnt/${n#*:}"
	done
	# the media's frames and timecodes, the same for the OTIO and its dump
	check "the note of a cut inside a group of pictures names the media's frames and timecodes" \
		grep -qF "no NAME.mov for 2 timelines ($M/timelines/nt.otio, $M/timelines/nt_dump.tl): track V: clip ntsc cut at frames 3..42 (01:00:00:03..01:00:01:12) inside a group of pictures (h264)" "$DAEMON_LOG"
	umount_fs "$T/mnt"
else
	not_ok "the dumps mount"
fi
rm "$M/timelines/real_dump.tl" "$M/timelines/nt_dump.tl" \
	"$M/timelines/nt.otio" "$M/timelines/real_nodir.tl"

# Bad input: one message naming timeline, line, clip, file and reason.
B=$T/bad
mkdir -p "$B/timelines"
cp "$M/pr.mov" "$M/bwf.wav" "$B/"
head -c 20000 "$M/h264.mp4" >"$B/cut.mp4"
cat >"$B/timelines/bad.edl" <<'EOF'
001  AX       V     C        01:00:01:20 01:00:02:05 00:00:00:00 00:00:00:10
* FROM CLIP NAME: pr.mov
002  AX       V     C        01:00:00:00 01:00:00:10 00:00:00:10 00:00:00:20
* FROM CLIP NAME: bwf.wav
003  AX       V     C        01:00:00:00 01:00:00:10 00:00:00:20 00:00:01:05
* FROM CLIP NAME: cut.mp4
EOF
echo 25 >"$B/timelines/bad.edl.fps"
try_mount "bad real media is refused, each problem named" \
	"bad.edl:1: clip pr track V: $B/pr.mov: the edit reaches past the clip's last frame: needs media frames 45..54 (01:00:01:20..01:00:02:04), the media has 50 (01:00:00:00..01:00:01:24)" \
	"bad.edl:3: clip bwf track V: $B/bwf.wav holds 0 video and 1 audio stream: none for track V" \
	"bad.edl:5: clip cut track V: $B/cut.mp4" \
	-- -o db="$T/bad.db" "$B" "$T/mnt"
# One cause, one message: real.edl's media are 25 fps; mounted without
# its sidecar (at the default 29.97) every clip disagrees with the
# timeline.  Regression: a message per clip and track, and the edits
# past the clips' ends that the wrong rate made (13 in all).
F=$T/fps
mkdir -p "$F/timelines"
for f in pr.mov dnx.mxf h264.mp4 oa.V.mxf oa.A1.mxf oa.A2.mxf \
	V01.4F2A1C.mxf A01.4F2A1D.mxf bwf.wav; do
	ln "$M/$f" "$F/$f"
done
cp "$M/timelines/real.edl" "$F/timelines/"
try_mount "media of one other rate are told once, with what to do" \
	"real.edl: every clip's video is 25/1 fps, the timeline 30000/1001 fps: mount with -o fps=25 or write 25 in $F/timelines/real.edl.fps" \
	-- -o db="$T/fps.db" "$F" "$T/mnt"
check_eq "and that is the only message" 1 "$(grep -c 'real.edl' "$T/out")"

# the mount's own messages only: libavformat's log lines for the truncated
# file ("moov atom not found") would say the same again, naming no file
check_none "libavformat prints nothing of its own at mount" \
	"$(grep '^\[' "$T/out")"

finish
