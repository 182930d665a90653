#!/bin/sh
# SPDX-License-Identifier: MIT
# timelinefs-gen --codec/--container (issue 21, "stand-in media in real
# formats"): for every codec x container it writes, --for of the fixture
# transitions.edl makes files that the mount's resolver takes (--for
# resolves them as the mount will, MXF OP1a and OP-Atom too) and that
# ffprobe reads as intended (codec,
# picture size, one video stream and the clip's audio streams, frame
# count exactly the raw --for's, the EDL's source timecode of the clip's
# first frame as start timecode), whose every decoded frame carries its
# clip and frame code (tests/tools/tlcode.py over ffmpeg's rawvideo) and
# whose PCM audio (in the file, or BWF beside an MP4) is the clip's tone
# and code sample for sample (the first second of each track); a drop-frame EDL gives a drop-frame start
# timecode; the random generator writes one file a clip; bad option
# combinations and a missing ffmpeg are one clear message and no file.
# Small pictures (320x240; DNxHR 640x480, where 320x240 loses a code
# cell in 4 of 70 frames to its quantizer on our noise).
NO_MOUNT=1
. "$(dirname "$0")/lib.sh"

need_tools ffmpeg ffprobe
[ -x "$GEN" ] || { echo "missing $GEN: run make first" >&2; exit 1; }
TLCODE="python3 $TOP/tests/tools/tlcode.py"
EDL=$TOP/tests/fixtures/edl/transitions.edl

# the raw --for: the frames each clip needs, the reference
"$GEN" --for "$EDL" --picture 2vuy:320x240 "$T/raw" >/dev/null
for c in shot_a shot_b shot_c; do
	eval "need_$c=$(($(stat -c %s "$T/raw/$c.V.raw") / 153600))"
done
# shellcheck disable=SC2154
check_eq "raw --for: shot_a, shot_b, shot_c frames" "70 50 25" \
	"$need_shot_a $need_shot_b $need_shot_c"

# probe FILE: "codec WxH frames timecode" of its video stream, then
# "audio N codec samples" (counted packets and samples, as an MXF has no
# nb_frames)
probe() {
	ffprobe -v error -count_packets -show_entries \
		stream=codec_type,codec_name,width,height,nb_read_packets,duration_ts:stream_tags=timecode:format_tags=timecode \
		-of json "$1" | python3 -c '
import json, sys
j = json.load(sys.stdin)
tc = (j.get("format", {}).get("tags") or {}).get("timecode")
v = [s for s in j["streams"] if s.get("codec_type") == "video"]
a = [s for s in j["streams"] if s.get("codec_type") == "audio"]
for s in v:
    tc = tc or (s.get("tags") or {}).get("timecode")
    print(s["codec_name"], "%dx%d" % (s["width"], s["height"]),
          s["nb_read_packets"], tc)
print("audio", len(a), " ".join(sorted({s["codec_name"] for s in a})))'
}

# frames FILE FMT WxH CLIP N: every frame of FILE's picture decodes to
# clip CLIP, frames 0..N-1 in order
frames() {
	cid=$($TLCODE clipid "$4")
	if [ "$2" = v210 ]; then
		set -- "$@" -c:v v210
	else
		set -- "$@" -pix_fmt uyvy422
	fi
	# every decoded frame once, whatever the timestamps say
	ffmpeg -nostdin -v error -i "$1" -map 0:v:0 -fps_mode passthrough \
		-f rawvideo "$6" "$7" - 2>/dev/null |
		$TLCODE video "$2" "$3" >"$T/codes"
	awk -v c="$cid" -v n="$5" '
		$2 != c || $3 != NR - 1 { bad++ }
		END { if (bad || NR != n) { print NR " frames, " bad+0 " wrong"; exit 1 } }' "$T/codes"
}

# tone FILE CLIP TRACK K: audio stream K of FILE (0 first) is the tone
# and code of (CLIP, TRACK) for its first second
tone() {
	ffmpeg -nostdin -v error -i "$1" -map "0:a:$4" -t 1 -f s24le - >"$T/pcm"
	python3 - "$TOP/tests/tools" "$T/pcm" "$2" "$3" <<'PY'
import sys
sys.path.insert(0, sys.argv[1])
import tlcode
data, clip, track = open(sys.argv[2], "rb").read(), sys.argv[3], sys.argv[4]
cid, ms = tlcode.clip_id(clip), tlcode.media_seed(1, clip, track)
n = len(data) // 3
bad = [i for i in range(n)
       if int.from_bytes(data[3 * i:3 * i + 3], "little", signed=True)
       != tlcode.sample(ms, cid, 48000, i)]
if n != 48000 or bad:
    print("%d samples, %d wrong, first %s" % (n, len(bad), bad[:1]))
    sys.exit(1)
PY
}

