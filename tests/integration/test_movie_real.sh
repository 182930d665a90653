#!/bin/sh
# SPDX-License-Identifier: MIT
# Mounted: NAME.mov of real media (issue 21).  ProRes clips made here by
# ffmpeg (prores_ks, from timelinefs-gen's 2vuy pictures, which carry the
# clip/frame code of docs/formats.md) cut at any frame: NAME.mov decodes
# (ffmpeg -f framemd5) to exactly the sources' frames in edit order
# (compared with the sources' own framemd5 lines), every decoded frame's
# code (tests/tools/tlcode.py) is the edit's clip and frame, the movie's
# video samples are the sources' packets (ffprobe sizes), its 24-bit
# stereo WAV audio decodes to the sources' samples in edit order, and
# tests/tools/tlmov writes the same movie from the clip files.  H.264 (MP4,
# B frames, cut at whole groups) decodes to the sources' frames in edit
# order too, and so does H.264 in MXF and OP-Atom as timelinefs-gen
# writes it (Annex B, no avcC: before, no NAME.mov, "h264 without an avcC
# decoder setup"; now its setup is the parameter sets of its first frame,
# and ffmpeg decodes the movie without an error).  A track of two ProRes
# profiles, a cut inside an H.264 group and a gap on a ProRes track get no
# NAME.mov, and the start says why.
. "$(dirname "$0")/lib.sh"

need_tools ffmpeg ffprobe
CODE="python3 $TOP/tests/tools/tlcode.py"
TLMOV=$TLFS_BUILD/tests/tools/tlmov
M=$T/media
mkdir -p "$T/src" "$M/timelines"

# cuts at any frame, a clip used twice, 192x96 (the smallest picture
# with the code) at 25 fps
cat >"$T/src/cut.tl" <<'TL'
fps 25
track V 2vuy 192x96
event V c1 3 7
event V c2 0 5
event V c3 11 4
event V c1 20 6
event V c2 9 3
TL
"$GEN" --for "$T/src/cut.tl" "$T/gen" >/dev/null
for c in c1 c2 c3; do
	ffmpeg -v error -f rawvideo -pix_fmt uyvy422 -s 192x96 -r 25 \
		-i "$T/gen/$c.V.raw" -c:v prores_ks -profile:v 2 "$M/$c.mov"
	ffmpeg -v error -i "$M/$c.mov" -f framemd5 - | grep -v '^#' |
		awk -F, '{print $NF}' | tr -d ' ' >"$T/$c.md5"
	ffprobe -v error -select_streams v -show_entries packet=size \
		-of csv=p=0 "$M/$c.mov" >"$T/$c.sizes"
done
# c4: another ProRes profile (apch), mixed with c1 on one track
ffmpeg -v error -f rawvideo -pix_fmt uyvy422 -s 192x96 -r 25 \
	-i "$T/gen/c1.V.raw" -c:v prores_ks -profile:v 3 "$M/c4.mov"
# A1: 24-bit stereo WAVs (in24 with enda in the movie), one tone a clip
f=440
for c in c1 c2 c3; do
	ffmpeg -v error -f lavfi -i "sine=frequency=$f:sample_rate=48000:duration=2" \
		-ac 2 -c:a pcm_s24le "$M/$c.A1.wav"
	ffmpeg -v error -i "$M/$c.A1.wav" -f s24le - >"$T/$c.s24"
	f=$((f + 220))
done
sed -e 's/^track V .*/&\ntrack A1 144000 align=3/' -e 's/^event V /event V,A1 /' \
	"$T/src/cut.tl" >"$M/timelines/cut.tl"
printf 'fps 25\ntrack V 2vuy 192x96\nevent V c1 0 5\nevent V c4 5 5\n' \
	>"$M/timelines/mixed.tl"
printf 'fps 25\ntrack V 2vuy 192x96\nevent V c1 0 5\nevent V c2 0 5 @8\n' \
	>"$M/timelines/gap.tl"

