#!/bin/sh
# SPDX-License-Identifier: MIT
# make test: the unit tests (the binaries given as arguments), the Python
# package's tests (pytest, tests/run-python.sh; not where TLFS_NO_PYTHON
# is 1, as a sanitizer build's make test sets it), then every mounted
# integration test; one closing line "N passed, N failed,
# N skipped", non-zero exit on any failure.  A runner that exits non-zero,
# or dies before its summary line, is a failure even if it counted none.
set -u
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/scratch.sh
. "$here/scratch.sh"
scratch_begin || exit 1
log=$(mktemp)
st=$(mktemp)
trap 'rm -f "$log" "$st"; scratch_end' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
pass=0 fail=0 skip=0

# suite NAME RUNNER [ARGS...]: run it, its output shown and kept; a
# pipeline's status is tee's, so the runner's goes through $st
suite() {
	name=$1
	shift
	: >"$st"
	{ sh "$@"; echo $? >"$st"; } | tee "$log"
	rc=$(cat "$st")
	sum=$(sed -n "s/^$name: \([0-9]* passed, [0-9]* failed, [0-9]* skipped\)$/\1/p" \
		"$log" | tail -1)
	if [ -z "$sum" ]; then
		echo "$name: the runner printed no summary (exit ${rc:-unknown}): a failure" >&2
		fail=$((fail + 1))
		return
	fi
	p=${sum%% passed*}
	f=${sum#* passed, }
	f=${f%% failed*}
	s=${sum##*failed, }
	s=${s%% skipped}
	pass=$((pass + p))
	fail=$((fail + f))
	skip=$((skip + s))
	if [ "${rc:-1}" -ne 0 ] && [ "$f" -eq 0 ]; then
		echo "$name: the runner exited ${rc:-unknown} with no failure counted: a failure" >&2
		fail=$((fail + 1))
	fi
}

suite unit "$here/run-unit.sh" "$@"
if [ "${TLFS_NO_PYTHON:-0}" = 1 ]; then
	echo "== python: left out of this build (TLFS_NO_PYTHON: no build's code)"
else
	suite python "$here/run-python.sh"
fi
suite integration "$here/run-integration.sh"
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
