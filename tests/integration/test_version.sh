#!/bin/sh
# SPDX-License-Identifier: MIT
# One version string, the Makefile's VERSION: timelinefs -V prints it with
# the libfuse and SQLite versions it runs with; timelinefs-gen and every
# mount-scripts/ script print it with -V and --version, from the checkout
# and as make install writes them.  make install puts the man pages under
# MANDIR/manN; make uninstall removes everything make install wrote.
# Before issue 19: timelinefs -V printed "timelinefs 0.1 (FUSE library
# 3.14.0)" and no SQLite version, the scripts refused -V.
. "$(dirname "$0")/lib.sh"

VERSION=$(sed -n 's/^VERSION = //p' "$TOP/Makefile")
check "the Makefile sets VERSION" test -n "$VERSION"

out=$("$BIN" -V 2>&1) || true
check_eq "timelinefs -V: its version" "timelinefs $VERSION" \
	"$(echo "$out" | sed -n 1p)"
# pkg-config names the libraries Debian's dev packages belong to, which are
# those the binary loads
check_eq "timelinefs -V: libfuse's version" \
	"libfuse $(pkg-config --modversion fuse3)" "$(echo "$out" | sed -n 2p)"
check_eq "timelinefs -V: SQLite's version" \
	"SQLite $(pkg-config --modversion sqlite3)" "$(echo "$out" | sed -n 3p)"
check_eq "timelinefs -V: libavformat's version (the media readers')" \
	"libavformat $(pkg-config --modversion libavformat)" "$(echo "$out" | sed -n 4p)"
check_eq "timelinefs --version is -V" "$out" "$("$BIN" --version 2>&1)"
check_eq "timelinefs-gen -V" "timelinefs-gen $VERSION" "$("$GEN" -V 2>&1)"
check_eq "timelinefs-gen --version" "timelinefs-gen $VERSION" \
	"$("$GEN" --version 2>&1)"
check_eq "timelinefs-probe --version" "timelinefs-probe $VERSION" \
	"$("$TLFS_BUILD/timelinefs-probe" --version 2>&1)"

SCRIPTS="timelinefs-bench timelinefs-export timelinefs-hosts-run timelinefs-lab timelinefs-plot timelinefs-report timelinefs-umount"
for s in $SCRIPTS; do
	check_eq "$s -V" "$s $VERSION" "$(sh "$TOP/mount-scripts/$s" -V 2>&1)"
	check_eq "$s --version" "$s $VERSION" \
		"$(sh "$TOP/mount-scripts/$s" --version 2>&1)"
done

# make install into a scratch root, with the binaries of this build
inst=$T/inst
san=
[ "$(basename "$TLFS_BUILD")" = san ] && san=SANITIZE=1
# shellcheck disable=SC2086
if make -s -C "$TOP" $san B="$TLFS_BUILD" DESTDIR="$inst" PREFIX=/usr \
	install >"$T/install.log" 2>&1; then
	ok "make install"
else
	not_ok "make install: $(cat "$T/install.log")"
fi
for s in $SCRIPTS; do
	# away from the checkout: the version must be in the script itself
	cp "$inst/usr/bin/$s" "$T/$s"
	check_eq "installed $s -V" "$s $VERSION" "$(sh "$T/$s" -V 2>&1)"
done
check_eq "installed timelinefs -V" "timelinefs $VERSION" \
	"$("$inst/usr/bin/timelinefs" -V | sed -n 1p)"
for b in timelinefs-hosts timelinefs-merge timelinefs-probe; do
	check_eq "installed $b -V" "$b $VERSION" "$("$inst/usr/bin/$b" -V 2>&1 | sed -n 1p)"
done
for p in "$TOP"/docs/man/*.[1-8]; do
	n=$(basename "$p")
	check "make install: man${n##*.}/$n" test -f "$inst/usr/share/man/man${n##*.}/$n"
done
npages=$(find "$inst/usr/share/man" -type f | wc -l)
# twelve: the seven of a single host, timelinefs-hosts.1, timelinefs-merge.1,
# timelinefs-hosts-run.1, timelinefs-lab.1 and timelinefs-probe.1
check_eq "make install: 12 man pages, one per program and script" 12 "$npages"
check_eq "man finds the installed timelinefs(1)" \
	"$inst/usr/share/man/man1/timelinefs.1" \
	"$(man -M "$inst/usr/share/man" -w timelinefs 2>&1)"
# shellcheck disable=SC2086
make -s -C "$TOP" $san B="$TLFS_BUILD" DESTDIR="$inst" PREFIX=/usr \
	uninstall >"$T/install.log" 2>&1 || not_ok "make uninstall: $(cat "$T/install.log")"
check_none "make uninstall leaves no file" "$(find "$inst" -type f)"

finish
