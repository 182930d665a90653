#!/bin/sh
# SPDX-License-Identifier: MIT
# Mounted: bytes through the mount equal an independent computation of the
# layout (tests/tools/tlexpect.py) for dd without bs, bs=4k, bs=1M and random
# preads; one access row per non-gap slice; every write path is EROFS.
. "$(dirname "$0")/lib.sh"

M=$T/media
"$GEN" --clips 4 --clip-seconds 3 --timelines 3 --events 5 \
	--min-seconds 0.3 --max-seconds 1 --seed 7 "$M" >/dev/null
# a hand-written timeline with a gap, an overlap and an L-cut
cat >"$M/timelines/edit.tl" <<'TL'
# gaps, overlap (later wins) and a split edit
fps 30000/1001
track V 18M
track A1 144000 align=3
track A2 144000 align=3
event V,A1,A2 clip0001 10 20
event V,A1    clip0002 0 15 @30
event A2      clip0003 5 25 @25
event V       clip0004 40 5 @12
TL
DB=$T/t.db
mount_fs "$M" "$T/mnt" -o pace=off,db="$DB",label=mounted,backing=buffered

names=$(ls "$T/mnt" | tr '\n' ' ')
# the seed's timelines have pictures and so a movie; edit (track V 18M)
# has none
check_eq "root lists one file per timeline, a movie of each with pictures, the ingest folder" \
	"edit ingest timeline01 timeline01.mov timeline02 timeline02.mov timeline03 timeline03.mov " "$names"
for n in edit timeline01 timeline02 timeline03; do
	want=$($EXPECT size "$M/timelines/$n.tl")
	got=$(stat -c %s "$T/mnt/$n")
	check_eq "size of $n" "$want" "$got"
done

for n in edit timeline01; do
	want=$($EXPECT sha256 "$M/timelines/$n.tl" "$M")
	got=$(dd if="$T/mnt/$n" status=none | sha256sum | cut -d' ' -f1)
	check_eq "dd (512-byte reads) of $n: bytes" "$want" "$got"
	got=$(dd if="$T/mnt/$n" bs=4k status=none | sha256sum | cut -d' ' -f1)
	check_eq "dd bs=4k of $n: bytes" "$want" "$got"
	got=$(dd if="$T/mnt/$n" bs=1M status=none | sha256sum | cut -d' ' -f1)
	check_eq "dd bs=1M of $n: bytes" "$want" "$got"
done

# random preads, compared range by range with the independent expectation
cat >"$T/preads.py" <<'PY'
import os, random, subprocess, sys
path, tl, media, expect = sys.argv[1:5]
size = os.stat(path).st_size
rnd = random.Random(42)
fd = os.open(path, os.O_RDONLY)
bad = 0
for i in range(60):
    off = rnd.randrange(size)
    ln = rnd.choice([1, 511, 4096, 65537, 1 << 20, rnd.randrange(1, 300000)])
    got = os.pread(fd, ln, off)
    want = subprocess.run(expect.split() + ["bytes", tl, media, "--offset",
                          str(off), "--length", str(ln)],
                          capture_output=True, check=True).stdout
    if got != want:
        bad += 1
        print("mismatch at", off, ln, len(got), len(want))
os.close(fd)
sys.exit(1 if bad else 0)
PY
check "60 random preads of timeline02 match" \
	python3 "$T/preads.py" "$T/mnt/timeline02" "$M/timelines/timeline02.tl" "$M" "$EXPECT"

