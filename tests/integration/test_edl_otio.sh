#!/bin/sh
# SPDX-License-Identifier: MIT
# Mounted: EDL and OTIO timelines (tests/fixtures and, when present, the
# shared samples) get their media from timelinefs-gen --for, mount, and read
# back byte for byte as tests/tools/tlexpect.py computes them from the
# resolved edit (timelinefs-gen --dump-tl, .tl text): an independent check
# of the read path; access rows per track equal tlexpect's slice counts.
# TLFS_SHARED names the shared folder (default: ../shared of the repo).
. "$(dirname "$0")/lib.sh"

SHARED=${TLFS_SHARED:-$TOP/../shared}
SAMPLES=$SHARED/samples
FIX=$TOP/tests/fixtures

# expect_all DIR MEDIA NAME...: "NAME SIZE SHA256 TRACK=ROWS..." per
# timeline from DIR/NAME.tl and the media in MEDIA (clip names with %XX
# read as tlexpect reads them), through tlexpect.py's own functions in one
# process (a python start costs 0.3-0.5 s on slow hosts).
expect_all() {
	python3 - "$TOP/tests/tools" "$@" <<'PY'
import hashlib, sys
sys.path.insert(0, sys.argv[1])
import tlexpect
d, m = sys.argv[2:4]
for n in sys.argv[4:]:
    tl = tlexpect.parse_tl("%s/%s.tl" % (d, n))
    media = tlexpect.Media(tl, m)
    h = hashlib.sha256()
    for c in tlexpect.chunks(tl, media):
        h.update(c)
    media.close()
    rows = sorted("%s=%d" % (t, k) for t, k in tlexpect.count_slices(tl) if k)
    print(n, tl.size(), h.hexdigest(), " ".join(rows))
PY
}

# play_set LABEL "RATE OPTIONS": --for every timeline of $TLS into one
# media folder, mount it, compare every timeline, then its access rows.
play_set() {
	label=$1
	rates=$2
	dir=$T/$label
	M=$dir/media
	mkdir -p "$dir"
	set --
	count=0
	for f in $TLS; do
		set -- "$@" --for "$f"
		count=$((count + 1))
	done
	# shellcheck disable=SC2086
	if ! "$GEN" $rates "$@" "$M" >"$dir/gen.log" 2>&1; then
		cat "$dir/gen.log"
		not_ok "$label: timelinefs-gen --for"
		return
	fi
	ok "$label: timelinefs-gen --for writes the media of $count timelines"
	opts=pace=off,backing=buffered,db=$dir/t.db
	mopt=$(sed -n 's/^mount them: timelinefs -o \([^ ]*\) .*/\1/p' "$dir/gen.log")
	[ -z "$mopt" ] || opts=$opts,$mopt
	mount_fs "$M" "$dir/mnt" -o "$opts" || { not_ok "$label: mount"; return; }
	names=
	for f in $TLS; do
		b=$(basename "$f")
		names="$names ${b%.*}"
		# shellcheck disable=SC2086
		"$GEN" $rates --dump-tl "$M/timelines/$b" >"$dir/${b%.*}.tl"
	done
	# shellcheck disable=SC2086
	expect_all "$dir" "$M" $names >"$dir/expect.txt" || not_ok "$label: tlexpect"
	while read -r n size sha rows; do
		check_eq "$label: size of $n" "$size" "$(stat -c %s "$dir/mnt/$n")"
		got=$(dd if="$dir/mnt/$n" bs=1M status=none | sha256sum | cut -d' ' -f1)
		check_eq "$label: bytes of $n" "$sha" "$got"
	done <"$dir/expect.txt"
	umount_fs "$dir/mnt"
	DB=$dir/t.db
	q "select t.name, a.track || '=' || count(*) from access a
		join stream s on s.id = a.stream_id
		join timeline t on t.id = s.timeline_id
		group by t.name, a.track" >"$dir/rows.txt"
	while read -r n size sha rows; do
		got=$(sed -n "s/^$n|//p" "$dir/rows.txt" | LC_ALL=C sort | tr '\n' ' ')
		check_eq "$label: access rows per track of $n" "$rows" "${got% }"
	done <"$dir/expect.txt"
}

