#!/bin/sh
# SPDX-License-Identifier: MIT
# The runners' verdicts (tests/run-all.sh, run-unit.sh, run-integration.sh)
# on fake suites, in a scratch copy of tests/ with fake unit binaries and
# fake tests/integration/test_*.sh.  Regressions: run-all.sh tested tee's
# status, so a runner killed before its summary counted 0 failed and make
# test passed; a unit binary or a test that printed no summary counted
# nothing and passed; a test that skipped (exit 77) passed under CI=true
# with nothing tested; cmocka's skipped tests were not counted.
# run-integration.sh runs TLFS_JOBS tests at a time: the cases above run
# one at a time (TLFS_JOBS=1, the order and processes they were written
# for), and those of verdicts only both ways; the last cases are of
# running at once.
# RUNNERS=DIR takes the runners from DIR instead of tests/ (to try old ones).
NO_MOUNT=1
. "$(dirname "$0")/lib.sh"

RUNNERS=${RUNNERS:-$TOP/tests}
# the runners' verdicts, not make test's scratch folder (test_scratch's):
# their copies run where TMPDIR is, however little it has free
TLFS_SCRATCH_MB=0
export TLFS_SCRATCH_MB
# the files of the runners a case kills (their mktemp's) go with this
# test's folder, not left in TMPDIR
mkdir "$T/tmp"
TMPDIR=$T/tmp
export TMPDIR
n=0
TLFS_JOBS=1
TLFS_EXCLUDE=
export TLFS_JOBS TLFS_EXCLUDE
unset TLFS_ALONE TLFS_TOGETHER_ONLY

# tree: a fresh copy of the runners with no test; sets W
tree() {
	n=$((n + 1))
	W=$T/t$n/tests
	mkdir -p "$W/integration"
	cp "$RUNNERS/run-all.sh" "$RUNNERS/scratch.sh" "$RUNNERS/jobs.sh" \
		"$RUNNERS/run-unit.sh" "$RUNNERS/run-integration.sh" "$W/"
	# run-all.sh runs the Python suite between the two: here one that
	# counts nothing, so the verdicts are the fake suites' alone
	printf '#!/bin/sh\necho "python: 0 passed, 0 failed, 0 skipped"\n' \
		>"$W/run-python.sh"
}

# unit NAME BODY: a fake cmocka binary
unit() {
	printf '#!/bin/sh\n%s\n' "$2" >"$W/$1"
	chmod +x "$W/$1"
}

# integ NAME BODY: a fake tests/integration/NAME.sh
integ() {
	printf '%s\n' "$2" >"$W/integration/$1.sh"
}

CM_OK='echo "[==========] 1 test(s) run."; echo "[  PASSED  ] 1 test(s)."'
CM_SKIP='echo "[==========] 3 test(s) run."; echo "[  PASSED  ] 1 test(s)."
echo "[  SKIPPED ] 2 test(s), listed below:" >&2
echo "[  SKIPPED ] sample_a" >&2; echo "[  SKIPPED ] sample_b" >&2'
IT_OK='echo "ok - one"; echo "1 passed, 0 failed"'

# verdict WHAT WANT_RC WANT_LINE CMD...: the exit status (0 or fail) and
# the last line of the output
verdict() {
	what=$1 want_rc=$2 want_line=$3
	shift 3
	rc=0
	"$@" >"$T/out" 2>&1 || rc=fail
	line=$(tail -1 "$T/out")
	if [ "$rc" = "$want_rc" ] && [ "$line" = "$want_line" ]; then
		ok "$what"
	else
		not_ok "$what: want exit $want_rc and '$want_line', got exit $rc and '$line'"
		sed 's/^/#   /' "$T/out"
	fi
}

