#!/bin/sh
# SPDX-License-Identifier: MIT
# timelinefs-hosts (issue 24) under mpirun on one machine, three ranks:
# the failures beyond test_hosts.sh's kill -9 and SIGINT, and find-max.
# (c2) a rank whose bench hangs stops it itself when rank 0 has given up
# on it; (c3) a host that ends late is named the straggler; (e)
# --find-max to its cap, with every read late (-o inject) to "not even
# 1", and with one rank's mount slow to a bracket inside; (e2) find-max
# judged by late frames of the causes named (--late-causes); (f) bad options
# (exit 2 naming the option), missing media (exit 1, nothing mounted) and
# the refusals before any step; (h2) a killed daemon and a killed bench
# said in words; (k) rank 0 killed: timelinefs-hosts-run exits 1, saying
# so; (h) a rank that cannot mount is
# incomplete with the daemon's message, the others play; (i) two
# experiments in a row with the same --db: each host's database keeps
# both, the second --out holds only the second (the first --out
# untouched), and timelinefs-merge --experiment takes one from a host's
# database.  Nothing is left mounted or running in any case (trap).
# shellcheck disable=SC2086 # $SMALL, $COMMON and $MPI: option lists, split on purpose
# shellcheck source=tests/integration/lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=tests/integration/hosts-lib.sh
. "$(dirname "$0")/hosts-lib.sh"

# ------------------------------------------------------------ (c2)
# rank 2's bench hangs (SIGSTOP) in step 2: rank 0 calls it dead after
# the step's deadline, and rank 2 itself stops its bench, unmounts and
# ends when that deadline has passed, saying why in its host row, with
# the seconds rank 0 says (the default start margin of 2 s: rank 2 said
# the deadline from the command's arrival, 1 s to 2 s more than rank 0)
$MPI --enable-recovery -np 2 "$HOSTS" --media "$T/long" --workstations 3,3,3 \
	$COMMON --pace 4 --step-timeout $((2 + STEP_SLACK)) --start-margin 2 --db "$T/s-%h-%r.db" --out "$T/s.db" : \
	-np 1 "$HOSTS" --media "$T/long" --workstations 3,3,3 $COMMON --pace 4 \
	--step-timeout $((2 + STEP_SLACK)) --start-margin 2 --db "$T/s2-%h-%r.db" --out "$T/s.db" >"$T/s.out" 2>"$T/s.err" &
MPIRUN=$!
i=0
# (up to 30 s: under load mpirun's start and step 1 took over 15; a
# pgrep that finds none is the check's failure, not set -e's silent end)
while ! grep -q '^=== step 2' "$T"/s2-*-2.db.bench.log 2>/dev/null && [ $i -lt 600 ]; do
	i=$((i + 1))
	sleep 0.05
done
b2=$(pgrep -o -f "timelinefs-bench .*$T/s2-" || true)
check "(c2) rank 2's bench found in step 2" [ -n "$b2" ]
# /usr/bin/kill: dash's cannot signal a process group
[ -z "$b2" ] || env kill -s STOP -- "-$b2"
check "(c2) mpirun ends: rank 2 stopped its hung bench itself" mpirun_ended 400
check "(c2) rank 0 says rank 2 gave no answer in step 2" \
	grep -Eq '^rank 2 \(.*\): no answer in step 2 within [0-9]+ s' "$T/s.out"
check_eq "(c2) rank 2's own host row says its bench did not end" "0|1" \
	"$(sq "$(ls "$T"/s2-*-2.db)" "select complete, reason like 'no answer in step 2 within % s: its bench did not end' from host")"
check_eq "(c2) one deadline: rank 0's line and rank 2's row say the same seconds" \
	"$(sed -n 's/^rank 2 (.*): no answer in step 2 within \([0-9]*\) s.*/\1/p' "$T/s.out")" \
	"$(sq "$(ls "$T"/s2-*-2.db)" "select substr(reason, 28, instr(substr(reason, 28), ' ') - 1) from host")"