# At the default rates: the fixtures (each a few MB).
TLS=
for f in "$FIX"/edl/*.edl "$FIX"/otio/*.otio; do
	TLS="$TLS $f"
done
# a copy of a fixture with a NAME.edl.fps sidecar, which must travel along
mkdir -p "$T/in"
cp "$FIX/edl/channels.edl" "$T/in/chan25.edl"
echo 25 >"$T/in/chan25.edl.fps"
TLS="$TLS $T/in/chan25.edl"
play_set fixtures ""
check_eq "the sidecar is copied beside the timeline" 25 \
	"$(cat "$T/fixtures/media/timelines/chan25.edl.fps" 2>/dev/null)"
check_eq "the sidecar's rate is the one used" "fps 25/1" \
	"$(grep '^fps' "$T/fixtures/chan25.tl")"

# The shared samples, at low rates: their sources run to hours of
# timecode, and what is checked here does not depend on the rate.
if [ -d "$SAMPLES" ]; then
	TLS=
	for f in "$SAMPLES"/*.edl "$SAMPLES"/*.otio; do
		[ -f "$f" ] || continue
		case $f in *dissolve_test_fail*) continue ;; esac
		TLS="$TLS $f"
	done
	play_set samples "--video-rate 100000 --audio-rate 4800"
	check "a sample that does not load writes nothing" sh -c "
		! '$GEN' --for '$SAMPLES/otio-cmx3600-adapter__sample_data__dissolve_test_fail.edl' \
			'$T/fail' >'$T/fail.log' 2>&1 && [ ! -e '$T/fail' ] &&
		grep -q 'nothing written' '$T/fail.log'"
else
	skip_sample "no shared samples in $SAMPLES (set TLFS_SHARED)"
fi

# --dump-tl of a dump is the dump: the same text below its first comment
# line (which names the file).  Regression: a clip "shot one" dumped as
# shot%20one was read as the name "shot%20one" and dumped as shot%2520one;
# names (blanks, '#', '%') and special (a '%' in a file name) have them.
M=$T/fixtures/media
for n in speed transitions transition nested names special; do
	f=$T/fixtures/$n.tl
	"$GEN" --dump-tl "$f" >"$T/re-$n.tl" 2>"$T/re.err" || cat "$T/re.err"
	check "--dump-tl of the dump of $n is the dump" \
		sh -c "[ \"\$(sed 1d '$f')\" = \"\$(sed 1d '$T/re-$n.tl')\" ]"
done
check "names: the dump spells the clips with %XX" \
	grep -q '^event V take%20%232 ' "$T/fixtures/names.tl"
check "names: and they are the files --for wrote" \
	test -f "$M/take #2.V.raw" -a -f "$M/%41 literal.A1.wav"

# a sidecar with blanks and a BOM around its rate
mkdir -p "$T/side"
cp "$FIX/edl/channels.edl" "$T/side/chan.edl"
printf '\357\273\277 23.976 \r\n' >"$T/side/chan.edl.fps"
check_eq "a sidecar ' 23.976' sets the rate" "fps 24000/1001" \
	"$("$GEN" --dump-tl "$T/side/chan.edl" 2>&1 | grep '^fps')"

# Regression: --for into a DIR that already has timelines shrank the
# clips they share.  one.edl (60 frames of A001) then two.edl (10 frames)
# rewrote A001.V.raw to 333666 bytes and the mount refused one.edl ("is
# too short: needs 2002000 bytes of essence, has 333666").  Now the files
# are long enough for every timeline in DIR/timelines, never shorter than
# they were, grown with their first bytes unchanged; both play.
I=$T/incr
mkdir -p "$I"
echo '001  A001 V C 01:00:00:00 01:00:02:00 01:00:00:00 01:00:02:00' >"$I/one.edl"
echo '001  A001 V C 01:00:00:00 01:00:00:10 01:00:00:00 01:00:00:10' >"$I/two.edl"
echo '001  A001 V C 01:00:00:00 01:00:04:00 01:00:00:00 01:00:04:00' >"$I/three.edl"
"$GEN" --video-rate 1M --for "$I/one.edl" "$I/m" >"$I/gen.log" 2>&1 || cat "$I/gen.log"
"$GEN" --video-rate 1M --for "$I/two.edl" "$I/m" >"$I/gen.log" 2>&1 || cat "$I/gen.log"
check_eq "a second --for does not shrink a shared clip" 2002000 \
	"$(stat -c %s "$I/m/A001.V.raw")"
check "and says the timeline already there was counted" \
	grep -q 'timelines/one.edl, already there, reads 1 of these files' "$I/gen.log"
head -c 2002000 "$I/m/A001.V.raw" >"$I/before"
"$GEN" --video-rate 1M --for "$I/three.edl" "$I/m" >"$I/gen.log" 2>&1 || cat "$I/gen.log"
check_eq "a longer one grows it" 4004000 "$(stat -c %s "$I/m/A001.V.raw")"
check "grown, it begins with the bytes it had" \
	cmp -s -n 2002000 "$I/before" "$I/m/A001.V.raw"
rm "$I/m/timelines/one.edl" "$I/m/timelines/three.edl"
"$GEN" --video-rate 1M --for "$I/two.edl" "$I/m" >"$I/gen.log" 2>&1 || cat "$I/gen.log"
check_eq "with no timeline needing it, a file is still not shortened" \
	4004000 "$(stat -c %s "$I/m/A001.V.raw")"
"$GEN" --video-rate 1M --for "$I/one.edl" --for "$I/three.edl" "$I/m" >/dev/null
if mount_fs "$I/m" "$I/mnt" -o pace=off,backing=buffered,db="$I/t.db",video_rate=1M; then
	for n in one two three; do
		"$GEN" --video-rate 1M --dump-tl "$I/m/timelines/$n.edl" >"$I/$n.tl"
		check_eq "incremental: bytes of $n" \
			"$($EXPECT sha256 "$I/$n.tl" "$I/m")" \
			"$(sha256sum <"$I/mnt/$n" | cut -d' ' -f1)"
	done
	umount_fs "$I/mnt"
else
	not_ok "incremental: mount"
fi
# a WAVE file of another rate is told, not silently rewritten
echo '001  A001 A C 01:00:00:00 01:00:02:00 01:00:00:00 01:00:02:00' >"$I/a.edl"
echo '001  A001 A C 01:00:00:00 01:00:01:00 01:00:00:00 01:00:01:00' >"$I/b.edl"
"$GEN" --audio-rate 4800 --for "$I/a.edl" "$I/w" >/dev/null
check "a WAVE file of another rate is refused, nothing written" sh -c "
	! '$GEN' --for '$I/b.edl' '$I/w' 2>'$I/w.err' &&
	grep -qF '$I/w/A001.A1.wav is a WAVE file of 1600 Hz 24-bit mono, not the 48000 Hz 24-bit mono PCM these timelines need' '$I/w.err' &&
	grep -q 'nothing written' '$I/w.err' && [ ! -e '$I/w/timelines/b.edl' ]"

# --fps writes the rate as the copy's sidecar, so the mount loads alike
"$GEN" --fps 25 --for "$FIX/edl/channels.edl" "$T/fps" >"$T/fps.log"
check_eq "--fps is written as the sidecar" 25/1 \
	"$(cat "$T/fps/timelines/channels.edl.fps")"
check "and the timeline is reported at 25 fps" grep -q "at 25 fps" "$T/fps.log"

# a file that would make a clip ambiguous is refused before writing
mkdir -p "$T/amb"
: >"$T/amb/R1.V.mov"
check "a clip file that would be ambiguous is refused" sh -c "
	! '$GEN' --for '$FIX/edl/channels.edl' '$T/amb' 2>'$T/amb.log' &&
	grep -q 'R1.V.mov would make clip R1 track V ambiguous' '$T/amb.log' &&
	[ ! -e '$T/amb/R1.V.raw' ]"
check "--for with --clips is a usage error" sh -c "
	'$GEN' --clips 3 --for '$FIX/edl/channels.edl' '$T/u' 2>/dev/null
	[ \$? -eq 2 ]"
finish