# write side
check "write is refused" sh -c "! echo x 2>/dev/null >>'$T/mnt/edit'"
check "create is refused" sh -c "! touch '$T/mnt/new' 2>/dev/null"
check "mkdir is refused" sh -c "! mkdir '$T/mnt/d' 2>/dev/null"
check "unlink is refused" sh -c "! rm -f '$T/mnt/edit' 2>/dev/null"
check "truncate is refused" sh -c "! truncate -s 0 '$T/mnt/edit' 2>/dev/null"
err=$(python3 -c "
import errno, os, sys
try:
    os.open(sys.argv[1], os.O_WRONLY)
except OSError as e:
    print(errno.errorcode[e.errno])
" "$T/mnt/edit")
check_eq "open for writing gives EROFS" EROFS "$err"

umount_fs "$T/mnt"
check "daemon exited after unmount" sh -c "! kill -0 $DAEMON 2>/dev/null"

check_eq "database integrity" ok "$(q 'pragma integrity_check')"
check_eq "one run with its label and end time" "1|mounted|1" \
	"$(q "select count(*), max(label), max(ended_at is not null) from run")"
# every dd above is one stream: its access rows = non-gap slices
for n in edit timeline01; do
	want=$($EXPECT slices "$M/timelines/$n.tl" | sed -n 1p)
	rows=$(q "select group_concat(c, ' ') from (select count(a.id) c from stream s
		join timeline t on t.id = s.timeline_id left join access a on a.stream_id = s.id
		where t.name = '$n' and s.comm = 'dd' group by s.id order by s.id)")
	check_eq "access rows of each dd stream of $n" "$want $want $want" "$rows"
done
want=$($EXPECT slices "$M/timelines/edit.tl" | grep '^A2 ' | cut -d' ' -f2)
got=$(q "select count(*) from access a join stream s on s.id = a.stream_id
	join timeline t on t.id = s.timeline_id where t.name = 'edit' and a.track = 'A2'
	and s.id = (select min(id) from stream)")
check_eq "A2 rows of the first edit stream" "$want" "$got"
check_eq "every stream closed, comm recorded" "0" \
	"$(q "select count(*) from stream where closed_ns is null or comm = ''")"
check_eq "no access failed" "0" "$(q 'select count(*) from access where errno != 0')"
# The mount's kernel limits, as the kernel took them: the bdi's readahead
# window (sysfs) and the connection's background requests (fusectl).  With
# the kernel's default of 12, many cached readers get small requests.
FUSECTL=/sys/fs/fuse/connections
if ! grep -q " $FUSECTL fusectl" /proc/mounts; then
	if mount -t fusectl fusectl "$FUSECTL" 2>/dev/null; then
		# ours to undo, however the test ends
		trap 'cleanup; umount "$FUSECTL"' EXIT
		MOUNTED_CTL=1
	fi
fi
# bdi MNT: the mount's readahead window in KiB, or "-" without sysfs
# ctl MNT: "max_background congestion_threshold" from fusectl
# Both stat the mount first: mount_fs returns when /proc/mounts shows it,
# but the kernel takes the daemon's limits from its answer to INIT, and
# the daemon sets the readahead just before it serves requests.
mnt_dev() {
	stat "$1" >/dev/null
	awk -v m="$1" '$5 == m { print $3 }' /proc/self/mountinfo
}
bdi() {
	cat "/sys/class/bdi/$(mnt_dev "$1")/read_ahead_kb" 2>/dev/null || echo -
}
ctl() {
	dev=$(mnt_dev "$1")
	minor=${dev#0:}
	echo "$(cat "$FUSECTL/$minor/max_background")" \
		"$(cat "$FUSECTL/$minor/congestion_threshold")"
}
have_ctl=
grep -q " $FUSECTL fusectl" /proc/mounts && have_ctl=1
[ -n "$have_ctl" ] ||
	echo "# cannot mount fusectl on $FUSECTL: the background limits are not checked"
mount_fs "$M" "$T/mnt" -o db="$DB"
ra=$(bdi "$T/mnt")
if [ "$ra" = - ]; then
	echo "# no /sys/class/bdi for the mount: its readahead is not checked"
else
	check_eq "default readahead: 1 MiB" 1024 "$ra"
fi
[ -n "$have_ctl" ] &&
	check_eq "default limits: 1024 background requests, 768 before readahead shrinks" \
		"1024 768" "$(ctl "$T/mnt")"
umount_fs "$T/mnt"
# zero copy: requests of 512 KiB where the host allows only 1 MiB pipes
# (the start says so), and the readahead, not given, no larger: a window
# of two requests had them served out of order, the first window's too
# (its second request anchored the clock, the first was a seek)
mount_fs "$M" "$T/mnt" -o db="$DB",backing=buffered
req=$(request_kb "$DAEMON_LOG")
ra=$(bdi "$T/mnt")
[ "$ra" = - ] ||
	check_eq "backing=buffered: readahead the requests' size ($req KiB)" "$req" "$ra"
umount_fs "$T/mnt"
mount_fs "$M" "$T/mnt" -o db="$DB",backing=buffered,readahead=1024
ra=$(bdi "$T/mnt")
[ "$ra" = - ] || check_eq "backing=buffered,readahead=1024: as given" 1024 "$ra"
umount_fs "$T/mnt"
mount_fs "$M" "$T/mnt" -o db="$DB",readahead=256,max_background=40
ra=$(bdi "$T/mnt")
[ "$ra" = - ] || check_eq "readahead=256: as given" 256 "$ra"
[ -n "$have_ctl" ] &&
	check_eq "max_background=40: as given, 30 before readahead shrinks" \
		"40 30" "$(ctl "$T/mnt")"
umount_fs "$T/mnt"
mount_fs "$M" "$T/mnt" -o db="$DB",max_background=1
[ -n "$have_ctl" ] &&
	check_eq "max_background=1: threshold 1 (0 would leave the kernel's 9)" \
		"1 1" "$(ctl "$T/mnt")"
umount_fs "$T/mnt"
if [ -n "${MOUNTED_CTL:-}" ]; then
	umount "$FUSECTL"
	trap cleanup EXIT
fi
finish
