#!/bin/sh
# SPDX-License-Identifier: MIT
# Image sequence clips through the mount (issue 22), on tiny images
# (timelinefs-gen --size 64x48) so that it stays quick:
# - byte-exact: the timelines timelinefs-gen writes for DPX 10 and 16-bit,
#   TIFF 16-bit, OpenEXR half (uncompressed, ZIP and OpenEXRCore's PIZ)
#   and frametest's headerless frames, and its clips.otio
#   (ImageSequenceReference), read through the mount equal tlexpect.py's
#   bytes, which it computes from each image's own header (not with our
#   C); --dump-tl writes seq lines;
# - the access rows of every frame: one open, the header reads (the
#   first at 0, as many as tlexpect's model of a one-window reader
#   makes), one read per run of pixel data at the extents tlexpect
#   finds, one close, in that order, each with the image's file number;
#   the names by OTIO's formula (padding 4 across 9999 -> 10000, padding 7
#   with step 2, negative numbers, no padding) are proved by the bytes:
#   every name is a hard link to an image of its own, so another name
#   would read other bytes (or none);
# - an EDL naming sequences as editors write them ([START-END], %07d);
# - missing images: hold plays the last image again, black zeros with no
#   read, error fails the reader with EIO; each open's ENOENT recorded;
# - a stall injected on the open of one frame (file=GLOB:op=open): that
#   frame is late, none before it, and the frames the player counts late
#   are exactly those whose last operation was done after their due time;
#   with frames_in_flight=4 the next frame's open does not wait for it.
# Under 30 s alone (pace=off where timing is not the point).
. "$(dirname "$0")/lib.sh"

need_tools python3
TLEXPECT="python3 $TOP/tests/tools/tlexpect.py"
M=$T/media
mkdir -p "$M/timelines"
gen() {
	"$GEN" --size 64x48 --clip-seconds 0.25 --clips 2 "$@" >/dev/null ||
		{ not_ok "timelinefs-gen $*"; finish; }
}

# the generator's own timelines, straight in the media folder: clips.otio
# names MEDIA_DIR/clip0001/...
gen --format dpx10-2k --timelines 2 --events 3 "$M"
# each other format in a folder of its own; its timeline01.tl's patterns
# get the folder in front
FORMATS="dpx16-hd tiff16-hd exr-hd exr-zip-hd exr-piz-hd exr-rgba-hd frametest-hd"
for f in $FORMATS; do
	gen --format "$f" --timelines 1 --events 3 --seed 7 "$M/$f"
	sed "s|^seq \([^ ]*\) |seq \1 $f/|" "$M/$f/timelines/timeline01.tl" \
		>"$M/timelines/$f.tl"
	rm -r "$M/$f/timelines"
done
# what clips.otio plays, as .tl: both clips whole
{
	echo "fps 24/1"
	echo "track V 1"
	for c in clip0001 clip0002; do
		echo "seq $c $c/$c.%07d.dpx first=86400"
		echo "event V $c 0 6"
	done
} >"$T/clips.tl"

