#!/bin/sh
# SPDX-License-Identifier: MIT
# MXF OP1a and OP-Atom from the files' index tables (issue 21,
# engine/media/mxf.c), made here by ffmpeg:
# DNxHD 1080p with two mono pcm_s24le streams in OP1a, the same as OP-Atom
# (one file per track: video, A1, A2), long-GOP MPEG-2 with B frames (frames
# in presentation order, decode order and key frames from the index) and
# 29.97 drop-frame with 1602/1601-sample audio, and files without a random
# index pack (read back from the footer, or one partition after another).
# tests/tools/tlindex prints what eng_mfile_read found, and
# tests/tools/mxfcheck.py holds every frame's (offset, size) against ffprobe -show_packets (the KLV
# value of each packet), every audio packet against the chunks, and codec,
# size, rates, timecode, file package UMID and material package name against
# ffprobe -show_format -show_streams.  Then damaged files: each gives its
# message naming the file (truncated, no index table segments, an index
# that disagrees with the file or points past it, a partition pack in the
# wrong place), and files that are not MXF are left to the other readers.
# shellcheck disable=SC2034 # read by lib.sh: this test mounts nothing
NO_MOUNT=1
# shellcheck source=tests/integration/lib.sh
. "$(dirname "$0")/lib.sh"

need_tools ffmpeg ffprobe python3
IDX=$TLFS_BUILD/tests/tools/tlindex
[ -x "$IDX" ] || { echo "missing $IDX: run make first" >&2; exit 1; }
CHECK="python3 $TOP/tests/tools/mxfcheck.py"
FF="ffmpeg -hide_banner -loglevel error -y"
SRC="-f lavfi -i testsrc=size=1920x1080:rate=25 -f lavfi -i sine=f=440:r=48000 -f lavfi -i sine=f=880:r=48000"
META="-timecode 10:00:00:00 -metadata material_package_name=CLIP01"

# same FILE: tlindex reads FILE as MXF, and what it found is ffprobe's
same() {
	if ! "$IDX" "$T/$1" >"$T/$1.idx" 2>"$T/$1.err"; then
		not_ok "$1: not read: $(cat "$T/$1.err")"
		return
	fi
	if ! grep -q '^format mxf-' "$T/$1.idx"; then
		not_ok "$1: read as $(head -1 "$T/$1.idx")"
	elif $CHECK "$T/$1" "$T/$1.idx" >"$T/$1.chk"; then
		ok "$1: $(cat "$T/$1.chk")"
	else
		not_ok "$1: $(head -5 "$T/$1.chk")"
	fi
}

# refused FILE TEXT: tlindex fails on FILE with a message naming it
# and saying TEXT
refused() {
	if "$IDX" "$T/$1" >/dev/null 2>"$T/$1.err"; then
		not_ok "$1: read, expected '$2'"
	elif grep -q "^$T/$1: .*$2" "$T/$1.err"; then
		ok "$1: $(head -1 "$T/$1.err" | sed "s|^$T/||")"
	else
		not_ok "$1: expected '$2', got: $(cat "$T/$1.err")"
	fi
}

# patch IN OUT PYTHON: OUT is IN's bytes d (a bytearray) after PYTHON
patch() {
	python3 - "$T/$1" "$T/$2" "$3" <<'PY'
import sys
d = bytearray(open(sys.argv[1], "rb").read())
idx = bytes.fromhex("060e2b34025301010d01020101100100")
exec(sys.argv[3])
open(sys.argv[2], "wb").write(d)
PY
}

# shellcheck disable=SC2086
$FF $SRC -map 0 -map 1 -map 2 -t 0.4 -c:v dnxhd -b:v 36M -pix_fmt yuv422p \
	-c:a pcm_s24le $META -f mxf "$T/op1a.mxf"
same op1a.mxf
check_eq "op1a.mxf: OP1a, 3 streams, 10 frames, chunk per edit unit" \
	"mxf-op1a 3 10 20" \
	"$(awk '/^format/ { f = $2 } /^stream / { s++ } /^frame/ { n++ }
		/^chunk/ { c++ } END { print f, s, n, c }' "$T/op1a.mxf.idx")"

# shellcheck disable=SC2086
$FF $SRC -t 0.4 -map 0 -c:v dnxhd -b:v 36M -pix_fmt yuv422p $META \
	-f mxf_opatom "$T/atom_v.mxf"
for a in 1 2; do
	# shellcheck disable=SC2086
	$FF $SRC -t 0.4 -map $a -c:a pcm_s24le $META -f mxf_opatom \
		"$T/atom_a$a.mxf"
done
for f in atom_v.mxf atom_a1.mxf atom_a2.mxf; do
	same $f
done
check_eq "atom_a1.mxf: OP-Atom, clip-wrapped: one chunk" "mxf-opatom 1" \
	"$(awk '/^format/ { f = $2 } /^chunk/ { c++ } END { print f, c }' \
		"$T/atom_a1.mxf.idx")"

