#!/bin/sh
# SPDX-License-Identifier: MIT
# timelinefs-gen image sequence --formats (issue 22, "formats with real
# sizes"): for each kind (DPX 10-bit and 16-bit, TIFF 16-bit, OpenEXR
# half RGB and RGBA, uncompressed, ZIP and PIZ, frametest's headerless RGB) at
# 320x240 (--size), every file of the clips is where cameras put it
# (DIR/CLIP/CLIP.%07d.EXT from --start-frame, 86400 by default, across
# 9999 to 10000), ffprobe reads it as the format it is, every frame ffmpeg
# decodes carries its clip and frame code (tests/tools/tlcode.py over
# rawvideo rgb48le), the DPX header fields are the spec's (read with
# struct here: magic, image data offset, file size, size, bits, packing,
# descriptor, frame position, timecode 01:00:00:00 of 86400 at 24 fps),
# tlexpect.py seqdata (the pixel data the mounted test reads, from each
# header) ends at each file's end after its header; --format list gives
# each preset's bytes a frame (the presets' real sizes, computed here from
# the formats); ZIP's and PIZ's frames differ in size, each within the
# bound the generator gives; PIZ (OpenEXRCore's, 32 lines a chunk) also at
# 64x48, too small for the code: there ffmpeg decodes it to the pixels of
# the uncompressed preset (PIZ is lossless), and its offset table holds a
# chunk for each 32 lines, in order, the last ending at the file's end; the same seed gives the same bytes; the timelines
# written beside them (timelineNN.tl of seq clips, every clip whole in
# clips.otio) name the clips' files as they are and play through
# tlexpect.py; bad option combinations are usage errors.
NO_MOUNT=1
. "$(dirname "$0")/lib.sh"

need_tools ffmpeg ffprobe
[ -x "$GEN" ] || { echo "missing $GEN: run make first" >&2; exit 1; }
TLCODE="python3 $TOP/tests/tools/tlcode.py"
TLEXPECT="python3 $TOP/tests/tools/tlexpect.py"

# WHAT FILE: the pixel data tlexpect finds from the header (seqdata) is
# one extent ending at the file's end
seqdata_to_end() {
	check "$1: tlexpect seqdata reads one extent to the file's end" \
		sh -c '$1 seqdata "$2" | awk -v s="$3" -v f="$2" \
			"NF == 3 && \$1 == f && \$2 + \$3 == s && \$2 < 4096 {ok = 1} END {exit !ok}"' \
		sh "$TLEXPECT" "$2" "$(stat -c %s "$2")"
}

# FORMAT EXT CODEC PIX_FMT (ffprobe's) per kind
KINDS="dpx10-2k:dpx:dpx:gbrp10le dpx16-hd:dpx:dpx:rgb48be
tiff16-hd:tif:tiff:rgb48le exr-hd:exr:exr:gbrpf32le
exr-rgba-hd:exr:exr:gbrapf32le exr-zip-hd:exr:exr:gbrpf32le
exr-rgba-zip-4k:exr:exr:gbrapf32le exr-piz-hd:exr:exr:gbrpf32le
exr-rgba-piz-4k:exr:exr:gbrapf32le frametest-hd:raw:-:-"
# 2 clips of 6 frames at 24 fps
for k in $KINDS; do
	IFS=: read -r fmt ext codec pix <<EOF2
$k
EOF2
	D=$T/$fmt
	check "$fmt: written" sh -c \
		"'$GEN' --format $fmt --size 320x240 --clips 2 --clip-seconds 0.25 '$D' >/dev/null"
	check_eq "$fmt: the files" \
		"$(for c in clip0001 clip0002; do for n in 0 1 2 3 4 5; do echo $c/$c.008640$n.$ext; done; done)" \
		"$(cd "$D" && find . -type f ! -path './timelines/*' | sed 's|^\./||' | sort)"
	if [ "$codec" != - ]; then
		check_eq "$fmt: ffprobe reads $codec 320x240 $pix" \
			"codec_name=$codec|width=320|height=240|pix_fmt=$pix" \
			"$(ffprobe -v error -show_entries stream=codec_name,width,height,pix_fmt \
				-of compact=p=0 "$D/clip0002/clip0002.0086403.$ext")"
	fi
	for c in 1 2; do
		cl=clip000$c
		if [ "$codec" = - ]; then
			cat "$D/$cl/"*.raw >"$T/rgb"
			fmtc=rgb24
		else
			ffmpeg -v error -start_number 86400 \
				-i "$D/$cl/$cl.%07d.$ext" -f rawvideo \
				-pix_fmt rgb48le - >"$T/rgb" 2>"$T/err"
			fmtc=rgb48le
		fi
		check_eq "$fmt: $cl's 6 frames carry their code" \
			"$(for n in 0 1 2 3 4 5; do echo "$n $c $n"; done)" \
			"$($TLCODE video $fmtc 320x240 "$T/rgb")"
	done
	seqdata_to_end "$fmt" "$D/clip0001/clip0001.0086400.$ext"
