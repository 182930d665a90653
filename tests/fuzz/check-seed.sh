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

# the committed corpus's checksums, once: a fixture is compared (cmp)
# only with the files whose checksum is its own or its products' (one
# cmp per fixture and corpus file took 40 s of CI's test_fuzz_seed)
sums=$(mktemp)
trap 'rm -f "$sums"' EXIT
for c in "$corpus"/*/*; do
	[ -f "$c" ] && printf '%s %s\n' "$(cksum <"$c")" "$c"
done >"$sums"

# copies F: the corpus files with F's bytes
copies()
{
	[ -f "$1" ] || return 0
	k=$(cksum <"$1")
	grep -F "$k " "$sums" | while read -r _ _ c; do
		cmp -s "$1" "$c" && echo "$c"
	done
}

for f in "$fixtures"/*/*; do
	[ -f "$f" ] || continue
	fmt=${f%/*}
	fmt=${fmt##*/}
	name=${f##*/}
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
		case ${c##*/} in
		"$name" | "min_$name" | "${fmt}_${name%.*}.tl")
			fail "$c: a copy of $f or made from it (the seed is built from $fixtures: remove it)" ;;
		esac
	done
	for c in $(copies "$f"; copies "$seed/otio/min_$name";
		copies "$seed/tl/${fmt}_${name%.*}.tl"); do
		case ${c##*/} in
		"$name" | "min_$name" | "${fmt}_${name%.*}.tl") continue ;;
		esac
		fail "$c: a copy of $f or made from it (the seed is built from $fixtures: remove it)"
	done
done
exit $bad
