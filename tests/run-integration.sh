#!/bin/sh
# SPDX-License-Identifier: MIT
# Run every tests/integration/test_*.sh (TLFS_BUILD names the build).  Each
# prints "N passed, N failed" or "N passed, N failed, N skipped" last, or
# exits 77 when it cannot run here at all (no /dev/fuse, not root, a tool
# missing).  A test that prints no summary (it died), ran and skipped no
# check, or exits non-zero with no failed check is one failure more.  A test skipped
# whole is one skip; under CI=true it is a failure instead: CI has FUSE,
# root and every tool (make deps), so a skip there means nothing was
# tested.  Prints "integration: N passed, N failed, N skipped" last and
# exits non-zero on any failure.  TLFS_EXCLUDE names tests this build
# leaves out (the Makefile says why).
set -u
here=$(cd "$(dirname "$0")" && pwd)
pass=0 fail=0 skip=0
for t in "$here"/integration/test_*.sh; do
	[ -f "$t" ] || continue
	name=$(basename "$t" .sh)
	case " ${TLFS_EXCLUDE:-} " in
	*" $name "*)
		echo "== $name: left out of this build (TLFS_EXCLUDE)"
		continue
		;;
	esac
	out=$(mktemp)
	echo "== $name"
	t0=$(date +%s)
	timeout 600 sh "$t" >"$out" 2>&1
	rc=$?
	cat "$out"
	# what each suite costs, for CI's 20-minute budget
	echo "# $name took $(($(date +%s) - t0)) s"
	last=$(grep -E '^[0-9]+ passed, [0-9]+ failed(, [0-9]+ skipped)?$' "$out" |
		tail -1)
	rm -f "$out"
	if [ "$rc" -eq 77 ]; then
		if [ "${CI:-}" = true ]; then
			echo "$name: skipped, and CI=true: a failure" >&2
			fail=$((fail + 1))
		else
			skip=$((skip + 1))
		fi
		continue
	fi
	if [ -z "$last" ]; then
		echo "$name: no summary line: it died (exit $rc)" >&2
		fail=$((fail + 1))
		continue
	fi
	p=${last%% passed*}
	f=${last#* passed, }
	f=${f%% failed*}
	s=0
	case $last in
	*skipped)
		s=${last##*failed, }
		s=${s%% skipped}
		;;
	esac
	pass=$((pass + p))
	fail=$((fail + f))
	skip=$((skip + s))
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
		echo "$name: exited $rc" >&2
		fail=$((fail + 1))
	elif [ "$p" -eq 0 ] && [ "$f" -eq 0 ] && [ "$s" -eq 0 ]; then
		echo "$name: ran no check" >&2
		fail=$((fail + 1))
	fi
done
echo "integration: $pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