check_eq "(c2) merged: ranks 0 and 1 complete with 3 steps each, rank 2 not" "0|1|3 1|1|3 2|0|0" \
	"$(sq "$T/s.db" "select group_concat(x, ' ') from (select h.rank || '|' || h.complete || '|' ||
		(select count(*) from bench_step b join run r on r.id = b.run_id where r.host_id = h.id) as x
		from host h order by h.rank)")"
check "(c2) nothing mounted, no process left" released 100

# ------------------------------------------------------------ (c3)
# rank 2's bench held (SIGSTOP) 2 s before it releases its readers: its
# step starts and ends late, the straggler.  (A reader paused mid-step is
# no straggler: it catches up with its paced timeline.)
$MPI -np 2 "$HOSTS" --media "$T/long" --workstations 3 $COMMON \
	--db "$T/g-%h-%r.db" --out "$T/g3.db" : \
	-np 1 "$HOSTS" --media "$T/long" --workstations 3 $COMMON \
	--db "$T/g2-%h-%r.db" --out "$T/g3.db" >"$T/g3.out" 2>"$T/g3.err" &
MPIRUN=$!
i=0
until b2=$(pgrep -o -f "timelinefs-bench .*$T/g2-"); do
	i=$((i + 1))
	[ $i -lt 600 ] || break
	sleep 0.02
done
check "(c3) rank 2's bench found before its start" [ -n "$b2" ]
if [ -n "$b2" ]; then
	env kill -s STOP -- "-$b2"
	sleep 2
	env kill -s CONT -- "-$b2"
fi
rc=0
wait "$MPIRUN" || rc=$?
MPIRUN=
check_eq "(c3) a straggling host: exit 0 (it played)" 0 "$rc"
# late by the hold less what was left of the start margin (1 s): at
# least the rule's 0.5 s
if grep -Eq '^step 1: .* straggler: rank 2 \+(0\.[5-9]|[12]\.)[0-9]+ s$' "$T/g3.out"; then
	ok "(c3) the step names rank 2 the straggler with its lag"
else
	not_ok "(c3) the step names rank 2 the straggler: $(grep '^step 1' "$T/g3.out")"
fi
check "(c3) nothing mounted, no process left" released 30

# ------------------------------------------------------------ (e)
rc=0
$MPI -np 3 "$HOSTS" --media "$T/media" --find-max --max 6 $COMMON --pace 4 \
	--db "$T/e-%h-%r.db" --out "$T/e.db" >"$T/e.out" 2>"$T/e.err" || rc=$?
check_eq "(e) find-max to its cap: exit 0" 0 "$rc"
[ "$rc" = 0 ] || sed 's/^/#   /' "$T/e.out" "$T/e.err"
check "(e) the bracket: at least the cap" grep -q '^at least 6 workstations over 3 hosts play with 0 late frames in 1 of 1 repetitions: the cap (--max)' "$T/e.out"
check_eq "(e) the steps doubled from the hosts: 3 then 6" "3 6" \
	"$(sq "$T/e.db" "select group_concat(total_workstations, ' ') from (select distinct step_no, total_workstations from bench_step order by step_no)")"
check_eq "(e) experiment: find-max, max_lo 6, max_hi NULL" "find-max|6|NULL" \
	"$(sq "$T/e.db" "select plan || '|' || max_lo || '|' || coalesce(max_hi, 'NULL') from experiment")"
rc=0
$MPI -np 3 "$HOSTS" --media "$T/media" --find-max $COMMON --pace 4 \
	--mount-opts 'inject=delay=30ms' \
	--db "$T/f-%h-%r.db" --out "$T/f.db" >"$T/f.out" 2>"$T/f.err" || rc=$?
