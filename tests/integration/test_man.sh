#!/bin/sh
# SPDX-License-Identifier: MIT
# The man pages of docs/man: each renders with man -l and groff with no
# warning, and holds every option its program's -h prints (each -x, --long
# and -o name= token of the help text).  The checker is shown to fail: a
# page with one option taken out is caught.
# shellcheck source=tests/integration/lib.sh
. "$(dirname "$0")/lib.sh"

MAN=$TOP/docs/man
for t in man groff python3; do
	command -v "$t" >/dev/null 2>&1 ||
		{ echo "skip: no $t (make deps installs man-db, groff-base)"; exit 77; }
done

# The option tokens of the help text $1 missing from the page text $2, one
# a line: -x and --long where they stand alone, -o NAME= and -o NAME as
# their NAME= or NAME.
missing() {
	python3 - "$1" "$2" <<'PY'
import re, sys
help_text, page = (open(f, encoding="utf-8").read() for f in sys.argv[1:3])
short = r"(?<![\w-])-[A-Za-z](?![\w-])"
long_ = r"(?<![\w-])--[a-z][a-z0-9-]*"
onames = r"(?<![\w-])-o\s+([a-z_][a-z0-9_]*=?)"
page_opts = set(re.findall(short, page)) | set(re.findall(long_, page))
out = []
for tok in sorted(set(re.findall(short, help_text)) | set(re.findall(long_, help_text))):
    if tok not in page_opts:
        out.append(tok)
for name in sorted(set(re.findall(onames, help_text))):
    pat = r"(?<![\w-])" + re.escape(name) + ("" if name.endswith("=") else r"(?![\w-])")
    if not re.search(pat, page):
        out.append("-o " + name)
print("\n".join(out))
PY
}

# render PAGE: its text, plain ASCII, no hyphenation
render() {
	LC_ALL=C groff -man -Tascii -rHY=0 -P-cbu "$1" 2>/dev/null
}

# help PROG: what PROG -h prints
help() {
	case $1 in
	timelinefs) "$BIN" -h 2>&1 ;;
	timelinefs-gen) "$GEN" -h 2>&1 ;;
	timelinefs-hosts | timelinefs-merge | timelinefs-probe) "$TLFS_BUILD/$1" -h 2>&1 ;;
	*) sh "$TOP/mount-scripts/$1" -h 2>&1 ;;
	esac
}

