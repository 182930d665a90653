#!/bin/sh
# SPDX-License-Identifier: MIT
# The fuzz targets' seed corpus is built from tests/fixtures (make
# fuzz-seed), not kept as copies of it: the copies had drifted (the
# corpus's transition.otio still had a handle of 2 where the fixture's is
# 5, names.edl was never copied).  A seed built in a scratch folder, as
# from a clean clone, holds every fixture; tests/fuzz/check-seed.sh, which
# make fuzz-seed runs, fails on a fixture missing or changed in the seed
# and on a copy of one in tests/fuzz/corpus (each tried on a scratch copy).
# Needs no FUSE and no clang.
# shellcheck disable=SC2034 # read by lib.sh
NO_MOUNT=1
. "$(dirname "$0")/lib.sh"

S=$T/fuzz/seed
cd "$TOP" || exit 1

# count FILE...: how many of the files exist
count() {
	c=0
	for f in "$@"; do [ -e "$f" ] && c=$((c + 1)); done
	echo $c
}

# check_seed SEED CORPUS: tests/fuzz/check-seed.sh on them
check_seed() {
	sh "$TOP/tests/fuzz/check-seed.sh" "$1" "$TOP/tests/fixtures" "$2"
}

check "make fuzz-seed builds a seed in an empty folder" \
	make --no-print-directory fuzz-seed FUZZ_DIR="$T/fuzz"
n=0 missing=
for f in tests/fixtures/*/*; do
	n=$((n + 1))
	fmt=$(basename "$(dirname "$f")")
	cmp -s "$f" "$S/$fmt/$(basename "$f")" || missing="$missing $f"
done
check_none "every fixture ($n) is in the seed of its format" "$missing"
check_eq "every fixture is in the .tl seed as the mount resolves it" \
	"$n" "$(count "$S"/tl/edl_*.tl "$S"/tl/otio_*.tl)"
check_eq "every OTIO fixture is in the seed minified too" \
	"$(count tests/fixtures/otio/*)" "$(count "$S"/otio/min_*.otio)"
missing=
for f in tests/fuzz/corpus/*/*; do
	d=$(basename "$(dirname "$f")")
	cmp -s "$f" "$S/$d/$(basename "$f")" || missing="$missing $f"
done
check_none "every file of tests/fuzz/corpus is in the seed" "$missing"

# fails CASE: check-seed.sh on a changed copy refuses it, naming WHAT
fails() {
	if check_seed "$T/s" "$T/c" 2>"$T/err"; then
		not_ok "$1: check-seed.sh passed"
	elif grep -q "$2" "$T/err"; then
		ok "$1: refused ($(head -1 "$T/err"))"
	else
		not_ok "$1: refused without naming $2: $(cat "$T/err")"
	fi
	rm -rf "$T/s" "$T/c"
	cp -R "$S" "$T/s"
	cp -R tests/fuzz/corpus "$T/c"
}
rm -rf "$T/s" "$T/c"
cp -R "$S" "$T/s"
cp -R tests/fuzz/corpus "$T/c"
check "check-seed.sh passes the seed as built" \
	check_seed "$T/s" "$T/c"

rm "$T/s/edl/names.edl"
fails "a fixture missing from the seed" "tests/fixtures/edl/names.edl"
printf 'x' >>"$T/s/otio/transition.otio"
fails "a fixture changed in the seed" "tests/fixtures/otio/transition.otio"
rm "$T/s/tl/edl_speed.tl"
fails "a fixture missing from the .tl seed" "tl/edl_speed.tl"
rm "$T/s/otio/min_fades.otio"
fails "an OTIO fixture missing minified" "min_fades.otio"
cp tests/fixtures/edl/channels.edl "$T/c/edl/"
fails "a copy of a fixture in the corpus" "c/edl/channels.edl"
cp tests/fixtures/otio/rates.otio "$T/c/otio/old_rates.otio"
fails "a copy of a fixture under another name" "c/otio/old_rates.otio"
cp "$S/tl/otio_clip2.tl" "$T/c/tl/dump_escaped.tl"
fails "a .tl dump of a fixture in the corpus" "c/tl/dump_escaped.tl"

finish