check_eq "(e) find-max with every read delayed: exit 0" 0 "$rc"
check "(e) not even 1" grep -q '^not even 1 workstation over 3 hosts plays with 0 late frames' "$T/f.out"
check_eq "(e) experiment: max_lo 0, max_hi 1; counts 3 then down to 1" "0|1|1" \
	"$(sq "$T/f.db" "select max_lo || '|' || max_hi || '|' || (select min(total_workstations) from bench_step) from experiment")"
# a bracket inside: rank 2's own mount delays every read (its --mount-opts;
# MPMD), so a count fails exactly when it gives rank 2 a workstation:
# 3 (1 each) fails, then bisecting: 1 (rank 0) and 2 (ranks 0, 1) pass
rc=0
$MPI -np 2 "$HOSTS" --media "$T/media" --find-max $COMMON --pace 4 \
	--db "$T/g2-%h-%r.db" --out "$T/g2.db" : \
	-np 1 "$HOSTS" --media "$T/media" --find-max $COMMON --pace 4 \
	--mount-opts 'inject=delay=30ms' \
	--db "$T/g2-%h-%r.db" --out "$T/g2.db" >"$T/g2.out" 2>"$T/g2.err" || rc=$?
check_eq "(e) find-max, rank 2 slow: exit 0" 0 "$rc"
check_eq "(e) rank 2 slow: counts 3, 1, 2; bracket [2, 3]" "3 1 2|2|3" \
	"$(sq "$T/g2.db" "select (select group_concat(t, ' ') from (select distinct step_no, total_workstations as t
		from bench_step order by step_no)) || '|' || max_lo || '|' || max_hi from experiment")"
check "(e) rank 2 slow: the bracket said" \
	grep -q '^2 workstations over 3 hosts play with 0 late frames in 1 of 1 repetitions; 3 do not' "$T/g2.out"
check_eq "(e) rank 2 slow: only rank 2's frames were late" "0|0 1|0 2|1" \
	"$(sq "$T/g2.db" "select group_concat(x, ' ') from (select h.rank || '|' || (sum(s.late_frames) > 0) as x
		from stream s join run r on r.id = s.run_id join host h on h.id = r.host_id group by h.rank order by h.rank)")"
check "(e) nothing mounted, no process left" released 50

# ------------------------------------------------------------ (e2)
# find-max judged by the causes named: a reader that stops 1 s after its
# first 256 KiB of a 3.3 s timeline played at twice its speed (its ring,
# about 0.55 s of it at that pace, fills; the clock goes on: late frames of cause reader, the storage's none)
# fails 1 workstation by default, and plays to the cap with
# --late-causes storage, its late frames counted
# and said as the other causes' (through timelinefs-bench --find-max).
# Before --late-causes: exit 2, unknown option.
# shellcheck disable=SC2016 # expanded by the reader's sh
PAUSER='sh -c '"'"'exec 3<"$1"; dd bs=64k count=4 status=none <&3 >/dev/null; sleep 1; cat <&3 >/dev/null'"'"' sh {}'
rc=0
"$HOSTS" --media "$T/long" --find-max --max 1 $COMMON --pace 2 --reader "$PAUSER" \
	--db "$T/pa-%h-%r.db" --out "$T/pa.db" >"$T/pa.out" 2>"$T/pa.err" || rc=$?
check_eq "(e2) a pausing reader, all causes (the default): exit 0" 0 "$rc"
[ "$rc" = 0 ] || sed 's/^/#   /' "$T/pa.out" "$T/pa.err"
check "(e2) all causes: not even 1 plays" \
	grep -q '^not even 1 workstation over 1 host plays with 0 late frames$' "$T/pa.out"
# through timelinefs-bench --find-max, which runs timelinefs-hosts
rc=0
sh "$TOP/mount-scripts/timelinefs-bench" --media "$T/long" --find-max --max 1 \
	--repeat 1 --warmup 0 --pace 2 --reader "$PAUSER" --late-causes storage \
	--db "$T/pb.db" >"$T/pb.out" 2>"$T/pb.err" || rc=$?