$FF -f lavfi -i testsrc=size=320x240:rate=25 -f lavfi -i sine=r=48000 \
	-t 1 -c:v mpeg2video -g 12 -bf 2 -c:a pcm_s16le \
	-f mxf "$T/longgop.mxf"
same longgop.mxf
check_eq "longgop.mxf: frames 10-13 stored at 11 12 10 14, dependent on 0 0 10 10" \
	"11 0 12 0 10 10 14 10" \
	"$(awk '$1 == "frame" && $3 >= 10 && $3 <= 13 { printf "%s%s %s", s, $8, $7; s = " " }' \
		"$T/longgop.mxf.idx")"

# the partitions without the random index pack: back from the footer,
# and (written to a pipe: the header names no footer) one by one
patch longgop.mxf norip.mxf 'del d[-int.from_bytes(d[-4:], "big"):]'
same norip.mxf
$FF -f lavfi -i testsrc=size=320x240:rate=25 -f lavfi -i sine=r=48000 \
	-t 1 -c:v mpeg2video -g 12 -bf 2 -c:a pcm_s16le -f mxf - >"$T/pipe.mxf"
patch pipe.mxf pipe_norip.mxf 'del d[-int.from_bytes(d[-4:], "big"):]'
"$IDX" "$T/pipe.mxf" | grep -v '^read' >"$T/pipe.idx" || true
"$IDX" "$T/pipe_norip.mxf" | grep -v '^read' >"$T/pipe_norip.idx" || true
# found_as_with_rip: frames found, the same as with the RIP
found_as_with_rip() {
	grep -q '^frame' "$T/pipe.idx" && cmp -s "$T/pipe.idx" "$T/pipe_norip.idx"
}
check "pipe_norip.mxf: no footer named, no RIP: the frames found with the RIP" \
	found_as_with_rip

$FF -f lavfi -i testsrc=size=640x480:rate=30000/1001 -f lavfi -i sine=r=48000 \
	-t 1 -c:v dnxhd -profile:v dnxhr_lb -pix_fmt yuv422p -c:a pcm_s24le \
	-timecode '01:00:00;00' -f mxf "$T/ntsc.mxf"
same ntsc.mxf
check_eq "ntsc.mxf: 01:00:00;00 is frame 107892 at 30000/1001, drop frame" \
	"tc 107892 30000/1001 1" "$(grep '^tc' "$T/ntsc.mxf.idx")"

# damaged files
size=$(wc -c <"$T/op1a.mxf")
head -c $((size / 2)) "$T/op1a.mxf" >"$T/half.mxf"
refused half.mxf "past the file's end.*truncated file"
size=$(wc -c <"$T/atom_v.mxf")
head -c $((size - 700)) "$T/atom_v.mxf" >"$T/atom_cut.mxf"
refused atom_cut.mxf "truncated file"
# the index table segment made a fill item
patch op1a.mxf noindex.mxf 'i = d.find(idx); d[i:i+16] = bytes.fromhex("060e2b34010101020301021001000000")'
refused noindex.mxf "no index table segments"
# EditUnitByteCount 512 bytes more than the edit units are
patch op1a.mxf eubc.mxf 'i = d.find(b"\x3f\x05\x00\x04", d.find(idx)) + 4; d[i:i+4] = (int.from_bytes(d[i:i+4], "big") + 512).to_bytes(4, "big")'
refused eubc.mxf "the index disagrees with the file"
# the 6th index entry's StreamOffset past the file
patch longgop.mxf farentry.mxf 'i = d.find(b"\x3f\x0a", d.find(idx)); n = int.from_bytes(d[i+8:i+12], "big"); e = i + 12 + 5 * n + 3; d[e:e+8] = (1 << 40).to_bytes(8, "big")'
refused farentry.mxf "edit unit 5 points at stream offset 1099511627776, outside the essence"
# the footer's pack says it is elsewhere
patch atom_v.mxf movedpack.mxf 'i = d.rfind(bytes.fromhex("060e2b34020501010d01020101040400")); i += 16 + 1 + (d[i+16] & 0x7f) + 8; d[i+7] ^= 0x10'
refused movedpack.mxf "partition pack at byte [0-9]* says it is at byte"
# not MXF: the MXF reader says nothing (-ENOTSUP), the next one reads it
# or the one message is that no reader takes it
printf 'hello, not a media file\n' >"$T/text.mxf"
refused text.mxf "not a media file timelinefs reads"
check_eq "text.mxf: that one message only" 1 "$(wc -l <"$T/text.mxf.err")"
$FF -f lavfi -i sine=r=48000 -t 0.1 -c:a pcm_s24le "$T/tone.wav"
check_eq "tone.wav: read as WAV, not MXF" "format wav" \
	"$("$IDX" "$T/tone.wav" | head -1)"
finish
