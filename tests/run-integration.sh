#!/bin/sh
# SPDX-License-Identifier: MIT
# Run every tests/integration/test_*.sh; each prints "N passed, N failed"
# last (exit 77: skipped).  TLFS_BUILD names the build directory.
set -u
here=$(cd "$(dirname "$0")" && pwd)
pass=0 fail=0 skip=0
for t in "$here"/integration/test_*.sh; do
	[ -f "$t" ] || continue
	name=$(basename "$t" .sh)
	out=$(mktemp)
	echo "== $name"
	timeout 600 sh "$t" >"$out" 2>&1
	rc=$?
	cat "$out"
	last=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$out" | tail -1)
	p=$(echo "$last" | sed -n 's/^\([0-9]*\) passed.*/\1/p')
	f=$(echo "$last" | sed -n 's/^[0-9]* passed, \([0-9]*\) failed.*/\1/p')
	if [ "$rc" -eq 77 ]; then
		skip=$((skip + 1))
	else
		pass=$((pass + ${p:-0}))
		fail=$((fail + ${f:-0}))
		if [ "$rc" -ne 0 ] && [ "${f:-0}" -eq 0 ]; then
			echo "$name: exited $rc" >&2
			fail=$((fail + 1))
		fi
	fi
	rm -f "$out"
done
echo "integration: $pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