check_eq "(e2) a pausing reader, timelinefs-bench --find-max --late-causes storage: exit 0" 0 "$rc"
[ "$rc" = 0 ] || sed 's/^/#   /' "$T/pb.out" "$T/pb.err"
echo "# (e2) $(grep '^step 1:' "$T/pb.out")"
echo "# (e2) late frames by cause: $(sq "$T/pb.db" "select group_concat(cause || ' ' || n, ', ') from (select cause, count(*) n from late_frame group by cause)")"
check_eq "(e2) --late-causes storage: late frames there, none of cause storage" "1|0" \
	"$(sq "$T/pb.db" "select (select sum(late_frames) > 0 from stream) || '|' || (select count(*) from late_frame where cause = 'storage')")"
check "(e2) --late-causes storage: the cap played, the causes said" \
	grep -q '^at least 1 workstations over 1 host play with 0 late frames of cause storage in 1 of 1 repetitions: the cap (--max)' "$T/pb.out"
check_eq "(e2) --late-causes storage: experiment max_lo 1, max_hi NULL" "1|NULL" \
	"$(sq "$T/pb.db" "select max_lo || '|' || coalesce(max_hi, 'NULL') from experiment")"
check "(e2) the report's find-max line names the causes judged" \
	sh -c '"$1" "$2" | grep -q "^find-max: at least 1 workstations played with 0 late frames of cause storage in every repetition"' \
	sh "$TOP/mount-scripts/timelinefs-report" "$T/pb.db"
check "(e2) the step's line: 0 of cause storage, the others counted by cause" \
	grep -Eq '^step 1: 1 workstation \(repetition 1\) over 1 host: 0 late frames of cause storage \(rank 0: 0\), [1-9][0-9]* of other causes \([a-z]+ [0-9]+' "$T/pb.out"
check "(e2) nothing mounted, no process left" released 30

# ------------------------------------------------------------ (f)
# usage_case NAME PATTERN ARGS...: exit 2, stderr names the option
usage_case() {
	name=$1
	pat=$2
	shift 2
	rc=0
	"$HOSTS" "$@" >"$T/u.out" 2>"$T/u.err" || rc=$?
	if [ "$rc" = 2 ] && grep -qF -- "$pat" "$T/u.err"; then
		ok "(f) $name: exit 2, says '$pat'"
	else
		not_ok "(f) $name: exit $rc: $(cat "$T/u.err")"
	fi
}
usage_case "--repeat 0" "invalid --repeat '0'" --media "$T/media" --workstations 2 --repeat 0
usage_case "bad --workstations" "invalid --workstations '2,,3'" --media "$T/media" --workstations 2,,3
usage_case "--workstations and --find-max" "--workstations LIST or --find-max, not both" \
	--media "$T/media" --workstations 2 --find-max
usage_case "neither" "give --workstations LIST or --find-max" --media "$T/media"
usage_case "--from without --find-max" "--from goes with --find-max" --media "$T/media" --workstations 2 --from 3
usage_case "an unknown option" "unknown option '--bogus'" --media "$T/media" --workstations 2 --bogus
usage_case "a missing value" "option '--db' needs a value" --media "$T/media" --workstations 2 --db
usage_case "--mount-opts pace=" "--mount-opts cannot set pace=" --media "$T/media" --workstations 2 --mount-opts 'ro,pace=2'
usage_case "bad --pace" "invalid --pace 'fast'" --media "$T/media" --workstations 2 --pace fast
usage_case "bad --late-causes" "invalid --late-causes 'storage,disk'" --media "$T/media" --find-max --late-causes storage,disk
usage_case "--late-causes without --find-max" "--late-causes goes with --find-max" --media "$T/media" --workstations 2 --late-causes storage
usage_case "bad --sync-rounds" "invalid --sync-rounds '0'" --media "$T/media" --workstations 2 --sync-rounds 0
usage_case "no --media" "give --media DIR" --workstations 2
rc=0
$MPI -np 2 "$HOSTS" --media "$T/media" --workstations 2 --repeat 0 >"$T/u2.out" 2>"$T/u2.err" || rc=$?
check "(f) under mpirun: exit non-zero, the usage error said once" \
	sh -c "[ $rc -ne 0 ] && [ \$(grep -c \"invalid --repeat '0'\" '$T/u2.err') -eq 1 ]"
