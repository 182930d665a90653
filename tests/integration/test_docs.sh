#!/bin/sh
# SPDX-License-Identifier: MIT
# The documentation works in a clone: every link of README.md, CHANGELOG.md
# and docs/*.md leads to a file (and heading) of the repository and none
# leaves it (tests/tools/mdlinks.py), every command of README.md works
# here (tests/tools/mdcmds.py), and docs/design.md is in the repository.
# Before issue 19: README.md linked ../shared/DESIGN.md, beside the
# repository, which a clone from elsewhere does not have, and it was 850
# lines.  A scratch copy of a README with those faults checks that the
# checks can fail.
# shellcheck disable=SC2034 # read by lib.sh: this test mounts nothing
NO_MOUNT=1
# shellcheck source=tests/integration/lib.sh
. "$(dirname "$0")/lib.sh"

links() { python3 "$TOP/tests/tools/mdlinks.py" "$@"; }

# the checker fails on each kind of bad link, and passes a good one
mkdir -p "$T/repo/docs"
printf '# A\n\n## Two words\n' >"$T/repo/docs/a.md"
# bad WHAT LINK REASON: a README holding LINK is refused for REASON
bad() {
	printf '# R\n\n%s\n' "$2" >"$T/repo/README.md"
	rc=0
	out=$(links "$T/repo" "$T/repo/README.md") || rc=$?
	# shellcheck disable=SC2016 # expanded by the inner sh
	check "mdlinks refuses $1" sh -c \
		'[ "$1" -eq 1 ] && echo "$2" | grep -q "README.md:3: .*$3"' \
		sh "$rc" "$out" "$3"
}
bad "a link outside the repository" '[design](../shared/DESIGN.md)' \
	'leaves the repository'
bad "a missing file" '[x](docs/nosuch.md)' 'no such file'
bad "a missing heading" '[x](docs/a.md#three-words)' 'no heading'
bad "an absolute path" '[x](/etc/passwd)' 'absolute path'
bad "a file: URL" '[x](file:///etc/passwd)' 'URL outside'
# shellcheck disable=SC2016 # Markdown code spans, not expansions
printf '# R\n\n[a](docs/a.md#two-words) `[c](nosuch.md)` [w](https://example.org)\n\n```\n[d](nosuch.md)\n```\n' \
	>"$T/repo/README.md"
check "mdlinks passes good links, skips code" \
	links "$T/repo" "$T/repo/README.md"

cd "$TOP" || exit 1
for f in README.md CHANGELOG.md docs/*.md; do
	check "$f: every link resolves inside the repository" links . "$f"
done
# every command of the README's ```sh blocks works here: its program
# exists, its options are in the program's help, make's targets in the
# Makefile (tests/tools/mdcmds.py); a README with four broken commands
# shows each is found
cmds() { python3 "$TOP/tests/tools/mdcmds.py" "$@"; }
check "README.md: every command runs a program here, with options it has" \
	cmds "$TOP" README.md
printf '%s\n' '```sh' 'timelinefs-bench --workstations 5 --no-such-option' \
	'make demo nosuchtarget' 'timelinefs -o db=x.db,nosuchopt=1 /m /v' \
	'ls /; no-such-program-here' '```' '```' 'not a command: output' '```' \
	>"$T/cmds.md"
check_eq "mdcmds finds each broken command, nothing in an output block" \
	"$T/cmds.md:2: timelinefs-bench: --no-such-option is not in its --help
$T/cmds.md:3: make has no target nosuchtarget
$T/cmds.md:4: timelinefs: -o nosuchopt is not in its -h
$T/cmds.md:5: no-such-program-here: not a program on PATH" \
	"$(cmds "$TOP" "$T/cmds.md")"
check "docs/design.md is in the repository" test -s docs/design.md
# Figures the code computes, quoted once each: the seed media's size
# (timelinefs-gen --format list; pages said 3.51, 3.59 and 3.6 GB) and
# a seed stream's memory (timelinefs -h, eng_player_mem; the man page said
# 8.7 MiB, -h 8.9).  Program output quoted in a page (wrote ...) is a run.
size=$("$GEN" --format list | sed -n 's/^seed .*media \([0-9.]* GB\)$/\1/p')
# an empty figure (its line reworded) would filter every line out below
check "timelinefs-gen --format list gives the seed media's size ($size)" \
	test -n "$size"
check_none "every page gives the seed media's size as timelinefs-gen does ($size)" \
	"$(grep -nE "24 clips[^.]*[0-9]+(\.[0-9]+)? GB" README.md docs/*.md docs/man/*.1 mount-scripts/timelinefs-bench |
		grep -v "wrote 24 clips" | grep -vF "$size")"
mem=$("$BIN" -h | sed -n 's/.*(\([0-9.]* MiB\) for the seed.*/\1/p')
check "timelinefs -h gives a seed stream's memory ($mem)" test -n "$mem"
check_none "every page gives a seed stream's memory as timelinefs -h does ($mem)" \
	"$(grep -nE "[0-9.]+ MiB for the seed|seed timelines takes [0-9.]+|instead of [0-9.]+ MiB;" README.md docs/*.md docs/man/*.1 |
		grep -vF "${mem% MiB}")"
finish
