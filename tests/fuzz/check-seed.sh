#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/fuzz/check-seed.sh SEED [FIXTURES CORPUS]: check the fuzz targets'
# seed corpus that make fuzz-seed builds in SEED (build/fuzz/seed) from the
# fixtures (tests/fixtures) and the committed inputs that are not fixtures
# (tests/fuzz/corpus).  Fails, naming the file, when a fixture is not in
# the seed of its format byte for byte (nor as .tl, nor an .otio one
# minified), or when the committed corpus holds a copy of a fixture again:
# copies drifted from the fixtures once, which is why the seed is built.
set -u
seed=${1:?usage: check-seed.sh SEED [FIXTURES CORPUS]}
fixtures=${2:-tests/fixtures}
corpus=${3:-tests/fuzz/corpus}
bad=0

fail()
{
	echo "check-seed: $*" >&2
	bad=1
}

for f in "$fixtures"/*/*; do
	[ -f "$f" ] || continue
	fmt=$(basename "$(dirname "$f")")
	name=$(basename "$f")
	if ! cmp -s "$f" "$seed/$fmt/$name"; then
		fail "$f: missing from $seed/$fmt, or changed there"
	fi
	if [ ! -s "$seed/tl/${fmt}_${name%.*}.tl" ]; then
		fail "$f: no $seed/tl/${fmt}_${name%.*}.tl (timelinefs-gen --dump-tl)"
	fi
	if [ "$fmt" = otio ] && [ ! -s "$seed/otio/min_$name" ]; then
		fail "$f: no $seed/otio/min_$name (the fixture minified)"
	fi
	# the generated ones too: a committed one would hide its drift
	for c in "$corpus"/*/*; do
		[ -f "$c" ] || continue
		case $(basename "$c") in
		"$name" | "min_$name" | "${fmt}_${name%.*}.tl") same=1 ;;
		*) same=0 ;;
		esac
		if [ $same = 1 ] || cmp -s "$f" "$c" ||
			cmp -s "$seed/otio/min_$name" "$c" ||
			cmp -s "$seed/tl/${fmt}_${name%.*}.tl" "$c"; then
			fail "$c: a copy of $f or made from it (the seed is built from $fixtures: remove it)"
		fi
	done
done
exit $bad
