#!/bin/sh
# SPDX-License-Identifier: MIT
# make bench-verdict: does timelinefs-report --compare give verdicts a
# reviewer can trust across sessions?  On this machine, sequential
# sessions (each a timelinefs-bench invocation, a mount of its own) of 2
# workstations, 4 timelines of ~50 s, pace off, backing=buffered:
#
#  1. AA_SESSIONS (42) A/A sessions, the same build and options, each
#     AA_SECONDS (30) of bench time;
#  2. a slowdown of EFFECT (5) %: a delay of 1 ms on a fraction P of the
#     backing reads, P sized from the A/A sessions' reads and play time
#     (every delay paid in full), measured by an --ab (alternating
#     mounts, 2 x CAL_SECONDS): its wall time (at this noise an interval
#     wider than the effect) and the time its delays took as recorded
#     (access.injected: a 1 ms sleep takes 3 on a loaded machine), and P
#     rescaled once to what the recorded delays say (SLOWDOWN=P instead
#     skips this step);
#  3. the slowdown as sequential sessions A, B, A, B of SLOW_SECONDS
#     (150) each (labels base and slow);
#  4. the verdicts (tests/bench/verdict.py, each a timelinefs-report
#     --compare --json): (a) 20 A/A comparisons of two sessions a label
#     (sessions i..i+3 as A B B A, i = 1, 3, 5, ...), how many called
#     significant; (b) base against slow; (c) one session a label: the
#     A/A sessions in pairs, the drift measured from the other A/A
#     sessions, and what the verdict would be without the drift rule.
#
# Every session's time budget (--max-time with --resolve 0.1, a target
# it never meets) ends it, so the sessions of a kind are alike in
# length.  Each session writes a database of its own (the bench's
# summaries after each repetition read the whole database: in one
# shared database the sessions grew from 40 to 90 s by the 14th), merged
# into verdict.db by timelinefs-merge.  Everything is left in
# $TLFS_BUILD/verdict-work (verdict.db, db/, the sessions' outputs, the
# comparisons, summary).  AA_FIRST=N goes on after a run interrupted
# in the A/A sessions: from session N, the earlier ones' databases kept
# in db/; ANALYSE_ONLY=1 skips 1-3 and recomputes 4 from the verdict.db there
# (after a change to the statistics).  SLOWDOWN=P with AA_FIRST past
# the A/A sessions benches only step 3, with that P.  Takes about AA_SESSIONS x (AA_SECONDS + 10 s) +
# 2 x 2 x CAL_SECONDS + 4 x (SLOW_SECONDS + 10 s): 50 min with the
# defaults on a loaded machine.  Not part of make test: a measurement.
set -eu