done

# the timelines: 15 of random events over the clips (as long as a clip
# at most), clips.otio of both whole; seq lines naming the files
D=$T/dpx10-2k
check_eq "timelines: 15 .tl and clips.otio" \
	"$(for i in 01 02 03 04 05 06 07 08 09 10 11 12 13 14 15; do echo timeline$i.tl; done; echo clips.otio)" \
	"$(ls "$D/timelines" | sort -t. -k2,2r -k1,1)"
check "timeline01.tl: its clips' seq lines" sh -c \
	"grep -q '^seq clip000[12] clip000[12]/clip000[12].%07d.dpx first=86400\$' '$D/timelines/timeline01.tl' &&
	 ! grep '^event' '$D/timelines/timeline01.tl' | grep -vq '^event V clip000[12] [0-5] [1-6]\$'"
check_eq "timeline01.tl: plays the images tlexpect finds" \
	"$(sed -n 's/.*, \([0-9]*\) frames of image sequences$/\1/p' "$D/timelines/timeline01.tl")" \
	"$($TLEXPECT seqframes "$D/timelines/timeline01.tl" "$D" | awk '$7 != "missing"' | wc -l)"
check_eq "clips.otio: two ImageSequenceReferences of the clips" \
	"clip0001/ clip0001. .dpx 86400 1 7 24 error 86400 6
clip0002/ clip0002. .dpx 86400 1 7 24 error 86400 6" \
	"$(python3 - "$D/timelines/clips.otio" <<'PY'
import json, sys
t = json.load(open(sys.argv[1]))
for c in t["tracks"]["children"][0]["children"]:
    r = c["media_references"][c["active_media_reference_key"]]
    assert r["OTIO_SCHEMA"] == "ImageSequenceReference.1"
    print(r["target_url_base"], r["name_prefix"], r["name_suffix"],
          r["start_frame"], r["frame_step"], r["frame_zero_padding"],
          r["rate"], r["missing_frame_policy"],
          c["source_range"]["start_time"]["value"],
          c["source_range"]["duration"]["value"])
PY
)"

# the DPX header fields, read here from SMPTE ST 268's offsets
dpxhead() {
	python3 - "$@" <<'PY'
import os, struct, sys
f = sys.argv[1]
b = open(f, "rb").read(2048)
mag, off, ver, size = struct.unpack(">4sI8sI", b[:20])
w, h = struct.unpack(">II", b[772:780])
desc, bits, pack = b[800], b[803], struct.unpack(">H", b[804:806])[0]
eoff, = struct.unpack(">I", b[808:812])
pos, = struct.unpack(">I", b[1712:1716])
tc, = struct.unpack(">I", b[1920:1924])
fps, = struct.unpack(">f", b[1940:1944])
print(mag.decode(), off, ver.rstrip(b"\0").decode(), size == os.path.getsize(f),
      w, h, desc, bits, pack, eoff, pos, "%08x" % tc, fps)
PY
}
check_eq "dpx10: header fields" \
	"SDPX 2048 V2.0 True 320 240 50 10 1 2048 86400 01000000 24.0" \
	"$(dpxhead "$T/dpx10-2k/clip0001/clip0001.0086400.dpx")"
check_eq "dpx16: header fields (frame 86405: 01:00:00:05)" \
	"SDPX 2048 V2.0 True 320 240 50 16 0 2048 86405 01000005 24.0" \
	"$(dpxhead "$T/dpx16-hd/clip0001/clip0001.0086405.dpx")"
