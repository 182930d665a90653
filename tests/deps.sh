#!/bin/sh
# SPDX-License-Identifier: MIT
# Install the Debian packages named as arguments that are missing: with
# apt-get when root, otherwise print the exact command and fail.  The
# network is touched only when something is missing.
set -eu
missing=
for p in "$@"; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
		missing="$missing $p"
	fi
done
[ -z "$missing" ] && exit 0
if ! command -v apt-get >/dev/null 2>&1; then
	echo "deps: missing packages:$missing (no apt-get here: install them by hand)" >&2
	exit 1
fi
if [ "$(id -u)" -ne 0 ]; then
	echo "deps: missing packages:$missing" >&2
	echo "deps: run: sudo apt-get install -y$missing" >&2
	exit 1
fi
echo "deps: installing$missing"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >/dev/null || { echo "deps: apt-get update failed" >&2; exit 1; }
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $missing >/dev/null ||
	{ echo "deps: apt-get install$missing failed" >&2; exit 1; }