check "(f) --help names every option of the plan" sh -c \
	"'$HOSTS' --help | grep -q -- '--find-max' && '$HOSTS' --help | grep -q -- '--step-timeout S'"
rc=0
"$HOSTS" --media "$T/nope" --workstations 1 $COMMON --db "$T/g-%h-%r.db" \
	--out "$T/g.db" >"$T/g.out" 2>"$T/g.err" || rc=$?
check_eq "(f) missing media: exit 1" 1 "$rc"
check "(f) missing media: the folder and the reason said" grep -q "no host could mount: rank 0 (.*): media folder $T/nope does not exist" "$T/g.err"
check_none "(f) missing media: the reason alone, no 'cannot open database'" "$(grep 'cannot open database' "$T/g.err")"
check "(f) missing media: nothing mounted, no process left" released 30
# 21 workstations on 3 hosts of 6 timelines: nothing played, so no host
# is complete, and the documented command exits 1 (mpirun exited 0, every
# host row said complete)
rc=0
$RUN -np 3 -- --media "$T/media" --workstations 2,21 $COMMON --db "$T/w-%h-%r.db" \
	--out "$T/w.db" >"$T/w.out" 2>"$T/w.err" || rc=$?
check "(f) more workstations than timelines: exit 1 before any step, said" \
	sh -c "[ $rc -eq 1 ] && grep -q -- '--workstations 21 needs 7 timelines on each of 3 hosts, a host has 6: nothing played' '$T/w.err' && ! grep -q '^step' '$T/w.out'"
check_eq "(f) nothing played: no host complete, the docs' query says 3" "3|3" \
	"$(sq "$T/w.db" "select count(*), sum(reason like '%nothing played') from host where not complete and
		experiment_id = (select max(id) from experiment)")"
check "(f) more workstations than timelines: nothing mounted, no process left" released 30
rc=0
$MPI -np 3 "$HOSTS" --media "$T/media" --workstations 1 $COMMON --db "$T/o-%h-%r.db" \
	--out "$T/nope/o.db" >"$T/o.out" 2>"$T/o.err" || rc=$?
check "(f) --out in a folder that is not there: said before anything runs, exit non-zero" \
	sh -c "[ $rc -ne 0 ] && grep -q 'cannot write --out $T/nope/o.db: $T/nope: No such file or directory' '$T/o.err' && ! ls '$T'/o-* >/dev/null 2>&1"
check "(f) --out refused: no process left" released 30

# ------------------------------------------------------------ (h2)
# one host whose daemon, then whose bench, is killed mid-step: the reason
# says so (it was only the readers' "Transport endpoint is not connected",
# and for the bench a stale progress line)
for what in daemon bench; do
	rc=0
	"$HOSTS" --media "$T/long" --workstations 1,1 $COMMON --db "$T/x$what-%h-%r.db" \
		--out "$T/x$what.db" >"$T/x$what.out" 2>"$T/x$what.err" &
	MPIRUN=$!
	i=0
	while ! grep -q '^=== step 1' "$T"/x$what-*.db.bench.log 2>/dev/null && [ $i -lt 300 ]; do
		i=$((i + 1))
		sleep 0.1
	done
	sleep 1
	if [ $what = daemon ]; then
		victim=$(pgrep -f "^$TLFS_BUILD/timelinefs -f .*$T/x$what-" | head -n 1)
	else
		victim=$(pgrep -o -f "timelinefs-bench .*$T/x$what-" || true)
	fi
	check "(h2) its $what found in step 1" [ -n "$victim" ]
	[ -z "$victim" ] || kill -9 "$victim"
	wait "$MPIRUN" || rc=$?
	MPIRUN=
	check_eq "(h2) $what killed: exit 1" 1 "$rc"
	check "(h2) $what killed: the reason says so" grep -q "^rank 0 (.*): $(
		[ $what = daemon ] && echo 'its timelinefs daemon ended in step 1 (killed by signal 9): left out' ||
			echo 'timelinefs-bench killed by signal 9 in step 1: left out')" "$T/x$what.out"
	check "(h2) $what killed: nothing mounted, no process left" released 50