# H.264: groups of 6 (I B B P B B, closed), cut at whole groups
for c in h1 h2; do
	ffmpeg -v error -f lavfi -i "testsrc2=size=64x48:rate=25:duration=2" \
		-vf "drawtext=text='$c %{n}':fontsize=12" -c:v libx264 \
		-g 6 -keyint_min 6 -sc_threshold 0 -bf 2 \
		-x264-params open-gop=0 -pix_fmt yuv420p "$M/$c.mp4"
	ffmpeg -v error -i "$M/$c.mp4" -f framemd5 - | grep -v '^#' |
		awk -F, '{print $NF}' | tr -d ' ' >"$T/$c.md5"
done
printf 'fps 25\ntrack V 1\nevent V h1 6 12\nevent V h2 0 6\nevent V h1 30 6\n' \
	>"$M/timelines/gop.tl"
printf 'fps 25\ntrack V 1\nevent V h1 7 6\n' >"$M/timelines/midgop.tl"

# H.264 in MXF OP1a and OP-Atom as timelinefs-gen writes it: Annex B,
# its parameter sets in band, no avcC in the file
printf 'fps 25\ntrack V 2vuy 64x48\nevent V x1 0 20\n' >"$T/src/x.tl"
printf 'fps 25\ntrack V 2vuy 64x48\nevent V y1 0 20\n' >"$T/src/y.tl"
"$GEN" --for "$T/src/x.tl" --picture 2vuy:64x48 --codec h264 \
	--container mxf "$T/gx" >/dev/null
"$GEN" --for "$T/src/y.tl" --picture 2vuy:64x48 --codec h264 \
	--container opatom "$T/gy" >/dev/null
cp "$T/gx/x1.mxf" "$T/gy/y1.V.mxf" "$M/"
for c in x1 y1; do
	f=$M/$c.mxf
	[ -f "$f" ] || f=$M/$c.V.mxf
	ffmpeg -v error -i "$f" -f framemd5 - | grep -v '^#' |
		awk -F, '{print $NF}' | tr -d ' ' >"$T/$c.md5"
done
printf 'fps 25\ntrack V 1\nevent V x1 13 7\nevent V y1 0 13\n' \
	>"$M/timelines/mxf264.tl"

