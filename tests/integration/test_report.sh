#!/bin/sh
# SPDX-License-Identifier: MIT
# timelinefs-report and the analysis views on hand-built databases (no
# mount needed): percentiles, late frames after cuts and the timeseries of
# schema/30-analysis.sql; --compare's means, % differences and Welch 95 %
# intervals against the formulas computed apart (SciPy's t quantile: the
# numerics themselves are checked against published values by
# tests/python, and the awk's hand-written t distribution is gone); "not significant" and "one repetition" verdicts;
# issue 18: the environments' differences printed first, the warning when
# a label's runs differ among themselves, and per metric the interval's
# half-width and the repetitions that would resolve --effect, in the text,
# CSV and JSON outputs.  Issue 23: play and record streams apart.  Issue
# 24: the views of many hosts on hand-made rows (run_axis's rule, the
# median and the straggler, machines, the hosts expected in a step from
# experiment_share: a host given no workstations neither expected nor
# missing).
set -eu

TOP=$(cd "$(dirname "$0")/../.." && pwd)
REPORT=$TOP/mount-scripts/timelinefs-report
PASS=0
FAIL=0
for c in sqlite3 python3; do
	command -v $c >/dev/null 2>&1 || { echo "skip: no $c"; exit 77; }
done
# the report's statistics and the expectations below: Debian's python3
# with SciPy (make deps)
PY=${TLFS_PYTHON:-/usr/bin/python3}
"$PY" -c 'import scipy' 2>/dev/null || { echo "skip: no SciPy in $PY"; exit 77; }
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
q() { sqlite3 -batch -noheader "$DB" "$1"; }