done

# ------------------------------------------------------------ (k)
# rank 0 killed: no status from it, the documented command exits 1 and
# says so (mpirun exited 0)
$RUN -np 1 -- --media "$T/long" --workstations 1 $COMMON \
	--db "$T/k-%h-%r.db" --out "$T/k.db" >"$T/k.out" 2>"$T/k.err" &
MPIRUN=$!
i=0
while ! grep -q '^=== step 1' "$T"/k-*.db.bench.log 2>/dev/null && [ $i -lt 300 ]; do
	i=$((i + 1))
	sleep 0.1
done
k0=$(pgrep -f "^$HOSTS .*k-%h-%r" | head -n 1)
check "(k) rank 0 found in step 1" [ -n "$k0" ]
[ -z "$k0" ] || kill -9 "$k0"
rc=0
wait "$MPIRUN" 2>/dev/null || rc=$?
MPIRUN=
check_eq "(k) rank 0 killed: exit 1" 1 "$rc"
check "(k) rank 0 killed: said" grep -q '^timelinefs-hosts-run: rank 0 ended without its exit status' "$T/k.err"
check "(k) nothing mounted, no process left" released 50

# ------------------------------------------------------------ (h)
# rank 2 cannot mount (a bad -o inject of its own): it is incomplete with
# the daemon's message, the others play
rc=0
$MPI -np 2 "$HOSTS" --media "$T/media" --workstations 2,3 $COMMON --pace 4 \
	--db "$T/h-%h-%r.db" --out "$T/h.db" : \
	-np 1 "$HOSTS" --media "$T/media" --workstations 2,3 $COMMON --pace 4 \
	--mount-opts inject=bogus --db "$T/h-%h-%r.db" --out "$T/h.db" \
	>"$T/h.out" 2>"$T/h.err" || rc=$?
check "(h) a rank that cannot mount: exit non-zero ($rc)" [ "$rc" -ne 0 ]
check "(h) rank 0 says why, with the daemon's message" \
	grep -q "^rank 2 (.*): cannot mount: timelinefs exited: .*inject:1: 'bogus' is not key=value" "$T/h.out"
check_eq "(h) merged: ranks 0 and 1 complete, rank 2 not, with the daemon's message" \
	"0|1|0 1|1|0 2|0|1" \
	"$(sq "$T/h.db" "select group_concat(x, ' ') from (select rank || '|' || complete || '|' ||
		(coalesce(reason, '') like 'cannot mount: %bogus%') as x from host order by rank)")"
check_eq "(h) the steps played by the other two: 2 then 3 workstations" "1|2|2 2|3|2" \
	"$(sq "$T/h.db" "select group_concat(x, ' ') from (select step_no || '|' || sum(workstations) || '|' || count(*) as x
		from bench_step group by step_no order by step_no)")"
check "(h) nothing mounted, no process left" released 30

# ------------------------------------------------------------ (i)
# two experiments in a row with the same --db: each host's database keeps
# both, each --out only its own; the first --out untouched by the second
rc=0
$MPI -np 3 "$HOSTS" --media "$T/media" --workstations 3 $COMMON --pace 4 \
	--db "$T/i-%h-%r.db" --out "$T/i1.db" >"$T/i1.out" 2>"$T/i1.err" || rc=$?
