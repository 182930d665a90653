#!/bin/sh
# SPDX-License-Identifier: MIT
# The movie of a timeline of image sequences (issue 22): where the images'
# pixel data are a QuickTime sample as they are, NAME.mov plays them:
# DPX 10-bit RGB method A big-endian as R10k, DPX 16-bit as b48r,
# frametest's headerless 8-bit RGB as 'raw ' of depth 24.  For each,
# ffprobe reads the codec and size, and ffmpeg's framemd5 of the movie
# equals that of the same images decoded straight from their files in
# the edit's order (tlexpect.py seqframes lists them), both converted to
# one pixel format.  EXR and little-endian TIFF have no movie, and the
# mount says why.  Tiny pictures (frametest at its smallest real size,
# 720x480: the size tells its width and height); some 3 s alone.
. "$(dirname "$0")/lib.sh"

need_tools python3 ffmpeg ffprobe
M=$T/media
mkdir -p "$M/timelines"
# FORMAT SIZE: its timeline01.tl as M/timelines/FORMAT.tl
gen() {
	"$GEN" --format "$1" ${2:+--size "$2"} --clip-seconds 0.25 --clips 2 \
		--timelines 1 --events 4 --seed 5 "$M/$1" >/dev/null ||
		{ not_ok "timelinefs-gen --format $1"; finish; }
	sed "s|^seq \([^ ]*\) |seq \1 $1/|" "$M/$1/timelines/timeline01.tl" \
		>"$M/timelines/$1.tl"
	rm -r "$M/$1/timelines"
}
for f in dpx10-hd dpx16-hd exr-hd tiff16-hd; do gen $f 64x48; done
gen frametest-sd

mount_fs "$M" "$T/mnt" -o db="$T/db",pace=off

# FORMAT CODEC SIZE PIX: the movie against its images
movie() {
	mov=$T/mnt/$1.mov
	[ -f "$mov" ] || { not_ok "$1.mov exists"; return; }
	ok "$1.mov exists"
	check_eq "$1.mov: ffprobe reads $2 $3" "$2 $3" "$(ffprobe -v error \
		-select_streams v:0 -show_entries stream=codec_name,width,height \
		-of csv=p=0 "$mov" | awk -F, '{print $1, $2 "x" $3}')"
	# the images the edit plays, in its order: DPX through image2 from
	# links numbered in that order, headerless ones concatenated
	mkdir -p "$T/ref/$1"
	$EXPECT seqframes "$M/timelines/$1.tl" "$M" |
		awk '$1 ~ /^[0-9]+$/ && NF >= 6 {print $5}' >"$T/ref/$1.list"
	n=0
	: >"$T/ref/$1.raw"
	while read -r p; do
		case $p in /*) ;; *) p=$M/$p ;; esac
		if [ "${p%.raw}" != "$p" ]; then
			cat "$p" >>"$T/ref/$1.raw"
		else
			ln "$p" "$T/ref/$1/$(printf %05d $n).dpx"
		fi
		n=$((n + 1))
	done <"$T/ref/$1.list"
	if [ -s "$T/ref/$1.raw" ]; then
		set -- "$@" -f rawvideo -pix_fmt rgb24 -s "$3" -framerate 24 \
			-i "$T/ref/$1.raw"
	else
		set -- "$@" -f image2 -framerate 24 -i "$T/ref/$1/%05d.dpx"
	fi
	pix=$4
	name=$1
	shift 4
	ffmpeg -v error -nostdin "$@" -pix_fmt "$pix" -f framemd5 - |
		awk '!/^#/ {print $NF}' >"$T/ref/$name.md5"
	ffmpeg -v error -nostdin -i "$mov" -pix_fmt "$pix" -f framemd5 - |
		awk '!/^#/ {print $NF}' >"$T/ref/$name.mov.md5"
	check_eq "$name.mov: $n frames, as many as the edit's images" "$n" \
		"$(wc -l <"$T/ref/$name.mov.md5")"
	if [ "$n" -gt 0 ] && cmp -s "$T/ref/$name.md5" "$T/ref/$name.mov.md5"
	then
		ok "$name.mov: framemd5 ($pix) equals the images' own"
	else
		not_ok "$name.mov: framemd5 ($pix) equals the images' own"
		diff "$T/ref/$name.md5" "$T/ref/$name.mov.md5" | head -5
	fi
}
movie dpx10-hd r10k 64x48 rgb48le
movie dpx16-hd rawvideo 64x48 rgb48le
movie frametest-sd rawvideo 720x480 rgb24

for f in exr-hd tiff16-hd; do
	check "no $f.mov" [ ! -e "$T/mnt/$f.mov" ]
	check "$f plays as $f" [ -f "$T/mnt/$f" ]
done
check_eq "the mount says once why exr-hd has no movie" 1 "$(grep -c \
	"no exr-hd.mov: .*no QuickTime mapping: openexr: its half floats" \
	"$DAEMON_LOG")"
check_eq "the mount says once why tiff16-hd has no movie" 1 "$(grep -c \
	"no tiff16-hd.mov: .*no QuickTime mapping: little-endian tiff" \
	"$DAEMON_LOG")"
umount_fs "$T/mnt"
finish