# one CODEC CONTAINER PICTURE VCODEC ACODEC [--profile P]: --for the
# fixture, every file checked
one() {
	codec=$1 cont=$2 pic=$3 vc=$4 ac=$5
	shift 5
	d=$T/$codec-$cont-${pic%%:*}
	fmt=${pic%%:*} size=${pic#*:}
	# --for resolves what it wrote as the mount will: exit 0 is
	# the mount's naming rules and readers taking every file
	if "$GEN" --for "$EDL" --picture "$pic" --codec "$codec" \
		--container "$cont" "$@" "$d" >"$T/out" 2>&1; then
		ok "$codec $cont: --for writes, the mount's resolver takes them"
	else
		not_ok "$codec $cont: --for failed: $(cat "$T/out")"
		return
	fi
	# shot_a plays V A1 A2, shot_b and shot_c V; source TC 10 s, 1 m, 2 m
	for c in "shot_a 3 00:00:10:00" "shot_b 1 00:01:00:00" \
		"shot_c 1 00:02:00:00"; do
		set -- $c
		clip=$1 ntr=$2 tc=$3
		eval "n=\$need_$clip"
		na=$((ntr - 1))
		if [ "$cont" = opatom ] || [ "$cont" = mp4 ]; then
			# a file a track: OP-Atom's, or BWF beside an MP4
			vf=$clip.V.mxf ae=mxf
			[ "$cont" = mp4 ] && vf=$clip.mp4 ae=wav
			files=
			k=1
			while [ $k -le $na ]; do
				files="$files$clip.A$k.$ae "
				k=$((k + 1))
			done
			files="$files$vf"
			check_eq "$codec $cont $clip: its files" "$files" \
				"$(cd "$d" && ls $clip.* | sort | tr '\n' ' ' | sed 's/ $//')"
			check_eq "$codec $cont $vf: probe" \
				"$vc $size $n $tc
audio 0 " "$(probe "$d/$vf")"
			k=1
			while [ $k -le $na ]; do
				check_eq "$codec $cont $clip.A$k.$ae: probe" \
					"audio 1 pcm_s24le" \
					"$(probe "$d/$clip.A$k.$ae" | tail -1)"
				check "$codec $cont $clip.A$k.$ae: tone and code" \
					tone "$d/$clip.A$k.$ae" "$clip" "A$k" 0
				k=$((k + 1))
			done
			f=$d/$vf
		else
			f=$d/$clip.$cont
			check_eq "$codec $cont $clip: one file" "$clip.$cont" \
				"$(cd "$d" && ls $clip.*)"
			check_eq "$codec $cont $clip: probe" "$vc $size $n $tc
audio $na $([ $na -gt 0 ] && echo "$ac")" "$(probe "$f")"
			k=0
			while [ "$ac" = pcm_s24le ] && [ $k -lt $na ]; do
				check "$codec $cont $clip A$((k + 1)): tone and code" \
					tone "$f" "$clip" "A$((k + 1))" $k
				k=$((k + 1))
			done
		fi
		check "$codec $cont $clip: every frame's clip/frame code" \
			frames "$f" "$fmt" "$size" "$clip" "$n"
	done
}

one prores mov 2vuy:320x240 prores pcm_s24le
one prores mov 2vuy:320x240 prores pcm_s24le --profile hq
one h264 mov 2vuy:320x240 h264 pcm_s24le
one h264 mp4 2vuy:320x240 h264 pcm_s24le
one h264 mxf 2vuy:320x240 h264 pcm_s24le
one h264 opatom 2vuy:320x240 h264 pcm_s24le
one uncompressed mov 2vuy:320x240 rawvideo pcm_s24le
one uncompressed mov v210:336x240 v210 pcm_s24le
one dnxhd mov 2vuy:640x480 dnxhd pcm_s24le
one dnxhd mxf 2vuy:640x480 dnxhd pcm_s24le
one dnxhd opatom 2vuy:640x480 dnxhd pcm_s24le

# codec settings as editors have them
check_eq "prores --profile hq is ProRes 422 HQ (apch)" "HQ apch" \
	"$(ffprobe -v error -select_streams v -show_entries stream=profile,codec_tag_string -of csv=p=0 "$T/prores-mov-2vuy/shot_a.mov" | awk -F, '{print $1 " " $2}')"
check_eq "h264: long GOP, B-frames (I every 13th of shot_a's 70)" \
	"I:6 B:yes" "$(ffprobe -v error -select_streams v -show_entries frame=pict_type -of csv=p=0 "$T/h264-mov-2vuy/shot_a.mov" | tr -d , |
		awk '{n[$1]++} END {printf "I:%d B:%s", n["I"], n["B"] ? "yes" : "no"}')"
