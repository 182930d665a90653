#!/bin/sh
# SPDX-License-Identifier: MIT
# Run the cmocka unit test binaries given as arguments; VALGRIND=1 runs them
# under memcheck.  Counts tests, not binaries, from cmocka's summaries
# ("[  PASSED  ] N test(s)", FAILED, SKIPPED).  A binary that prints no
# summary ("[==========] N test(s) run.": it died, or ran nothing) or exits
# non-zero with no failed test is one failure more.  Skipped tests are the
# sample files of ../shared/samples that a plain clone lacks: counted, and
# not a failure, under CI=true either.  TLFS_JOBS (default: the CPUs)
# binaries run at a time, their outputs shown in the arguments' order
# (under ThreadSanitizer the suite took 80-114 s one at a time on 2
# cores, 65-70 s two at a time: a binary's code is mostly one thread).  Prints "unit: N passed, N failed,
# N skipped" last and exits non-zero on any failure.
set -u
# shellcheck source=tests/jobs.sh
. "$(dirname "$0")/jobs.sh"
UNIT_OUT=$(mktemp -d) || exit 1
export UNIT_OUT
trap 'rm -rf "$UNIT_OUT"' EXIT
# each binary's output and exit status in UNIT_OUT, named by its path's
# last part (the binaries' names are distinct)
# shellcheck disable=SC2016 # expanded by the sh that xargs starts
printf '%s\0' "$@" | xargs -0 -r -n 1 -P "$jobs" sh -c '
	out=$UNIT_OUT/${1##*/}
	if [ "${VALGRIND:-0}" = 1 ]; then
		valgrind -q --error-exitcode=99 --leak-check=full \
			--errors-for-leak-kinds=definite "$1" >"$out" 2>&1
	else
		"$1" >"$out" 2>&1
	fi
	echo $? >"$out.rc"' sh
pass=0 fail=0 skip=0
for t in "$@"; do
	out=$UNIT_OUT/${t##*/}
	rc=$(cat "$out.rc" 2>/dev/null || echo 127)
	cat "$out" 2>/dev/null
	# every group's summary: "runs passed failed skipped", or nothing
	sums=$(awk '
		/\[==========\] [0-9]+ test\(s\) run/ { r++ }
		/\[  PASSED  \] [0-9]+ test/ { sub(/.*\[  PASSED  \] /, ""); p += $1 }
		/\[  FAILED  \] [0-9]+ test/ { sub(/.*\[  FAILED  \] /, ""); f += $1 }
		/\[  SKIPPED \] [0-9]+ test/ { sub(/.*\[  SKIPPED \] /, ""); s += $1 }
		END { if (r) print r + 0, p + 0, f + 0, s + 0 }' "$out" 2>/dev/null)
	if [ -z "$sums" ]; then
		echo "$t: no summary: it died or ran no test (exit $rc)" >&2
		fail=$((fail + 1))
		continue
	fi
	read -r _ p f s <<EOF
$sums
EOF
	pass=$((pass + p))
	fail=$((fail + f))
	skip=$((skip + s))
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
		echo "$t: exited $rc" >&2
		fail=$((fail + 1))
	fi
done
echo "unit: $pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
