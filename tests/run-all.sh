#!/bin/sh
# SPDX-License-Identifier: MIT
# make test: the unit tests, then every mounted integration test; one
# closing line with the totals, non-zero exit on any failure.
set -u
here=$(cd "$(dirname "$0")" && pwd)
log=$(mktemp)
trap 'rm -f "$log"' EXIT
rc=0
sh "$here/run-unit.sh" "$@" | tee "$log" || rc=1
up=$(sed -n 's/^unit: \([0-9]*\) passed, \([0-9]*\) failed$/\1/p' "$log")
uf=$(sed -n 's/^unit: \([0-9]*\) passed, \([0-9]*\) failed$/\2/p' "$log")
sh "$here/run-integration.sh" | tee "$log" || rc=1
ip=$(sed -n 's/^integration: \([0-9]*\) passed, \([0-9]*\) failed.*$/\1/p' "$log")
if_=$(sed -n 's/^integration: \([0-9]*\) passed, \([0-9]*\) failed.*$/\2/p' "$log")
is=$(sed -n 's/^integration: .* failed, \([0-9]*\) skipped$/\1/p' "$log")
p=$(( ${up:-0} + ${ip:-0} ))
f=$(( ${uf:-0} + ${if_:-0} ))
[ "$rc" -ne 0 ] && [ "$f" -eq 0 ] && f=1
echo "$p passed, $f failed, ${is:-0} skipped"
[ "$rc" -eq 0 ] && [ "$f" -eq 0 ]
