#!/bin/sh
# SPDX-License-Identifier: MIT
# The layers' rules, from the sources' includes: engine/ uses no FUSE and
# no SQLite; each part of engine/ includes only its own headers and those
# of the parts above it in engine/README.md's table (the order is read
# from there, so the table and the code cannot drift apart); schema/ is
# the only C that speaks SQL (sqlite3.h); no other folder but tests/
# includes a schema/ private header.  A violation names the file, line
# and include.
# shellcheck disable=SC2034 # read by lib.sh: this test mounts nothing
NO_MOUNT=1
# shellcheck source=tests/integration/lib.sh
. "$(dirname "$0")/lib.sh"

cd "$TOP" || exit 1
# the parts in the table's order: "| `util/` | ..." rows
# shellcheck disable=SC2016 # Markdown code spans, not expansions
parts=$(sed -n 's/^| `\([a-z]*\)\/` |.*/\1/p' engine/README.md | paste -sd' ')
check "engine/README.md's table names the parts" test -n "$parts"
on_disk=$(for d in engine/*/; do basename "$d"; done | sort | paste -sd' ')
check_eq "every folder of engine/ is a row of the table" "$on_disk" \
	"$(echo "$parts" | tr ' ' '\n' | sort | paste -sd' ')"

# above PART INC: INC's part is PART or one above it in the table
above() {
	for p in $parts; do
		[ "$p" = "$2" ] && return 0
		[ "$p" = "$1" ] && return 1
	done
	return 1
}

# violations ROOT: ROOT/engine's includes of a part below, FILE:LINE:INC
violations() {
	for part in $parts; do
		for f in "$1"/engine/"$part"/*.[ch]; do
			[ -f "$f" ] || continue
			# shellcheck disable=SC2013 # words: folder names
			for inc in $(sed -n 's/^#include "\([a-z]*\)\/.*/\1/p' "$f" | sort -u); do
				[ "$inc" = "$part" ] && continue
				above "$part" "$inc" ||
					grep -n "^#include \"$inc/" "$f" | head -1 |
					sed "s|^|${f#"$1"/}:|"
			done
		done
	done
}

check_none "each part of engine/ includes only the parts above it" \
	"$(violations "$TOP")"
# the rule can fail: util/ (the first part) including play/
mkdir -p "$T/tree/engine/util" "$T/tree/engine/play"
printf '#include "util/diag.h"\n#include "play/player.h"\n' \
	>"$T/tree/engine/util/x.c"
printf '#include "util/diag.h"\n' >"$T/tree/engine/play/y.c"
check_eq "a util/ file including play/ is found, a play/ file including util/ is not" \
	'engine/util/x.c:2:#include "play/player.h"' "$(violations "$T/tree")"

# the C of the programs and the engine: every folder's but schema/'s and
# tests/'s
others=$(find . \( -path ./build -o -path ./.git -o -path ./schema -o \
	-path ./tests \) -prune -o -name '*.[ch]' -print | sort)
check "the programs' and the engine's C is found" test -n "$others"
# shellcheck disable=SC2086 # file names without blanks
check_none "only schema/ includes sqlite3.h" \
	"$(grep -ln '^#include.*sqlite3\.h' $others)"
private=$(for h in schema/*_i.h; do basename "$h"; done | paste -sd'|')
check "schema/ has private headers" test -n "$private"
# shellcheck disable=SC2086 # file names without blanks
check_none "no folder but schema/ and tests/ includes a private header of schema/" \
	"$(grep -nE "^#include \"($private)\"" $others)"

finish