# OTIO's names, each a hard link to an image of its own (48 of them)
gen --format dpx10-hd --clip-seconds 1 --timelines 1 --events 1 "$T/pool"
ls "$T"/pool/clip000*/*.dpx >"$T/pool.list"
n=0
img() { # DIR NAME: the next image of the pool as M/DIR/NAME
	n=$((n + 1))
	mkdir -p "$M/$1"
	ln "$(sed -n "${n}p" "$T/pool.list")" "$M/$1/$2"
}
for i in 9997 9998 9999 10000 10001; do img p4 "img.$i.dpx"; done
for i in 0086400 0086402 0086404 0086406 0086408; do img p7 "A001C003.$i.dpx"; done
for i in -0002 -0001 0000 0001; do img neg "n.$i.dpx"; done
for i in 8 9 10 11; do img np "f$i.dpx"; done
cat >"$M/timelines/formula.tl" <<'EOF'
fps 24
track V 1
seq p4 p4/img.%04d.dpx first=9997
seq p7 p7/A001C003.%07d.dpx first=86400 step=2
seq neg neg/n.%04d.dpx first=-2
seq np np/f%d.dpx first=8
event V p4 0 5
event V p7 1 3
event V neg 0 4
event V np 1 3
EOF
# missing image 3 of 1..6 under each policy
for p in hold black error; do
	for i in 1 2 3 4 5 6; do img "m$p" "m.$i.dpx"; done
	rm "$M/m$p/m.3.dpx"
	printf 'fps 24\ntrack V 1\nseq m%s m%s/m.%%d.dpx first=1 missing=%s\nevent V m%s 0 6\n' \
		"$p" "$p" "$p" "$p" >"$M/timelines/miss_$p.tl"
done

TLS="timeline01 timeline02 $FORMATS formula miss_hold miss_black"
for n in $TLS miss_error; do
	$TLEXPECT seqframes "$M/timelines/$n.tl" "$M" >"$T/$n.frames" ||
		not_ok "tlexpect seqframes $n"
done
cp "$M/timelines/clips.otio" "$T/clips.otio"
$TLEXPECT seqframes "$T/clips.tl" "$M" >"$T/clips.frames"

# --dump-tl: the seq lines back, from .tl and from OTIO
check "--dump-tl timeline01.tl: its seq lines" sh -c \
	"'$GEN' --dump-tl '$M/timelines/timeline01.tl' '$M' >'$T/dump' &&
	 grep '^seq ' '$M/timelines/timeline01.tl' | while read -r l; do grep -qxF \"\$l\" '$T/dump' || exit 1; done"
check "--dump-tl clips.otio: seq clip0001 clip0001/clip0001.%07d.dpx first=86400" sh -c \
	"'$GEN' --dump-tl '$M/timelines/clips.otio' '$M' | grep -q '^seq clip0001 clip0001/clip0001.%07d.dpx first=86400'"

# ---------------------------------------------------------------- bytes
DB=$T/t.db
mount_fs "$M" "$T/mnt" -o db="$DB",pace=off
for n in $TLS clips; do
	want=$M/timelines/$n.tl
	[ "$n" = clips ] && want=$T/clips.tl
	$TLEXPECT bytes "$want" "$M" >"$T/$n.want" || not_ok "tlexpect bytes $n"
	check "$n: byte-exact through the mount ($(stat -c %s "$T/$n.want") bytes)" \
		cmp "$T/$n.want" "$T/mnt/$n"
done
rc=0
dd if="$T/mnt/miss_error" of="$T/err.out" bs=12288 status=none \
	2>"$T/err.err" || rc=$?
check "miss_error: the reader fails with EIO" sh -c \
	"[ $rc -ne 0 ] && grep -q 'Input/output error' '$T/err.err'"
$TLEXPECT bytes "$M/timelines/miss_error.tl" "$M" --length 24576 >"$T/err.want"
check "miss_error: what it got before is the images before it" sh -c \
	"[ \$(stat -c %s '$T/err.out') -le 24576 ] && cmp -s -n \$(stat -c %s '$T/err.out') '$T/err.want' '$T/err.out'"
check "formula.mov: DPX 10-bit RGB as R10k (test_seqmovie.sh plays it)" \
	test -f "$T/mnt/formula.mov"
check "no tiff16-hd.mov" test ! -e "$T/mnt/tiff16-hd.mov"
check_eq "said once at mount: no tiff16-hd.mov, no QuickTime mapping for little-endian TIFF" 1 \
	"$(grep -c 'no tiff16-hd.mov: .*tiff16-hd.tl: .*no QuickTime mapping: little-endian tiff' "$DAEMON_LOG")"
umount_fs "$T/mnt"

# ---------------------------------------------------------------- rows
# rows NAME: the access rows of timeline NAME's V track against
# tlexpect's frames; prints what differs, one line each
rows() {
	python3 - "$DB" "$1" "$T/$1.frames" "$M" "$TOP/tests/tools" <<'PY'
import os, sqlite3, sys
db, name, framesf, media = sys.argv[1:5]
sys.path.insert(0, sys.argv[5])
from tlexpect import header_reads
OPEN, HEADER, READ, CLOSE = 1, 2, 0, 3
con = sqlite3.connect(db)
sid = [r[0] for r in con.execute("select id from stream where file = ?",
                                 (name,))]
if len(sid) != 1:
    print("%s: %d streams" % (name, len(sid)))
    sys.exit()
rows = {}
for r in con.execute("select frame, op, image, file_offset, length, errno,"
                     " issued_ns, done_ns from access where stream_id = ?"
                     " and track = 'V' and coalesce(played, 1) = 1"
                     " order by frame, issued_ns, id", (sid[0],)):
    rows.setdefault(r[0], []).append(r[1:])
want = {}
for line in open(framesf):
    w = line.split()
    k, num, rel, policy, ext = int(w[0]), int(w[3]), w[4], w[5], w[6:]
    want[k] = (num, rel, policy, ext)
last = None      # the last image read: hold's
bad = []
for k in sorted(want):
    num, rel, policy, ext = want[k]
    got = rows.pop(k, [])
    ops = [r[0] for r in got]
    if ext == ["missing"]:
        if not got or got[0][:2] != (OPEN, num) or got[0][4] != 2:
            bad.append("frame %d: no open of %d with ENOENT: %s" %
                       (k, num, got))
            continue
        rest = got[1:]
        if policy == "black" and rest:
            bad.append("frame %d (black): rows after the open: %s" %
                       (k, rest))
        if policy == "hold" and (not rest or
                                 any(r[1] != last for r in rest) or
                                 READ not in [r[0] for r in rest]):
            bad.append("frame %d (hold): not the rows of image %s: %s" %
                       (k, last, rest))
        if policy == "error":
            if READ in [r[0] for r in rest]:
                bad.append("frame %d (error): a read: %s" % (k, rest))
            # the reader stopped at its EIO: what the player loaded
            # after it is not asked for
            rows = {}
            break
        continue
    ext = [(int(ext[i]), int(ext[i + 1])) for i in range(0, len(ext), 2)]
    nh = header_reads(os.path.join(media, rel))
    shape = [OPEN] + [HEADER] * nh + [READ] * len(ext) + [CLOSE]
    if ops != shape:
        bad.append("frame %d: ops %s, want open, %d header reads, %d "
                   "reads, close" % (k, ops, nh, len(ext)))
        continue
    if any(r[1] != num for r in got):
        bad.append("frame %d: images %s, want %d" %
                   (k, [r[1] for r in got], num))
    if nh and got[1][2] != 0:
        bad.append("frame %d: the first header read at %d" % (k, got[1][2]))
    reads = [(r[2], r[3]) for r in got if r[0] == READ]
    if reads != ext:
        bad.append("frame %d: reads %s, want %s" % (k, reads, ext))
    if any(r[4] for r in got):
        bad.append("frame %d: errno %s" % (k, [r[4] for r in got]))
    if any(got[i][6] > got[i + 1][5] for i in range(len(got) - 1)):
        bad.append("frame %d: an op issued before the one before was done" %
                   k)
    last = num
for k in sorted(rows):
    bad.append("frame %d: rows of no image: %s" % (k, rows[k]))
print("\n".join(bad[:5]))
PY
}
for n in $TLS clips miss_error; do
	check_none "$n: open, header, read per run, close; the file numbers" "$(rows "$n" 2>&1 || echo "(the check failed)")"
done
check_eq "the media table: each clip's pattern and codec" \
	"p4|p4/img.%04d.dpx|dpx
p7|p7/A001C003.%07d.dpx|dpx
neg|neg/n.%04d.dpx|dpx
np|np/f%d.dpx|dpx
clip0001|exr-zip-hd/clip0001/clip0001.%07d.exr|exr-zip
clip0001|exr-piz-hd/clip0001/clip0001.%07d.exr|exr-piz
clip0001|tiff16-hd/clip0001/clip0001.%07d.tif|tiff
clip0001|frametest-hd/clip0001/clip0001.%07d.raw|raw" \
	"$(python3 - "$DB" <<'PY'
import sqlite3, sys
con = sqlite3.connect(sys.argv[1])
for tl, clip in (("formula", "p4"), ("formula", "p7"), ("formula", "neg"),
                 ("formula", "np"), ("exr-zip-hd", "clip0001"),
                 ("exr-piz-hd", "clip0001"),
                 ("tiff16-hd", "clip0001"), ("frametest-hd", "clip0001")):
    for r in con.execute("select m.clip, m.file, m.codec from media m join "
                         "timeline t on t.id = m.timeline_id where t.name = ?"
                         " and m.clip = ? and m.track = 'V'", (tl, clip)):
        print("|".join(str(x) for x in r))
PY
)"
# schema 10's view of the operations: formula's 15 frames of DPX, each an
# open, one header read (4 KiB from 0 holds a DPX header), a read, a close
check_eq "op_summary: formula's operations, counted apart" \
	"read|15|184320
open|15|0
header|15|61440
close|15|0" \
	"$(python3 -c "
import sqlite3, sys
for r in sqlite3.connect(sys.argv[1]).execute(
        \"select op, accesses, bytes from op_summary where stream_id = \"
        \"(select id from stream where file = 'formula')\"):
    print('|'.join(map(str, r)))" "$DB" 2>&1)"
check "miss_error: a failed frame" test "$(python3 -c "import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute(\"select failed_frames from stream where file = 'miss_error'\").fetchone()[0])" "$DB")" -ge 1

# ---------------------------------------------------------------- EDL
# the forms editors write for sequences (docs/formats.md "From an EDL"):
# OTIO's cmx_3600 and Resolve's NAME.[START-END].EXT (source timecode =
# file number: 01:00:00:02 at 24 fps plays 86402) and a printf pattern,
# the folder the path's last; a mount of its own, at 24 fps
mkdir -p "$T/edl"
cat >"$T/edl/scans.edl" <<'EOF2'
TITLE: scans
FCM: NON-DROP FRAME

001  AX       V     C        01:00:00:02 01:00:00:05 00:00:00:00 00:00:00:03
* FROM CLIP NAME: /Volumes/scans/clip0001/clip0001.[0086400-0086405].dpx
002  AX       V     C        01:00:00:00 01:00:00:04 00:00:00:03 00:00:00:07
* SOURCE FILE: /Volumes/scans/clip0002/clip0002.%07d.dpx
EOF2
printf 'fps 24\ntrack V 1\nseq clip0001 clip0001/clip0001.%%07d.dpx first=86400\nseq clip0002 clip0002/clip0002.%%07d.dpx first=86400\nevent V clip0001 2 3\nevent V clip0002 0 4\n' \
	>"$T/scans.tl"
$TLEXPECT bytes "$T/scans.tl" "$M" >"$T/scans.want"
if mount_fs "$M" "$T/mnt" -o "db=$T/edl.db,pace=off,fps=24,timelines=$T/edl"; then
	check "EDL: [START-END] and %07d forms play files 86402-86404, 86400-86403" \
		cmp "$T/scans.want" "$T/mnt/scans"
	umount_fs "$T/mnt"
else
	not_ok "EDL: [START-END] and %07d forms: the mount refused them"
fi

# Where a sequence's folder is looked for: an EDL naming a sequence
# without a folder finds it in MEDIA_DIR/CLIP/, where timelinefs-gen
# writes it; an OTIO target_url_base naming by its full path a folder
# inside MEDIA_DIR is looked for there before its last component
# (deep/clip0001 holds clip0002's images under clip0001's names).
# Regression: both refused ("cannot open MEDIA/clip0001.0086402.dpx"),
# and the OTIO would play MEDIA/clip0001.
mkdir -p "$M/deep/clip0001" "$T/paths"
for i in 0 1 2 3; do
	ln "$M/clip0002/clip0002.008640$i.dpx" \
		"$M/deep/clip0001/clip0001.008640$i.dpx"
done
printf '001  AX V C 01:00:00:02 01:00:00:05 00:00:00:00 00:00:00:03\n* FROM CLIP NAME: clip0001.[0086400-0086405].dpx\n' \
	>"$T/paths/nofolder.edl"
cat >"$T/paths/deep.otio" <<EOF2
{"OTIO_SCHEMA": "Timeline.1", "name": "deep", "tracks": {
 "OTIO_SCHEMA": "Stack.1", "children": [{"OTIO_SCHEMA": "Track.1",
  "kind": "Video", "children": [{"OTIO_SCHEMA": "Clip.1", "name": "c",
   "source_range": {"OTIO_SCHEMA": "TimeRange.1",
    "start_time": {"OTIO_SCHEMA": "RationalTime.1", "rate": 24, "value": 0},
    "duration": {"OTIO_SCHEMA": "RationalTime.1", "rate": 24, "value": 4}},
   "media_reference": {"OTIO_SCHEMA": "ImageSequenceReference.1",
    "target_url_base": "file://$M/deep/clip0001/",
    "name_prefix": "clip0001.", "name_suffix": ".dpx",
    "start_frame": 86400, "frame_zero_padding": 7, "rate": 24,
    "available_range": {"OTIO_SCHEMA": "TimeRange.1",
     "start_time": {"OTIO_SCHEMA": "RationalTime.1", "rate": 24, "value": 0},
     "duration": {"OTIO_SCHEMA": "RationalTime.1", "rate": 24, "value": 4}}}}]}]}}
EOF2
printf 'fps 24\ntrack V 1\nseq clip0001 clip0001/clip0001.%%07d.dpx first=86400\nevent V clip0001 2 3\n' \
	>"$T/nofolder.tl"
printf 'fps 24\ntrack V 1\nseq clip0001 deep/clip0001/clip0001.%%07d.dpx first=86400\nevent V clip0001 0 4\n' \
	>"$T/deep.tl"
if mount_fs "$M" "$T/mnt" -o "db=$T/paths.db,pace=off,fps=24,timelines=$T/paths"; then
	for n in nofolder deep; do
		$TLEXPECT bytes "$T/$n.tl" "$M" >"$T/$n.want"
		check "sequence folders: $n plays $(sed -n 's/^seq [^ ]* \([^ ]*\) .*/\1/p' "$T/$n.tl")" \
			cmp "$T/$n.want" "$T/mnt/$n"
	done
	umount_fs "$T/mnt"
