#!/bin/sh
# SPDX-License-Identifier: MIT
# timelinefs-gen and the mount resolve a timeline alike with every option
# that changes how it resolves (issue 17 defect 7).  Per option: --for with
# it writes the media, the mount takes the options gen's "mount them:" line
# names, and every byte read equals tlexpect.py's computation from
# --dump-tl with the same option; the --dump-tl text shows the option took
# effect.  And what the mount refuses after loading (a stream past the
# default stream_mem), --for refuses alike.  The options: fps (a sidecar), video_rate, audio_rate,
# edl_origin (min, zero, a drop-frame timecode, a ':' timecode under FCM:
# DROP FRAME) and strict.  Before: gen had no --edl-origin nor --strict,
# and the mount counted -o edl_origin= without drop frame (00:01:00;02 was
# frame 1802, not 1800: "source in is before the source origin").
# shellcheck source=tests/integration/lib.sh
. "$(dirname "$0")/lib.sh"

mkdir -p "$T/in"
# drop frame by the FCM line: 00:01:00:12 is frame 1800 + 10
cat >"$T/in/df.edl" <<'EDL'
TITLE: origin and drop frame
FCM: DROP FRAME
001  CAM1     B     C        00:01:00:12 00:01:00:22 00:00:00:00 00:00:00:10
* FROM CLIP NAME: cam1.mov
002  CAM2     V     C        00:01:30:00 00:01:30:05 00:00:00:10 00:00:00:15
EDL
# 10 frames at 25 fps, 15 at 29.97 (the record duration wins)
cat >"$T/in/nd.edl" <<'EDL'
TITLE: a rate from outside
FCM: NON-DROP FRAME
001  CAM1     V     C        00:00:10:20 00:00:11:05 00:00:00:00 00:00:00:10
* FROM CLIP NAME: cam3.mov
EDL
# a line -o strict refuses
{ cat "$T/in/df.edl"; echo "XYZ a line nobody knows"; } >"$T/in/st.edl"

# expect DIR NAME: "SIZE SHA256" of DIR/NAME.tl over DIR/media
expect() {
	python3 - "$TOP/tests/tools" "$1" "$2" <<'PY'
import hashlib, sys
sys.path.insert(0, sys.argv[1])
import tlexpect
d, n = sys.argv[2:4]
tl = tlexpect.parse_tl("%s/%s.tl" % (d, n))
media = tlexpect.Media(tl, d + "/media")
h = hashlib.sha256()
for c in tlexpect.chunks(tl, media):
    h.update(c)
media.close()
print(tl.size(), h.hexdigest())
PY
}

# agree LABEL EDL GEN_OPTIONS...: --for, mount as gen says, compare
agree() {
	label=$1
	edl=$2
	shift 2
	dir=$T/$label
	mkdir -p "$dir"
	n=$(basename "$edl" .edl)
	if ! "$GEN" "$@" --for "$edl" "$dir/media" >"$dir/gen.log" 2>&1; then
		cat "$dir/gen.log"
		not_ok "$label: timelinefs-gen $* --for"
		return
	fi
	"$GEN" "$@" --dump-tl "$dir/media/timelines/$n.edl" >"$dir/$n.tl" ||
		{ not_ok "$label: --dump-tl"; return; }
	# the -o of "mount them: timelinefs [-o OPTS] DIR MOUNTPOINT", unquoted
	mopt=$(sed -n "s/^mount them: timelinefs -o '\{0,1\}\([^ ']*\)'\{0,1\} .*/\1/p" \
		"$dir/gen.log")
	echo "# $label: gen $*; mount -o ${mopt:-(none)}"
	opts=pace=off,backing=buffered,db=$dir/t.db${mopt:+,$mopt}
	mount_fs "$dir/media" "$dir/mnt" -o "$opts" ||
		{ not_ok "$label: the mount refuses what gen wrote"; return; }
	want=$(expect "$dir" "$n")
	check_eq "$label: size" "${want% *}" "$(stat -c %s "$dir/mnt/$n")"
	check_eq "$label: bytes" "${want#* }" \
		"$(dd if="$dir/mnt/$n" bs=1M status=none | sha256sum | cut -d' ' -f1)"
	umount_fs "$dir/mnt"
}

R="--video-rate 30K --audio-rate 4800"
# shellcheck disable=SC2086
agree base "$T/in/df.edl" $R
check "base: the first event reads cam1 from its frame 0 (origin min)" \
	grep -q '^event V cam1 0 10 @0' "$T/base/df.tl"
agree video "$T/in/df.edl" --video-rate 90K --audio-rate 4800
check "video_rate: the dump's V track is 90000 B/s" \
	grep -q '^track V 90000' "$T/video/df.tl"
agree audio "$T/in/df.edl" --video-rate 30K --audio-rate 9600
check "audio_rate: the dump's A1 track is 9600 B/s" \
	grep -q '^track A1 9600' "$T/audio/df.tl"
# shellcheck disable=SC2086
agree fps "$T/in/nd.edl" $R --fps 25
check "fps: the dump is at 25 fps, and gen wrote the sidecar" \
	sh -c "grep -q '^fps 25/1' '$T/fps/nd.tl' &&
		grep -qx 25/1 '$T/fps/media/timelines/nd.edl.fps'"
# shellcheck disable=SC2086
agree zero "$T/in/df.edl" $R --edl-origin zero
check "edl_origin=zero: cam1 from frame 1810 (00:01:00:12 drop frame)" \
	grep -q '^event V cam1 1810 10 @0' "$T/zero/df.tl"
