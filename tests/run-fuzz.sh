#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/run-fuzz.sh SECONDS: build the seed corpora (make fuzz-seed, into
# build/fuzz/seed: the fixtures and tests/fuzz/corpus, checked by
# tests/fuzz/check-seed.sh), build every tests/fuzz/fuzz_*.c with libFuzzer
# (make fuzz-build, into build/fuzz) and run each for SECONDS (FUZZ_JOBS,
# default the CPUs, at a time) on a scratch
# corpus seeded from build/fuzz/seed/NAME (read only: new inputs go to
# build/fuzz/corpus-NAME, crashes to build/fuzz/crash-NAME-*).  A target
# passes when it ran SECONDS without a crash, leak or timeout.  Prints
# "N passed, N failed" last; exit 77 when clang's libFuzzer is missing
# (after the seed's check, which needs no clang).
set -u
secs=${1:-120}
top=$(cd "$(dirname "$0")/.." && pwd)
out=$top/build/fuzz
cc=${FUZZ_CC:-clang}

case $secs in
'' | *[!0-9]*) echo "usage: $0 SECONDS" >&2; exit 2 ;;
esac
mkdir -p "$out"
if ! make -C "$top" --no-print-directory fuzz-seed; then
	echo "the seed corpus does not build, or misses a fixture"
	echo "0 passed, 1 failed"
	exit 1
fi
probe=$out/probe
printf 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n);\n%s\n' \
	'int LLVMFuzzerTestOneInput(const char *d, unsigned long n) { (void)d; (void)n; return 0; }' \
	>"$probe.c"
if ! "$cc" -fsanitize=fuzzer,address,undefined -o "$probe" "$probe.c" \
	>/dev/null 2>&1; then
	rm -f "$probe" "$probe.c"
	echo "skip: $cc cannot build libFuzzer targets (install clang and libclang-rt-14-dev)"
	exit 77
fi
rm -f "$probe" "$probe.c"

if ! make -C "$top" --no-print-directory -j2 fuzz-build; then
	echo "fuzz targets do not build"
	echo "0 passed, 1 failed"
	exit 1
fi

# scratch folders of the targets (fuzz_options makes one): a crash
# leaves its own behind, and the next run clears them
export TMPDIR="$out/tmp"
rm -rf "$TMPDIR"
mkdir -p "$TMPDIR"

# run_one NAME: one target's run; its exit status into $out/NAME.rc
run_one() {
	name=$1
	bin=$out/fuzz_$name
	seeds=$out/seed/$name
	work=$out/corpus-$name
	rm -rf "$work"
	mkdir -p "$work"
	[ -d "$seeds" ] || seeds=
	# -timeout: one input taking this long is a hang (a failure);
	# the seed is the second directory: only read
	# shellcheck disable=SC2086
	"$bin" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 \
		-print_final_stats=1 -artifact_prefix="$out/crash-$name-" \
		"$work" $seeds >"$out/$name.log" 2>&1
	echo $? >"$out/$name.rc"
}

# the targets run FUZZ_JOBS at a time (default: the CPUs), each one
# single-threaded, so that the suite costs CI SECONDS a batch, not a target
jobs=${FUZZ_JOBS:-$(nproc 2>/dev/null || echo 1)}
names=
running=0
for src in "$top"/tests/fuzz/fuzz_*.c; do
	name=$(basename "$src" .c)
	name=${name#fuzz_}
	names="$names $name"
	rm -f "$out/$name.rc"
	run_one "$name" &
	running=$((running + 1))
	if [ "$running" -ge "$jobs" ]; then
		wait
		running=0
	fi
done
wait

pass=0 fail=0
for name in $names; do
	log=$out/$name.log
	rc=$(cat "$out/$name.rc" 2>/dev/null || echo died)
	runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
	if [ "$rc" = 0 ]; then
		pass=$((pass + 1))
		echo "ok - fuzz_$name: ${runs:-?} runs in ${secs}s"
	else
		fail=$((fail + 1))
		echo "not ok - fuzz_$name exited $rc; tail of $log:"
		tail -30 "$log" | sed 's/^/#   /'
	fi
done
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
