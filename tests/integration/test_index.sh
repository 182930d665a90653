#!/bin/sh
# SPDX-License-Identifier: MIT
# The media readers of issue 21 (engine/media/avindex.c, pcm.c) against
# ffprobe, on files ffmpeg makes here: ProRes MOV with PCM audio and a
# timecode, H.264 MP4 with and without B frames, uncompressed MOV, BWF
# WAV, RF64, AIFF.  tests/tools/tlindex prints what eng_mfile_read found;
# every frame's (offset, size, key) is one of ffprobe's packets, in
# presentation order (ffprobe's pts order), each frame's decoding
# dependency is the key frame before it, audio chunks are ffprobe's audio
# packets, timecodes are ffprobe's tags.  Bad files (truncated at several
# points, garbage, an unknown codec, a sample table past the end of the
# file) each give a message naming the file and the reason, no crash.
# Needs no FUSE; skipped (77) without ffmpeg.
# shellcheck disable=SC2034 # read by lib.sh
NO_MOUNT=1
. "$(dirname "$0")/lib.sh"

need_tools ffmpeg ffprobe
TLINDEX=$TLFS_BUILD/tests/tools/tlindex
[ -x "$TLINDEX" ] || { echo "missing $TLINDEX: run make test" >&2; exit 1; }
M=$T/media
mkdir -p "$M"

# mk NAME ARGS...: ffmpeg writes $M/NAME from lavfi sources
mk() {
	n=$1
	shift
	ffmpeg -nostdin -v error -y "$@" "$M/$n"
}
src_v="-f lavfi -i testsrc=size=160x120:rate=25"
src_a="-f lavfi -i sine=r=48000"
# shellcheck disable=SC2086
{
	mk p.mov $src_v $src_a -t 1.2 -c:v prores_ks -profile:v 2 \
		-c:a pcm_s24le -timecode 01:00:10:05 -metadata:s:v reel_name=A001
	mk b.mp4 $src_v -t 2 -c:v libx264 -bf 2 -g 12 -pix_fmt yuv420p
	mk nb.mp4 $src_v -t 2 -c:v libx264 -bf 0 -g 12 -pix_fmt yuv420p
	mk u.mov $src_v -t 0.4 -c:v rawvideo -pix_fmt uyvy422
	mk bwf.wav $src_a -t 1 -c:a pcm_s24le -write_bext 1 \
		-metadata time_reference=172800000
	mk r.wav $src_a -ac 2 -t 1 -c:a pcm_s16le -rf64 always
	mk a.aiff $src_a -ac 2 -t 1 -c:a pcm_s16be
}

# idx FILE: tlindex's lines of FILE (saved beside it)
idx() {
	"$TLINDEX" "$M/$1" >"$T/$1.idx" 2>"$T/$1.err" ||
		{ echo "tlindex $1 failed: $(cat "$T/$1.err")"; return 1; }
	cat "$T/$1.idx"
}

# packets FILE STREAM: "pos size key" of ffprobe's packets, by offset
packets() {
	ffprobe -v error -select_streams "$2" \
		-show_entries packet=pos,size,flags -of csv=p=0 "$M/$1" |
		awk -F, '{ print $2, $1, ($3 ~ /K/) }' | sort -n
}

# frames FILE INDEX: "off len key" of tlindex's frames, by offset
frames() {
	awk -v s="$2" '$1 == "frame" && $2 == s { print $4, $5, $6 }' \
		"$T/$1.idx" | sort -n
}

# shown FILE STREAM: the packets' offsets in ffprobe's pts order
shown() {
	ffprobe -v error -select_streams "$2" \
		-show_entries packet=pts,pos -of csv=p=0 "$M/$1" |
		sort -t, -k1,1n | cut -d, -f2
}

# deps FILE STREAM: "k key" for each frame in pts order: the last key
# frame shown at or before it (closed GOPs: what decoding it needs)
deps() {
	ffprobe -v error -select_streams "$2" \
		-show_entries packet=pts,flags -of csv=p=0 "$M/$1" |
		sort -t, -k1,1n |
		awk -F, '{ if ($2 ~ /K/) key = NR - 1; print NR - 1, key }'
}

# tc_frames HH:MM:SS:FF FPS: the frame count (non-drop)
tc_frames() {
	echo "$1" | awk -F'[:;]' -v r="$2" \
		'{ print (($1 * 60 + $2) * 60 + $3) * r + $4 }'
}