# shellcheck disable=SC2086
agree tc_df "$T/in/df.edl" $R --edl-origin '00:01:00;02'
check "edl_origin=00:01:00;02: frame 1800, cam1 from 10, cam2 from 898" \
	sh -c "grep -q '^event V cam1 10 10 @0' '$T/tc_df/df.tl' &&
		grep -q '^event V CAM2 898 5 @10' '$T/tc_df/df.tl'"
check "edl_origin=00:01:00;02: gen's mount line quotes it" \
	grep -q "^mount them: timelinefs -o '.*edl_origin=00:01:00;02'" \
	"$T/tc_df/gen.log"
# shellcheck disable=SC2086
agree tc_fcm "$T/in/df.edl" $R --edl-origin 00:01:00:02
check "edl_origin=00:01:00:02 under FCM: DROP FRAME is drop frame too" \
	grep -q '^event V cam1 10 10 @0' "$T/tc_fcm/df.tl"

# The mount alone: origin 00:01:00;12 is cam1's first source frame (1810
# in drop frame), so it reads as origin min does.  Before, the mount
# counted it 1812 and refused: "source in is before the source origin".
head -4 "$T/in/df.edl" >"$T/in/one.edl"
# shellcheck disable=SC2086
agree one "$T/in/one.edl" $R
if mount_fs "$T/one/media" "$T/one/mnt" -o \
	"pace=off,db=$T/one/t.db,video_rate=30K,audio_rate=4800,edl_origin=00:01:00;12"; then
	check_eq "-o edl_origin=00:01:00;12 (drop frame): the bytes of origin min" \
		"$(expect "$T/one" one | cut -d' ' -f2)" \
		"$(dd if="$T/one/mnt/one" bs=1M status=none | sha256sum | cut -d' ' -f1)"
	umount_fs "$T/one/mnt"
else
	not_ok "-o edl_origin=00:01:00;12 (drop frame): the mount refused it"
fi

# strict: both take the EDL without it, both refuse it with it, alike
# shellcheck disable=SC2086
agree lenient "$T/in/st.edl" $R
rc=0
# shellcheck disable=SC2086
"$GEN" $R --strict --for "$T/in/st.edl" "$T/strict/media" \
	>"$T/gstrict.log" 2>&1 || rc=$?
check_eq "strict: gen --strict --for refuses the unknown line" 1 "$rc"
# the lenient media, a strict mount
rc=0
"$BIN" -f -o "db=$T/s.db,video_rate=30K,audio_rate=4800,strict" \
	"$T/lenient/media" "$T/lenient/mnt" >"$T/mstrict.log" 2>&1 || rc=$?
is_mounted "$T/lenient/mnt" && fusermount3 -u -z "$T/lenient/mnt"
check_eq "strict: the mount -o strict refuses it too" 1 "$rc"
g=$(grep -o 'st.edl:6: .*' "$T/gstrict.log" | head -1)
m=$(grep -o 'st.edl:6: .*' "$T/mstrict.log" | head -1)
check "strict: with the same message ($g)" test -n "$g" -a "$g" = "$m"

# The memory check: one frame of 40 MB (1 GB/s at 25 fps) makes a ring
# of 10 such frames, past the default stream_mem (256 MiB): the mount
# refuses it, and --for, whose mount line sets no stream_mem, refuses it
# too, in the mount's words.  Before: gen wrote it, exit 0, "mount them".
cat >"$T/in/big.edl" <<'EDL'
TITLE: one big frame
FCM: NON-DROP FRAME
001  CAM1     V     C        00:00:10:00 00:00:10:01 00:00:00:00 00:00:00:01
EDL
mkdir -p "$T/big/mnt"
rc=0
"$GEN" --video-rate 1G --audio-rate 4800 --fps 25 --for "$T/in/big.edl" \
	"$T/big/media" >"$T/gbig.log" 2>&1 || rc=$?
check_eq "stream_mem: gen --for refuses a stream past it" 1 "$rc"
check_none "stream_mem: and gives no mount line" \
	"$(grep '^mount them' "$T/gbig.log")"
rc=0
"$BIN" -f -o "db=$T/big.db,video_rate=1G,audio_rate=4800" "$T/big/media" \
	"$T/big/mnt" >"$T/mbig.log" 2>&1 || rc=$?
is_mounted "$T/big/mnt" && fusermount3 -u -z "$T/big/mnt"
check_eq "stream_mem: the mount refuses it too" 1 "$rc"
g=$(grep -o 'big.edl: each stream .*' "$T/gbig.log" | head -1)
m=$(grep -o 'big.edl: each stream .*' "$T/mbig.log" | head -1)
check "stream_mem: with the same message ($g)" test -n "$g" -a "$g" = "$m"
rm -rf "$T/big"

# one reading of the value: the same refusal, in the same words
rc=0
"$GEN" --edl-origin '00:60:00;00' --dump-tl "$T/in/df.edl" >/dev/null \
	2>"$T/gorigin.log" || rc=$?
check_eq "a bad --edl-origin is a usage error" 2 "$rc"
rc=0
"$BIN" -f -o "db=$T/s.db,edl_origin=00:60:00;00" "$T/base/media" \
	"$T/base/mnt" >"$T/morigin.log" 2>&1 || rc=$?
is_mounted "$T/base/mnt" && fusermount3 -u -z "$T/base/mnt"
check_eq "a bad -o edl_origin= is refused" 1 "$rc"
check "both say minutes and seconds must be below 60" sh -c "
	grep -q \"invalid --edl-origin '00:60:00;00': minutes and seconds must be below 60\" '$T/gorigin.log' &&
	grep -q \"bad edl_origin '00:60:00;00': minutes and seconds must be below 60\" '$T/morigin.log'"
check "--strict without --for or --dump-tl is a usage error" sh -c "
	'$GEN' --strict '$T/none' 2>/dev/null; [ \$? -eq 2 ] && [ ! -e '$T/none' ]"
finish
