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

# H.264 with B frames cut inside a group of pictures (frames 4..9 of a
# group of 12, I B B P ... decoded I P B B ...): the player reads the
# packets as a decoder does, in decode order, each once: exactly
# ffprobe's packets from the group's key frame to the last one the edit
# needs, in ffprobe's (decode) order, the ones before the cut's first
# frame's turn flagged dep.  Before, the anchor P frame was read twice
# and B frames came before the P frame they need.
BF=$T/bf
mkdir -p "$BF/timelines"
ff -f lavfi -i testsrc2=size=160x120:rate=25 -t 1 -c:v libx264 -bf 2 \
	-g 12 -keyint_min 12 -sc_threshold 0 -x264-params open-gop=0 \
	-pix_fmt yuv420p "$BF/hb.mp4"
printf 'fps 25\ntrack V 1\nevent V hb 4 6\n' >"$BF/timelines/bf.tl"
python3 - "$BF/hb.mp4" 4 6 >"$T/want.bf" <<'PY'
import subprocess, sys
f, first, n = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
out = subprocess.check_output(
    ["ffprobe", "-v", "error", "-select_streams", "v", "-show_entries",
     "packet=pts,pos,size,flags", "-of", "csv=p=0", f]).decode().split()
pk = [dict(zip(("pts", "size", "pos", "flags"), l.split(","))) for l in out]
# decode order is ffprobe's; presentation order by pts
shown = sorted(range(len(pk)), key=lambda d: int(pk[d]["pts"]))
played = [shown[k] for k in range(first, first + n)]
key = max(d for d in range(played[0] + 1) if "K" in pk[d]["flags"])
nxt, rows = key, []
for d in played:
    while nxt <= d:
        rows.append("%s %s %d" % (pk[nxt]["pos"], pk[nxt]["size"],
                                  0 if nxt == d else 1))
        nxt += 1
print("\n".join(rows))
PY
DB=$T/bf.db
if mount_fs "$BF" "$T/mnt" -o pace=off,backing=buffered,db="$DB"; then
	check "a full read of bf (H.264 with B frames, cut mid-group)" \
		dd if="$T/mnt/bf" of=/dev/null bs=1M status=none
	umount_fs "$T/mnt"
	q "select file_offset, length, dep from access where op = 0
	   order by frame, id" | tr '|' ' ' >"$T/got.bf"
	if cmp -s "$T/want.bf" "$T/got.bf"; then
		ok "bf: ffprobe's packets from the key frame, in decode order, each once"
	else
		diff "$T/want.bf" "$T/got.bf" | head -20
		not_ok "bf: ffprobe's packets from the key frame, in decode order, each once"
	fi
else
	not_ok "bf: mounts"
fi

# AAC audio (phones and cameras record it) plays by its packets, as
# video by its frames: timeline frame k's audio is the packets whose time
# falls in it (the priming packet before 0 with the first frame); the
# reads of a full read are exactly ffprobe's packets' bytes, and NAME.mov
# carries them (mp4a with the source's decoder setup) for ffmpeg to
# decode without an error.  Before, the mount refused the clip: "aac
# audio (not PCM: it cannot be read by samples)".
AC=$T/aac
mkdir -p "$AC/timelines"
ff -f lavfi -i testsrc2=size=160x120:rate=25 -f lavfi \
	-i sine=frequency=440:sample_rate=48000 -t 2 -c:v libx264 -bf 0 -g 5 \
	-pix_fmt yuv420p -c:a aac -ac 2 "$AC/cam.mp4"
printf 'fps 25\ntrack V 1\ntrack A1 144000 align=3\nevent V,A1 cam 0 25\nevent V,A1 cam 30 10\n' \
	>"$AC/timelines/cam.tl"
# MP3: read by its packets too, but the movie has no description of it:
# its track is left out, and the start says so
MP3=
if ffmpeg -hide_banner -encoders 2>/dev/null | grep -q libmp3lame; then
	MP3=1
	ff -f lavfi -i testsrc2=size=160x120:rate=25 -f lavfi \
		-i sine=frequency=440:sample_rate=48000 -t 1 -c:v libx264 \
		-bf 0 -pix_fmt yuv420p -c:a libmp3lame "$AC/mcam.mp4"
	printf 'fps 25\ntrack V 1\ntrack A1 144000 align=3\nevent V,A1 mcam 0 20\n' \
		>"$AC/timelines/mp3.tl"
