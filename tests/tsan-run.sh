#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/tsan-run.sh DIR COMMAND...: run the tests of a ThreadSanitizer build
# (make test SANITIZE=thread), whose TSAN_OPTIONS log_path writes every
# report to DIR/report.PID, and fail when any process left one there: a
# daemon's report would otherwise go with its test's temporary folder, and
# one on its way out after the unmount only sets an exit status (66) that
# nothing checks.  The reports are printed last.  Exit: COMMAND's status, or
# 1 when there was a report.
set -u
dir=$1
shift
rm -rf "$dir"
mkdir -p "$dir"
# test_daemon runs the daemon as nobody: its report must be writable by
# nobody too, and a checkout may sit below a folder only root can enter
# (mktemp -d makes 0700: TSan then cannot open its log and the daemon
# exits 66 at start).  So the processes write to a folder of /tmp, whose
# reports are moved to DIR at the end; the suppressions go beside them.
logs=$(mktemp -d "${TMPDIR:-/tmp}/tlfs-tsan.XXXXXX") || exit 1
trap 'rm -rf "$logs"' EXIT
chmod 1777 "$logs"
supp=$(printf '%s\n' "${TSAN_OPTIONS:-}" | tr ':' '\n' |
	sed -n 's/^suppressions=//p' | tail -1)
if [ -n "$supp" ]; then
	cp "$supp" "$logs/tsan.supp" && chmod 644 "$logs/tsan.supp"
	TSAN_OPTIONS="$TSAN_OPTIONS:suppressions=$logs/tsan.supp"
fi
TSAN_OPTIONS="${TSAN_OPTIONS:-}:log_path=$logs/report"
export TSAN_OPTIONS

# The gcc 12 and clang 14 TSan runtimes know a fixed memory layout: where
# the kernel randomises mmap more (vm.mmap_rnd_bits above 28, the default
# of newer distributions' kernels), a program dies at start with "FATAL:
# ThreadSanitizer: unexpected memory mapping".  Newer runtimes then run
# themselves again without ASLR; here the tests run under setarch -R
# (inherited by every process they start) when a probe shows the need.
probe=$dir/probe
printf 'int main(void) { return 0; }\n' >"$probe.c"
if ! ${CC:-cc} -fsanitize=thread -o "$probe" "$probe.c" 2>"$probe.err"; then
	cat "$probe.err" >&2
	echo "tsan: cannot build a ThreadSanitizer program with ${CC:-cc}" >&2
	exit 1
fi
norand=
if ! "$probe" >"$probe.err" 2>&1; then
	if grep -q 'unexpected memory mapping' "$probe.err" &&
		setarch "$(uname -m)" -R "$probe" >/dev/null 2>&1; then
		norand="setarch $(uname -m) -R"
		echo "tsan: the runtime cannot take this kernel's mmap" \
			"randomisation; the tests run with ASLR off (setarch -R)"
	else
		cat "$probe.err" >&2
		echo "tsan: a ThreadSanitizer program cannot run here" \
			"(try sysctl vm.mmap_rnd_bits=28)" >&2
		exit 1
	fi
fi
rm -f "$probe" "$probe.c" "$probe.err"

$norand "$@"
rc=$?
for f in "$logs"/report.*; do
	[ -f "$f" ] && mv "$f" "$dir/"
done
n=0
for f in "$dir"/report.*; do
	[ -f "$f" ] || continue
	n=$((n + 1))
	echo "== ThreadSanitizer: $f"
	cat "$f"
done
if [ "$n" -gt 0 ]; then
	echo "tsan: $n process(es) reported (above): failed"
	exit 1
fi
exit "$rc"