video_checks() { # FILE INDEX SEL WHAT
	idx "$1" >/dev/null || { not_ok "$4: tlindex failed"; return; }
	n=$(packets "$1" "$3" | wc -l)
	check_eq "$4: every frame (offset, size, key) is ffprobe's ($n)" \
		"$(packets "$1" "$3")" "$(frames "$1" "$2")"
	check_eq "$4: frames in presentation (ffprobe's pts) order" \
		"$(shown "$1" "$3")" \
		"$(awk -v s="$2" '$1 == "frame" && $2 == s { print $4 }' \
			"$T/$1.idx")"
	check_eq "$4: each frame's dependency is the key frame before it" \
		"$(deps "$1" "$3")" \
		"$(awk -v s="$2" '$1 == "frame" && $2 == s { print $3, $7 }' \
			"$T/$1.idx")"
}

video_checks p.mov 0 v:0 "ProRes MOV"
check "ProRes MOV: codec prores, fourcc apcn, 160x120 at 25/1" \
	grep -q '^stream 0 video prores apcn 160x120 25/1 frames 30 ' \
	"$T/p.mov.idx"
tc=$(ffprobe -v error -show_entries stream_tags=timecode -of csv=p=0 \
	-select_streams v:0 "$M/p.mov")
check_eq "ProRes MOV: the timecode is ffprobe's ($tc)" \
	"tc $(tc_frames "$tc" 25) 25/1 0" "$(grep '^tc ' "$T/p.mov.idx")"
check_eq "ProRes MOV: the reel name is the tmcd track's" \
	"clip $(ffprobe -v error -show_entries stream_tags=reel_name \
		-of csv=p=0 -select_streams d:0 "$M/p.mov")" \
	"$(grep '^clip ' "$T/p.mov.idx")"
check "ProRes MOV: audio pcm_s24le in24, 48000 Hz, 1 channel" \
	grep -q '^stream 1 audio pcm_s24le in24 48000 1 24 3 0 0 samples 57600' \
	"$T/p.mov.idx"
check_eq "ProRes MOV: audio chunks are ffprobe's audio packets" \
	"$(packets p.mov a:0 | cut -d' ' -f1,2)" \
	"$(awk '$1 == "chunk" && $2 == 1 { print $4, $6 * 3 }' "$T/p.mov.idx")"
check_none "ProRes MOV: chunks count the samples in order" \
	"$(awk '$1 == "chunk" { if ($5 != s) print; s = $5 + $6 }' \
		"$T/p.mov.idx")"
read_bytes=$(awk '$1 == "read" { print $2 }' "$T/p.mov.idx")
check "ProRes MOV: read only its header ($read_bytes bytes of $(stat -c %s \
	"$M/p.mov"))" [ "$read_bytes" -lt 65536 ]

video_checks b.mp4 0 v:0 "H.264 MP4 with B frames"
check "H.264 MP4 with B frames: frames out of decode order" \
	awk '$1 == "frame" && $3 != $8 { f = 1 } END { exit !f }' \
	"$T/b.mp4.idx"
check "H.264 MP4: avc1 with its avcC" grep -q \
	'^stream 0 video h264 avc1 160x120 25/1 frames 50 extradata [1-9]' \
	"$T/b.mp4.idx"
video_checks nb.mp4 0 v:0 "H.264 MP4 without B frames"
check "H.264 MP4 without B frames: decode order is presentation order" \
	awk '$1 == "frame" && $3 != $8 { exit 1 }' "$T/nb.mp4.idx"
video_checks u.mov 0 v:0 "uncompressed MOV"
check "uncompressed MOV: rawvideo 2vuy, 160x120 frames of 38400 bytes" \
	grep -q '^stream 0 video rawvideo 2vuy 160x120 25/1 frames 10 extradata 0 len 38400-38400' \
	"$T/u.mov.idx"

# audio_checks FILE LINE WHAT: one chunk where ffprobe's first packet is,
# as long as its packets
audio_checks() {
	idx "$1" >/dev/null || { not_ok "$3: tlindex failed"; return; }
	check "$3: $2" grep -q "^stream 0 audio $2" "$T/$1.idx"
	check_eq "$3: one chunk of ffprobe's packets (start, bytes)" \
		"$(packets "$1" a:0 | awk 'NR == 1 { p = $1 } { n += $2 }
			END { print p, n }')" \
		"$(awk '$1 == "stream" { b = $9 }
			$1 == "chunk" { print $4, $6 * b }' "$T/$1.idx")"
}
audio_checks bwf.wav "pcm_s24le in24 48000 1 24 3 0 0 samples 48000" "BWF"
check_eq "BWF: the time reference is ffprobe's, in samples" \
	"tc $(ffprobe -v error -show_entries format_tags=time_reference \
		-of csv=p=0 "$M/bwf.wav") 48000/1 0" \
	"$(grep '^tc ' "$T/bwf.wav.idx")"
audio_checks r.wav "pcm_s16le sowt 48000 2 16 4 0 0 samples 48000" "RF64"
audio_checks a.aiff "pcm_s16be twos 48000 2 16 4 1 0 samples 48000" "AIFF"

