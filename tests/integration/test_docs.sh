#!/bin/sh
# SPDX-License-Identifier: MIT
# The documentation works in a clone: every link of README.md, CHANGELOG.md
# and docs/*.md leads to a file (and heading) of the repository and none
# leaves it (tests/tools/mdlinks.py), README.md stays a newcomer's manual
# of under 400 lines, and docs/design.md is in the repository.
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
n=$(wc -l <README.md)
check "README.md is under 400 lines ($n)" test "$n" -lt 400
check "docs/design.md is in the repository" test -s docs/design.md
# -q: a match is found even where a file is missing (grep exits 2 there)
check "no document links ../shared" sh -c \
	'! grep -qs "](\.\./shared\|](\.\./\.\./shared" README.md CHANGELOG.md docs/*.md'
finish
