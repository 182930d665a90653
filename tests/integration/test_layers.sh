#!/bin/sh
# SPDX-License-Identifier: MIT
# The layers' rules, from the sources' includes: engine/ uses no FUSE and
# no SQLite; each part of engine/ includes only its own headers and those
# of the parts above it in engine/README.md's table (the order is read
# from there, so the table and the code cannot drift apart); schema/ is
# the only C that speaks SQL (sqlite3.h); no other folder but tests/
# includes a schema/ private header; in fs/ only fs_main.c calls up into
# the FUSE operations (ops.c), and no file names a /proc or /sys file (the
# host probe of engine/probe/ reads them).  And the names: no two C files or
# headers share a name, and a quoted include is one file whatever the
# order of -I.  A violation names the file, line and include.
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

# Names: no two C files or headers of the tree share a name, tests/
# included (a header of tests/ named as one of engine/ would be found by
# the order of -I), so that a name (in a message, a comment, a grep, a
# stack trace) is one file.
# same_names ROOT: each name held twice, "NAME: PATH PATH..."
same_names() {
	find "$1" \( -path "$1/build" -o -path "$1/.git" \) -prune -o \
		-name '*.[ch]' -print | sed "s|^$1/||" | sort |
		awk -F/ '{ n = $NF; seen[n]++; at[n] = at[n] " " $0 }
			END { for (n in seen) if (seen[n] > 1) print n ":" at[n] }' |
		sort
}
check_none "no two C files or headers share a name" "$(same_names "$TOP")"

# Includes: "X" is one file whatever the order of -I: of the including
# file's folder and the folders the Makefile names with -I, exactly one
# holds X (the same file found twice, as schema/ including "store.h",
# is one).
incdirs=$(grep -oE '(^|[[:space:]])-I[a-z][a-z/_]*' Makefile |
	sed 's/.*-I//' | sort -u | paste -sd' ')
check "the Makefile names its -I folders" test -n "$incdirs"
# unresolved ROOT: FILE:LINE: "X" and the files it could be
unresolved() {
	find "$1" \( -path "$1/build" -o -path "$1/.git" \) -prune -o \
		-name '*.[ch]' -print | sed "s|^$1/||" | sort |
	while read -r f; do
		d=$(dirname "$f")
		grep -n '^#[[:space:]]*include[[:space:]]*"' "$1/$f" |
		while IFS=: read -r line inc; do
			x=${inc#*\"}
			x=${x%%\"*}
			found=
			n=0
			for dir in "$d" $incdirs; do
				[ -f "$1/$dir/$x" ] || continue
				case " $found " in
				*" $dir/$x "*) ;;
				*) found="$found $dir/$x" n=$((n + 1)) ;;
				esac
			done
			[ "$n" -eq 1 ] ||
				echo "$f:$line: \"$x\" is${found:- no file}"
		done
	done
}
check_none "each quoted include is one file, whatever the order of -I" \
	"$(unresolved "$TOP")"
# both rules can fail: two hosts.h, one included by its bare name from a
# third folder, and a header that is nowhere
mkdir -p "$T/names/engine" "$T/names/schema" "$T/names/launcher"
: >"$T/names/engine/hosts.h"
: >"$T/names/schema/hosts.h"
printf '#include "hosts.h"\n#include "util/diag.h"\n' \
	>"$T/names/launcher/x.c"
check_eq "two files named hosts.h, an include that is either and one that is none are found" \
	"hosts.h: engine/hosts.h schema/hosts.h
launcher/x.c:1: \"hosts.h\" is engine/hosts.h schema/hosts.h
launcher/x.c:2: \"util/diag.h\" is no file" \
	"$(same_names "$T/names"; unresolved "$T/names")"

# fs/: the FUSE operations (ops.c) are the top of the daemon's files:
# only fs_main.c (which hands them to libfuse) calls a function ops.c
# defines, so that the ingest folder, the options, the metrics file and
# the rest sit below them, never calling back up.
# defines FILE: the fs_ functions FILE defines (a definition's name opens
# its line after the type, as every file here writes them)
defines() {
	sed -n 's/^[a-z][a-z_ ]*[ *]\(fs_[a-z0-9_]*\)(.*/\1/p' "$1" | sort -u
}
# calls_up ROOT: fs/ files but ops.c and fs_main.c calling ops.c's, as
# FILE:LINE:NAME
calls_up() {
	for fn in $(defines "$1/fs/ops.c"); do
		for f in "$1"/fs/*.c; do
			case $f in */ops.c | */fs_main.c) continue ;; esac
			grep -nw "$fn" "$f" | head -1 | cut -d: -f1 |
				sed "s|^|${f#"$1"/}:|; s|\$|:$fn|"
		done
	done | sort
}
check_none "no fs/ file but fs_main.c calls a function of fs/ops.c" \
	"$(calls_up "$TOP")"
# the rule can fail: an ingest.c calling ops.c's fs_access_add
mkdir -p "$T/fs/fs"
printf 'void fs_access_add(struct store_stream *ss,\n\tint x)\n{\n}\n' \
	>"$T/fs/fs/ops.c"
printf 'static void f(void)\n{\n\tfs_access_add(0, 1);\n}\n' \
	>"$T/fs/fs/ingest.c"
printf 'int main(void)\n{\n\tfs_access_add(0, 1);\n}\n' \
	>"$T/fs/fs/fs_main.c"
check_eq "an ingest.c calling ops.c's fs_access_add is found, fs_main.c's call is not" \
	"fs/ingest.c:3:fs_access_add" "$(calls_up "$T/fs")"

# fs/ probes no host: the host probe (engine/probe/hostfacts.c, through
# its injected I/O) reads /proc and /sys, and fs/ hands its facts on.
# host_paths ROOT: fs/ lines naming a /proc or /sys file, FILE:LINE:TEXT
host_paths() {
	grep -nHE '"/(proc|sys)/' "$1"/fs/*.c | sed "s|^$1/||"
}
check_none "no C of fs/ names a /proc or /sys file (engine/probe/ reads them)" \
	"$(host_paths "$TOP")"
# the rule can fail: a made-up fs/ reading /proc/self/mountinfo
mkdir -p "$T/host/fs"
printf 'static int f(void)\n{\n\treturn open("/proc/self/mountinfo", 0);\n}\n' \
	>"$T/host/fs/sys.c"
check_eq "an fs/ file opening /proc/self/mountinfo is found" \
	'fs/sys.c:3:	return open("/proc/self/mountinfo", 0);' \
	"$(host_paths "$T/host")"

check_none "engine/ includes no FUSE and no SQLite" \
	"$(grep -n '^#include.*\(fuse\|sqlite3\)' engine/*/*.[ch])"
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