check_eq "(i) a first experiment: exit 0" 0 "$rc"
[ "$rc" = 0 ] || sed 's/^/#   /' "$T/i1.out" "$T/i1.err"
sq "$T/i1.db" .dump >"$T/i1.dump"
U1=$(sq "$T/i1.db" "select uuid from experiment")
rc=0
$MPI -np 3 "$HOSTS" --media "$T/media" --workstations 3 $COMMON --pace 4 \
	--db "$T/i-%h-%r.db" --out "$T/i2.db" >"$T/i2.out" 2>"$T/i2.err" || rc=$?
check_eq "(i) a second one with the same --db, another --out: exit 0" 0 "$rc"
[ "$rc" = 0 ] || sed 's/^/#   /' "$T/i2.out" "$T/i2.err"
U2=$(sq "$T/i2.db" "select group_concat(uuid) from experiment")
check "(i) the second --out's experiment is the one the second run printed" \
	sh -c "[ -n '$U2' ] && [ '$U2' != '$U1' ] && grep -q '^experiment $U2: ' '$T/i2.out'"
n2=0
for r in 0 1 2; do
	[ "$(sq "$T"/i-*-$r.db "select count(*) from experiment")" != 2 ] || n2=$((n2 + 1))
done
check_eq "(i) each host's database holds both experiments" 3 "$n2"
check_eq "(i) rank 0's copy in OUT.hosts/ is whole: both experiments" 2 \
	"$(sq "$(ls "$T"/i2.db.hosts/0-*.db)" "select count(*) from experiment")"
check_eq "(i) the second --out: 1 experiment, its 3 host rows, 3 runs all of its hosts, steps of it only" \
	"1|3|0,1,2|3|3|0" \
	"$(sq "$T/i2.db" "select (select count(*) from experiment) || '|' ||
		(select count(*) from host h join experiment e on e.id = h.experiment_id where e.uuid = '$U2') || '|' ||
		(select group_concat(rank) from (select rank from host order by rank)) || '|' ||
		(select count(*) from run) || '|' ||
		(select count(*) from run r join host h on h.id = r.host_id join experiment e on
			e.id = h.experiment_id where e.uuid = '$U2') || '|' ||
		(select count(*) from bench_step b left join experiment e on e.id = b.experiment_id
			where e.uuid is not '$U2')")"
sq "$T/i1.db" .dump >"$T/i1.dump2"
check "(i) the first --out untouched by the second experiment" cmp -s "$T/i1.dump" "$T/i1.dump2"
check_eq "(i) none of the first experiment's runs in the second --out (3 of its own)" "3|0" \
	"$(sq "$T/i2.db" "attach '$T/i1.db' as o; select count(*) || '|' ||
		(select count(*) from run where uuid in (select uuid from o.run)) from o.run")"
# by hand from rank 1's database, which holds both: the first only
R1=$(ls "$T"/i-*-1.db)
rc=0
"$MERGE" --experiment "$U1" "$T/i3.db" "$R1" >"$T/i3.out" 2>&1 || rc=$?
check_eq "(i) timelinefs-merge --experiment of the first from rank 1's database: its run only" \
	"0|$R1: 1 run added, 0 already merged" "$rc|$(sed 's/ (.*//' "$T/i3.out" | paste -sd '|')"
check_eq "(i) ... the first experiment, rank 1's host row, the run the first --out has of rank 1" \
	"$U1|1|$(sq "$T/i1.db" "select r.uuid from run r join host h on h.id = r.host_id where h.rank = 1")" \
	"$(sq "$T/i3.db" "select (select group_concat(uuid) from experiment) || '|' ||
		(select group_concat(rank) from host) || '|' || (select group_concat(uuid) from run)")"
check "(i) nothing mounted, no process left" released 30

finish