check_eq "h264 in MXF: long GOP, no B-frame (I every 13th of 70)" \
	"I:6 B:no" "$(ffprobe -v error -select_streams v -show_entries frame=pict_type -of csv=p=0 "$T/h264-mxf-2vuy/shot_a.mxf" | tr -d , |
		awk '{n[$1]++} END {printf "I:%d B:%s", n["I"], n["B"] ? "yes" : "no"}')"
check_eq "dnxhd at 640x480 is DNxHR SQ" "DNXHR SQ" \
	"$(ffprobe -v error -select_streams v -show_entries stream=profile -of csv=p=0 "$T/dnxhd-mxf-2vuy/shot_a.mxf")"

check_eq "mp4's BWF: the time reference is the source timecode's samples" \
	"480000" "$(ffprobe -v error -show_entries format_tags=time_reference -of csv=p=0 "$T/h264-mp4-2vuy/shot_a.A1.wav")"

# drop frame: the EDL's origin 00:00:59;28 (FCM: DROP FRAME) is the
# media's start timecode, drop frame
"$GEN" --for "$TOP/tests/fixtures/edl/drop_frame.edl" --picture 2vuy:320x240 \
	--codec h264 "$T/df" >/dev/null || not_ok "--for drop_frame.edl --codec h264"
check_eq "drop frame EDL: the media's start timecode" \
	"00:00:59;28 00:09:59;29 00:01:00;02 00:01:00:00" \
	"$(for c in df_a TAPE2 TAPE3 TAPE4; do probe "$T/df/$c.mov" | sed -n 1p | cut -d' ' -f4; done | tr '\n' ' ' | sed 's/ $//')"

# the file an EDL names (a comment's file name) is the one written when
# of the container's kind, its extension as written; the mount finds it
cat >"$T/named.edl" <<'EDL'
TITLE: named files
FCM: NON-DROP FRAME
001  AX       AA/V  C        01:00:00:00 01:00:00:10 00:00:00:00 00:00:00:10
* FROM CLIP NAME: A001C003.MOV
002  AX       V     C        02:00:00:00 02:00:00:05 00:00:00:10 00:00:00:15
* SOURCE FILE: /Volumes/media/B002.mxf
EDL
check "--for an EDL naming A001C003.MOV and B002.mxf: resolves" \
	"$GEN" --for "$T/named.edl" --fps 25 --picture 2vuy:320x240 --codec h264 \
	"$T/named" >"$T/out" 2>&1 || cat "$T/out"
check_eq "the named .MOV written by its name, B002.mxf's clip as B002.mov" \
	"A001C003.MOV B002.mov timelines" "$(ls "$T/named" | tr '\n' ' ' | sed 's/ $//')"

# the random generator: one file a clip, as long as its raw clip
"$GEN" --clips 2 --clip-seconds 0.5 --timelines 1 --events 2 \
	--min-seconds 0.2 --max-seconds 0.5 --audio-tracks 1 --codec h264 \
	"$T/rnd" >"$T/out" 2>&1 || not_ok "random --codec: $(cat "$T/out")"
check_eq "random --codec: the files" "clip0001.mov clip0002.mov timelines" \
	"$(ls "$T/rnd" | tr '\n' ' ' | sed 's/ $//')"
check_eq "random --codec: clip0002.mov" "h264 640x480 15 00:00:00:00
audio 1 pcm_s24le" "$(probe "$T/rnd/clip0002.mov")"
check "random --codec: clip0002's codes" frames "$T/rnd/clip0002.mov" 2vuy \
	640x480 clip0002 15
"$GEN" --clips 1 --clip-seconds 0.2 --timelines 1 --events 1 \
	--min-seconds 0.2 --max-seconds 0.2 --audio-tracks 1 --codec h264 \
	--container mp4 --timecode '01:00:00;00' "$T/tc" >"$T/out" 2>&1 ||
	not_ok "--timecode: $(cat "$T/out")"
