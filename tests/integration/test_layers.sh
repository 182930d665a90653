#!/bin/sh
# SPDX-License-Identifier: MIT
# The layers' rules, from the sources' includes: engine/ uses no FUSE and
# no SQLite; each part of engine/ includes only its own headers and those
# of the parts above it in engine/README.md's table (the order is read
# from there, so the table and the code cannot drift apart); schema/ is
# the only C that speaks SQL (sqlite3.h); fs/ and gen/ include no
# schema/ private header.  A violation names the file, line and include.
NO_MOUNT=1
. "$(dirname "$0")/lib.sh"

cd "$TOP" || exit 1
# the parts in the table's order: "| `util/` | ..." rows
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

check_none "engine/ includes no FUSE and no SQLite" \
	"$(grep -n '^#include.*\(fuse\|sqlite3\)' engine/*/*.[ch])"
check_none "only schema/ includes sqlite3.h" \
	"$(grep -ln '^#include.*sqlite3\.h' fs/*.[ch] gen/*.[ch] hosts/*.[ch] \
		engine/*/*.[ch] 2>/dev/null)"
check_none "fs/, gen/ and hosts/ include no private header of schema/" \
	"$(grep -n '^#include "[a-z_]*_i\.h"' fs/*.[ch] gen/*.[ch] hosts/*.[ch] |
		grep -v 'hosts/[a-z_]*\.[ch]:[0-9]*:#include "hosts_i\.h"')"

finish