: "${TLFS_BUILD:?set by make bench-verdict}"
TOP=${TLFS_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
: "${AA_SESSIONS:=42}"
: "${AA_SECONDS:=30}"
: "${EFFECT:=5}"
: "${CAL_SECONDS:=120}"
: "${SLOW_SECONDS:=150}"
# prime: the media read once before each repetition (from a disk); on a
# tmpfs build directory the media are in memory anyway: CACHE=keep
: "${CACHE:=prime}"
: "${ANALYSE_ONLY:=0}"
: "${AA_FIRST:=1}"
BENCH=$TOP/mount-scripts/timelinefs-bench
REPORT=$TOP/mount-scripts/timelinefs-report
GEN=$TLFS_BUILD/timelinefs-gen
MERGE=$TLFS_BUILD/timelinefs-merge
W=$TLFS_BUILD/verdict-work
M=$TLFS_BUILD/resolve-media
DB=$W/verdict.db
PY=${TLFS_PYTHON:-/usr/bin/python3}
export TIMELINEFS_BIN_DIR="$TLFS_BUILD"
COMMON="--media $M --workstations 2 --pace off --cache $CACHE --repeat 3 --resolve 0.1 --max-repeat 1000"

q() { sqlite3 -batch -noheader -cmd '.timeout 5000' "$DB" "$1"; }
log() { printf '%s\n' "$*" | tee -a "$W/summary"; }
load() { cut -d' ' -f1-3 /proc/loadavg; }

# one session: LABEL SECONDS [bench options...]; its database in db/,
# its output in sessions/
# numbered on from the databases already in db/ (AA_FIRST, SLOWDOWN)
n=$( (ls "$W/db" 2>/dev/null || :) | sed -n 's/^0*\([0-9][0-9]*\)-.*/\1/p' | sort -n | tail -1)
n=${n:-0}
[ "$n" -ge $((AA_FIRST - 1)) ] || n=$((AA_FIRST - 1))
session() {
	n=$((n + 1))
	l=$1
	s=$2
	shift 2
	f=$(printf '%02d' $n)-$l
	log "session $n: $l, $s s, $(date -u +%H:%M:%S), load $(load)"
	# shellcheck disable=SC2086
	"$BENCH" $COMMON --db "$W/db/$f.db" --max-time "${s}s" --label "$l" "$@" \
		>"$W/sessions/$f.out" 2>"$W/sessions/$f.err"
}
merge() { "$MERGE" "$DB" "$W"/db/*.db >>"$W/merge.log"; }

if [ "$ANALYSE_ONLY" != 1 ]; then
	[ "$AA_FIRST" != 1 ] || rm -rf "$W"
	mkdir -p "$W/sessions" "$W/db"
	# the media of make bench-resolve, shared
	GENOPTS="--clips 12 --timelines 4 --events 12 --min-seconds 3.8 --max-seconds 4.6"
	if [ "$(cat "$M/.resolve" 2>/dev/null)" != "$GENOPTS" ]; then
		rm -rf "$M"
		# shellcheck disable=SC2086
		"$GEN" $GENOPTS "$M" >/dev/null
		echo "$GENOPTS" >"$M/.resolve"
	fi
	log "verdict.sh $(date -u '+%Y-%m-%d %H:%M UTC'), $(uname -r), $(nproc) cores, load $(load); $AA_SESSIONS A/A sessions of $AA_SECONDS s, slowdown $EFFECT %, sessions of $SLOW_SECONDS s, --cache $CACHE"

	# ---- 1. A/A sessions
	i=$AA_FIRST
	while [ "$i" -le "$AA_SESSIONS" ]; do
		session "$(printf 'aa%02d' "$i")" "$AA_SECONDS" --mount-opts backing=buffered
		i=$((i + 1))
	done
	merge

	# ---- 2. the slowdown: 1 ms on a fraction P of the reads, sized
	# from the A/A sessions' play time and reads per stream as if every
	# delay were paid in full (a sleep of a few us costs tens: timer
	# slack and wake-up; 1 ms is what the kernel does exactly)
	stream_s=$(q "select avg(s.closed_ns - s.opened_ns) / 1e9 from stream s join bench_stream b on b.stream_id = s.id join bench_step t on t.id = b.step_id where t.label like 'aa%' and t.repetition > 0")
	reads=$(q "select avg(n) from (select count(*) n from access a join bench_stream b on b.stream_id = a.stream_id join bench_step t on t.id = b.step_id where t.label like 'aa%' and t.repetition > 0 group by a.stream_id)")
	p=$(awk -v s="$stream_s" -v r="$reads" -v e="$EFFECT" 'BEGIN { printf "%.6f", s / r * e / 100 / 0.001 }')
	log "slowdown: a stream plays in $stream_s s with $reads backing reads (A/A sessions): delay=1ms@$p"
	if [ -z "${SLOWDOWN:-}" ]; then
		session cal $((CAL_SECONDS * 2)) --mount-opts backing=buffered --ab '' "inject=delay=1ms@$p"
		cal=$W/db/$(printf '%02d' $n)-cal.db
		"$REPORT" "$cal" --compare cal:A cal:B --csv 2>/dev/null >"$W/cal.csv"
		got=$(awk -F, '$2 == "wall_s" && $22 == "welch" { print $10, $15, $16 }' "$W/cal.csv")
		log "slowdown: delay=1ms@$p cost (wall s: B - A in % of A, its 95 % CI) $got"
		# the delays as recorded: delayed reads a stream, the seconds
		# they took beyond an undelayed read, that in % of A's play
		rec=$("$PY" "$TOP/tests/bench/verdict.py" --injected "$cal" cal:A cal:B)
		log "slowdown: recorded, delayed reads a stream, seconds beyond undelayed reads, % of play time: $rec"
		p=$(echo "$rec" | awk -v p="$p" -v e="$EFFECT" '{ q = ($3 > 0 ? p * e / $3 : p); printf "%.6f", (q > 1 ? 1 : q) }')
	else
		p=$SLOWDOWN
	fi
	log "slowdown: delay=1ms@$p"
	echo "$p" >"$W/slowdown"

	# ---- 3. the slowdown in sequential sessions A, B, A, B
	for l in base slow base slow; do
		o=backing=buffered
		[ $l = base ] || o="$o,inject=delay=1ms@$p"
		session "$l" "$SLOW_SECONDS" --mount-opts "$o"
	done
	merge
	log "benches done $(date -u +%H:%M:%S)"
fi

# ---- 4. the verdicts
"$PY" "$TOP/tests/bench/verdict.py" "$REPORT" "$DB" "$W" "$EFFECT" "$(cat "$W/slowdown")" |
	tee -a "$W/summary"
echo
echo "everything is in $W (summary, sessions/, comparisons/, verdict.db)"