# the daemon's schema, applied as the store does (all files, name order)
cat "$TOP"/schema/*.sql | sqlite3 "$DB"
check_eq "schema applies twice (idempotent)" ok \
	"$(cat "$TOP"/schema/*.sql | sqlite3 "$DB" && echo ok)"

# ------------------------------------------------------------ views
# Run 1, one stream: V frames 0..19 with latencies 1..20 us (clip0001
# frames 0-9, clip0002 frames 10-19 with a jump at 15), A1 frames 0..9 with
# latencies 10..100 us.  Late: V frames 3, 12, 15; A1 frame 3.  done_ns
# falls in seconds 0 (frames 0-9), 1 (10-14) and 2 (15-19).
cat >"$T/views.awk" <<'EOF'
BEGIN {
	print "begin;"
	print "insert into run (id, label, started_at) values (1, 'views', 'x');"
	print "insert into timeline (id, run_id, name, fps_num, fps_den, frames) values (1, 1, 'tl1', 30000, 1001, 20);"
	print "insert into stream (id, run_id, timeline_id, pid, opened_ns, closed_ns, bytes, frames, late_frames, failed_frames) values (1, 1, 1, 100, 0, 3000000000, 2000000, 20, 3, 0);"
	for (f = 0; f < 20; f++) {
		clip = f < 10 ? "clip0001" : "clip0002"
		off = f < 10 ? f * 1000 : (f < 15 ? (f - 10) * 1000 : 50000 + (f - 15) * 1000)
		issued = f < 10 ? 100000000 + f * 1000000 : (f < 15 ? 1100000000 + f * 1000000 : 2100000000 + f * 1000000)
		done = issued + (f + 1) * 1000
		late = (f == 3 || f == 12 || f == 15)
		due = late ? done - 500 : done + 500
		printf "insert into access (stream_id, frame, track, clip, file_offset, length, sched_ns, due_ns, issued_ns, done_ns) values (1, %d, 'V', '%s', %d, 1000, %.0f, %.0f, %.0f, %.0f);\n", f, clip, off, issued, due, issued, done
		if (f < 10) {
			done = issued + (f + 1) * 10000
			due = f == 3 ? done - 1 : done + 1
			printf "insert into access (stream_id, frame, track, clip, file_offset, length, sched_ns, due_ns, issued_ns, done_ns) values (1, %d, 'A1', 'clip0001', %d, 4803, %.0f, %.0f, %.0f, %.0f);\n", f, 44 + f * 4804, issued, due, issued + 10, done
		}
	}
	print "commit;"
}
EOF
awk -f "$T/views.awk" | sqlite3 "$DB"

check_eq "track_latency V: n, late, p50 p90 p95 p99 p99.9 max (nearest rank)" \
	"20|3|10.0|18.0|19.0|20.0|20.0|20.0" \
	"$(q "select accesses, late_accesses, p50_us, p90_us, p95_us, p99_us, p99_9_us, max_us
		from track_latency where stream_id = 1 and track = 'V'")"
check_eq "track_latency A1: n = 10 gives p50 rank 5, p90 rank 9, p95 rank 10" \
	"10|1|50.0|90.0|100.0|100.0|100.0|55.0" \
	"$(q "select accesses, late_accesses, p50_us, p90_us, p95_us, p99_us, max_us, mean_us
		from track_latency where stream_id = 1 and track = 'A1'")"
check_eq "run_track_latency agrees for the run" "A1|50.0|100.0 V|10.0|20.0" \
	"$(q "select group_concat(track || '|' || p50_us || '|' || max_us, ' ')
		from (select * from run_track_latency where run_id = 1 order by track)")"
check_eq "stream_summary of 20-views.sql over both tracks (n = 30)" "30|14.0|90.0|100.0" \
	"$(q "select accesses, p50_us, p95_us, max_us from stream_summary where stream_id = 1")"
check_eq "late frames: frame, tracks, clip, new file, after cut" \
	"3|2|clip0001|0|0 12|1|clip0002|0|0 15|1|clip0002|0|1" \
	"$(q "select group_concat(frame || '|' || (length(tracks) - length(replace(tracks, ',', '')) + 1) || '|' || clips || '|'
		|| new_file || '|' || after_cut, ' ') from late_frame where stream_id = 1")"
check_eq "late frame count equals the player's count" "3" \
	"$(q "select count(*) from late_frame where stream_id = 1")"
# V's late reads took longer than their frame allowed (issued on time);
# A1's frame 3 was issued 10 ns late with 1 ns of lateness: its cause is
# the issue, and a frame with both kinds is the storage's
check_eq "late_access: cause and issue delay" \
	"3|A1|issue|0.0 3|V|storage|0.0 12|V|storage|0.0 15|V|storage|0.0" \
	"$(q "select group_concat(frame || '|' || track || '|' || cause || '|' || issue_delay_us, ' ')
		from (select * from late_access where stream_id = 1 order by frame, track)")"
check_eq "late_frame: cause" "3|storage 12|storage 15|storage" \
	"$(q "select group_concat(frame || '|' || cause, ' ') from late_frame where stream_id = 1")"
check_eq "late_access: how late, in us" "0.5|0.0" \
	"$(q "select max(late_by_us), min(late_by_us) from late_access where stream_id = 1")"
check_eq "cuts: V after cut at frames 0, 10, 15; A1 only at 0 (its 1-byte gaps are no cut)" \
	"0,10,15|0" \
	"$(q "select (select group_concat(frame) from access_cut where track = 'V' and after_cut),
		(select group_concat(frame) from access_cut where track = 'A1' and after_cut)")"
check_eq "cut_latency: reads after a cut against the others" "V|0|17|2 V|1|3|1" \
	"$(q "select group_concat(track || '|' || after_cut || '|' || accesses || '|' || late_accesses, ' ')
		from (select * from cut_latency where run_id = 1 and track = 'V' order by after_cut)")"
check_eq "timeseries: accesses, bytes, late reads, late frames per second" \
	"0|20|58030|2|1 1|5|5000|1|1 2|5|5000|1|1" \
	"$(q "select group_concat(second || '|' || accesses || '|' || bytes || '|' || late_accesses
		|| '|' || late_frames, ' ') from timeseries where run_id = 1")"

# ------------------------------------------------------------ compare data
# label ws rep wall_s bytes late lat1..lat4 (us); one stream per step.
# ws 2: B clearly slower; ws 3: B noisy, not significant; ws 4: one
# repetition; ws 5: equal variances, n = 3 each (df = 4 exactly); ws 6:
# only in A.
cat >"$T/steps" <<'EOF'
a 2 1 10.0 100000000 0 100 200 300 400
a 2 2 10.4 101000000 1 110 190 320 390
a 2 3 10.2 99000000 0 105 210 310 410
b's 2 1 10.9 100000000 4 150 260 400 900
b's 2 2 11.3 100500000 6 160 250 420 950
b's 2 3 11.0 99500000 5 155 270 410 990
a 3 1 20.0 150000000 0 100 200 300 400
a 3 2 21.0 150000000 2 100 220 330 800
a 3 3 22.0 150000000 1 100 240 300 600
b's 3 1 20.5 150000000 1 120 210 300 500
b's 3 2 22.5 150000000 0 90 200 310 450
b's 3 3 21.0 150000000 3 100 260 350 700
a 4 1 30.0 200000000 0 100 100 100 100
b's 4 1 31.0 200000000 0 100 100 100 100
a 5 1 5.0 10000000 0 10 20 30 40
a 5 2 6.0 10000000 0 10 20 30 40
a 5 3 7.0 10000000 0 10 20 30 40
b's 5 1 6.0 10000000 0 10 20 30 40
b's 5 2 7.0 10000000 0 10 20 30 40
b's 5 3 8.0 10000000 0 10 20 30 40
a 6 1 1.0 1000000 0 1 2 3 4
EOF
cat >"$T/steps.awk" <<'EOF'
BEGIN { print "begin;"; print "insert into run (id, label, started_at) values (2, 'a', 'x'), (3, 'b''s', 'x');" }
{
	run = $1 == "a" ? 2 : 3
	lab = $1 == "a" ? "a" : "b''s"
	st = 100 + NR
	op = NR * 100000000000
	cl = op + $4 * 1000000000
	printf "insert into stream (id, run_id, pid, opened_ns, closed_ns, bytes, frames, late_frames, failed_frames) values (%d, %d, %d, %.0f, %.0f, %.0f, 100, %d, 0);\n", st, run, st, op, cl, $5, $6
	printf "insert into bench_step (id, run_id, label, workstations, repetition, started_ns, ended_ns, wall_s, reader) values (%d, %d, '%s', %d, %d, %.0f, %.0f, %.1f, 'dd');\n", NR, run, lab, $2, $3, op, cl, $4
	printf "insert into bench_stream values (%d, %d);\n", NR, st
	for (i = 7; i <= 10; i++)
		printf "insert into access (stream_id, frame, track, clip, file_offset, length, due_ns, issued_ns, done_ns) values (%d, %d, 'V', 'c', 0, 1, %.0f, %.0f, %.0f);\n", st, i, op + 1e12, op, op + $i * 1000
}
END { print "commit;" }
EOF
awk -f "$T/steps.awk" "$T/steps" | sqlite3 "$DB"

check_eq "bench_step_summary: wall, MB/s, late, p50, p99, max of a step" \
	"10.4|9.712|1|190.0|390.0|390.0" \
	"$(q "select wall_s, mb_s, late_frames, p50_us, p99_us, max_us from bench_step_summary where step_id = 2")"

# The expectation: Welch's t computed here from the steps' own values
# (the rows written above, not the views), SciPy's t quantile.
cat >"$T/expect.py" <<'PY'
import math, sys
from scipy.stats import t as tdist
rows = [l.split() for l in open(sys.argv[1]) if l.strip()]
def tq(p, v):
    return float(tdist.ppf(p, v))
def metrics(r):
    lat = sorted(float(x) for x in r[6:10])
    wall, byt = float(r[3]), float(r[4])
    return [wall, round(byt / 1e6 / wall, 3), float(r[5]), lat[1], lat[3], lat[3]]
names = ["wall_s", "mb_s", "late_frames", "p50_us", "p99_us", "max_us"]
data = {}
for r in rows:
    data.setdefault((r[0], int(r[1])), []).append(metrics(r))
for ws in sorted({k[1] for k in data}):
    a, b = data.get(("a", ws)), data.get(("b's", ws))
    if not a or not b:
        continue
    for m, name in enumerate(names):
        xa = [x[m] for x in a]; xb = [x[m] for x in b]
        ma, mb = sum(xa) / len(xa), sum(xb) / len(xb)
        diff = mb - ma
        pct = diff / ma * 100 if ma else None
        out = [ws, name, "%.6g" % ma, "%.6g" % mb, "%.6g" % diff,
               "" if pct is None else "%.6g" % pct]
        if len(xa) < 2 or len(xb) < 2:
            out += ["", "", "", "no interval: one repetition"]
        else:
            va = sum((x - ma) ** 2 for x in xa) / (len(xa) - 1)
            vb = sum((x - mb) ** 2 for x in xb) / (len(xb) - 1)
            se2 = va / len(xa) + vb / len(xb)
            if se2 == 0:
                lo = hi = diff; df = ""
            else:
                v = se2 ** 2 / ((va / len(xa)) ** 2 / (len(xa) - 1) + (vb / len(xb)) ** 2 / (len(xb) - 1))
                t = tq(0.975, v)
                lo, hi = diff - t * math.sqrt(se2), diff + t * math.sqrt(se2)
                df = "%.6g" % v
            sig = not (lo <= 0 <= hi)
            out += [df, "%.6g" % lo, "%.6g" % hi, "significant" if sig else "not significant"]
        print(",".join(str(x) for x in out))
PY
"$PY" "$T/expect.py" "$T/steps" >"$T/want"

# ---- sessions: a and b's are one run each, one session a label.  With
# no label of two sessions in the database the drift between sessions is
# unknown, and no difference is called significant (before: ws 2 wall
# "significant: B higher (worse)").
check_eq "one session a label, no drift measured: ws 2 wall not resolved" \
	"not resolved: one session a label and no drift between sessions measured" \
	"$("$REPORT" "$DB" --compare a "b's" --csv 2>/dev/null | awk -F, '$1 == 2 && $2 == "wall_s" { print $17 }')"
check "text: the count's sessions and what decides" sh -c \
	"'$REPORT' '$DB' --compare a \"b's\" | grep -q '^2 workstations: A 3 repetitions, B 3 repetitions; sessions A 1, B 1: the repetitions, within the drift not resolved\$'"
# A control label, ctl, benched in two sessions (runs 50 and 51) at 2
# workstations: the drift between its sessions is the machine's, 0.4 % in
# wall time (10.00 s and 10.04 s), none in late frames and latency.  The
# checks below read ws 2's verdicts beyond it; it goes after them.
ctl() {
	awk -v w2="$1" 'BEGIN { print "begin;"; print "insert into run (id, label, started_at) values (50, '\''ctl'\'', '\''x'\''), (51, '\''ctl'\'', '\''y'\'');" }
	{
		run = 49 + $1; st = 5000 + NR; op = (900 + NR) * 100000000000
		wall = $1 == 2 ? w2 : 10.0
		printf "insert into stream (id, run_id, pid, opened_ns, closed_ns, bytes, frames, late_frames, failed_frames) values (%d, %d, %d, %.0f, %.0f, 100000000, 100, 1, 0);\n", st, run, st, op, op + wall * 1e9
		printf "insert into bench_step (id, run_id, label, workstations, repetition, started_ns, ended_ns, wall_s, reader) values (%d, %d, '\''ctl'\'', 2, %d, %.0f, %.0f, %.2f, '\''dd'\'');\n", 5000 + NR, run, $2, op, op + wall * 1e9, wall
		printf "insert into bench_stream values (%d, %d);\n", 5000 + NR, st
		for (i = 1; i <= 4; i++)
			printf "insert into access (stream_id, frame, track, clip, file_offset, length, due_ns, issued_ns, done_ns) values (%d, %d, '\''V'\'', '\''c'\'', 0, 1, %.0f, %.0f, %.0f);\n", st, i, op + 1e12, op, op + i * 100000
	}
	END { print "commit;" }' <<EOF2
1 1
1 2
2 1
2 2
EOF2
}
ctl_drop() {
	q "delete from access where stream_id between 5001 and 5004;
	   delete from bench_stream where step_id between 5001 and 5004;
	   delete from bench_step where id between 5001 and 5004;
	   delete from stream where id between 5001 and 5004; delete from run where id in (50, 51);"
}
ctl 10.04 | sqlite3 "$DB"

if "$REPORT" "$DB" --compare a "b's" --csv >"$T/csv" 2>"$T/err"; then
	ok "--compare --csv runs (a label with a quote)"
else
	not_ok "--compare --csv runs: $(cat "$T/err")"
fi
check_eq "--csv header" \
	"workstations,metric,n_a,mean_a,sd_a,n_b,mean_b,sd_b,diff,diff_pct,df,t,ci_low,ci_high,ci_low_pct,ci_high_pct,verdict,half_width,half_width_pct,effect_pct,reps_for_effect,method" \
	"$(head -1 "$T/csv")"
# compare field by field, numbers to 1e-6 relative
cat >"$T/cmp.py" <<'PY'
import csv, sys
want = [l.rstrip("\n").split(",") for l in open(sys.argv[1])]
got = [r for r in csv.DictReader(open(sys.argv[2])) if r["method"] == "welch"]
bad = 0
def close(a, b):
    if a == "" or b == "":
        return a == b
    a, b = float(a), float(b)
    return abs(a - b) <= 1e-6 * max(1.0, abs(a), abs(b))
if len(want) != len(got):
    print("rows: want %d, got %d" % (len(want), len(got))); bad += 1
for w, g in zip(want, got):
    ws, name, ma, mb, diff, pct, df, lo, hi, verdict = w
    k = "%s %s" % (ws, name)
    for field, exp in (("mean_a", ma), ("mean_b", mb), ("diff", diff), ("diff_pct", pct),
                       ("df", df), ("ci_low", lo), ("ci_high", hi)):
        if not close(exp, g[field]):
            print("%s %s: want %s, got %s" % (k, field, exp, g[field])); bad += 1
    gv = g["verdict"]
    if not (gv.startswith(verdict) and (verdict != "significant" or gv.startswith("significant:"))):
        print("%s verdict: want %s, got %s" % (k, verdict, gv)); bad += 1
    if g["workstations"] != ws or g["metric"] != name:
        print("row order: want %s, got %s %s" % (k, g["workstations"], g["metric"])); bad += 1
sys.exit(1 if bad else 0)
PY
check "--compare: means, diff %, Welch df and 95 % CI match an independent computation" \
	python3 "$T/cmp.py" "$T/want" "$T/csv"
check_eq "equal variances, n = 3 each: df = 4, t = 2.776445 (table value)" "4|2.77645" \
	"$(awk -F, '$1 == 5 && $2 == "wall_s" { print $11 "|" $12 }' "$T/csv")"
check_eq "ws 2 wall: significant, B higher (worse)" "significant: B higher (worse)" \
	"$(awk -F, '$1 == 2 && $2 == "wall_s" { print $17 }' "$T/csv")"
check_eq "ws 2 MB/s: B lower is worse" "significant: B lower (worse)" \
	"$(awk -F, '$1 == 2 && $2 == "mb_s" { print $17 }' "$T/csv")"
check_eq "ws 3 wall: not significant" "not significant" \
	"$(awk -F, '$1 == 3 && $2 == "wall_s" { print $17 }' "$T/csv")"
check_eq "ws 4: one repetition, no interval" "no interval: one repetition" \
	"$(awk -F, '$1 == 4 && $2 == "wall_s" { print $17 }' "$T/csv")"
check_none "ws 6 (only in A) is not compared" \
	"$(awk -F, '$1 == 6' "$T/csv")"

"$REPORT" "$DB" --compare a "b's" >"$T/text"
check "text: states the method" grep -q "Welch's t (unequal variances, Welch-Satterthwaite df)" "$T/text"
check "text: 2 workstations wall +8.50 % with its interval" \
	grep -Eq '^  wall s +10\.200 +11\.067 +0\.867 +\+8\.50% +\[' "$T/text"
check "text: not significant for 3 workstations" \
	sh -c "sed -n '/^3 workstations/,/^\$/p' '$T/text' | grep -q '^  wall s .*not significant\$'"
check "text: one repetition says no interval can be given" \
	sh -c "sed -n '/^4 workstations/,/^\$/p' '$T/text' | grep -q 'no interval: one repetition'"
check "text: a count in one label only is named" grep -q 'only a has this count' "$T/text"
# one run a label, each a mount of its own: one session each, and the
# words say what the intervals do not cover (before: nothing said)
check_eq "text: the sessions of each label, and what one session's interval covers" \
	"sessions (each run a mount of its own): A (a) 1 session, B (b's) 1 session|one session a label: the intervals below cover the noise within one session, not the drift between sessions (docs/resolution.md)" \
	"$(grep -A1 '^sessions ' "$T/text" | paste -sd '|')"
# A then B so far: B next, as A B B A goes on
check "text: the next session, in the order A B B A" \
	grep -q "^next session: B b's (the order A B B A A B B A ...; 2 sessions a label at least for Welch on their means)\$" "$T/text"
check "--json is valid JSON, 6 metrics for each of 4 counts" python3 -c "
import json, sys
d = json.load(open(sys.argv[1]))
c = d['comparisons']
assert d['label_a'] == 'a' and d['label_b'] == \"b's\" and d['effect_pct'] == 6
assert d['sessions'] == {'a': 1, 'b': 1, 'boots_a': 0, 'boots_b': 0, 'next': \"b's\"}, d['sessions']
assert len(c) == 24 and c[0]['label_b'] == \"b's\" and c[0]['metric'] == 'wall_s'
" "$("$REPORT" "$DB" --compare a "b's" --json >"$T/json" && echo "$T/json")"

# ------------------------------------------------------------ resolution
# The half-width is half the interval, in % of mean A; N repetitions of
# each resolve 6 % of mean A with 80 % power by Welch's test: its power
# by the noncentral t (df by Welch-Satterthwaite for N of each,
# noncentrality d / sqrt((va + vb) / N), the far tail left out as R's
# power.t.test does) reaches 0.80 at N and not at N - 1 (N = 2 at least).
# Before, the awk solved N >= (t(.975, df) + t(.8, df))^2 (va + vb) / d^2,
# the normal approximation with t for z: on these rows both give the same
# N, the 4 and 12 checked below.
cat >"$T/res.py" <<'PY'
import csv, math, sys
from scipy import integrate, stats
eff = float(sys.argv[3])
bad = 0
for g in csv.DictReader(open(sys.argv[2])):
    if g["method"] != "welch":
        continue
    k = g["workstations"] + " " + g["metric"]
    if g["effect_pct"] != sys.argv[3]:
        print(k, "effect_pct", g["effect_pct"]); bad += 1
    if g["ci_low"] == "" or float(g["mean_a"]) == 0:
        if g["reps_for_effect"] != "":
            print(k, "reps without an interval"); bad += 1
        continue
    ma = float(g["mean_a"]); lo = float(g["ci_low"]); hi = float(g["ci_high"])
    hwp = (hi - lo) / 2 / abs(ma) * 100
    if abs(hwp - float(g["half_width_pct"])) > 1e-4 * max(1, hwp):
        print(k, "half_width_pct want %g got %s" % (hwp, g["half_width_pct"])); bad += 1
    if g["metric"] not in ("wall_s", "mb_s"):
        continue
    va = float(g["sd_a"]) ** 2; vb = float(g["sd_b"]) ** 2
    d = eff / 100 * abs(ma)
    def power(n):
        if va + vb == 0:
            return 1
        df = (va + vb) ** 2 * (n - 1) / (va * va + vb * vb)
        c = stats.t.ppf(0.975, df)
        ncp = d / math.sqrt((va + vb) / n)
        # T = (Z + ncp) / sqrt(V / df), V chi-squared with df: P(T > c)
        lo, hi = stats.chi2.ppf([1e-12, 1 - 1e-12], df)
        return integrate.quad(lambda v: stats.norm.sf(c * math.sqrt(v / df) - ncp)
                              * stats.chi2.pdf(v, df), lo, hi, limit=200)[0]
    n = int(g["reps_for_effect"])
    if n < 2 or power(n) < 0.8 - 1e-9 or (n > 2 and power(n - 1) >= 0.8):
        print(k, "reps_for_effect %d: power(n) %g, power(n-1) %g" % (n, power(n), power(n - 1) if n > 2 else 0)); bad += 1
sys.exit(1 if bad else 0)
PY
check "half-width % and repetitions for 6 % match an independent computation" \
	"$PY" "$T/res.py" "$T/expect.py" "$T/csv" 6
check_eq "ws 2 wall: +/-4.54 % now; about 4 repetitions resolve 6 %" "4.53954|4" \
	"$(awk -F, '$1 == 2 && $2 == "wall_s" { print $19 "|" $21 }' "$T/csv")"
"$REPORT" "$DB" --compare a "b's" --effect 12 --csv >"$T/csv12" 2>/dev/null
check "--effect 12: its own repetitions, by the same definition" \
	"$PY" "$T/res.py" "$T/expect.py" "$T/csv12" 12
check_eq "--effect 12 needs fewer repetitions than 6 (ws 3 wall)" "12|4" \
	"$(awk -F, '$1 == 3 && $2 == "wall_s" { print $21 }' "$T/csv")|$(awk -F, '$1 == 3 && $2 == "wall_s" { print $21 }' "$T/csv12")"
check "text: the resolution lines, in the seed's words" \
	grep -q '^  wall s      could detect +/-4.54 %; to resolve 6 % on wall s: about 4 repetitions$' "$T/text"
check "text: one repetition gives no estimate" \
	sh -c "sed -n '/^4 workstations/,/^\$/p' '$T/text' | grep -q '^  wall s      no estimate: one repetition'"
check "json: half-width and repetitions as in the CSV" python3 -c "
import csv, json, sys
c = json.load(open(sys.argv[1]))['comparisons']
r = [g for g in csv.DictReader(open(sys.argv[2])) if g['method'] == 'welch']
assert len(c) == len(r), (len(c), len(r))
for j, g in zip(c, r):
    for f in ('half_width_pct', 'reps_for_effect', 'effect_pct'):
        assert (j[f] is None and g[f] == '') or abs(float(j[f]) - float(g[f])) <= 1e-5 * max(1, abs(float(g[f]))), (f, j[f], g[f])
" "$T/json" "$T/csv"
# ---- the second statistic: per repetition the mean play time of its
# streams and the mean of its reads, compared by a bootstrap over the
# repetitions.  Independent: the exact percentile bootstrap, every
# resample enumerated (3 repetitions a side: 27 x 27 equally likely
# pairs); the report's 2000 resamples must give a low end between the
# exact 1.5 % and 3.5 % quantiles and a high end between 96.5 % and 98.5 %.
cat >"$T/boot.py" <<'PY'
import csv, itertools, sys
steps = [l.split() for l in open(sys.argv[1])]
def reps(label, ws, metric):
    out = []
    for l in steps:
        if l[0] == label and int(l[1]) == ws:
            out.append(float(l[3]) if metric == "stream_s" else sum(float(x) for x in l[6:10]) / 4)
    return out
def means(v):
    return sorted(sum(c) / len(c) for c in itertools.product(v, repeat=len(v)))
def q(x, p):
    return x[min(len(x) - 1, int(p * len(x)))]
bad = 0
rows = [g for g in csv.DictReader(open(sys.argv[2])) if g["method"] == "bootstrap"]
for g in rows:
    ws = int(g["workstations"]); m = g["metric"]
    a = reps("a", ws, m); b = reps("b's", ws, m)
    if len(a) < 3 or len(b) < 3:
        if g["ci_low"] != "" or not g["verdict"].startswith("no interval"):
            print(ws, m, "an interval from fewer than 3 repetitions"); bad += 1
        continue
    d = sorted(y - x for x in means(a) for y in means(b))
    lo, hi = float(g["ci_low"]), float(g["ci_high"])
    eps = 1e-5 * max(1, abs(lo), abs(hi))
    if not (q(d, 0.015) - eps <= lo <= q(d, 0.035) + eps and q(d, 0.965) - eps <= hi <= q(d, 0.985) + eps):
        print(ws, m, "interval [%g, %g], exact 1.5-3.5 %%: %g-%g, 96.5-98.5 %%: %g-%g" % (
            lo, hi, q(d, 0.015), q(d, 0.035), q(d, 0.965), q(d, 0.985))); bad += 1
    if abs(float(g["diff"]) - (sum(b) / len(b) - sum(a) / len(a))) > 1e-5 * max(1, abs(float(g["diff"]))):
        print(ws, m, "diff", g["diff"]); bad += 1
    sig = not (lo <= 0 <= hi)
    if sig != g["verdict"].startswith("significant"):
        print(ws, m, "verdict", g["verdict"]); bad += 1
if len(rows) != 8:
    print("bootstrap rows: want 8 (the 4 counts both labels have, 2 metrics), got %d" % len(rows)); bad += 1
sys.exit(1 if bad else 0)
PY
check "bootstrap: intervals, differences and verdicts against the exact bootstrap" \
	python3 "$T/boot.py" "$T/steps" "$T/csv"
check_eq "bootstrap: ws 2 read us significant, worse; ws 3 stream s not" \
	"significant: B higher (worse)|not significant" \
	"$(awk -F, '$1 == 2 && $2 == "read_us" { print $17 }' "$T/csv")|$(awk -F, '$1 == 3 && $2 == "stream_s" { print $17 }' "$T/csv")"
check "bootstrap: the same interval in every report (seeded)" \
	sh -c "'$REPORT' '$DB' --compare a \"b's\" --csv 2>/dev/null | cmp -s - '$T/csv'"
check "text: the bootstrap table under each count" \
	sh -c "sed -n '/^2 workstations/,/^\$/p' '$T/text' | grep -q '^  read us .*significant: B higher (worse)\$'"
check "json: the bootstrap rows as in the CSV" python3 -c "
import csv, json, sys
j = json.load(open(sys.argv[1]))['bootstrap']
c = [g for g in csv.DictReader(open(sys.argv[2])) if g['method'] == 'bootstrap']
assert len(j) == len(c) == 8, (len(j), len(c))
for x, g in zip(j, c):
    assert (x['workstations'], x['metric']) == (int(g['workstations']), g['metric'])
    for f in ('mean_a', 'mean_b', 'ci_low', 'ci_high'):
        assert (x[f] is None and g[f] == '') or abs(x[f] - float(g[f])) <= 1e-5 * max(1, abs(x[f])), (f, x[f], g[f])
    assert x['verdict'] == g['verdict']
" "$T/json" "$T/csv"
check "A against A: the bootstrap finds nothing" sh -c \
	"'$REPORT' '$DB' --compare a a --csv 2>/dev/null | awk -F, '\$22 == \"bootstrap\" && \$17 ~ /^significant/ { bad = 1 } \$22 == \"bootstrap\" { n++ } END { exit bad || n != 10 }'"

# ---- sessions, continued: ctl against itself, two sessions a side: the
# sessions are the samples (n 2, their means)
check_eq "two sessions a label: Welch on the session means (n_a 2, mean 10.02)" "2|10.02" \
	"$("$REPORT" "$DB" --compare ctl ctl --csv 2>/dev/null | awk -F, '$1 == 2 && $2 == "wall_s" { print $3 "|" $4 }')"
check "two sessions a label: the text says so" sh -c \
	"'$REPORT' '$DB' --compare ctl ctl | grep -q '^2 workstations: A 4 repetitions, B 4 repetitions; sessions A 2, B 2: Welch on the session means\$'"
# a drift of 18.51 % between ctl's sessions (10.00 s and 12.04 s: 2.04 / 11.02): ws 2 wall's interval
# (+3.9 % to +13.1 %) no longer lies beyond it
ctl_drop
ctl 12.04 | sqlite3 "$DB"
check_eq "one session a label, drift 18.51 %: ws 2 wall within it, not resolved" \
	"not resolved: within the drift between sessions (+/-18.51 %)" \
	"$("$REPORT" "$DB" --compare a "b's" --csv 2>/dev/null | awk -F, '$1 == 2 && $2 == "wall_s" { print $17 }')"
ctl_drop

# ---- --spread: per label and count, the agreement of the repetitions
"$REPORT" "$DB" a --spread --csv >"$T/spread" 2>"$T/err"
check_eq "--spread --csv header" \
	"label,workstations,metric,n,mean,sd,cv_pct,t,half_width,half_width_pct,outliers" \
	"$(head -1 "$T/spread")"
check "--spread: mean, sd, cv, t and half-width against Python" python3 -c "
import csv, statistics, sys
steps = [l.split() for l in open(sys.argv[1]) if l.split()[0] == 'a']
t975 = {2: 4.302652730, 1: 12.70620474}
rows = [g for g in csv.DictReader(open(sys.argv[2])) if g['metric'] == 'wall_s']
assert len(rows) == 5, len(rows)
for g in rows:
    v = [float(l[3]) for l in steps if l[1] == g['workstations']]
    assert int(g['n']) == len(v), g
    assert abs(float(g['mean']) - statistics.mean(v)) < 1e-6, g
    if len(v) < 2:
        assert g['sd'] == '' and g['half_width'] == '', g
        continue
    sd = statistics.stdev(v)
    assert abs(float(g['sd']) - sd) < 1e-5 * max(1, sd), g
    assert abs(float(g['cv_pct']) - sd / statistics.mean(v) * 100) < 1e-4, g
    assert abs(float(g['t']) - t975[len(v) - 1]) < 1e-5, g
    hw = t975[len(v) - 1] * sd / len(v) ** 0.5
    assert abs(float(g['half_width']) - hw) < 1e-5 * max(1, hw), g
" "$T/steps" "$T/spread"
# an outlier is reported, not dropped: 5 repetitions, one far out
cat >"$T/out.awk" <<'AWK'
BEGIN {
	print "begin; insert into run (id, label, started_at) values (9, 'o', 'x');"
	split("10.0 10.1 9.9 10.05 14.0", w, " ")
	for (i = 1; i <= 5; i++) {
		printf "insert into stream (id, run_id, pid, opened_ns, closed_ns, bytes, frames, late_frames, failed_frames) values (%d, 9, 1, 0, %.0f, 1000000, 10, 0, 0);\n", 900 + i, w[i] * 1e9
		printf "insert into bench_step (id, run_id, label, workstations, repetition, started_ns, ended_ns, wall_s, reader) values (%d, 9, 'o', 1, %d, 0, %.0f, %s, 'dd');\n", 900 + i, i, w[i] * 1e9, w[i]
		printf "insert into bench_stream values (%d, %d);\n", 900 + i, 900 + i
	}
	print "commit;"
}
AWK
ODB=$T/o.db
cp "$DB" "$ODB"
awk -f "$T/out.awk" /dev/null | sqlite3 "$ODB"
check_eq "--spread: the far repetition is an outlier, and still counted" \
	'5|"step 905 (rep 5) 14"' \
	"$("$REPORT" "$ODB" 9 --spread --csv | awk -F, '$3 == "wall_s" { print $4 "|" $11 }')"
check "--spread --json is valid, its outliers listed" python3 -c "
import json, sys
d = json.load(open(sys.argv[1]))
w = [r for r in d if r['metric'] == 'wall_s'][0]
assert w['n'] == 5 and w['outliers'] == [{'step': 905, 'repetition': 5, 'value': 14}], w
" "$("$REPORT" "$ODB" 9 --spread --json >"$T/sj" && echo "$T/sj")"
check "--spread text: the outlier named" sh -c \
	"'$REPORT' '$ODB' 9 --spread | grep -q 'step 905 (rep 5) 14\$'"

for bad in 0 -3 abc 1.2.3 ''; do
	rc=0
	"$REPORT" "$DB" --compare a "b's" --effect "$bad" >/dev/null 2>"$T/err" || rc=$?
	check_eq "--effect '$bad' is a usage error" "2|1" "$rc|$(grep -c 'bad --effect' "$T/err")"
done
check_eq "--effect without --compare is a usage error" 2 \
	"$("$REPORT" "$DB" --effect 6 >/dev/null 2>&1 || echo $?)"

# ------------------------------------------------------------ environments
# The environments of a (runs 2 and 4: run 4 has no streams, so no
# repetition, but its clocksource differs) and b's (run 3): config_hz
# differs between the labels, clocksource within a; opt.label always
# differs and is no difference.  On a copy: the summaries below count runs.
EDB=$T/env.db
cp "$DB" "$EDB"
sqlite3 "$EDB" "insert into run (id, label, started_at) values (4, 'a', 'x');
	insert into run_env values (2, 'config_hz', '100'), (2, 'clocksource', 'tsc'),
	(2, 'opt.label', 'a'), (2, 'media_fs_type', 'ext4'),
	(3, 'config_hz', '1000'), (3, 'clocksource', 'tsc'), (3, 'opt.label', 'b''s'),
	(3, 'media_fs_type', 'ext4'),
	(4, 'config_hz', '100'), (4, 'clocksource', 'hpet'), (4, 'opt.label', 'a'),
	(4, 'media_fs_type', 'ext4'), (2, 'boot_id', 'boot-1'), (3, 'boot_id', 'boot-2')"
"$REPORT" "$EDB" --compare a "b's" >"$T/etext"
# the boot is a session's: counted with the sessions, never a difference
check "text: each label's boots counted with its sessions" \
	grep -q "^sessions (each run a mount of its own): A (a) 1 session (1 boot), B (b's) 1 session (1 boot)\$" "$T/etext"
check_none "text: boot_id is no environment difference" \
	"$(sed -n '1,/^compare/p' "$T/etext" | grep boot_id)"
check_eq "text: the environments' difference comes first" \
	"environment (run_env): what differs between A (a) and B (b's)|  config_hz              100 | 1000" \
	"$(sed -n 1,2p "$T/etext" | paste -sd '|')"
check "text: a label whose runs differ is named in the difference" \
	grep -q '^  clocksource            tsc (run 2), hpet (run 4) | tsc$' "$T/etext"
check "text: and warned about" \
	grep -q "^warning: the runs of A (a) differ among themselves in clocksource: tsc (run 2), hpet (run 4)$" "$T/etext"
check_none "text: keys alike and the label are no difference" \
	"$(sed -n '1,/^compare/p' "$T/etext" | grep -E 'media_fs_type|opt.label')"
check "text: the environment before the metrics" \
	sh -c "[ \$(grep -n '^compare a' '$T/etext' | cut -d: -f1) -gt \$(grep -n 'config_hz' '$T/etext' | cut -d: -f1) ]"
"$REPORT" "$EDB" --compare a "b's" --csv >"$T/ecsv" 2>"$T/eerr"
# (the table of this database, now without ctl: no drift measured)
check_eq "csv: the table unchanged on stdout" \
	"$("$REPORT" "$DB" --compare a "b's" --csv 2>/dev/null)" "$(cat "$T/ecsv")"
check "csv: the difference on stderr" \
	grep -q "^timelinefs-report: environment differs: config_hz  100 | 1000$" "$T/eerr"
check "csv: the warning on stderr" \
	grep -q "^timelinefs-report: warning: the runs of A (a) differ among themselves in clocksource" "$T/eerr"
check "json: environment differences and warnings" python3 -c "
import json, sys
e = json.load(open(sys.argv[1]))['environment']
d = {x['key']: x for x in e['differences']}
assert set(d) == {'config_hz', 'clocksource'}, d
assert d['config_hz']['a'] == [{'value': '100', 'runs': [2, 4]}], d
assert d['config_hz']['b'] == [{'value': '1000', 'runs': [3]}], d
w = e['warnings']
assert len(w) == 1 and w[0]['label'] == 'a' and w[0]['key'] == 'clocksource', w
assert e['runs_without_environment'] == {'a': 0, 'b': 0}
" "$("$REPORT" "$EDB" --compare a "b's" --json >"$T/ejson" && echo "$T/ejson")"
check_eq "one label with itself: nothing differs, one warning" "  nothing: the same 3 keys in every run of both|1" \
	"$("$REPORT" "$EDB" --compare "b's" "b's" | sed -n 2p)|$("$REPORT" "$EDB" --compare a a | grep -c '^warning')"
# a database of an older timelinefs: no run_env table
cp "$EDB" "$T/noenv.db"
sqlite3 "$T/noenv.db" "drop table run_env"
check "no run_env table: said, and the metrics compared" sh -c \
	"'$REPORT' '$T/noenv.db' --compare a \"b's\" >'$T/ntext' &&
	grep -q 'nothing to compare: A has no environment recorded' '$T/ntext' &&
	grep -q 'note: 2 runs of A (a) have no environment recorded' '$T/ntext' &&
	grep -q 'note: 1 run of B (b.s) has no environment recorded' '$T/ntext' &&
	grep -q '^  wall s .*significant' '$T/ntext'"

# ------------------------------------------------------------ summaries
"$REPORT" "$DB" >"$T/all"
for s in runs "benchmark steps" "headroom against workstations" streams "latency per track" "the cost of cuts"; do
	check "summary shows $s" grep -q "^$s" "$T/all"
done
check "the forecast under the headroom table, an estimate or none and why" sh -c "
	sed -n '/^headroom against workstations/,/^streams/p' '$T/all' |
	grep -Eq '^forecast for .*(\\(an estimate, from .* headroom reaches zero near|: none \\()'"
check_eq "RUN by label selects its runs" "3" \
	"$("$REPORT" "$DB" "b's" --runs --csv | awk -F, 'NR > 1 { print $1 }')"
check_eq "RUN by id, --steps --csv rows" "11" \
	"$("$REPORT" "$DB" 2 --steps --csv | awk 'NR > 1' | wc -l | tr -d ' ')"
check_eq "--csv defaults to the streams" "stream,run,step,timeline" \
	"$("$REPORT" "$DB" 1 --csv | head -1 | cut -d, -f1-4)"
check "streams: the FUSE requests after the latency, then the headroom" sh -c "
	'$REPORT' '$DB' 1 --csv | head -1 |
	grep -q ',max_us,requests,kib_per_req,reloads,seeks,hr_min_us,hr_p1_us,hr_p5_us,hr_p50_us\$'"
# a file of schema version 1, never opened by this timelinefs: its
# stream_summary has no requests, and the report leaves them out
cp "$DB" "$T/v1.db"
sqlite3 "$T/v1.db" "drop view stream_summary;
	create view stream_summary as select s.id as stream_id, s.run_id,
	t.name as timeline, s.pid, s.comm, 0 as duration_s, s.bytes,
	0 as mb_s, s.frames, s.late_frames, s.failed_frames, 0 as accesses,
	0 as late_accesses, 0 as p50_us, 0 as p95_us, 0 as p99_us,
	0 as max_us from stream s left join timeline t on t.id = s.timeline_id"
check_eq "a version 1 file: streams without the requests" "max_us" \
	"$("$REPORT" "$T/v1.db" 1 --csv | head -1 | awk -F, '{ print $NF }')"
check "runs: the problems after rows_lost, then the headroom" sh -c "
	'$REPORT' '$DB' --runs --csv | head -1 |
	grep -q ',rows_lost,problems,hr_min_us,hr_p1_us,hr_p5_us,hr_p50_us\$'"
check "--json of all tables is valid JSON" python3 -c "
import json, sys
d = json.loads(sys.stdin.read())
assert set(d) == {'runs', 'steps', 'streams', 'tracks', 'cuts', 'headroom', 'forecast'}
assert len(d['runs']) == 3 and d['steps'][0]['step'] == 1
# per label a forecast: a number with its interval, or none and why
f = d['forecast']
assert sorted(x['label'] for x in f) == sorted(set(s['label'] for s in d['steps'])), f
assert all((x['estimate'] is None) == (x['reason'] is not None) for x in f), f
" <"$("$REPORT" "$DB" --json >"$T/all.json" && echo "$T/all.json")"
# Bug (user acceptance): --json printed floats as sqlite3 -json does,
# 56.511000000000002783; expected: the numbers as --csv and the text
# tables print them (15 significant digits: 56.511).
check "--json numbers read as --csv prints them, every table" python3 -c "
import csv, json, subprocess, sys
rep, db = sys.argv[1], sys.argv[2]
def run(*a):
    return subprocess.run([rep, db] + list(a), capture_output=True, text=True,
                          check=True).stdout
for t in ('runs', 'steps', 'streams', 'tracks', 'cuts'):
    j = json.loads(run('--' + t, '--json'), parse_float=str, parse_int=str)
    c = list(csv.DictReader(run('--' + t, '--csv').splitlines()))
    assert len(j) == len(c), (t, len(j), len(c))
    for a, b in zip(j, c):
        assert list(a) == list(b), (t, list(a), list(b))
        for k, v in a.items():
            assert ('' if v is None else v) == b[k], (t, k, v, b[k])
" "$REPORT" "$DB"
check_none "--json: no float longer than 15 significant digits" \
	"$("$REPORT" "$DB" --json | grep -oE '[0-9]\.[0-9]{16,}' | head -n 3)"
check_eq "--json of an empty table is []" "[]" \
	"$("$REPORT" "$DB" 1 --steps --json)"
# Bug: --csv --json silently used the last one; expected: a usage error
for both in "--csv --json" "--json --csv" "--compare a b --csv --json"; do
	rc=0
	# shellcheck disable=SC2086
	"$REPORT" "$DB" $both >/dev/null 2>"$T/err" || rc=$?
	check_eq "'$both' is a usage error naming both" "2|1" \
		"$rc|$(grep -c -- 'give one of --csv, --json' "$T/err")"
done
check "an unknown label is an error" sh -c "! '$REPORT' '$DB' --compare a nope 2>'$T/err' && grep -q \"no run labelled 'nope'\" '$T/err'"
check "an unknown run is an error" sh -c "! '$REPORT' '$DB' 99 2>/dev/null"
check "a missing database is an error" sh -c "! '$REPORT' '$T/none.db' 2>/dev/null"
check_eq "usage error exits 2" 2 "$("$REPORT" "$DB" --bogus 2>/dev/null || echo $?)"

# --html: one page, written whole or not at all; its bad input said as
# the other modes' (the page's parts: tests/python/test_html.py)
rc=0
"$REPORT" "$DB" --compare a "b's" --html "$T/r.html" --effect 4 >"$T/out" 2>"$T/err" || rc=$?
check_eq "--html --compare --effect: exit 0, 'wrote OUT', nothing on stderr" "0|wrote $T/r.html|" \
	"$rc|$(cat "$T/out")|$(cat "$T/err")"
want=$("$REPORT" "$DB" --compare a "b's" --csv 2>/dev/null | awk -F, '$1 == 2 && $2 == "wall_s" { print $17 }')
check "--html: ws 2 wall's verdict as --compare's ($want)" \
	grep -qF "<td class=\"verdict $(case $want in not\ resolved*) echo unresolved ;; not\ sig*) echo ns ;; *) echo x ;; esac)\">$want</td>" "$T/r.html"
check "--html: --effect in the resolution" grep -qF "to resolve 4 %: about" "$T/r.html"
cp "$T/r.html" "$T/r.keep"
for bad in "--html" "--html ''" "--html $T/x.html --csv" "--html $T/x.html --json" \
	"--html $T/x.html --runs" "--html $T/x.html --spread"; do
	rc=0
	eval "\"\$REPORT\" \"\$DB\" $bad" >/dev/null 2>"$T/err" || rc=$?
	check_eq "'$bad' is a usage error with a reason" "2|1" \
		"$rc|$(grep -c "^timelinefs-report: .*--html" "$T/err")"
done
rc=0
"$REPORT" "$T/none.db" --html "$T/x.html" 2>"$T/err" || rc=$?
check_eq "--html: no such database, exit 1, said" "1|timelinefs-report: no database $T/none.db" \
	"$rc|$(cat "$T/err")"
echo "not a database" >"$T/text.db"
rc=0
"$REPORT" "$T/text.db" --html "$T/x.html" 2>"$T/err" || rc=$?
check_eq "--html: not a timelinefs database, exit 1, said" \
	"1|timelinefs-report: $T/text.db is not a timelinefs database" "$rc|$(cat "$T/err")"
rc=0
"$REPORT" "$DB" --html "$T/nodir/r.html" 2>"$T/err" || rc=$?
check_eq "--html: OUT in no folder, exit 1, said" \
	"1|timelinefs-report: cannot write $T/nodir/r.html: No such file or directory" "$rc|$(cat "$T/err")"
rc=0
"$REPORT" "$DB" --compare a nope --html "$T/r.html" 2>"$T/err" || rc=$?
check_eq "--html: an unknown label, exit 1, said" "1|1" \
	"$rc|$(grep -c "no run labelled 'nope'" "$T/err")"
check "--html: a failed page leaves OUT as it was" cmp -s "$T/r.html" "$T/r.keep"
check_none "--html: no page of a failure, no temporary file left" \
	"$(find "$T" -maxdepth 1 -name '*x.html*' -o -maxdepth 1 -name '.r.html*')"
"$REPORT" "$DB" "b's" --html "$T/runs.html" >/dev/null 2>&1 || :
check_eq "--html RUN...: its runs, and one label is no comparison" "1|1" \
	"$(grep -c 'fewer than two labels in these runs: nothing to compare' "$T/runs.html")|$(grep -c ', 1 run; written' "$T/runs.html")"

# issue 21: decoding dependency reads (access.dep) are a column of their
# own, dep_reads, in the runs and streams tables where a run has any
DDB=$T/dep.db
cat "$TOP"/schema/*.sql | sqlite3 "$DDB"
sqlite3 "$DDB" "insert into run (id, label, started_at) values (1, 'gop', 'x');
	insert into stream (id, run_id, opened_ns, closed_ns, bytes, frames) values (1, 1, 0, 1000, 10, 2);
	insert into access (stream_id, frame, track, clip, file_offset, length, sched_ns, due_ns, issued_ns, done_ns, dep)
	values (1, 0, 'V', 'c', 0, 5, 0, 100, 0, 10, 1), (1, 0, 'V', 'c', 5, 5, 0, 100, 10, 20, 1),
	(1, 0, 'V', 'c', 10, 5, 0, 100, 20, 30, 0), (1, 1, 'V', 'c', 15, 5, 0, 100, 30, 40, 0)"
check_eq "--streams: dep_reads 2 of 4 accesses" "4|2" \
	"$("$REPORT" "$DDB" --streams --csv | awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i }
		NR == 2 { print $c["accesses"] "|" $c["dep_reads"] }')"
check_eq "--runs: dep_reads 2" "2" \
	"$("$REPORT" "$DDB" --runs --csv | awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i }
		NR == 2 { print $c["dep_reads"] }')"
check_eq "no dependency read: no dep_reads column" "0" \
	"$("$REPORT" "$DB" --streams --csv | head -1 | grep -c dep_reads)"

# issue 22: an image sequence's opens, header reads and closes (access.op)
# are columns of their own where a run has any
SDB=$T/seq.db
cat "$TOP"/schema/*.sql | sqlite3 "$SDB"
sqlite3 "$SDB" "insert into run (id, label, started_at) values (1, 'dpx', 'x');
	insert into stream (id, run_id, opened_ns, closed_ns, bytes, frames) values (1, 1, 0, 1000, 10, 1);
	insert into access (stream_id, frame, track, clip, file_offset, length, sched_ns, due_ns, issued_ns, done_ns, op, image)
	values (1, 0, 'V', 'c', 0, 0, 0, 100, 0, 10, 1, 86400), (1, 0, 'V', 'c', 0, 4096, 0, 100, 10, 20, 2, 86400),
	(1, 0, 'V', 'c', 2048, 10, 0, 100, 20, 30, 0, 86400), (1, 0, 'V', 'c', 0, 0, 0, 100, 30, 40, 3, 86400)"
check_eq "--streams: 1 open, 1 header read, 1 close of 4 accesses" "4|1|1|1" \
	"$("$REPORT" "$SDB" --streams --csv | awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i }
		NR == 2 { print $c["accesses"] "|" $c["opens"] "|" $c["header_reads"] "|" $c["closes"] }')"
check_eq "--runs: opens 1" "1" \
	"$("$REPORT" "$SDB" --runs --csv | awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i }
		NR == 2 { print $c["opens"] }')"
check_eq "no sequence: no opens column" "0" \
	"$("$REPORT" "$DDB" --streams --csv | head -1 | grep -c opens)"

# issue 23: a run that recorded (stream.kind 'record', schema version 11)
# shows play and record apart: a play stream with one late frame and a
# record stream (ingest/cam1) with 2 dropped frames, one by its writer,
# in one bench step; the step's read latency (--spread) is the play
# stream's reads' (10 us), not the recording's writes (1000 us) nor its
# receives (5000 us, the writer's)
IDB=$T/ingest.db
cat "$TOP"/schema/*.sql | sqlite3 "$IDB"
sqlite3 "$IDB" "insert into run (id, label, started_at) values (1, 'mix', 'x');
	insert into timeline (id, run_id, name) values (1, 1, 'tl1');
	insert into stream (id, run_id, timeline_id, kind, file, opened_ns, closed_ns, bytes, frames, late_frames, failed_frames, writer_drops)
	values (1, 1, 1, 'play', 'tl1', 0, 2000000000, 8000, 4, 1, 0, 0),
	(2, 1, NULL, 'record', 'ingest/cam1', 0, 1000000000, 3000, 3, 2, 0, 1);
	insert into access (stream_id, frame, track, clip, file_offset, length, sched_ns, due_ns, issued_ns, done_ns, op)
	values (1, 0, 'V', 'c', 0, 2000, 0, 100000, 0, 10000, 0), (1, 1, 'V', 'c', 2000, 2000, 0, 100000, 0, 10000, 0),
	(2, 0, 'V', 'cam1', 0, 1000, 0, 100000, 0, 5000000, 9), (2, 0, 'V', 'cam1', 0, 1000, 0, 100000, 0, 1000000, 5);
	insert into bench_step (id, run_id, label, workstations, repetition, wall_s) values (1, 1, 'mix', 1, 1, 2.0);
	insert into bench_stream values (1, 1), (1, 2)"
# col CSV NAME...: the named columns of the CSV's first row, '|' apart
col() {
	printf '%s\n' "$1" | awk -F, -v want="$2" 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; n = split(want, w, " ") }
		NR == 2 { for (i = 1; i <= n; i++) printf "%s%s", (i > 1 ? "|" : ""), (w[i] in c ? $c[w[i]] : "none"); print "" }'
}
check_eq "--runs: late frames the player's, dropped frames the recorder's" "1|2|1|1|1|3" \
	"$(col "$("$REPORT" "$IDB" --runs --csv)" "late_frames dropped_frames writer_drops play_streams record_streams record_frames")"
check_eq "--runs: each kind's p99, the writes' not the receives'" "10.0|1000.0" \
	"$(col "$("$REPORT" "$IDB" --runs --csv)" "play_p99_us record_p99_us")"
check_eq "--streams: the record stream's kind, file, dropped frames as late ones" "record|ingest/cam1|2|1" \
	"$("$REPORT" "$IDB" --streams --csv | awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i }
		NR == 3 { print $c["kind"] "|" $c["timeline"] "|" $c["late_frames"] "|" $c["writer_drops"] }')"
check_eq "--steps: play and record apart" "1|2|1|1" \
	"$(col "$("$REPORT" "$IDB" --steps --csv)" "late_frames dropped_frames play_streams record_streams")"
check_eq "--spread: a step's read latency is its play streams' reads'" "10" \
	"$("$REPORT" "$IDB" --spread --csv | awk -F, '$3 == "read_us" { print $5 }')"
check_eq "--spread: a step's stream time is its play streams'" "2" \
	"$("$REPORT" "$IDB" --spread --csv | awk -F, '$3 == "stream_s" { print $5 }')"
check_eq "--tracks: a track read apart from the track written" "V|2|10.0|play V|1|1000.0|record" \
	"$("$REPORT" "$IDB" --tracks --csv | awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i }
		NR > 1 { printf "%s%s", (NR > 2 ? " " : ""), $c["track"] "|" $c["accesses"] "|" $c["max_us"] "|" $c["kind"] }')"
# --compare of two labels that recorded: dropped frames are a metric
# (run 2, label mix2: 4 dropped, 3 late)
sqlite3 "$IDB" "insert into run (id, label, started_at) values (2, 'mix2', 'x');
	insert into stream (id, run_id, timeline_id, kind, file, opened_ns, closed_ns, bytes, frames, late_frames, failed_frames, writer_drops)
	values (3, 2, NULL, 'play', 'tl1', 0, 2000000000, 8000, 4, 3, 0, 0),
	(4, 2, NULL, 'record', 'ingest/cam1', 0, 1000000000, 3000, 3, 4, 0, 0);
	insert into bench_step (id, run_id, label, workstations, repetition, wall_s) values (2, 2, 'mix2', 1, 1, 2.0);
	insert into bench_stream values (2, 3), (2, 4)"
check_eq "--compare: late frames and dropped frames, A against B" "late_frames|1|3 dropped_frames|2|4" \
	"$("$REPORT" "$IDB" --compare mix mix2 --csv 2>/dev/null | awk -F, '$NF == "welch" && ($2 == "late_frames" || $2 == "dropped_frames") {
		printf "%s%s|%s|%s", (n++ ? " " : ""), $2, $4, $7 }')"
check_eq "--compare without a recording: no dropped frames" "0" \
	"$("$REPORT" "$DB" --compare a "b's" --csv 2>/dev/null | grep -c dropped_frames)"
"$REPORT" "$IDB" 1 >"$T/mix"
check "text: the runs table says late and dropped frames apart" \
	grep -q "^runs .*dropped_frames: the record streams'" "$T/mix"
check_eq "no open, header read or close: no opens column" "0" \
	"$("$REPORT" "$IDB" --runs --csv | head -1 | grep -c opens)"
check_eq "no record stream: no kind nor dropped_frames column" "0|0" \
	"$("$REPORT" "$SDB" --streams --csv | head -1 | grep -c kind)|$("$REPORT" "$SDB" --runs --csv | head -1 | grep -c dropped_frames)"

# ------------------------------------------------------------ many hosts
# Issue 24, schema version 12: run_axis's offset at a run's t0, by the
# rule of engine/hosts eng_clock_axis (linear between the start and end
# measurements, the nearer outside, the start's without an end or with
# an interval that is empty or drifts as fast as the clock, halves
# rounded away from 0); host 1 no measurement (0), 2 start only, 3 a
# line of 2000 ns over 1 s, 4 an end before its start, 5 a drift of 2 s
# over 1 s, 6 1 ms over an hour at 1.7e18 (a product past 64 bits)
HDB=$T/hosts.db
cat "$TOP"/schema/*.sql | sqlite3 "$HDB"
hq() { sqlite3 -batch -noheader "$HDB" "$1"; }
hq "insert into host (id, name, offset_start_ns, t_start_ns, offset_end_ns, t_end_ns) values
	(1, 'none', null, null, null, null), (2, 'start', 5000, 1000, null, null),
	(3, 'line', 1000, 1000000000, 3000, 2000000000), (4, 'backwards', 7, 2000, 9, 1000),
	(5, 'fast', 0, 0, 2000000000, 1000000000),
	(6, 'big', 0, 1700000000000000000, 1000000, 1700003600000000000);
	insert into run (id, started_at, t0_unix_ns, host_id) values
	(1, 'x', 123, 1), (2, 'x', 99999, 2), (3, 'x', 500000000, 3), (4, 'x', 1500000000, 3),
	(5, 'x', 2500000000, 3), (6, 'x', 1250000000, 3), (7, 'x', 1000750000, 3),
	(8, 'x', 1000250000, 3), (9, 'x', 1500, 4), (10, 'x', 500000000, 5),
	(11, 'x', 1700001800000000000, 6), (12, 'x', null, 3), (13, 'x', 77, null)"
check_eq "run_axis: offsets by eng_clock_axis's rule" \
	"1|0|123 2|5000|94999 3|1000| 4|2000| 5|3000| 6|1500| 7|1002| 8|1001| 9|7| 10|0| 11|500000| 12|| 13|0|77" \
	"$(hq "select group_concat(run_id || '|' || coalesce(offset_ns, '') || '|' ||
		case when run_id in (1, 2, 13) then t0_axis_ns else '' end, ' ') from run_axis")"
check_eq "run_axis: t0 on the axis is t0 minus the offset" "0" \
	"$(hq "select count(*) from run_axis where t0_axis_ns <> t0_unix_ns - offset_ns")"
# the lower median and the straggler: 2 hosts ending 10 and 30 ms after
# a common start (lags 0 and 20), a third that played nothing
hq "insert into experiment (id, uuid, started_at, ranks, plan) values (1, 'e', 'x', 3, 'list');
	insert into host (id, experiment_id, rank, name) values (7, 1, 0, 'h0'), (8, 1, 1, 'h1'), (9, 1, 2, 'h2');
	insert into run (id, started_at, t0_unix_ns, host_id) values (20, 'x', 1000000000, 7), (21, 'x', 2000000000, 8);
	insert into bench_step (id, run_id, workstations, repetition, started_ns, ended_ns, wall_s,
		experiment_id, step_no, total_workstations, planned_unix_ns) values
	(1, 20, 1, 1, 1000000000, 1010000000, 0.01, 1, 1, 2, 1999000000),
	(2, 21, 1, 1, 0, 30000000, 0.03, 1, 1, 2, 1999000000)"
check_eq "experiment_host_step: start after the plan, lag behind the lower median end" "0|1.0|0.0 1|1.0|20.0" \
	"$(hq "select group_concat(rank || '|' || start_ms || '|' || lag_ms, ' ') from experiment_host_step")"
check_eq "experiment_step_summary: 2 of 3 hosts, incomplete, wall 0.03 s, the straggler h1 20 ms late" \
	"2|3|0|0.03|0.0|h1|1|20.0" \
	"$(hq "select hosts_played || '|' || hosts_expected || '|' || complete || '|' || wall_s || '|' ||
		start_spread_ms || '|' || straggler || '|' || straggler_rank || '|' || lag_ms
		from experiment_step_summary")"
check_eq "experiment_summary: machines unknown (no machine ids), no note" "3||||0" \
	"$(hq "select ranks || '|' || coalesce(machines, '') || '|' || coalesce(note, '') || '|' ||
		coalesce(max_lo, '') || '|' || complete_steps from experiment_summary")"
hq "update host set machine_id = 'm' where experiment_id = 1"
check_eq "experiment_summary: the hosts' one machine id: 1 machine, one physical host" "1|one physical host" \
	"$(hq "select machines || '|' || note from experiment_summary")"
"$REPORT" "$HDB" >"$T/hosts.txt" 2>&1 || :
check "report: '3 ranks on 1 machine' said" \
	grep -qx '3 ranks on 1 machine: one physical host, not a scale-out measurement' "$T/hosts.txt"

# the hosts expected in a step are those rank 0 gave workstations
# (experiment_share), not every host row: experiment 2 of 3 hosts, step 1
# one workstation each (all played), 2 one in total (find-max from 1:
# h1 and h2 given 0, only h0 played), 3 h2 given 1 and missing (it died),
# 4 after it died (h2 given 0, h0 and h1 played), 5 shared out and played
# by nobody (stopped), 6 without shares (a step written by hand: every
# host row expected, h2 missed it)
hq "insert into experiment (id, uuid, started_at, ranks, plan) values (2, 'f', 'x', 3, 'find-max');
	insert into host (id, experiment_id, rank, name) values (10, 2, 0, 'g0'), (11, 2, 1, 'g1'), (12, 2, 2, 'g2');
	insert into run (id, started_at, t0_unix_ns, host_id) values (30, 'x', 0, 10), (31, 'x', 0, 11), (32, 'x', 0, 12);
	insert into experiment_share (experiment_id, step_no, rank, workstations, repetition,
		total_workstations, planned_unix_ns) values
	(2, 1, 0, 1, 1, 3, 0), (2, 1, 1, 1, 1, 3, 0), (2, 1, 2, 1, 1, 3, 0),
	(2, 2, 0, 1, 1, 1, 0), (2, 2, 1, 0, 1, 1, 0), (2, 2, 2, 0, 1, 1, 0),
	(2, 3, 0, 2, 1, 5, 0), (2, 3, 1, 2, 1, 5, 0), (2, 3, 2, 1, 1, 5, 0),
	(2, 4, 0, 3, 1, 5, 0), (2, 4, 1, 2, 1, 5, 0), (2, 4, 2, 0, 1, 5, 0),
	(2, 5, 0, 4, 1, 8, 0), (2, 5, 1, 4, 1, 8, 0), (2, 5, 2, 0, 1, 8, 0);
	insert into bench_step (run_id, workstations, repetition, started_ns, ended_ns, wall_s,
		experiment_id, step_no, total_workstations, planned_unix_ns) values
	(30, 1, 1, 0, 1000, 0, 2, 1, 3, 0), (31, 1, 1, 0, 1000, 0, 2, 1, 3, 0), (32, 1, 1, 0, 1000, 0, 2, 1, 3, 0),
	(30, 1, 1, 0, 1000, 0, 2, 2, 1, 0),
	(30, 2, 1, 0, 1000, 0, 2, 3, 5, 0), (31, 2, 1, 0, 1000, 0, 2, 3, 5, 0),
	(30, 3, 1, 0, 1000, 0, 2, 4, 5, 0), (31, 2, 1, 0, 1000, 0, 2, 4, 5, 0),
	(30, 1, 1, 0, 1000, 0, 2, 6, 2, 0), (31, 1, 1, 0, 1000, 0, 2, 6, 2, 0)"
check_eq "experiment_step_summary with shares: step|played/expected|missed|complete|total" \
	"1|3/3|0|1|3 2|1/1|0|1|1 3|2/3|1|0|5 4|2/2|0|1|5 5|0/2|2|0|8 6|2/3|1|0|2" \
	"$(hq "select group_concat(step_no || '|' || hosts_played || '/' || hosts_expected || '|' ||
		hosts_missed || '|' || complete || '|' || total_workstations, ' ')
		from experiment_step_summary where experiment_id = 2")"
check_eq "experiment_step_expected: the missed (step rank workstations given)" \
	"3 2 1|5 0 4|5 1 4|6 2 -" \
	"$(hq "select group_concat(step_no || ' ' || rank || ' ' || coalesce(workstations, '-'), '|')
		from experiment_step_expected where experiment_id = 2 and not played")"
check_eq "experiment_step_summary without shares: every host row expected (experiment 1 as before)" \
	"2|3|1|0" \
	"$(hq "select hosts_played || '|' || hosts_expected || '|' || hosts_missed || '|' || complete
		from experiment_step_summary where experiment_id = 1")"
check_eq "experiment_summary: 6 steps, 3 complete (1, 2, 4)" "6|3" \
	"$(hq "select steps || '|' || complete_steps from experiment_summary where experiment_id = 2")"
check_eq "host_summary: missed steps and out since (g2 out since step 3; g0, g1 played step 6 after missing 5)" \
	"0|1| 1|1| 2|2|3" \
	"$(hq "select group_concat(rank || '|' || missed_steps || '|' || coalesce(out_since_step, ''), ' ')
		from host_summary where experiment_id = 2")"
check_eq "host_summary: a host outside an experiment has no missed count" "0" \
	"$(hq "select count(*) from host_summary where experiment_id is null and missed_steps is not null")"
"$REPORT" "$HDB" --exp-steps --csv >"$T/hsteps.csv" 2>&1 || :
check_eq "report --exp-steps: the missed rows, a host given workstations only (step, host, given)" \
	"2,3,g2,1 2,5,g0,4 2,5,g1,4 2,6,g2," \
	"$(awk -F, '$1 == 2 && $7 == "missed" { printf "%s%s,%s,%s,%s", n++ ? " " : "", $1, $2, $3, $5 }' "$T/hsteps.csv")"
check_eq "report --exp-steps: step 2 in total 1/1 complete, step 4 2/2 (g2 given 0: neither)" \
	"2,2,1/1,yes 2,4,2/2,yes" \
	"$(awk -F, '$1 == 2 && ($2 == 2 || $2 == 4) && $3 == "(total)" { printf "%s%s,%s,%s,%s", n++ ? " " : "", $1, $2, $7, $8 }' "$T/hsteps.csv")"
"$REPORT" "$HDB" --exp-means --csv >"$T/hmeans.csv" 2>&1 || :
check_eq "report --exp-means: 5 workstations, step 4 averaged, step 3 (g2 missed) left out" "1|1" \
	"$(awk -F, '$1 == 2 && $2 == 5 && $3 == "(total)" { print $5 "|" $6 }' "$T/hmeans.csv")"

if command -v shellcheck >/dev/null 2>&1; then
	check "shellcheck timelinefs-report" shellcheck "$REPORT"
fi
echo "$PASS passed, $FAIL failed"
[ "$FAIL" -eq 0 ]