check_eq "dpx10: the pixel data is 4 bytes a pixel after 2048" \
	"$((2048 + 320 * 240 * 4))" \
	"$(stat -c %s "$T/dpx10-2k/clip0001/clip0001.0086400.dpx")"

# --start-frame, across 9999 to 10000, and --fps 25 in the header
"$GEN" --format dpx10-hd --size 320x240 --clips 1 --clip-seconds 0.12 \
	--fps 25 --start-frame 9998 "$T/roll" >/dev/null
check_eq "--start-frame 9998: 7 digits across 10000" \
	"clip0001.0009998.dpx clip0001.0009999.dpx clip0001.0010000.dpx" \
	"$(ls "$T/roll/clip0001" | tr '\n' ' ' | sed 's/ $//')"
check_eq "--fps 25: frame 10000 is 00:06:40:00" \
	"SDPX 2048 V2.0 True 320 240 50 10 1 2048 10000 00064000 25.0" \
	"$(dpxhead "$T/roll/clip0001/clip0001.0010000.dpx")"

# ZIP: the sizes vary per frame, within the bound the generator gives
check "exr-zip-hd: frames of different sizes" sh -c \
	"[ \$(stat -c %s '$T/exr-zip-hd/clip0001/'* | sort -u | wc -l) -gt 1 ]"
bound=$("$GEN" --format exr-zip-hd --size 320x240 --clips 1 --clip-seconds 0.05 \
	"$T/zb" | sed -n 's/.*at most \([0-9]*\) bytes a frame.*/\1/p')
check "exr-zip-hd: every frame within the bound, $bound" sh -c \
	"[ -n '$bound' ] && [ \$(stat -c %s '$T/exr-zip-hd/clip0001/'* | sort -n | tail -1) -lt '$bound' ]"

# PIZ, written by OpenEXRCore: the same, and its chunks of 32 lines
for fmt in exr-piz-hd exr-rgba-piz-4k; do
	check "$fmt: frames of different sizes" sh -c \
		"[ \$(stat -c %s '$T/$fmt/clip0001/'* | sort -u | wc -l) -gt 1 ]"
	bound=$("$GEN" --format $fmt --size 320x240 --clips 1 --clip-seconds 0.05 \
		"$T/pb-$fmt" | sed -n 's/.*at most \([0-9]*\) bytes a frame.*/\1/p')
	check "$fmt: every frame within the bound, $bound" sh -c \
		"[ -n '$bound' ] && [ \$(stat -c %s '$T/$fmt/clip0001/'* | sort -n | tail -1) -lt '$bound' ]"
