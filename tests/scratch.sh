# SPDX-License-Identifier: MIT
# Sourced by tests/run-all.sh: a scratch folder with room for the suite.
# The mounted tests write media, databases, loop images and copies of what
# they read under TMPDIR, up to TLFS_SCRATCH_MB at once (measured on a
# clean-clone run, docs/development.md).  When TMPDIR's file system has
# less free, the run does not fail half way on ENOSPC with some unrelated
# check's name: as root, it makes an ext4 of that size in a file on
# /dev/shm (RAM), loop-mounts it and runs there; ext4, not tmpfs itself,
# because the tests read with O_DIRECT and ask findmnt and lsblk about
# their media as they would on a disk.  Otherwise it says what is short and
# stops.  scratch_end unmounts it and removes the file.

TLFS_SCRATCH_MB=${TLFS_SCRATCH_MB:-2048}
scratch_img=
scratch_dir=

# free_mb DIR: the megabytes free to an unprivileged writer in DIR's file system
free_mb() {
	df -Pk "$1" 2>/dev/null | awk 'NR == 2 { print int($4 / 1024) }'
}

# scratch_make BASE: the image in /dev/shm, mounted on a new folder in BASE
scratch_make() {
	scratch_img=$(mktemp /dev/shm/tlfs-scratch.XXXXXX) || return 1
	truncate -s "${TLFS_SCRATCH_MB}M" "$scratch_img" || return 1
	mkfs.ext4 -q -F -E lazy_itable_init=0 -m 0 "$scratch_img" || return 1
	scratch_dir=$(mktemp -d "$1/tlfs-scratch.XXXXXX") || return 1
	mount -o loop "$scratch_img" "$scratch_dir" || return 1
	chmod 1777 "$scratch_dir"
}

scratch_begin() {
	# a make test inside one (test_runners' copies of the runners) runs
	# in its parent's scratch as it is
	[ -z "${TLFS_SCRATCH_DIR:-}" ] || return 0
	base=${TMPDIR:-/tmp}
	have=$(free_mb "$base")
	[ "${have:-0}" -lt "$TLFS_SCRATCH_MB" ] || return 0
	shm=$(free_mb /dev/shm)
	why="$base has $have MB free, the tests need about $TLFS_SCRATCH_MB MB"
	if [ "$(id -u)" -ne 0 ] || ! command -v mkfs.ext4 >/dev/null 2>&1 ||
		[ "${shm:-0}" -lt $((TLFS_SCRATCH_MB + 1024)) ]; then
		echo "scratch: $why; set TMPDIR to a folder with room (as root," \
			"with that and 1 GB more free in /dev/shm, the tests make their own)" >&2
		return 1
	fi
	if ! scratch_make "$base"; then
		echo "scratch: $why, and an ext4 in /dev/shm could not be made" >&2
		scratch_end
		return 1
	fi
	echo "# scratch: $why: an ext4 in RAM ($scratch_img) at $scratch_dir"
	TMPDIR=$scratch_dir
	TLFS_SCRATCH_DIR=$scratch_dir
	export TMPDIR TLFS_SCRATCH_DIR
}

scratch_end() {
	if [ -n "$scratch_dir" ]; then
		# a process still in it (a test's killed runner's children):
		# detached now, gone with the last of them
		! mountpoint -q "$scratch_dir" || umount "$scratch_dir" 2>/dev/null ||
			umount -l "$scratch_dir"
		rmdir "$scratch_dir"
	fi
	[ -z "$scratch_img" ] || rm -f "$scratch_img"
	scratch_dir=
	scratch_img=
}
