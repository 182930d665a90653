#!/bin/sh
# SPDX-License-Identifier: MIT
# The Python package's tests (mount-scripts/timelinefs_analysis, the
# statistics of timelinefs-report) under pytest, with Debian's
# /usr/bin/python3 and its python3-scipy, python3-numpy and python3-pytest.
# Prints "python: N passed, N failed, N skipped" last and exits non-zero
# on any failure.  Without pytest or SciPy the suite is one skip; under
# CI=true a failure (make deps installs them).
set -u
here=$(cd "$(dirname "$0")" && pwd)
PY=${TLFS_PYTHON:-/usr/bin/python3}
if ! "$PY" -c 'import pytest, scipy, numpy' 2>/dev/null; then
	if [ "${CI:-}" = true ]; then
		echo "python: $PY lacks pytest, SciPy or NumPy, and CI=true: a failure" >&2
		echo "python: 0 passed, 1 failed, 0 skipped"
		exit 1
	fi
	echo "python: $PY lacks pytest, SciPy or NumPy (make deps): skipped" >&2
	echo "python: 0 passed, 0 failed, 1 skipped"
	exit 0
fi
out=$(mktemp)
trap 'rm -f "$out"' EXIT
# no .pytest_cache nor __pycache__ left in the checkout
PYTHONDONTWRITEBYTECODE=1 "$PY" -m pytest -q -p no:cacheprovider -rfEs \
	"$here/python" >"$out" 2>&1
rc=$?
cat "$out"
# pytest's last line: "3 failed, 29 passed, 1 skipped in 1.2s" (any order,
# any part absent); errors (a test that could not be collected) are failures
last=$(tail -n 1 "$out")
count() {
	printf '%s\n' "$last" | tr ',' '\n' | sed -n "s/^ *\([0-9][0-9]*\) $1.*/\1/p" | head -n 1
}
p=$(count passed)
f=$(count failed)
e=$(count error)
s=$(count skipped)
p=${p:-0} f=$((${f:-0} + ${e:-0})) s=${s:-0}
if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
	echo "python: pytest exited $rc with no failure counted" >&2
	f=1
fi
if [ $((p + f + s)) -eq 0 ]; then
	echo "python: pytest ran no test" >&2
	f=1
fi
echo "python: $p passed, $f failed, $s skipped"
[ "$f" -eq 0 ]
