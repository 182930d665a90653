#!/bin/sh
# SPDX-License-Identifier: MIT
# Run the cmocka unit test binaries given as arguments; VALGRIND=1 runs them
# under memcheck.  Prints "N passed, N failed" (tests, not binaries) last and
# exits non-zero on any failure.
set -u
pass=0 fail=0
for t in "$@"; do
	out=$(mktemp)
	if [ "${VALGRIND:-0}" = 1 ]; then
		valgrind -q --error-exitcode=99 --leak-check=full \
			--errors-for-leak-kinds=definite "$t" >"$out" 2>&1
	else
		"$t" >"$out" 2>&1
	fi
	rc=$?
	cat "$out"
	p=$(sed -n 's/.*\[  PASSED  \] \([0-9][0-9]*\) test.*/\1/p' "$out" | tail -1)
	f=$(sed -n 's/.*\[  FAILED  \] \([0-9][0-9]*\) test.*/\1/p' "$out" | tail -1)
	pass=$((pass + ${p:-0}))
	fail=$((fail + ${f:-0}))
	if [ "$rc" -ne 0 ] && [ -z "$f" ]; then
		echo "$t: exited $rc" >&2
		fail=$((fail + 1))
	fi
	rm -f "$out"
done
echo "unit: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
