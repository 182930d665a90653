#!/bin/sh
# SPDX-License-Identifier: MIT
# Mounted: the names in a timelines folder (issue 17, defects 2 and 3).
#
# Defect 2: "REEL1.EDL" (as Avid exports it) was accepted by
# timelinefs-gen --for, which said "mount them", and then the mount said
# "no timeline (*.tl, *.edl, *.otio) in this folder": the listing compared
# extensions in lower case only.  Expected: every extension in any case
# (REEL1.EDL, a.TL, b.Otio), shown without it (/REEL1), its sidecar
# REEL1.EDL.fps read; a.edl beside a.EDL refused with both named.
#
# Defect 3: a FIFO named x.tl, or x.edl.fps beside x.edl, hung the mount
# at start (the file was opened blocking, waiting for a writer), and
# --for / --dump-tl with it.  Expected: skipped with a note naming it, the
# mount up within seconds.  A FIFO among the media files, beside a clip's
# file or as its only file, does not block either.
. "$(dirname "$0")/lib.sh"

FIX=$TOP/tests/fixtures
# every run of timelinefs-gen is bounded: the old hang is a failure here
G="timeout 20 $GEN"

mkdir -p "$T/in"
cp "$FIX/edl/channels.edl" "$T/in/REEL1.EDL"
echo 25 >"$T/in/REEL1.EDL.fps"
printf 'fps 25\ntrack V 100000\nevent V clipa 0 10\n' >"$T/in/a.TL"
cp "$FIX/otio/clip2.otio" "$T/in/b.Otio"
cp "$FIX/edl/speed.edl" "$T/in/x.edl"
M=$T/media
if $G --for "$T/in/REEL1.EDL" --for "$T/in/a.TL" --for "$T/in/b.Otio" \
	--for "$T/in/x.edl" "$M" >"$T/gen.log" 2>&1; then
	ok "--for takes REEL1.EDL, a.TL and b.Otio"
else
	cat "$T/gen.log"
	not_ok "--for takes REEL1.EDL, a.TL and b.Otio"
fi
check_eq "REEL1.EDL.fps is copied beside it" 25 \
	"$(cat "$M/timelines/REEL1.EDL.fps" 2>/dev/null)"

# The resolved edits, as the mount will play them.
for f in REEL1.EDL a.TL b.Otio x.edl; do
	n=${f%.*}
	if ! $G --dump-tl "$M/timelines/$f" >"$T/$n.tl" 2>"$T/dump-$n.err"; then
		cat "$T/dump-$n.err"
		not_ok "--dump-tl $f"
	fi
done
check "--dump-tl reads REEL1.EDL at its sidecar's rate" \
	grep -qx 'fps 25/1' "$T/REEL1.tl"

if mount_fs "$M" "$T/mnt" -o pace=off,backing=buffered,db="$T/t.db"; then
	check_eq "the mount lists every case, without the extension" \
		"REEL1 a b ingest x" "$(LC_ALL=C ls "$T/mnt" | tr '\n' ' ' | sed 's/ $//')"
	for n in REEL1 a b x; do
		want=$(python3 "$TOP/tests/tools/tlexpect.py" sha256 "$T/$n.tl" "$M")
		got=$(dd if="$T/mnt/$n" bs=1M status=none | sha256sum | cut -d' ' -f1)
		check_eq "bytes of /$n" "$want" "$got"
	done
	umount_fs "$T/mnt"
else
	not_ok "the mount starts"
fi

# What the mount must skip, in the same folder: x.tl would be /x too,
# but a skipped file takes no name; x.edl plays at the default rate
# without its FIFO sidecar, as it did above.
mkfifo "$M/timelines/x.tl" "$M/timelines/x.edl.fps" "$M/timelines/y.OTIO"
mkdir "$M/timelines/dir.tl"
# a FIFO among the media, named like a file of clip clipa track V
mkfifo "$M/clipa.V.fifo"
check "--dump-tl x.edl names the FIFO sidecar it skips" sh -c "
	$G --dump-tl '$M/timelines/x.edl' >'$T/x2.tl' 2>'$T/dump-x.err' &&
	grep -q 'x.edl.fps: skipped: a FIFO, not a regular file' '$T/dump-x.err' &&
	cmp -s '$T/x.tl' '$T/x2.tl'"
start=$(date +%s)
if mount_fs "$M" "$T/mnt" -o pace=off,backing=buffered,db="$T/t.db"; then
	ok "with FIFOs in the folder the mount starts"
	check "within 5 s" [ $(($(date +%s) - start)) -le 5 ]
	check_eq "and lists the same" \
		"REEL1 a b ingest x" "$(LC_ALL=C ls "$T/mnt" | tr '\n' ' ' | sed 's/ $//')"
	want=$(python3 "$TOP/tests/tools/tlexpect.py" sha256 "$T/x.tl" "$M")
	got=$(dd if="$T/mnt/x" bs=1M status=none | sha256sum | cut -d' ' -f1)
	check_eq "bytes of /x" "$want" "$got"
	for f in x.tl x.edl.fps y.OTIO; do
		check "the mount names the skipped $f" grep -q \
			"note: $M/timelines/$f: skipped: a FIFO, not a regular file" \
			"$T/daemon.log"
	done
	check "the mount names the skipped dir.tl" grep -q \
		"note: $M/timelines/dir.tl: skipped: a directory" "$T/daemon.log"
	umount_fs "$T/mnt"
