#!/bin/sh
# SPDX-License-Identifier: MIT
# make test's scratch folder (tests/scratch.sh).  A TMPDIR with room is
# used as it is; one whose file system has less free than the tests need
# (a 64 MB tmpfs of this test's own here) gets, as root, an ext4 in RAM
# mounted in it, which the tests write to, and which scratch_end takes away
# with its image and loop device; not root, the run stops saying what is
# short.  Before tests/scratch.sh, a clean-clone CI on a disk with 767 MB
# free failed in test_smb: smbclient's copy ran out of room
# (NT_STATUS_DISK_FULL), two checks failed with no word of the disk.
# shellcheck disable=SC2034,SC2016 # NO_MOUNT is read by lib.sh; the inner shells expand
NO_MOUNT=1
# shellcheck source=tests/integration/lib.sh
. "$(dirname "$0")/lib.sh"

[ "$(id -u)" -eq 0 ] || { echo "skip: not root (mounts a tmpfs and a loop device)"; exit 77; }
need_tools mkfs.ext4 losetup findmnt

small=$T/small
mkdir "$small"
# lib.sh's trap unmounts FUSE only
trap '! mountpoint -q "$small" || umount -l "$small"; cleanup || exit 1' EXIT
mount -t tmpfs -o size=64M,mode=1777 tlfs-scratch-test "$small"
# the unprivileged case reads the script through the test's folder
chmod 711 "$T"
cp "$TOP/tests/scratch.sh" "$small/"

# scratch MB BASE CMD: CMD after scratch_begin in a shell whose TMPDIR is
# BASE and whose tests need MB; scratch_end after it
scratch() {
	mb=$1 base=$2
	shift 2
	# shellcheck disable=SC2016 # expanded by the inner sh
	# (not in a make test's own scratch, which a nested one would use)
	env -u TLFS_SCRATCH_DIR TLFS_TOP="$TOP" TLFS_SCRATCH_MB="$mb" TMPDIR="$base" sh -c '
		. "$1/tests/scratch.sh"
		shift
		scratch_begin || exit 1
		rc=0
		sh -c "$1" || rc=$?
		scratch_end
		exit $rc' sh "$TOP" "$@"
}
loops() { losetup -a | grep -c tlfs-scratch || true; }
loops0=$(loops)
# images of this test's runs (a make test around it may have its own)
images() { ls -d /dev/shm/tlfs-scratch.* 2>/dev/null || true; }
images0=$(images)

out=$(scratch 32 "$small" 'echo "$TMPDIR"')
check_eq "a TMPDIR with room is used as it is" "$small" "$out"

out=$(scratch 200 "$small" 'findmnt -n -o FSTYPE -T "$TMPDIR"; echo "$TMPDIR";
	head -c 100M /dev/zero >"$TMPDIR/big" && echo wrote')
check "a short TMPDIR gets an ext4 in it" sh -c \
	'[ "$(echo "$1" | sed -n 2p)" = ext4 ]' sh "$out"
dir=$(echo "$out" | sed -n 3p)
check "its folder is made in TMPDIR" sh -c 'case $1 in "$2"/tlfs-scratch.*) ;; *) exit 1;; esac' \
	sh "$dir" "$small"
check "the tests write there what TMPDIR could not hold" sh -c \
	'[ "$(echo "$1" | tail -1)" = wrote ]' sh "$out"
check "the run says why and where" sh -c \
	'echo "$1" | head -1 | grep -q "^# scratch: $2 has [0-9]* MB free, the tests need about 200 MB: an ext4 in RAM"' \
	sh "$out" "$small"
left=$(ls -d "$small"/tlfs-scratch.* 2>/dev/null || true)
[ "$(images)" = "$images0" ] || left="$left image: $(images)"
[ "$(loops)" -eq "$loops0" ] || left="$left loop device"
check_none "nothing is left: folder, image, loop device" "$left"

out=$(scratch 200 "$small" '. "$TLFS_TOP/tests/scratch.sh"; TLFS_SCRATCH_MB=4096;
	scratch_begin && echo "$TMPDIR" && findmnt -n -o TARGET -T "$TMPDIR"')
check "a make test inside the scratch runs in it as it is" sh -c \
	'[ "$(echo "$1" | sed -n 2p)" = "$(echo "$1" | sed -n 3p)" ] &&
	 [ "$(echo "$1" | grep -c "^# scratch:")" -eq 1 ]' sh "$out"

rc=0
err=$(setpriv --reuid 65534 --regid 65534 --clear-groups env -u TLFS_SCRATCH_DIR sh -c \
	'TLFS_SCRATCH_MB=200 TMPDIR=$1; . "$1/scratch.sh"; scratch_begin' \
	sh "$small" 2>&1) || rc=$?
check "not root, a short TMPDIR stops the run" [ "$rc" -ne 0 ]
check "and says what is short" sh -c \
	'echo "$1" | grep -q "^scratch: $2 has [0-9]* MB free, the tests need about 200 MB; set TMPDIR to a folder with room"' \
	sh "$err" "$small"

finish