PROGS="timelinefs timelinefs-gen timelinefs-bench timelinefs-report timelinefs-plot timelinefs-export timelinefs-umount timelinefs-hosts timelinefs-hosts-run timelinefs-merge timelinefs-lab timelinefs-probe"
n=0
for p in "$MAN"/*.[1-8]; do
	n=$((n + 1))
	b=$(basename "$p")
	case " $PROGS " in
	*" ${b%.*} "*) ok "$b is a page of a program" ;;
	*) not_ok "$b: no program ${b%.*}" ;;
	esac
done
check_eq "twelve pages" 12 "$n"

for prog in $PROGS; do
	page=
	for f in "$MAN/$prog".[1-8]; do
		[ -f "$f" ] && page=$f
	done
	if [ -z "$page" ]; then
		not_ok "$prog: no page in docs/man"
		continue
	fi
	LC_ALL=C MANWIDTH=80 man -l --warnings "$page" >"$T/man.out" 2>"$T/man.err" ||
		echo "man -l exited $?" >>"$T/man.err"
	check_none "$prog: man -l --warnings renders it, no warning" "$(cat "$T/man.err")"
	# shellcheck disable=SC2016
	check "$prog: man -l output has NAME and SYNOPSIS" \
		sh -c 'grep -q "^NAME" "$1" && grep -q "^SYNOPSIS" "$1"' sh "$T/man.out"
	check_none "$prog: groff -ww no warning" \
		"$(LC_ALL=C groff -ww -z -man "$page" 2>&1)"
	for s in DESCRIPTION OPTIONS EXAMPLES "EXIT STATUS" "SEE ALSO"; do
		check "$prog: section $s" grep -q "^\.SH \"*$s\"*\$" "$page"
	done
	help "$prog" >"$T/help"
	render "$page" >"$T/page"
	check "$prog: -h prints options" grep -q -- "--help" "$T/help"
	check_none "$prog: every option of -h is in the page" \
		"$(missing "$T/help" "$T/page")"
done

# timelinefs's options come from one table (fs/fs_opttab.c): the lists of
# the page and the README between their BEGIN/END OPTIONS lines are what
# the program prints now (make docs-options), and every option of the
# table is in -h and in the rendered page, and in the README where it
# lists it, each with the table's default in its item.  Before the table
# -h said preroll 0.500 and the page 0.5, the README left out
# ingest_replace, experiment, rank and max_idle_threads, and the page
# listed splice last.
SPLICE=$TOP/tests/tools/docsplice.sh
# spliced FILE OUT PROG ARGS...: PROG ARGS's output, kept in OUT, is
# FILE's part between its markers (make docs-options)
spliced() {
	file=$1
	out=$2
	shift 2
	"$@" >"$out"
	check "$(basename "$file"): its options are the table's (make docs-options)" \
		sh "$SPLICE" --check "$file" <"$out"
}
spliced "$MAN/timelinefs.1" "$T/opts.man" "$BIN" --doc-options=man
spliced "$TOP/README.md" "$T/opts.md" "$BIN" --doc-options=readme
"$BIN" --doc-options=list >"$T/opts.list"
check "the table lists timelinefs's options" \
	test "$(wc -l <"$T/opts.list")" -gt 30
# undocumented OPTS TEXT ITEM README: each option of the list OPTS whose
# item in TEXT (lines starting with the regex ITEM, NAME in its group) is
# missing or lacks "(DEFAULT"; README 1: only the options it lists
undocumented() {
	python3 - "$@" <<'PY'
import re, sys
opts, text, item, only = sys.argv[1], open(sys.argv[2], encoding="utf-8").read(), sys.argv[3], sys.argv[4] == "1"
items, cur = {}, None
for line in text.splitlines():
    m = re.match(item, line)
    if m:
        cur = m.group(1)
        items[cur] = ""
    elif cur and not line.strip():
        cur = None
    if cur:
        items[cur] += " " + line.strip()
for row in open(opts, encoding="utf-8"):
    name, default, *readme = row.rstrip("\n").split("\t")
    readme = readme[0] if readme else "0"
    if only and readme != "1":
        continue
    body = " ".join(items.get(name, "").split())
    if not body:
        print(name + ": no item")
    elif default != "-" and "(" + default not in body:
        print(name + ": no (" + default + " in: " + body)
PY
}
"$BIN" -h >"$T/help.tl" 2>&1
render "$MAN/timelinefs.1" >"$T/page.tl"
check_none "every option of the table is in -h with its default" \
	"$(undocumented "$T/opts.list" "$T/help.tl" '^    -o ([a-z_]+)' 0)"
check_none "every option of the table is in the page with its default" \
	"$(undocumented "$T/opts.list" "$T/page.tl" '^ {7}-o ([a-z_]+)' 0)"
check_none "every option the README lists is there with its default" \
	"$(undocumented "$T/opts.list" "$TOP/README.md" '^- `-o ([a-z_]+)' 1)"
# drift WHO PAGE SED MAN: PAGE with the sed script SED (a default
# changed) fails docsplice's comparison with the program's items MAN;
# drift_named WHO LIST ITEM WHAT: the item check of that page (rendered)
# names WHAT ("NAME: no (DEFAULT")
drift() {
	sed "$3" "$2" >"$T/drift.page"
	rc=0
	sh "$SPLICE" --check "$T/drift.page" <"$4" 2>/dev/null || rc=$?
	check_eq "$1: a page with a drifted default fails the comparison" 1 "$rc"
}
drift_named() {
	render "$T/drift.page" >"$T/drift.txt"
	# shellcheck disable=SC2016 # expanded by the inner sh
	check "$1: a page with a drifted default is named by the item check" \
		sh -c 'echo "$1" | grep -qF "$2"' sh \
		"$(undocumented "$2" "$T/drift.txt" "$3" 0)" "$4"
}
# a page saying max_threads 500
drift timelinefs "$MAN/timelinefs.1" 's/(512, 1 to 100000)/(500, 1 to 100000)/' \
	"$T/opts.man"
drift_named timelinefs "$T/opts.list" '^ {7}-o ([a-z_]+)' "max_threads: no (512"

# timelinefs-gen's options come from its table (gen/gen_opttab.c) too: the
# page's items are what it prints, and its defaults eng_gen_config_default's
# constants.  Before the table the page's --container said its default as
# "one CLIP.mov holding the video", -h "CLIP.mov with V and A1..An".
spliced "$MAN/timelinefs-gen.1" "$T/gen.man" "$GEN" --doc-options=man
drift timelinefs-gen "$MAN/timelinefs-gen.1" \
	's/^clips to write (24)\.$/clips to write (25)./' "$T/gen.man"
help timelinefs-gen >"$T/help.gen"
check "timelinefs-gen -h: --clips with eng_gen_config_default's 24" \
	grep -q '^  --clips N  *clips to write (24)$' "$T/help.gen"

# timelinefs-hosts's options come from its table too
# (launcher/launcher_opttab.c), under its headings (plan, each host, rank
# 0): the page's items are what it prints, and every option of the table
# is in -h and in the page with the table's default.  Before the table
# -h, the page and opts_default each said the defaults, and getopt's
# table and the usage each listed the options.
HOSTS=$TLFS_BUILD/timelinefs-hosts
spliced "$MAN/timelinefs-hosts.1" "$T/hosts.man" "$HOSTS" --doc-options=man
"$HOSTS" --doc-options=list >"$T/hosts.list"
check "the table lists timelinefs-hosts's options" \
	test "$(wc -l <"$T/hosts.list")" -ge 20
help timelinefs-hosts >"$T/help.hosts"
render "$MAN/timelinefs-hosts.1" >"$T/page.hosts"
check_none "timelinefs-hosts: every option of the table is in -h with its default" \
	"$(undocumented "$T/hosts.list" "$T/help.hosts" '^  --([a-z-]+)' 0)"
check_none "timelinefs-hosts: every option of the table is in the page with its default" \
	"$(undocumented "$T/hosts.list" "$T/page.hosts" '^ {7}--([a-z-]+)' 0)"
# shellcheck disable=SC2016 # expanded by the inner sh
check "timelinefs-hosts -h and the page: the three headings" sh -c \
	'grep -q "^each host:$" "$1" && grep -q "^ *Each host:$" "$2" &&
	 grep -q "^rank 0:$" "$1" && grep -q "^ *Rank 0:$" "$2"' sh \
	"$T/help.hosts" "$T/page.hosts"
drift timelinefs-hosts "$MAN/timelinefs-hosts.1" \
	's/^repetitions of each count (3, 1 to 1000)\.$/repetitions of each count (4, 1 to 1000)./' \
	"$T/hosts.man"
drift_named timelinefs-hosts "$T/hosts.list" '^ {7}--([a-z-]+)' "repeat: no (3"

# timelinefs-merge's and timelinefs-probe's options come from their
# tables too (merge/merge_opttab.c, responsiveness/responsiveness_opttab.c):
# the pages' items are what they print, and every option of a table is in
# -h and in the page with the table's default.  Before the tables -h, the
# page and the code (probe's /bin/true and 100 ms) each said them.
for prog in timelinefs-merge timelinefs-probe; do
	spliced "$MAN/$prog.1" "$T/$prog.man" "$TLFS_BUILD/$prog" --doc-options=man
	"$TLFS_BUILD/$prog" --doc-options=list >"$T/$prog.list"
	help "$prog" >"$T/help.$prog"
	render "$MAN/$prog.1" >"$T/page.$prog"
	check_none "$prog: every option of the table is in -h with its default" \
		"$(undocumented "$T/$prog.list" "$T/help.$prog" '^  (?:-[a-zA-Z], )?--([a-z-]+)' 0)"
	check_none "$prog: every option of the table is in the page with its default" \
		"$(undocumented "$T/$prog.list" "$T/page.$prog" '^ {7}(?:-[a-zA-Z], )?--([a-z-]+)' 0)"
done
# shellcheck disable=SC2016 # expanded by the inner sh
check "the tables list --experiment and --period, --exec, --duration" \
	sh -c 'cut -f1 "$1" "$2" | tr "\n" " " | grep -qx "experiment period exec duration "' \
	sh "$T/timelinefs-merge.list" "$T/timelinefs-probe.list"
drift timelinefs-probe "$MAN/timelinefs-probe.1" \
	's/^the period in milliseconds, at least 1 (100)\.$/the period in milliseconds, at least 1 (200)./' \
	"$T/timelinefs-probe.man"
drift_named timelinefs-probe "$T/timelinefs-probe.list" '^ {7}--([a-z-]+)' "period: no (100"

# the checker catches a page with an option taken out
sed '/max_background/d' "$MAN/timelinefs.1" >"$T/cut.1"
"$BIN" -h >"$T/help" 2>&1
render "$T/cut.1" >"$T/page"
missing "$T/help" "$T/page" >"$T/missing"
check "a page without -o max_background= is caught" \
	grep -qxF -- "-o max_background=" "$T/missing"
sed '/stagger/d' "$MAN/timelinefs-bench.1" >"$T/cut.1"
help timelinefs-bench >"$T/help"
render "$T/cut.1" >"$T/page"
missing "$T/help" "$T/page" >"$T/missing"
check "a page without --stagger is caught" grep -qxF -- "--stagger" "$T/missing"

# The shell commands keep a short -h and a long page (no table of their
# own: the usage is the options' list and the page tells more), held
# together by tests/tools/shellopts.py: every item of the page an option
# of -h, every item of -h a case of the script's parser and every case an
# option of -h, and the default an item of -h gives in the page's item of
# the option.  Before this check the bench's page gave --probe's default
# only as "the default:", and nothing compared the defaults.
SHELLOPTS=$TOP/tests/tools/shellopts.py
ndef=0
for prog in timelinefs-bench timelinefs-report timelinefs-plot timelinefs-export \
	    timelinefs-umount timelinefs-hosts-run timelinefs-lab; do
	help "$prog" >"$T/help.$prog"
	cat "$TOP/mount-scripts/$prog" >"$T/script.$prog"
	if [ "$prog" = timelinefs-lab ]; then
		# one page for the storage and the network labs
		sh "$TOP/mount-scripts/$prog" net --help >>"$T/help.$prog" 2>&1
		cat "$TOP/mount-scripts/timelinefs-lab-net" >>"$T/script.$prog"
	fi
	render "$MAN/$prog.1" >"$T/page.$prog"
	python3 "$SHELLOPTS" "$T/help.$prog" "$T/page.$prog" "$T/script.$prog" \
		>"$T/so.$prog"
	check_none "$prog: -h, the page and the parser name the same options and defaults" \
		"$(grep -v '^checked ' "$T/so.$prog")"
	ndef=$((ndef + $(sed -n 's/^checked \([0-9]*\) defaults$/\1/p' "$T/so.$prog")))
done
check "the shell commands' defaults compared: at least 18 ($ndef)" test "$ndef" -ge 18
# the check is shown to fail: a page with --repeat's default drifted, a
# -h with an option the parser does not know
sed 's/^repetitions of each count (3)/repetitions of each count (4)/' \
	"$MAN/timelinefs-bench.1" >"$T/drift.1"
render "$T/drift.1" >"$T/drift.txt"
# shellcheck disable=SC2016 # expanded by the inner sh
check "a page with --repeat (4) where -h says (3) is named" sh -c \
	'python3 "$1" "$2" "$3" "$4" | grep "^--repeat: -h says (3" >/dev/null' sh \
	"$SHELLOPTS" "$T/help.timelinefs-bench" "$T/drift.txt" "$T/script.timelinefs-bench"
sed 's/^  --stagger SECONDS /  --stutter SECONDS /' "$T/help.timelinefs-bench" >"$T/drift.h"
# shellcheck disable=SC2016 # expanded by the inner sh
check "an option of -h the parser does not know is named" sh -c \
	'python3 "$1" "$2" "$3" "$4" | grep "^--stutter: an item of -h, not a case" >/dev/null' sh \
	"$SHELLOPTS" "$T/drift.h" "$T/page.timelinefs-bench" "$T/script.timelinefs-bench"

finish