else
	not_ok "with FIFOs in the folder the mount starts"
fi

# --for and --dump-tl given a FIFO: refused at once, named.
check "--dump-tl of a FIFO is refused, naming it" sh -c "
	! $G --dump-tl '$M/timelines/x.tl' >/dev/null 2>'$T/f.err' &&
	grep -q 'x.tl: cannot read timeline: a FIFO, not a regular file' '$T/f.err'"
check "--for of a FIFO is refused, nothing written" sh -c "
	! $G --for '$M/timelines/y.OTIO' '$T/m2' >/dev/null 2>'$T/f.err' &&
	grep -q 'y.OTIO: cannot read timeline: a FIFO' '$T/f.err' &&
	[ ! -e '$T/m2' ]"

# A FIFO as a clip's only media file: the mount refuses at once, naming it.
mkdir -p "$T/m3/timelines"
printf 'fps 25\ntrack V 100000\nevent V pipe 0 10\n' >"$T/m3/timelines/p.tl"
mkfifo "$T/m3/pipe.V.raw"
mkdir -p "$T/mnt3"
MOUNTS="$MOUNTS $T/mnt3"
start=$(date +%s)
timeout 20 "$BIN" -f -o db="$T/t3.db" "$T/m3" "$T/mnt3" >"$T/m3.log" 2>&1 &&
	rc=0 || rc=$?
check "a FIFO clip file: the mount refuses within 5 s" \
	[ "$rc" -ne 0 -a "$rc" -ne 124 -a $(($(date +%s) - start)) -le 5 ]
check "a FIFO clip file: named" grep -q "pipe.V.raw is not a regular file" \
	"$T/m3.log"

# Two files, one name: a.edl and a.EDL (or a.tl and a.edl) would both be
# /a: the mount refuses, naming both, as it always did for a.tl + a.edl.
mkdir -p "$T/m4/timelines"
cp "$M/timelines/x.edl" "$T/m4/timelines/a.edl"
cp "$M/timelines/x.edl" "$T/m4/timelines/a.EDL"
cp "$M"/*.raw "$M"/*.wav "$T/m4/" 2>/dev/null || true
mkdir -p "$T/mnt4"
MOUNTS="$MOUNTS $T/mnt4"
timeout 20 "$BIN" -f -o db="$T/t4.db" "$T/m4" "$T/mnt4" >"$T/m4.log" 2>&1 &&
	rc=0 || rc=$?
check "a.edl and a.EDL: the mount refuses" [ "$rc" -ne 0 -a "$rc" -ne 124 ]
check "a.edl and a.EDL: both named" grep -q \
	"timelines/a.edl: same name as $T/m4/timelines/a.EDL: both would be /a" \
	"$T/m4.log"
# and --for refuses to add one that would collide with one already there
rm "$T/m4/timelines/a.edl"
cp "$T/in/x.edl" "$T/in/a.edl"
check "--for a.edl beside timelines/a.EDL: refused, both named" sh -c "
	! $G --for '$T/in/a.edl' '$T/m4' >/dev/null 2>'$T/f.err' &&
	grep -q 'timelines/a.EDL: same name as $T/in/a.edl' '$T/f.err' &&
	grep -q 'nothing written' '$T/f.err' && [ ! -e '$T/m4/timelines/a.edl' ]"

# --for writes the sidecar as NAME.fps: a stale one of another spelling
# there would be a second sidecar (the mount refuses two), so it goes; a
# .TL, like a .tl, declares its rate and gets no --fps sidecar.
mkdir -p "$T/m5/timelines"
echo 30 >"$T/m5/timelines/REEL1.EDL.FPS"
check "--for replaces a stale REEL1.EDL.FPS by REEL1.EDL.fps" sh -c "
	$G --fps 25 --for '$T/in/REEL1.EDL' --for '$T/in/a.TL' '$T/m5' \
		>'$T/m5.log' 2>&1 &&
	grep -q 'removed $T/m5/timelines/REEL1.EDL.FPS' '$T/m5.log' &&
	[ ! -e '$T/m5/timelines/REEL1.EDL.FPS' ] &&
	[ \"\$(cat '$T/m5/timelines/REEL1.EDL.fps')\" = 25 ]"
check "--fps writes no sidecar for a.TL" [ ! -e "$T/m5/timelines/a.TL.fps" ]

finish