else
	not_ok "sequence folders: the mount refused them"
fi
check "sequence folders: --dump-tl DIR writes the folder found" sh -c "
	'$GEN' --dump-tl '$T/paths/deep.otio' '$M' |
	grep -q '^seq clip0001 deep/clip0001/clip0001.%07d.dpx first=86400'"
rm -r "$M/deep"

# ---------------------------------------------------------------- stall
# formula's frame 3 is p4/img.10000.dpx: a 300 ms stall on its open, 4
# frames of read-ahead (167 ms: a loaded machine's hiccup makes no other
# frame late) at 24 fps; under TSan (code 5-15 times slower) both doubled.
STALL=300 BUF=4
if nm -D "$BIN" 2>/dev/null | grep -q __tsan_init; then STALL=600 BUF=8; fi
# stall DB: the late frames by the rows ("late"), the first, "count ROWS'
# PLAYER'S", the rows injected, the opens of STALL ms and more, whether
# frame 4's open was issued before frame 3's was done
stall() {
	python3 - "$1" "$STALL" <<'PY'
import sqlite3, sys
con = sqlite3.connect(sys.argv[1])
stall = int(sys.argv[2])
sid, late = con.execute("select id, late_frames from stream where file = "
                        "'formula'").fetchone()
rows = con.execute("select frame, max(done_ns) > max(due_ns), "
                   "sum(injected <> 0), "
                   "max(case when op = 1 and image = 10000 then "
                   "done_ns - issued_ns end) from access where "
                   "stream_id = ? and coalesce(played, 1) = 1 "
                   "group by frame order by frame", (sid,)).fetchall()
lates = [k for k, l, _, _ in rows if l]
print("late " + " ".join(map(str, lates)))
print("first %s" % (lates[0] if lates else None))
print("count %d %d" % (len(lates), late))
print("injected %s" % con.execute("select frame, op from access where "
                                  "stream_id = ? and injected <> 0",
                                  (sid,)).fetchall())
print("stall %s" % [k for k, _, _, s in rows if s and s >= stall * 1e6])
nxt = con.execute("select (select min(issued_ns) from access where "
                  "stream_id = ?1 and frame = 4 and op = 1) < "
                  "(select max(done_ns) from access where stream_id = ?1 "
                  "and frame = 3 and op = 1)", (sid,)).fetchone()[0]
print("overlap %d" % nxt)
PY
}
for fif in 1 4; do
	if [ "$fif" = 4 ] && ! "$BIN" -h 2>&1 | grep -q frames_in_flight; then
		skip_case "frames_in_flight: not in this build"
		continue
	fi
	DB=$T/stall$fif.db
	opt=
	[ "$fif" = 1 ] || opt=",frames_in_flight=$fif"
	mount_fs "$M" "$T/mnt" -o "db=$DB,buffer=$BUF,backing=buffered$opt" \
		-o "inject=file=p4/img.10000.dpx:op=open:delay=${STALL}ms"
	cat "$T/mnt/formula" >/dev/null
	umount_fs "$T/mnt"
	stall "$DB" >"$T/stall"
	echo "# frames_in_flight=$fif: $(tr '\n' ' ' <"$T/stall")"
	check_eq "in flight $fif: the one open of $STALL ms and more is frame 3's" \
		"stall [3]" "$(grep '^stall' "$T/stall")"
	check_eq "in flight $fif: the one row marked injected is frame 3's open" \
		"injected [(3, 1)]" "$(grep '^injected' "$T/stall")"
	check_eq "in flight $fif: frame 3 the first late one" "first 3" \
		"$(grep '^first' "$T/stall")"
	if [ "$fif" = 1 ]; then
		# each frame after it waits for the one before: late while
		# their due times fall in the stall, then none
		check "in flight 1: the late frames a run from 3 (3-6 at 24 fps), no more than the stall covers" \
			awk -v n="$((STALL * 24 / 1000 + 1))" '/^late/ { for (i = 2; i <= NF; i++) if ($i != i + 1) exit 1; exit !(NF >= 2 && NF - 1 <= n) }' "$T/stall"
	else
		# the frames after it have readers of their own
		check_eq "in flight 4: frame 3 the only late one" "late 3" \
			"$(grep '^late' "$T/stall")"
	fi
	check "in flight $fif: the player's late frames are the clock's" \
		awk '/^count/ {exit !($2 == $3)}' "$T/stall"
	check_eq "in flight $fif: frame 4's open $([ "$fif" = 1 ] &&
		echo waits for || echo "does not wait for") frame 3's" \
		"overlap $([ "$fif" = 1 ] && echo 0 || echo 1)" \
		"$(grep '^overlap' "$T/stall")"
done
finish
