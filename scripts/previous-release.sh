#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Builds the Debian package of the previous release (the commit recorded in
# packaging/previous-release) with that release's own scripts, for the
# upgrade checks of the package test and the boot test. Prints the
# package's path. Cached in .build-upgrade/ per commit: the build is a
# second release build (minutes), done once per clone.
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
cache=.build-upgrade
mkdir -p "$cache"
if [ "${ARCH:-}" = arm64 ] && [ "$(dpkg --print-architecture)" != arm64 ]; then
    exec ./scripts/arm64/previous-release.sh "$commit" "$(ARCH= ./scripts/previous-release.sh)"
fi
package=$(ls "$cache"/"$commit"/acceld_*.deb 2>/dev/null | head -1 || true)
if [ -n "$package" ]; then echo "$package"; exit 0; fi

git cat-file -e "$commit^{commit}" 2>/dev/null || {
    echo "previous-release: commit $commit (packaging/previous-release) is not in this clone: fetch the full history (git fetch --unshallow)" >&2
    exit 1; }
started=$(date +%s)
source=$cache/src-$commit
rm -rf "$source" && mkdir -p "$source"
git archive "$commit" | tar -x -C "$source"
echo "previous-release: building the package of $commit (a release build; cached in $cache/$commit)" >&2
(cd "$source" && ./scripts/build-release.sh) || { echo "previous-release: building $commit failed" >&2; exit 1; }
built=$(cd "$source" && ./scripts/package-deb.sh) || { echo "previous-release: packaging $commit failed" >&2; exit 1; }
mkdir -p "$cache/$commit"
cp "$source/$built" "$cache/$commit/"
rm -rf "$source"
echo "previous-release: built $(basename "$built") in $(( $(date +%s) - started )) s" >&2
ls "$cache/$commit"/acceld_*.deb
