#!/bin/sh
# SPDX-License-Identifier: MIT
# Mounted: image sequence clips at mount (issue 22, resolution).  Tiny DPX
# and EXR ZIP sequences from timelinefs-gen and .tl seq lines: the
# timeline's size is its played images' pixel data (by
# tests/tools/tlexpect.py seqdata, which reads the headers itself; the
# compressed EXR's sizes vary image to image), the media table names the
# pattern and the images' codec, NAME.mov of the DPX (R10k), none of the
# EXR and the start says why; a
# missing first image, a damaged header and an OTIO-style rate that is not
# the timeline's stop the mount naming timeline, line, clip, file and
# reason.  Reading the images is the player's (test_sequences.sh).
. "$(dirname "$0")/lib.sh"

need_tools sqlite3
M=$T/media
DB=$T/run.db
mkdir -p "$M/timelines"
"$GEN" --format dpx10-2k --size 64x48 --clips 1 --clip-seconds 1 "$M" \
	>/dev/null
# the generator's own timelines of its clips: this test writes its own
rm "$M"/timelines/*
"$GEN" --format exr-zip-hd --size 64x48 --clips 1 --clip-seconds 1 \
	"$T/exr" >/dev/null
mv "$T/exr/clip0001" "$M/z"
for f in "$M"/z/*.exr; do
	mv "$f" "$M/z/z.${f##*/clip0001.}"
done
cat >"$M/timelines/cut.tl" <<'TL'
fps 24
track V 1
event V clip0001 5 3
event V clip0001 0 2
seq clip0001 clip0001/clip0001.%07d.dpx first=86400
TL
cat >"$M/timelines/zip.tl" <<'TL'
fps 24
track V 1
event V z 1 4
seq z z/z.%07d.exr first=86400
TL

# the pixel data of images FIRST..LAST of a clip's folder
pixels() {
	i=$3
	while [ "$i" -le "$4" ]; do
		$EXPECT seqdata "$1/$2.$(printf %07d $((86400 + i))).$5"
		i=$((i + 1))
	done | awk '{ for (i = 3; i <= NF; i += 2) n += $i } END { print n }'
}

mount_fs "$M" "$T/mnt" -o pace=off,db="$DB"
check_eq "cut's size is its 5 images' pixel data" \
	"$(stat -c %s "$T/mnt/cut")" \
	"$(( $(pixels "$M/clip0001" clip0001 5 7 dpx) + \
	     $(pixels "$M/clip0001" clip0001 0 1 dpx) ))"
check_eq "zip's size is its 4 images' own pixel data (EXR ZIP)" \
	"$(stat -c %s "$T/mnt/zip")" "$(pixels "$M/z" z 1 4 exr)"
check "the EXR ZIP images differ in size" \
	test "$($EXPECT seqdata "$M"/z/z.008640[1-4].exr | awk '{print $3}' |
		sort -u | wc -l)" -gt 1
check "cut.mov: DPX 10-bit RGB as R10k (test_seqmovie.sh plays it)" \
	test -f "$T/mnt/cut.mov"
check "no zip.mov" test ! -e "$T/mnt/zip.mov"
check "the start says why" grep -qF "timelinefs: note: no zip.mov: \
$M/timelines/zip.tl: track V: clip z: an image sequence (exr-zip): no \
QuickTime mapping: openexr (compressed): its half floats are stored a \
channel a line, as no QuickTime sample is" "$T/daemon.log"
umount_fs "$T/mnt"
check_eq "media rows: the pattern, the images' codec, no stream" \
	"$(q "select t.name, m.clip, m.track, m.file, m.codec,
	      coalesce(m.stream, 'null') from media m join timeline t on
	      t.id = m.timeline_id order by 1")" \
	"cut|clip0001|V|clip0001/clip0001.%07d.dpx|dpx|null
zip|z|V|z/z.%07d.exr|exr-zip|null"

# timelinefs-gen --for writes a sequence clip's images (those the edit
# plays, by OTIO's formula: step 2 from 1 at padding 4) and its audio
cat >"$T/for.tl" <<'TL'
fps 24
track V 1
track A1 144000 align=3
event V,A1 s 3 4
seq s shots/s/s.%04d.exr first=1 step=2
TL
"$GEN" --for "$T/for.tl" "$T/fm" >"$T/for.out"
check_eq "--for: the images the edit plays" \
	"$(cd "$T/fm/shots/s" && echo *)" "s.0007.exr s.0009.exr s.0011.exr s.0013.exr"
check "--for: the clip's audio by the usual name" test -f "$T/fm/s.A1.wav"
mount_fs "$T/fm" "$T/mnt" -o pace=off
check_eq "--for: the timeline mounts, its size the images' and audio's" \
	"$(stat -c %s "$T/mnt/for")" \
	"$(( $($EXPECT seqdata "$T"/fm/shots/s/*.exr |
	       awk '{ for (i = 3; i <= NF; i += 2) n += $i } END { print n }')
	     + 4 * 6000 ))"
umount_fs "$T/mnt"

# refusals: the first image the edit plays missing (the others need not
# be there), its header damaged
rm "$M/timelines/zip.tl"
mv "$M/clip0001/clip0001.0086405.dpx" "$T/keep.dpx"
try_mount "the first image missing" \
	"$M/timelines/cut.tl:3: clip clip0001 track V: cannot open \
$M/clip0001/clip0001.0086405.dpx, the first image the edit plays: No such \
file or directory" -- "$M" "$T/mnt"
printf 'junkjunk' >"$M/clip0001/clip0001.0086405.dpx"
try_mount "a damaged first image" \
	"$M/timelines/cut.tl:3: clip clip0001 track V: \
$M/clip0001/clip0001.0086405.dpx: not a dpx, tiff or exr file" \
	-- "$M" "$T/mnt"
mv "$T/keep.dpx" "$M/clip0001/clip0001.0086405.dpx"
# a folder that is a symlink is not followed
mv "$M/clip0001" "$T/away"
ln -s "$T/away" "$M/clip0001"
try_mount "a linked folder" \
	"clip clip0001 track V: cannot open $M/clip0001/clip0001.0086405.dpx,\
 the first image the edit plays: Too many levels of symbolic links" \
	-- "$M" "$T/mnt"
finish
