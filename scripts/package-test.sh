#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The package test: Debian's own tools on `make deb`'s package.
#  1. lintian: no error and no warning (packaging/debian/lintian-overrides
#     holds the one kept, with its reason).
#  2. piuparts in a bookworm chroot: install and purge, upgrade from the
#     previous release's package (scripts/previous-release.sh, offered to
#     apt as a local repository), and install, remove, install again;
#     nothing left behind, nothing broken.
# Builds as the caller, goes on through sudo for piuparts. The chroot's
# base (debootstrap) is cached in .build-piuparts/ per release and mirror.
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
# (lintian warns that it runs as root, as CI does; it reads the package only.)
if ! lintian --fail-on error,warning --display-level ">=warning" "$package" 2>&1 | grep -v "running with root privileges"; then
    echo "package-test: lintian found errors or warnings in $package (above): fix them, or override one in packaging/debian/lintian-overrides with its reason" >&2
    exit 1
fi
echo "package-test: lintian: 0 errors, 0 warnings ($(( $(date +%s) - started )) s)" >&2

if [ "$(id -u)" -ne 0 ]; then
    echo "package-test: piuparts needs root: going on through sudo" >&2
    exec sudo env PATH="$PATH" ACCELD_PACKAGE="$package" ACCELD_PREVIOUS_PACKAGE="$previous" "$0"
fi

# The previous release as a local apt repository: piuparts installs what
# apt offers, then upgrades to the package under test.
cache=$PWD/.build-piuparts
repo=$cache/repo
rm -rf "$repo" && mkdir -p "$repo"
cp "$previous" "$repo/"
(cd "$repo" && apt-ftparchive packages . > Packages)

suite=bookworm
mirror=$( (sed -n 's/^URIs: *//p' /etc/apt/sources.list.d/*.sources 2>/dev/null
           awk '$1 == "deb" { print $2 }' /etc/apt/sources.list 2>/dev/null) | grep -v security | head -1) || true
mirror=${mirror:-http://deb.debian.org/debian}
base=$cache/$suite.tar.gz
if [ "$(cat "$cache/base.stamp" 2>/dev/null)" = "$suite $mirror" ] && [ -s "$base" ]; then
    basearg=(--basetgz="$base")
else
    echo "package-test: the first piuparts run makes the $suite chroot (debootstrap) and keeps it in $base" >&2
    rm -f "$base"
    basearg=(--save="$base")
fi

log=$cache/piuparts.log
echo "package-test: piuparts $(basename "$package") (upgrade from $(basename "$previous")) in a $suite chroot" >&2
set +e
piuparts --distribution="$suite" --mirror="$mirror" "${basearg[@]}" \
    --bindmount="$repo" --extra-repo="deb [trusted=yes] file://$repo ./" \
    --install-remove-install --log-file="$log" "$package" > /dev/null 2>&1
status=$?
set -e
[ "${basearg[0]}" = "--basetgz=$base" ] || { [ -s "$base" ] && echo "$suite $mirror" > "$cache/base.stamp"; }
# What piuparts did, in its own words (the phases and the verdict).
grep -E "^[0-9:]+ (INFO|ERROR|FAIL)" "$log" | grep -vE "INFO: (Running|Starting|Command)" | sed 's/^[0-9:]* //' | tail -40 >&2
if [ "$status" -ne 0 ]; then
    echo "package-test: piuparts FAILED (exit $status); the whole log is $log" >&2
    exit 1
fi
echo "package-test: piuparts passed: install, purge, upgrade from $(basename "$previous"), remove and reinstall ($(( $(date +%s) - started )) s in all)" >&2
