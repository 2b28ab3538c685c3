#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The package test: Debian's own tools on `make deb`'s package.
#  1. lintian: no error and no warning (packaging/debian/lintian-overrides
#     holds the one kept, with its reason).
#  2. piuparts in a bookworm chroot: install and purge, upgrade from the
#     previous release's package (scripts/previous-release.sh, offered to
#     apt as a local repository), and install, remove, install again;
#     nothing left behind, nothing broken.
# Builds as the caller, goes on through sudo for piuparts. The chroot is
# the boot test's debootstrap userland (scripts/debian-rootfs.sh, cached).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup.sh lintian piuparts debootstrap apt-utils
started=$(date +%s)

package=${ACCELD_PACKAGE:-}
previous=${ACCELD_PREVIOUS_PACKAGE:-}
if [ -z "$package" ]; then
    ./scripts/build-release.sh
    package=$(./scripts/package-deb.sh)
fi
[ -n "$previous" ] || previous=$(./scripts/previous-release.sh)

echo "package-test: lintian $(basename "$package")" >&2
mkdir -p .build-piuparts
set +e
lintian --fail-on error,warning --display-level ">=warning" "$package" > .build-piuparts/lintian.log 2>&1
status=$?
set -e
# (lintian warns that it runs as root, as CI does; it only reads the package.)
grep -v "running with root privileges" .build-piuparts/lintian.log >&2 || true
if [ "$status" -ne 0 ]; then
    echo "package-test: lintian found errors or warnings in $package (above): fix them, or override one in packaging/debian/lintian-overrides with its reason" >&2
    exit 1
fi
echo "package-test: lintian: 0 errors, 0 warnings ($(( $(date +%s) - started )) s into the stage)" >&2

if [ "$(id -u)" -ne 0 ]; then
    echo "package-test: piuparts needs root: going on through sudo" >&2
    exec sudo env PATH="$PATH" ACCELD_CACHE="${ACCELD_CACHE:-}" ACCELD_TEST_CACHE="${ACCELD_TEST_CACHE:-}" ACCELD_NO_CACHE_DIR="${ACCELD_NO_CACHE_DIR:-}" ACCELD_PACKAGE="$package" ACCELD_PREVIOUS_PACKAGE="$previous" "$0"
fi

# The chroot: the boot test's bookworm userland (its dependencies are
# there, so what piuparts sees left behind is the package's own), with the
# previous release as a local apt repository in /srv: piuparts installs
# what apt offers, then upgrades to the package under test.
source scripts/debian-rootfs.sh
cache=.build-piuparts
chroot=$cache/chroot
rm -rf "$chroot" && mkdir -p "$cache"
cp -a "$rootfs" "$chroot"
mkdir -p "$chroot/srv/acceld-previous"
cp "$previous" "$chroot/srv/acceld-previous/"
(cd "$chroot/srv/acceld-previous" && apt-ftparchive packages . > Packages)

log=$cache/piuparts.log
rm -f "$log"  # (piuparts appends)
echo "package-test: piuparts $(basename "$package") (upgrade from $(basename "$previous")) in a $suite chroot" >&2
set +e
piuparts --distribution="$suite" --mirror="$mirror" --existing-chroot="$chroot" --hard-link \
    --extra-repo="deb [trusted=yes] file:/srv/acceld-previous ./" \
    --install-remove-install --log-file="$log" "$package" > /dev/null 2>&1
status=$?
set -e
rm -rf "$chroot"
# What piuparts did, in its own words (the phases and the verdict).
grep -E "^[0-9ms.]+ (INFO|ERROR)" "$log" | grep -E "PASS|FAIL|ERROR|apt-cache|Installation of|Reinstalling" | sed -E 's/^[0-9ms.]+ //' >&2
if [ "$status" -ne 0 ]; then
    echo "package-test: piuparts FAILED (exit $status); the whole log is $log" >&2
    exit 1
fi
echo "package-test: piuparts passed: install, purge, upgrade from $(basename "$previous"), remove and reinstall ($(( $(date +%s) - started )) s in all)" >&2