# ---------------------------------------------------------------- bad files
# bad NAME WHY WHAT: tlindex fails on $M/NAME (no signal), with one
# message naming the file and saying WHY
bad() {
	rc=0
	"$TLINDEX" "$M/$1" >/dev/null 2>"$T/err" || rc=$?
	msg=$(grep -F "$M/$1: " "$T/err" | head -1)
	if [ "$rc" -ne 1 ]; then
		not_ok "$3: tlindex exited $rc: $(cat "$T/err")"
	elif echo "$msg" | grep -q "$2"; then
		ok "$3: $(echo "$msg" | sed "s|$M/||")"
	else
		not_ok "$3: no message with '$2': $(cat "$T/err")"
	fi
}
# cut FROM SIZE TO: the first SIZE bytes of $M/FROM as $M/TO
cut_to() {
	head -c "$2" "$M/$1" >"$M/$3"
}
s=$(stat -c %s "$M/p.mov")
cut_to p.mov 0 empty.mov
bad empty.mov "not a media file" "an empty file"
cut_to p.mov 100 t100.mov
bad t100.mov "no moov box" "a MOV cut at 100 bytes"
cut_to p.mov $((s / 2)) thalf.mov
bad thalf.mov "no moov box" "a MOV cut in half (moov at the end)"
cut_to p.mov $((s - 200)) tmoov.mov
bad tmoov.mov "moov' box at [0-9]* runs past the end" "a MOV cut in its moov"
ffmpeg -nostdin -v error -y -i "$M/p.mov" -map 0 -c copy -movflags faststart \
	"$M/fs.mov"
s=$(stat -c %s "$M/fs.mov")
cut_to fs.mov $((s / 2)) fshalf.mov
bad fshalf.mov "video stream 0 frame [0-9]* .* is past the end of the file" \
	"a faststart MOV cut in half (its sample table past the end)"
cut_to fs.mov $((s - 10)) fsend.mov
bad fsend.mov "audio stream 1 chunk [0-9]* .* is past the end of the file" \
	"a faststart MOV cut 10 bytes short"
yes garbage | head -c 10000 >"$M/garbage.mov"
bad garbage.mov "not a media file" "garbage"
python3 -c 'import sys; d = open(sys.argv[1], "rb").read()
open(sys.argv[2], "wb").write(d.replace(b"apcn", b"zzzz"))' \
	"$M/p.mov" "$M/zzzz.mov"
bad zzzz.mov "video stream 0: unknown codec 'zzzz'" "an unknown codec"
python3 -c 'import sys; d = open(sys.argv[1], "rb").read()
open(sys.argv[2], "wb").write(d.replace(b"in24", b"zzzz"))' \
	"$M/p.mov" "$M/azzz.mov"
idx azzz.mov >/dev/null
check_eq "an unknown audio codec: the audio left out, named" \
	"skipped stream 1: unknown 'zzzz' audio" \
	"$(grep '^skipped' "$T/azzz.mov.idx")"
# the first chunk offset of the video's stco moved past the end
python3 -c 'import struct, sys; d = bytearray(open(sys.argv[1], "rb").read())
i = d.index(b"stco"); struct.pack_into(">I", d, i + 12, len(d) + 4096)
open(sys.argv[2], "wb").write(d)' "$M/fs.mov" "$M/stco.mov"
bad stco.mov "frame 0 .* is past the end of the file" \
	"a sample table pointing past the end"
cut_to bwf.wav 1000 tbwf.wav
bad tbwf.wav "its samples .* run past the end of the file" "a WAV cut short"
cut_to a.aiff 30 taiff.aiff
bad taiff.aiff "COMM chunk is short or truncated" "an AIFF cut in its header"
# shellcheck disable=SC2086
mk aac.mp4 $src_v $src_a -t 0.4 -c:v libx264 -c:a aac
idx aac.mp4 >/dev/null
# compressed audio is read by its packets (before: left out, "aac audio
# (not PCM: it cannot be read by samples)")
check_eq "MP4 with AAC: the audio's packets are ffprobe's (pos, size, pts)" \
	"$(ffprobe -v error -select_streams a -show_entries packet=pos,size,pts \
		-of csv=p=0 "$M/aac.mp4" | awk -F, 'NF > 1 { print $3, $2, $1 }')" \
	"$(awk '/^packet/ { print $4, $5, $6 }' "$T/aac.mp4.idx")"
check "MP4 with AAC: its stream is aac mp4a, nothing left out" \
	grep -q '^stream 1 audio aac mp4a ' "$T/aac.mp4.idx"
check_none "MP4 with AAC: nothing skipped" "$(grep '^skipped' "$T/aac.mp4.idx")"

finish