# 1. a unit runner killed before its summary (a crash, the OOM killer)
tree
unit u1 "$CM_OK"
# the runner: the binary's parent is the sh that xargs starts, its
# parent xargs, whose parent is run-unit.sh
# shellcheck disable=SC2016 # expanded by the fake binary
unit u2 'echo "[ RUN      ] test_x"
x=$(ps -o ppid= -p $PPID | tr -d " "); kill -9 "$(ps -o ppid= -p "$x" | tr -d " ")"; sleep 1'
integ test_a "$IT_OK"
verdict "run-all: the unit runner killed mid-way is a failure" fail \
	"1 passed, 1 failed, 0 skipped" env CI= sh "$W/run-all.sh" "$W/u1" "$W/u2"

# 2. the integration runner killed mid-way (its test kills it)
tree
unit u1 "$CM_OK"
integ test_a "$IT_OK"
# shellcheck disable=SC2016 # expanded by the fake test
integ test_b 'echo "ok - b"; kill -9 "$(ps -o ppid= -p $PPID | tr -d " ")"; sleep 1'
verdict "run-all: the integration runner killed mid-way is a failure" fail \
	"1 passed, 1 failed, 0 skipped" env CI= sh "$W/run-all.sh" "$W/u1"

# 3. a unit binary that exits 0 with no summary
tree
unit u1 "$CM_OK"
unit u2 'echo "[ RUN      ] test_x"; exit 0'
verdict "run-unit: a binary with no summary is a failure" fail \
	"unit: 1 passed, 1 failed, 0 skipped" env CI= sh "$W/run-unit.sh" "$W/u1" "$W/u2"

# 3b. binaries run TLFS_JOBS at a time, their outputs in the arguments'
# order: u1, the slower, first; one that dies of a signal is a failure
tree
unit u1 'sleep 1; echo "[ RUN      ] test_slow"; echo "[==========] 1 test(s) run."
echo "[  PASSED  ] 1 test(s)."'
unit u2 'echo "[ RUN      ] test_quick"; echo "[==========] 1 test(s) run."
echo "[  PASSED  ] 1 test(s)."'
unit u3 'echo "[ RUN      ] test_dies"; kill -9 $$'
for j in 1 2 3; do
	verdict "run-unit, TLFS_JOBS=$j: a binary killed by a signal is a failure" fail \
		"unit: 2 passed, 1 failed, 0 skipped" \
		env CI= TLFS_JOBS=$j sh "$W/run-unit.sh" "$W/u1" "$W/u2" "$W/u3"
	check_eq "run-unit, TLFS_JOBS=$j: the outputs in the arguments' order" \
		"test_slow test_quick test_dies" \
		"$(sed -n 's/^\[ RUN      \] //p' "$T/out" | tr '\n' ' ' | sed 's/ $//')"
done

# 4. a test that exits 0 with no summary, one that ran no check
tree
integ test_a "$IT_OK"
integ test_b 'echo "ok - b"; exit 0'
integ test_c 'echo "0 passed, 0 failed"'
for j in 1 2; do
	verdict "run-integration, TLFS_JOBS=$j: no summary, no check: two failures" fail \
		"integration: 1 passed, 2 failed, 0 skipped" \
		env CI= TLFS_JOBS=$j sh "$W/run-integration.sh"
done

# 5. skips: cmocka's counted; a test skipped whole (77) passes, but not
# under CI=true; a test's own skips are counted
tree
unit u1 "$CM_SKIP"
integ test_a "$IT_OK"
integ test_b 'echo "skip: no /dev/fuse or fusermount3"; exit 77'
integ test_c 'echo "ok - c"; echo "skip - needs root"; echo "1 passed, 0 failed, 1 skipped"'
for j in 1 2; do
	verdict "run-all, TLFS_JOBS=$j: skips counted (2 of cmocka, 1 test, 1 check)" 0 \
		"3 passed, 0 failed, 4 skipped" env CI= TLFS_JOBS=$j sh "$W/run-all.sh" "$W/u1"
	verdict "run-all, TLFS_JOBS=$j, CI=true: a test that skips is a failure" fail \
		"3 passed, 1 failed, 3 skipped" env CI=true TLFS_JOBS=$j sh "$W/run-all.sh" "$W/u1"
done