# want FILE CLIP IN N ...: the lines IN..IN+N-1 of each clip's FILE
# (md5 or sizes), in edit order
want() {
	ext=$1
	shift
	while [ $# -gt 0 ]; do
		sed -n "$(($2 + 1)),$(($2 + $3))p" "$T/$1.$ext"
		shift 3
	done
}

DB=$T/m.db
mount_fs "$M" "$T/mnt" -o pace=off,backing=buffered,db="$DB"
check_eq "root lists cut.mov and gop.mov, no movie of the others" \
	"cut cut.mov gap gop gop.mov ingest midgop mixed mxf264 mxf264.mov " \
	"$(ls "$T/mnt" | tr '\n' ' ')"
check_eq "the start says why mixed has no movie, naming the clips and formats" \
	"timelinefs: note: no mixed.mov: $M/timelines/mixed.tl: track V mixes formats: clip c1 prores apcn 192x96, clip c4 prores apch 192x96" \
	"$(grep 'mixed.mov' "$DAEMON_LOG")"
check_eq "and why gap has none" \
	"timelinefs: note: no gap.mov: $M/timelines/gap.tl: track V: a gap at frame 5: no picture of prores to show for it" \
	"$(grep 'gap.mov' "$DAEMON_LOG")"
check_eq "and why midgop has none (a cut inside a group)" \
	"timelinefs: note: no midgop.mov: $M/timelines/midgop.tl: track V: clip h1 cut at frames 7..12 inside a group of pictures (h264): its samples would not decode on their own" \
	"$(grep 'midgop.mov' "$DAEMON_LOG")"

ffprobe -v error -select_streams v -show_entries stream=codec_name,codec_tag_string,width,height,nb_frames \
	-of csv=p=0 "$T/mnt/cut.mov" >"$T/probe" 2>&1 || true
check_eq "ffprobe cut.mov: prores apcn 192x96, 25 frames" \
	"prores,apcn,192,96,25" "$(cat "$T/probe")"
ffprobe -v error -select_streams v -show_entries packet=size -of csv=p=0 \
	"$T/mnt/cut.mov" >"$T/cut.sizes"
want sizes c1 3 7 c2 0 5 c3 11 4 c1 20 6 c2 9 3 >"$T/want.sizes"
check "cut.mov's samples are the sources' packets, in edit order" \
	cmp -s "$T/want.sizes" "$T/cut.sizes"
ffmpeg -v error -i "$T/mnt/cut.mov" -map 0:v -f framemd5 - | grep -v '^#' |
	awk -F, '{print $NF}' | tr -d ' ' >"$T/cut.md5"
want md5 c1 3 7 c2 0 5 c3 11 4 c1 20 6 c2 9 3 >"$T/want.md5"
check_eq "cut.mov decodes to 25 frames" 25 "$(wc -l <"$T/cut.md5")"
check "cut.mov decodes to exactly the sources' frames in edit order" \
	cmp -s "$T/want.md5" "$T/cut.md5"
ffmpeg -v error -i "$T/mnt/cut.mov" -map 0:v -pix_fmt uyvy422 -f rawvideo - |
	$CODE video 2vuy 192x96 --tl "$T/src/cut.tl" | cut -d' ' -f2- \
	>"$T/cut.code"
awk '/^event/ { for (i = 0; i < $5; i++) print $3, $4 + i }' \
	"$T/src/cut.tl" >"$T/want.code"
check "every decoded frame's clip/frame code is the edit's" \
	cmp -s "$T/want.code" "$T/cut.code"
# A1: 1920 sample frames of 6 bytes a timeline frame
awk '/^event/ { print $3, $4 * 11520, $5 * 11520 }' "$T/src/cut.tl" |
	while read -r c off n; do
		tail -c +$((off + 1)) "$T/$c.s24" | head -c "$n"
	done >"$T/want.a1"
ffmpeg -v error -i "$T/mnt/cut.mov" -map 0:a:0 -c:a pcm_s24le -f s24le - \
	>"$T/cut.a1"
check_eq "cut.mov's A1 is pcm_s24le stereo 48000 Hz" "pcm_s24le,48000,2" \
	"$(ffprobe -v error -select_streams a -show_entries \
		stream=codec_name,sample_rate,channels -of csv=p=0 "$T/mnt/cut.mov")"
check "cut.mov's A1 decodes to the sources' samples in edit order" \
	cmp -s "$T/want.a1" "$T/cut.a1"
ffmpeg -v error -i "$T/mnt/gop.mov" -f framemd5 - | grep -v '^#' |
	awk -F, '{print $NF}' | tr -d ' ' >"$T/gop.md5"
want md5 h1 6 12 h2 0 6 h1 30 6 >"$T/want.gmd5"
check "gop.mov (H.264, B frames) decodes to the sources' frames in edit order" \
	cmp -s "$T/want.gmd5" "$T/gop.md5"
check_eq "mxf264.mov (H.264 of MXF and OP-Atom): h264 avc1 64x48, 20 frames" \
	"h264,avc1,64,48,20" "$(ffprobe -v error -select_streams v -show_entries \
		stream=codec_name,codec_tag_string,width,height,nb_frames \
		-of csv=p=0 "$T/mnt/mxf264.mov" 2>&1)"
check_none "ffmpeg decodes mxf264.mov without an error" \
	"$(ffmpeg -v error -i "$T/mnt/mxf264.mov" -f null - 2>&1 || echo "exit $?")"
ffmpeg -v error -i "$T/mnt/mxf264.mov" -f framemd5 - | grep -v '^#' |
	awk -F, '{print $NF}' | tr -d ' ' >"$T/mxf264.md5"
want md5 x1 13 7 y1 0 13 >"$T/want.xmd5"
check "mxf264.mov decodes to the sources' frames in edit order" \
	cmp -s "$T/want.xmd5" "$T/mxf264.md5"
cp "$T/mnt/cut.mov" "$T/cut.mounted.mov"
umount_fs "$T/mnt"

# tlmov writes the same movie from the clip files, on its own
if [ -x "$TLMOV" ]; then
	"$TLMOV" "$M" "$M/timelines/cut.tl" "$T/cut.tlmov.mov" >/dev/null
	check "tlmov writes the mounted cut.mov byte for byte" \
		cmp -s "$T/cut.mounted.mov" "$T/cut.tlmov.mov"
else
	skip_case "no $TLMOV"
fi
finish