done
# each chunk's y and size from the offset table: a chunk for each 32
# lines (8 of 240, 2 of 48), in order, back to back to the file's end
exrchunks() {
	python3 - "$@" <<'PY'
import os, sys
f = sys.argv[1]
b = open(f, "rb").read()
p = 8
while b[p] != 0:
    n = b.index(b"\0", p)
    t = b.index(b"\0", n + 1)
    size = int.from_bytes(b[t + 1:t + 5], "little")
    if b[p:n] == b"compression":
        comp = b[t + 5]
    if b[p:n] == b"dataWindow":
        h = int.from_bytes(b[t + 17:t + 21], "little") + 1
    p = t + 5 + size
p += 1
ys, end = [], None
for i in range((h + 31) // 32):
    off = int.from_bytes(b[p + 8 * i:p + 8 * i + 8], "little")
    assert end is None or off == end, (i, off, end)
    ys.append(int.from_bytes(b[off:off + 4], "little"))
    end = off + 8 + int.from_bytes(b[off + 4:off + 8], "little")
print(comp, h, " ".join(map(str, ys)), end == len(b))
PY
}
check_eq "exr-piz-hd 320x240: PIZ, 8 chunks of 32 lines to the end" \
	"4 240 0 32 64 96 128 160 192 224 True" \
	"$(exrchunks "$T/exr-piz-hd/clip0002/clip0002.0086405.exr")"
# FORMAT UNCOMPRESSED PIX_FMT (ffprobe's) DECODED_AS BYTES_A_PIXEL
for p in exr-piz-hd:exr-hd:gbrpf32le:rgb48le:6 \
	exr-rgba-piz-4k:exr-rgba-hd:gbrapf32le:rgba64le:8; do
	IFS=: read -r fmt plain pix out bpp <<EOF2
$p
EOF2
	for f in $fmt $plain; do
		"$GEN" --format "$f" --size 64x48 --clips 2 --clip-seconds 0.25 \
			"$T/s-$f" >/dev/null
	done
	check_eq "$fmt 64x48: ffprobe reads exr 64x48 $pix" \
		"codec_name=exr|width=64|height=48|pix_fmt=$pix" \
		"$(ffprobe -v error -show_entries stream=codec_name,width,height,pix_fmt \
			-of compact=p=0 "$T/s-$fmt/clip0002/clip0002.0086401.exr")"
	check_eq "$fmt 64x48: 2 chunks of 32 lines to the end" \
		"4 48 0 32 True" \
		"$(exrchunks "$T/s-$fmt/clip0002/clip0002.0086401.exr")"
	check "$fmt 64x48: frames of different sizes" sh -c \
		"[ \$(stat -c %s '$T/s-$fmt/clip0001/'* | sort -u | wc -l) -gt 1 ]"
	for c in clip0001 clip0002; do
		for f in $fmt $plain; do
			ffmpeg -v error -start_number 86400 \
				-i "$T/s-$f/$c/$c.%07d.exr" -f rawvideo \
				-pix_fmt "$out" - >"$T/px-$f" 2>"$T/err"
		done
		check "$fmt 64x48: $c's 6 frames decode to $plain's pixels" sh -c \
			"[ \$(stat -c %s '$T/px-$fmt') -eq $((64 * 48 * 6 * bpp)) ] && cmp -s '$T/px-$fmt' '$T/px-$plain'"
	done
	seqdata_to_end "$fmt 64x48" "$T/s-$fmt/clip0001/clip0001.0086400.exr"
done

# the same seed, the same bytes; another seed, others
"$GEN" --format exr-hd --size 320x240 --clips 2 --clip-seconds 0.25 \
	"$T/again" >/dev/null
"$GEN" --format exr-hd --size 320x240 --clips 2 --clip-seconds 0.25 \
	--seed 2 "$T/other" >/dev/null
check "same seed: the same files" diff -r "$T/exr-hd" "$T/again"
check "--seed 2: other bytes" sh -c \
	"! cmp -s '$T/exr-hd/clip0001/clip0001.0086400.exr' '$T/other/clip0001/clip0001.0086400.exr'"

# the presets' real sizes, as --format list gives them
"$GEN" --format list >"$T/list"
for p in dpx10-hd:$((2048 + 1920 * 1080 * 4)) dpx10-2k:$((2048 + 2048 * 1080 * 4)) \
	dpx10-2k-full:$((2048 + 2048 * 1556 * 4)) dpx10-uhd:$((2048 + 3840 * 2160 * 4)) \
	dpx10-4k:$((2048 + 4096 * 2160 * 4)) dpx10-4k-full:$((2048 + 4096 * 3112 * 4)) \
	dpx16-2k:$((2048 + 2048 * 1080 * 6)) frametest-sd:$((720 * 480 * 3)) \
	frametest-hd:$((1280 * 720 * 3)) frametest-2k:$((2048 * 1080 * 3)) \
	frametest-4k:$((3840 * 2160 * 3)); do
	check "--format list: ${p%%:*} is ${p#*:} bytes a frame" \
		grep -q "^${p%%:*} .* ${p#*:} bytes/frame" "$T/list"
done
check "--format list: every sequence preset has a source" sh -c \
	"[ \$(grep -c '^dpx\|^tiff\|^exr\|^frametest' '$T/list') -eq \$(grep -A2 '^dpx\|^tiff\|^exr\|^frametest' '$T/list' | grep -c 'source: ') ]"

# usage errors: nothing written
for bad in "--format dpx10-2k --video-rate 1M" "--format exr-hd --audio-tracks 1" \
	"--size 320x240" "--start-frame 5" "--format tiff16-hd --size 0x240" \
	"--format tiff16-hd --size 320" "--format dpx10-hd --start-frame -1"; do
	# shellcheck disable=SC2086
	rc=0
	"$GEN" $bad "$T/bad" >/dev/null 2>"$T/err" || rc=$?
	check_eq "$bad: usage error 2" 2 "$rc"
	check "$bad: one message naming the program" \
		grep -q '^timelinefs-gen: ' "$T/err"
done
check "nothing written by the usage errors" test ! -e "$T/bad"
finish