check_eq "random --timecode sets every clip's, drop frame too (BWF: 107892 frames of 1601.6 samples)" \
	"01:00:00;00 172799827" \
	"$(probe "$T/tc/clip0001.mp4" | sed -n 1p | cut -d' ' -f4) $(ffprobe -v error -show_entries format_tags=time_reference -of csv=p=0 "$T/tc/clip0001.A1.wav")"

# Progress on a terminal: on a pty (script) each file's encode is shown
# up to 100 %; in a log (stderr a file, as --timecode's above) nothing.
# Regression: --codec printed nothing while ffmpeg ran.
script -qec "'$GEN' --clips 1 --clip-seconds 0.2 --timelines 1 --events 1 \
	--min-seconds 0.2 --max-seconds 0.2 --codec h264 '$T/pty'" /dev/null \
	>"$T/pty.out" 2>&1 || not_ok "--codec on a pty: $(cat "$T/pty.out")"
check "--codec on a terminal shows its progress" \
	grep -q "timelinefs-gen: writing clip0001.mov (h264): 100 %" "$T/pty.out"
check_none "and a log holds none" "$(grep ' %' "$T/out")"
check "one clip and one timeline are said so (not '1 clips', '1 timelines')" \
	grep -q "wrote 1 clip (1 file, .*) and 1 timeline to" "$T/pty.out"

# bad PATTERN ARGS...: exit 2 (usage) or 1, PATTERN in the message, no
# file written
bad() {
	pat=$1
	shift
	rm -rf "$T/bad"
	if "$GEN" "$@" "$T/bad" >"$T/out" 2>&1; then
		not_ok "$*: accepted"
	elif ! grep -q -- "$pat" "$T/out"; then
		not_ok "$*: message '$(cat "$T/out")' lacks '$pat'"
	elif [ -n "$(ls -A "$T/bad" 2>/dev/null | grep -v '^timelines$')" ] &&
		[ -n "$(ls -A "$T/bad" | grep '\.mov\|\.mxf\|\.tmp')" ]; then
		not_ok "$*: left $(ls -A "$T/bad")"
	else
		ok "refused: $*"
	fi
}
F="--for $EDL --picture 2vuy:320x240"
# shellcheck disable=SC2086
{
bad "invalid --codec 'vp9': expected prores, dnxhd, h264 or uncompressed" $F --codec vp9
bad "invalid --container 'avi'" $F --codec h264 --container avi
bad "prores cannot go in --container mxf" $F --codec prores --container mxf
bad "prores cannot go in --container opatom" $F --codec prores --container opatom
bad "uncompressed cannot go in --container mxf" $F --codec uncompressed --container mxf
bad "dnxhd cannot go in --container mp4" $F --codec dnxhd --container mp4
bad "are for --codec" $F --container mov
bad "are for --codec" $F --profile hq
bad "unknown --profile 'xq' for prores" $F --codec prores --profile xq
bad "--profile is for prores and dnxhd, not h264" $F --codec h264 --profile hq
bad "not with --video-rate" --for "$EDL" --video-rate 18M --codec h264
bad "needs pictures" --clips 1 --format prores-hq-1080p25 --codec prores
bad "invalid --timecode" $F --codec h264 --timecode 1:00
bad "--timecode is for random timelines" $F --codec h264 --timecode 01:00:00:00
bad "needs an even picture size" --for "$EDL" --picture 2vuy:318x241 --codec h264
# an encoder that stops: told, the run stops, no temporary file
TLFS_FFMPEG=false bad "ffmpeg failed writing shot_a.mov (exit status 1)" $F --codec h264
TLFS_FFMPEG=$T/no-ffmpeg bad "needs the ffmpeg program, not found: $T/no-ffmpeg" $F --codec h264
}
check_none "no temporary file left by the failed runs" \
	"$(find "$T" -name '.*.tmp')"

# an ambiguous name is refused before writing: a raw file of the clip
mkdir -p "$T/amb"
cp "$T/raw/shot_c.V.raw" "$T/amb/"
# shellcheck disable=SC2086
"$GEN" $F --codec h264 "$T/amb" >"$T/out" 2>&1 || true
check "a raw CLIP.V.raw beside CLIP.mov is ambiguous" \
	grep -q "shot_c.V.raw would make clip shot_c track V ambiguous with shot_c.mov" "$T/out"
finish
