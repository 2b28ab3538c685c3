#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The package test: Debian's own tools on `make deb`'s packages (acceld,
# acceld-gateway, acceld-sensorproxy, acceld-ros2, python3-acceld).
#  1. lintian on every one: no error and no warning (the overrides kept are
#     in debian/*.lintian-overrides, each with its reason).
#  2. piuparts in a bookworm chroot, on the set: install and purge, upgrade
#     from the previous release's package (scripts/previous-release.sh,
#     offered to apt as a local repository), and install, remove, install
#     again; nothing left behind, nothing broken. Then each package alone,
#     installed by apt from a repository of the set (so with what its
#     Depends name, and nothing else) and purged.
# Builds as the caller, goes on through sudo for piuparts. The chroot is
# the boot test's debootstrap userland (scripts/debian-rootfs.sh, cached).
# ACCELD_PACKAGES: the .debs to test (paths, one a line or space-separated),
# else built here; ACCELD_PREVIOUS_PACKAGE: the previous release's.
set -euo pipefail
cd "$(dirname "$0")/.."
# make deb's tools (scripts/build-deb.sh) too.
source scripts/setup.sh lintian piuparts debootstrap apt-utils dpkg-dev debhelper dh-python python3-all python3-setuptools python3-wheel pybuild-plugin-pyproject bash-completion
started=$(date +%s)

packages=${ACCELD_PACKAGES:-}
previous=${ACCELD_PREVIOUS_PACKAGE:-}
if [ -z "$packages" ]; then
    ./scripts/build-release.sh
    packages=$(./scripts/build-deb.sh)
fi
read -r -d '' -a debs < <(printf '%s\n' $packages) || true
[ "${#debs[@]}" -gt 0 ] || { echo "package-test: no packages to test" >&2; exit 1; }
[ -n "$previous" ] || previous=$(./scripts/previous-release.sh)

names=$(for deb in "${debs[@]}"; do basename "$deb"; done | tr '\n' ' ')
echo "package-test: lintian $names" >&2
mkdir -p .build-piuparts
set +e
lintian --fail-on error,warning --display-level ">=warning" "${debs[@]}" > .build-piuparts/lintian.log 2>&1
status=$?
set -e
# (lintian warns that it runs as root, as CI does; it only reads the packages.)
grep -v "running with root privileges" .build-piuparts/lintian.log >&2 || true
if [ "$status" -ne 0 ]; then
    echo "package-test: FAIL: lintian found errors or warnings (above): fix them, or override one in debian/PACKAGE.lintian-overrides with its reason" >&2
    exit 1
fi
for deb in "${debs[@]}"; do echo "package-test: PASS: lintian: 0 errors, 0 warnings on $(basename "$deb")" >&2; done
echo "package-test: lintian done $(( $(date +%s) - started )) s into the stage" >&2

if [ "$(id -u)" -ne 0 ]; then
    echo "package-test: piuparts needs root: going on through sudo" >&2
    exec sudo env PATH="$PATH" ACCELD_CACHE="${ACCELD_CACHE:-}" ACCELD_TEST_CACHE="${ACCELD_TEST_CACHE:-}" ACCELD_NO_CACHE_DIR="${ACCELD_NO_CACHE_DIR:-}" ACCELD_PACKAGES="${debs[*]}" ACCELD_PREVIOUS_PACKAGE="$previous" "$0"
fi

# The chroot: the boot test's bookworm userland (its dependencies are
# there, so what piuparts sees left behind is the packages' own), with two
# local apt repositories in /srv: the previous release, from which
# piuparts installs what apt offers before upgrading to the packages under
# test, and the packages under test, from which each is installed alone.
source scripts/debian-rootfs.sh
cache=.build-piuparts
chroot=$cache/chroot
rm -rf "$chroot" && mkdir -p "$cache"
cp -a "$rootfs" "$chroot"
trap 'rm -rf "$chroot"' EXIT
mkdir -p "$chroot/srv/acceld-previous" "$chroot/srv/acceld-new"
cp "$previous" "$chroot/srv/acceld-previous/"
cp "${debs[@]}" "$chroot/srv/acceld-new/"
for repo in acceld-previous acceld-new; do
    (cd "$chroot/srv/$repo" && apt-ftparchive packages . > Packages)
done

# piuparts LOG ARGS...: a run, its phases and verdict in its own words;
# fails naming the log.
piuparts_run() {
    local log=$1 status; shift
    rm -f "$log"  # (piuparts appends)
    set +e
    piuparts --distribution="$suite" --mirror="$mirror" --existing-chroot="$chroot" --hard-link \
        --log-file="$log" "$@" > /dev/null 2>&1
    status=$?
    set -e
    grep -E "^[0-9ms.]+ (INFO|ERROR)" "$log" | grep -E "PASS|FAIL|ERROR|apt-cache|Installation of|Reinstalling" | sed -E 's/^[0-9ms.]+ //' >&2
    [ "$status" -eq 0 ] || { echo "package-test: FAIL: piuparts (exit $status); the whole log is $log" >&2; exit 1; }
}

echo "package-test: piuparts on $names(upgrade from $(basename "$previous")) in a $suite chroot" >&2
piuparts_run "$cache/piuparts.log" --extra-repo="deb [trusted=yes] file:/srv/acceld-previous ./" --install-remove-install "${debs[@]}"
echo "package-test: PASS: piuparts on the set: install, purge, upgrade from $(basename "$previous"), remove and reinstall ($(( $(date +%s) - started )) s into the stage)" >&2

# Each alone: apt installs it from the set's repository with what its
# Depends name (acceld for the gateway and the proxy; the Python client
# needs no daemon to install), then it is purged.
for deb in "${debs[@]}"; do
    name=$(dpkg-deb -f "$deb" Package)
    echo "package-test: piuparts: $name alone" >&2
    piuparts_run "$cache/piuparts-$name.log" --extra-repo="deb [trusted=yes] file:/srv/acceld-new ./" --no-upgrade-test --apt "$name"
    echo "package-test: PASS: piuparts: $name alone installs with what its Depends name, and purges clean" >&2
done
echo "package-test: piuparts passed: the set (install, purge, upgrade from $(basename "$previous"), remove and reinstall) and each package alone ($(( $(date +%s) - started )) s in all)" >&2