# 6. lib.sh's skips: skip_case fails under CI=true, skip_sample never
integ test_d ". '$TOP/tests/integration/lib.sh'
check one true
skip_case 'needs root'
skip_sample 'no shared samples'
finish"
verdict "lib.sh: skip_case and skip_sample are skips" 0 \
	"1 passed, 0 failed, 2 skipped" env CI= NO_MOUNT=1 sh "$W/integration/test_d.sh"
verdict "lib.sh, CI=true: skip_case is a failure, skip_sample a skip" fail \
	"1 passed, 1 failed, 1 skipped" env CI=true NO_MOUNT=1 sh "$W/integration/test_d.sh"

# 7. two at once: a worker killed with its test is a failure, the tests
# it had not taken yet run in the other
tree
integ test_a "$IT_OK"
# shellcheck disable=SC2016 # expanded by the fake test
integ test_b 'echo "ok - b"; kill -9 "$(ps -o ppid= -p $PPID | tr -d " ")"; sleep 1'
integ test_c "$IT_OK"
integ test_d "$IT_OK"
verdict "run-integration, TLFS_JOBS=2: a worker killed mid-way is a failure" fail \
	"integration: 3 passed, 1 failed, 0 skipped" \
	env CI= TLFS_JOBS=2 sh "$W/run-integration.sh"

# 8. TLFS_JOBS=2 runs test_p and test_q at once; test_z, of TLFS_ALONE,
# runs after them with nothing beside it; each output is whole.  A test
# says "at once" when it saw the other's file while it ran.
tree
R=$T/running
mkdir -p "$R"
for t in test_p test_q test_z; do
	integ $t "touch '$R/$t'; i=0; seen=alone
while [ \$i -lt 20 ]; do
	[ \$(ls '$R' | wc -l) -gt 1 ] && seen='at once'
	sleep 0.05; i=\$((i + 1))
done
rm -f '$R/$t'; echo \"$t \$seen\"; echo '1 passed, 0 failed'"
done
verdict "run-integration, TLFS_JOBS=2, TLFS_ALONE=test_z: every test counted" 0 \
	"integration: 3 passed, 0 failed, 0 skipped" \
	env CI= TLFS_JOBS=2 TLFS_ALONE=test_z sh "$W/run-integration.sh"
check_eq "test_p and test_q ran at once, test_z alone and last" \
	"test_p at once|test_q at once|test_z alone" \
	"$(grep '^test_[pqz] ' "$T/out" | sort | paste -sd'|')"
check_eq "test_z's output is the last test's, whole" \
	"== test_z|test_z alone|1 passed, 0 failed|# test_z took N s" \
	"$(sed -n '/^== test_z/,$p' "$T/out" | sed -e '$d' -e 's/took [0-9]* s/took N s/' |
		paste -sd'|')"
# 9. make check's TLFS_TOGETHER_ONLY=1: test_z, of TLFS_ALONE, is left out,
# saying so, and not counted; the others run
verdict "run-integration, TLFS_TOGETHER_ONLY=1: the tests that run alone left out" 0 \
	"integration: 2 passed, 0 failed, 0 skipped" \
	env CI= TLFS_JOBS=2 TLFS_ALONE=test_z TLFS_TOGETHER_ONLY=1 \
	sh "$W/run-integration.sh"
check_eq "TLFS_TOGETHER_ONLY=1: test_z said left out, not run" \
	"== test_z: left out: it runs alone (make test)|0" \
	"$(grep '^== test_z' "$T/out")|$(grep -c '^test_z ' "$T/out")"
verdict "run-integration, TLFS_JOBS=1: one at a time" 0 \
	"integration: 3 passed, 0 failed, 0 skipped" \
	env CI= TLFS_JOBS=1 sh "$W/run-integration.sh"
check_eq "TLFS_JOBS=1: each test alone, in name order" \
	"test_p alone|test_q alone|test_z alone" \
	"$(grep '^test_[pqz] ' "$T/out" | paste -sd'|')"
finish