fi
# the byte ranges of the packets each event plays, adjacent ones joined
ffprobe -v error -select_streams a -show_entries packet=pts,pos,size \
	-of csv=p=0 "$AC/cam.mp4" | python3 -c '
import sys
pk = [tuple(int(x) for x in l.split(",")[:3]) for l in sys.stdin if l.strip()]
out = []
for first, n in ((0, 25), (30, 10)):
    lo, hi = first * 1920, (first + n) * 1920
    for pts, size, pos in pk:
        if lo <= max(pts, 0) < hi:
            if out and out[-1][0] + out[-1][1] == pos:
                out[-1][1] += size
            else:
                out.append([pos, size])
print("\n".join("%d %d" % tuple(r) for r in out))' >"$T/want.aac"
DB=$T/aac.db
if mount_fs "$AC" "$T/mnt" -o pace=off,backing=buffered,db="$DB"; then
	ok "an edit of an MP4 with AAC audio mounts"
	check "a full read of it succeeds" \
		dd if="$T/mnt/cam" of=/dev/null bs=1M status=none
	ffprobe -v error -select_streams a -show_entries \
		stream=codec_name,sample_rate,channels -of csv=p=0 \
		"$T/mnt/cam.mov" >"$T/aac.probe" 2>&1 || true
	check_eq "cam.mov's A1 is aac 48000 Hz stereo" "aac,48000,2" \
		"$(cat "$T/aac.probe")"
	check_none "ffmpeg decodes cam.mov without an error" \
		"$(ffmpeg -v error -i "$T/mnt/cam.mov" -f null - 2>&1 || echo "exit $?")"
	check_eq "cam.mov's audio packets are the edit's (sizes, in order)" \
		"$(ffprobe -v error -select_streams a -show_entries packet=pts,size \
			-of csv=p=0 "$AC/cam.mp4" | awk -F, '
			NF < 2 { next }
			{ p = $1 < 0 ? 0 : $1 }
			p < 48000 || (p >= 57600 && p < 76800) { print $2 }' | md5sum)" \
		"$(ffprobe -v error -select_streams a -show_entries packet=size \
			-of csv=p=0 "$T/mnt/cam.mov" | md5sum)"
	if [ -n "$MP3" ]; then
		check_eq "mp3.mov: its MP3 track left out, said at start" \
			"timelinefs: note: mp3.mov: $AC/timelines/mp3.tl: track A1 left out: clip mcam: its mp3 audio has no sample description timelinefs writes (AAC only)" \
			"$(grep 'mp3.mov' "$DAEMON_LOG")"
		check_eq "mp3.mov holds the video only" "video" \
			"$(ffprobe -v error -show_entries stream=codec_type \
				-of csv=p=0 "$T/mnt/mp3.mov")"
		check_none "ffmpeg decodes mp3.mov without an error" \
			"$(ffmpeg -v error -i "$T/mnt/mp3.mov" -f null - 2>&1 || echo "exit $?")"
		check "a full read of mp3 (MP3 audio by its packets)" \
			dd if="$T/mnt/mp3" of=/dev/null bs=1M status=none
	else
		skip_case "no libmp3lame encoder"
	fi
	umount_fs "$T/mnt"
	# the dd's stream, the first (ffprobe and ffmpeg read the movie)
	q "select file_offset, length from access where op = 0 and track = 'A1'
	   and stream_id = (select min(stream_id) from access)
	   order by frame, id" | tr '|' ' ' | python3 -c '
import sys
out = []
for l in sys.stdin:
    pos, size = map(int, l.split())
    if out and out[-1][0] + out[-1][1] == pos:
        out[-1][1] += size
    else:
        out.append([pos, size])
print("\n".join("%d %d" % tuple(r) for r in out))' >"$T/got.aac"
	check "A1's reads are ffprobe's AAC packets, in edit order" \
		cmp -s "$T/want.aac" "$T/got.aac"
else
	not_ok "an edit of an MP4 with AAC audio mounts: $(tail -3 "$DAEMON_LOG")"
fi

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
