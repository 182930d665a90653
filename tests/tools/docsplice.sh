#!/bin/sh
# SPDX-License-Identifier: MIT
# docsplice.sh [--check] FILE < NEW: the lines of FILE between its lines
# holding "BEGIN OPTIONS" and "END OPTIONS" replaced by NEW (make
# docs-options), or with --check compared with NEW: exit 1 and a diff
# when they differ (tests/integration/test_man.sh).  A FILE without both
# markers is an error.
set -eu
check=0
if [ "${1-}" = --check ]; then
	check=1
	shift
fi
file=$1
[ -f "$file" ] || { echo "docsplice: no file $file" >&2; exit 2; }
b=$(grep -n 'BEGIN OPTIONS' "$file" | head -1 | cut -d: -f1)
e=$(grep -n 'END OPTIONS' "$file" | head -1 | cut -d: -f1)
if [ -z "$b" ] || [ -z "$e" ] || [ "$e" -le "$b" ]; then
	echo "docsplice: $file: no BEGIN OPTIONS ... END OPTIONS lines" >&2
	exit 2
fi
tmp=$(mktemp "${TMPDIR:-/tmp}/docsplice.XXXXXX")
trap 'rm -f "$tmp" "$tmp.new"' EXIT
cat >"$tmp.new"
if [ "$check" = 1 ]; then
	sed -n "$((b + 1)),$((e - 1))p" "$file" >"$tmp"
	diff -u "$tmp" "$tmp.new" >&2 || {
		echo "docsplice: $file: the options between its markers are not" \
			"what the program prints: make docs-options" >&2
		exit 1
	}
	exit 0
fi
{
	sed -n "1,${b}p" "$file"
	cat "$tmp.new"
	sed -n "$e,\$p" "$file"
} >"$tmp"
cat "$tmp" >"$file"
