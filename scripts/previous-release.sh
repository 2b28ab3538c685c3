#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Builds the Debian package of the previous release (the commit recorded in
# packaging/previous-release) with that release's own scripts, for the
# upgrade checks of the package test and the boot test. Prints the
# package's path. Kept in the test cache (scripts/test-cache.sh) by commit
# and compiler: the build is a second release build (minutes).
# The sources are exported with `git archive` rather than `git worktree
# add`: the same tree, without registering a work tree in the repository
# (which other work trees of the same clone share).
# With ARCH=arm64: the same package for arm64 (the arm64 boot test's
# upgrade). The previous release had no arm64 package, nor a cross-build:
# its sources are cross-built with this tree's scripts/cross-arm64.sh, and
# its amd64 package is repacked around those binaries: the same files,
# maintainer scripts and dependencies, the libc6 version from the new
# binaries.
set -euo pipefail
cd "$(dirname "$0")/.."
commit=$(grep -v '^#' packaging/previous-release | head -1)
if [ "${ARCH:-}" = arm64 ] && [ "$(dpkg --print-architecture)" != arm64 ]; then
    exec ./scripts/arm64/previous-release.sh "$commit" "$(ARCH= ./scripts/previous-release.sh)"
fi
source scripts/setup.sh
source scripts/test-cache.sh
# Keyed by the commit and the compiler that builds it.
cache_entry previous-release "$commit" "$(swift --version 2>/dev/null | head -1)"
if cache_ready; then ls "$entry"/acceld_*.deb; exit 0; fi

git cat-file -e "$commit^{commit}" 2>/dev/null || {
    echo "previous-release: commit $commit (packaging/previous-release) is not in this clone: fetch the full history (git fetch --unshallow)" >&2
    exit 1; }
started=$(date +%s)
cache_begin
source=$entry.partial/src
mkdir -p "$source"
git archive "$commit" | tar -x -C "$source"
echo "previous-release: building the package of $commit (a release build)" >&2
(cd "$source" && ./scripts/build-release.sh) || { echo "previous-release: building $commit failed" >&2; exit 1; }
# That release's own packaging: package-deb.sh up to 0.1.0 (one package),
# build-deb.sh (dpkg-buildpackage, a set) after; the upgrade checks take
# its acceld package.
if [ -x "$source/scripts/build-deb.sh" ]; then
    built=$(cd "$source" && ./scripts/build-deb.sh | grep '/acceld_[^/]*\.deb$') || { echo "previous-release: packaging $commit failed" >&2; exit 1; }
else
    built=$(cd "$source" && ./scripts/package-deb.sh) || { echo "previous-release: packaging $commit failed" >&2; exit 1; }
fi
cp "$source/$built" "$entry.partial/"
rm -rf "$source"
cache_commit "$(basename "$built")"
echo "previous-release: built $(basename "$built") in $(( $(date +%s) - started )) s" >&2
echo "$entry/$(basename "$built")"
