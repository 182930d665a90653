#!/bin/sh
# SPDX-License-Identifier: MIT
# A short run of every fuzz target (tests/run-fuzz.sh 5): each libFuzzer
# target must run 5 s on its seed corpus without a crash, leak or hang.
# Skipped (77) when clang's libFuzzer is not installed.  Needs no FUSE.
exec sh "$(dirname "$0")/../run-fuzz.sh" 5
