#!/bin/sh
# SPDX-License-Identifier: MIT
# timelinefs-plot on a hand-built database (no mount needed): a valid PNG
# (signature, chunk CRCs, IHDR size, IDAT inflates to the full image) of
# non-trivial size and content, per stream and, past 16 streams, per
# timeline; --step; errors for a missing run or step; a run with a record
# stream (issue 23).
set -eu

TOP=$(cd "$(dirname "$0")/../.." && pwd)
PLOT=$TOP/mount-scripts/timelinefs-plot
PASS=0
FAIL=0
for c in sqlite3 python3; do
	command -v $c >/dev/null 2>&1 || { echo "skip: no $c"; exit 77; }
done
# the drawing: matplotlib, with Debian's python3 (make deps)
"${TLFS_PYTHON:-/usr/bin/python3}" -c 'import matplotlib' 2>/dev/null ||
	{ echo "skip: no matplotlib"; exit 77; }
T=$(mktemp -d "${TMPDIR:-/tmp}/tlfs-test.XXXXXX")
trap 'rm -rf "$T"' EXIT
trap 'exit 130' INT TERM

ok() { PASS=$((PASS + 1)); echo "ok - $*"; }
not_ok() { FAIL=$((FAIL + 1)); echo "not ok - $*"; }
check() {
	name=$1
	shift
	if "$@"; then ok "$name"; else not_ok "$name"; fi
}
# as lib.sh's: both sides empty compared nothing; check_none wants nothing
check_eq() {
	if [ -z "$2" ] && [ -z "$3" ]; then
		not_ok "$1: both sides empty (nothing compared)"
	elif [ "$2" = "$3" ]; then ok "$1"; else not_ok "$1: expected '$2', got '$3'"; fi
}
check_none() {
	if [ -z "$2" ]; then ok "$1"; else not_ok "$1: expected nothing, got '$2'"; fi
}
DB=$T/t.db
cat "$TOP"/schema/*.sql | sqlite3 "$DB"

# run 1: 3 streams of 300 frames (V, A1, A2), latencies spread over
# 10 us .. 20 ms, every 50th video read late; run 2: 20 streams on 5
# timelines; bench step 1 = the first two streams of run 1.
cat >"$T/gen.awk" <<'EOF'
BEGIN {
	srand(7)
	print "begin;"
	print "insert into run (id, label, started_at, kernel) values (1, 'plot \"test\"', '2026-01-01T00:00:00.000Z', 'k'), (2, 'many', 'x', 'k');"
	for (t = 1; t <= 5; t++)
		for (r = 1; r <= 2; r++)
			printf "insert into timeline (id, run_id, name) values (%d, %d, 'timeline%02d');\n", r * 10 + t, r, t
	id = 0
	for (s = 1; s <= 23; s++) {
		run = s <= 3 ? 1 : 2
		tl = run * 10 + (s - 1) % 5 + 1
		printf "insert into stream (id, run_id, timeline_id, pid, opened_ns, closed_ns) values (%d, %d, %d, %d, 0, 10000000000);\n", s, run, tl, s
		nf = run == 1 ? 300 : 30
		for (f = 0; f < nf; f++) {
			split("V A1 A2", tr, " ")
			for (k = 1; k <= 3; k++) {
				issued = s * 1e8 + f * 33366667
				lat = 10000 * exp(rand() * log(2000)) * (k == 1 ? 3 : 1)
				due = (k == 1 && f % 50 == 0) ? issued + lat / 2 : issued + 3e8
				printf "insert into access (stream_id, frame, track, clip, file_offset, length, due_ns, issued_ns, done_ns) values (%d, %d, '%s', 'c', 0, 1, %.0f, %.0f, %.0f);\n", s, f, tr[k], due, issued, issued + lat
			}
		}
	}
	print "insert into bench_step (id, run_id, label, workstations, repetition) values (1, 1, 'x', 2, 1);"
	print "insert into bench_stream values (1, 1), (1, 2);"
	print "commit;"
}
EOF
awk -f "$T/gen.awk" | sqlite3 "$DB"

cat >"$T/png.py" <<'PY'
import struct, sys, zlib
data = open(sys.argv[1], "rb").read()
w_want, h_want, min_colors = int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
assert data[:8] == b"\x89PNG\r\n\x1a\n", "signature"
pos, chunks, idat = 8, [], b""
while pos < len(data):
    n, = struct.unpack(">I", data[pos:pos + 4])
    typ = data[pos + 4:pos + 8]
    body = data[pos + 8:pos + 8 + n]
    crc, = struct.unpack(">I", data[pos + 8 + n:pos + 12 + n])
    assert zlib.crc32(typ + body) & 0xffffffff == crc, "crc of %r" % typ
    chunks.append(typ)
    if typ == b"IDAT":
        idat += body
    pos += 12 + n
assert chunks[0] == b"IHDR" and chunks[-1] == b"IEND", chunks
w, h, depth, ctype = struct.unpack(">IIBB", data[16:26])
assert (w, h) == (w_want, h_want), (w, h)
channels = {0: 1, 2: 3, 3: 1, 4: 2, 6: 4}[ctype]
raw = zlib.decompress(idat)
stride = (w * channels * depth + 7) // 8
assert len(raw) == h * (stride + 1), "image data size"
# distinct byte triples in the rows: a plot, not a blank page
seen = set()
for y in range(0, h, 7):
    row = raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)]
    for x in range(0, len(row) - 3, 3 * 5):
        seen.add(row[x:x + 3])
assert len(seen) >= min_colors, "only %d distinct samples" % len(seen)
PY

if "$PLOT" "$DB" 1 "$T/run1.png" >"$T/out" 2>"$T/err"; then
	ok "plot of run 1"
else
	not_ok "plot of run 1: $(cat "$T/err")"
fi
check "run 1: a valid 1400x900 PNG with real content" python3 "$T/png.py" "$T/run1.png" 1400 900 20
check "run 1: non-trivial size (> 30 kB)" test "$(wc -c <"$T/run1.png")" -gt 30000
check "run 1: reports its reads and late reads" grep -q 'run 1, 2700 reads of 3 streams, 18 late' "$T/out"
check "a run by label (its latest), --size" \
	sh -c "'$PLOT' '$DB' many '$T/many.png' --size 900x600 >/dev/null"
check "per timeline past 16 streams: valid 900x600 PNG" python3 "$T/png.py" "$T/many.png" 900 600 20
check "--step: only the step's streams" sh -c "'$PLOT' '$DB' 1 '$T/step.png' --step 1 | grep -q '1800 reads of 2 streams'"
check "--step PNG valid" python3 "$T/png.py" "$T/step.png" 1400 900 10
# --headroom: each frame's due - done of its last read (every 50th video
# read of run 1 late: 18 frames below 0); before, no such option
check "--headroom: its frames, streams and late frames" sh -c "'$PLOT' '$DB' 1 '$T/hr.png' --headroom |
	grep -q 'run 1, headroom of 900 frames of 3 streams, 18 late'"
check "--headroom PNG valid" python3 "$T/png.py" "$T/hr.png" 1400 900 10
rc=0
"$PLOT" "$DB" --experiment 1 "$T/x.png" --headroom >/dev/null 2>&1 || rc=$?
check_eq "--headroom with --experiment is a usage error" 2 "$rc"
check "a missing run is an error" sh -c "! '$PLOT' '$DB' 9 '$T/x.png' 2>/dev/null && [ ! -e '$T/x.png' ]"
check "a step of another run is an error" sh -c "! '$PLOT' '$DB' 2 '$T/x.png' --step 1 2>/dev/null"
rc=0
"$PLOT" "$DB" 1 >/dev/null 2>&1 || rc=$?
check_eq "missing OUT is a usage error" 2 "$rc"
# issue 23: run 3 played and recorded (schema version 11): a play stream
# of 50 reads, 2 late; a record stream (ingest/cam1) of 50 frames, a
# receive row (the writer's: not drawn) and a write per track (V, A1)
# each, frames 5 (the writer's bytes came late) and 7 (a slow write)
# dropped: their 4 writes are late; a late fsync at the end drops no
# frame, nor does a last partial frame's late write (played 0).  The
# record stream is drawn apart, its dropped frames' writes marked as its
# late frames.
awk 'BEGIN {
	print "begin;"
	print "insert into run (id, label, started_at, kernel) values (3, '\''mix'\'', '\''x'\'', '\''k'\'');"
	print "insert into timeline (id, run_id, name) values (31, 3, '\''tl3'\'');"
	print "insert into stream (id, run_id, timeline_id, kind, file, opened_ns, closed_ns) values (30, 3, 31, '\''play'\'', '\''tl3'\'', 0, 3000000000), (31, 3, NULL, '\''record'\'', '\''ingest/cam1'\'', 0, 3000000000);"
	for (f = 0; f < 50; f++) {
		a = f * 40000000
		printf "insert into access (stream_id, frame, track, clip, file_offset, length, sched_ns, due_ns, issued_ns, done_ns, op) values (30, %d, '\''V'\'', '\''c'\'', 0, 1, %d, %d, %d, %d, 0);\n", f, a, a + 40000000, a, a + (f == 10 || f == 20 ? 50000000 : 1000000)
		got = f == 5 ? 100000000 : 5000000
		wl = f == 7 ? 90000000 : 2000000
		printf "insert into access (stream_id, frame, track, clip, file_offset, length, sched_ns, due_ns, issued_ns, done_ns, op) values (31, %d, '\''V'\'', '\''cam1'\'', 0, 1, %d, %d, %d, %d, 9);\n", f, a, a + 80000000, a, a + got
		printf "insert into access (stream_id, frame, track, clip, file_offset, length, sched_ns, due_ns, issued_ns, done_ns, op) values (31, %d, '\''V'\'', '\''cam1'\'', 0, 1, %d, %d, %d, %d, 5);\n", f, a, a + 80000000, a + got, a + got + wl
		printf "insert into access (stream_id, frame, track, clip, file_offset, length, sched_ns, due_ns, issued_ns, done_ns, op) values (31, %d, '\''A1'\'', '\''cam1'\'', 0, 1, %d, %d, %d, %d, 5);\n", f, a, a + 80000000, a + got + wl, a + got + wl + 1000000
	}
	print "insert into access (stream_id, frame, track, clip, file_offset, length, sched_ns, due_ns, issued_ns, done_ns, op) values (31, 49, '\''V'\'', '\''cam1'\'', 0, 0, 1960000000, 2040000000, 2000000000, 2100000000, 6);"
	print "insert into access (stream_id, frame, track, clip, file_offset, length, sched_ns, due_ns, issued_ns, done_ns, op, played) values (31, 50, '\''V'\'', '\''cam1'\'', 0, 1, 2000000000, 2080000000, 2090000000, 2091000000, 5, 0);"
	print "commit;"
}' | sqlite3 "$DB"
if "$PLOT" "$DB" 3 "$T/mix.png" >"$T/out" 2>"$T/err"; then
	ok "plot of a run that recorded"
else
	not_ok "plot of a run that recorded: $(cat "$T/err")"
fi
check_eq "play and record apart: reads and late reads, record operations and writes of dropped frames" \
	"wrote $T/mix.png: run 3, 50 reads of 1 streams, 2 late; 102 operations of 1 record streams, 4 writes of dropped frames" \
	"$(sed 's/ ([a-z]*)$//' "$T/out")"
check "a run that recorded: a valid 1400x900 PNG" python3 "$T/png.py" "$T/mix.png" 1400 900 10

if command -v shellcheck >/dev/null 2>&1; then
	check "shellcheck timelinefs-plot" shellcheck "$PLOT"
fi
echo "$PASS passed, $FAIL failed"
[ "$FAIL" -eq 0 ]
