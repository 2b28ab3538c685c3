#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# make deb: acceld's Debian packages, built by Debian's own tools
# (dpkg-buildpackage, debhelper and dpkg-shlibdeps, from debian/) around
# the binaries `make` built, into .build-deb/: acceld, acceld-gateway,
# acceld-sensorproxy, acceld-ros2 and python3-acceld. With ARCH=arm64 on another
# machine, the same packages for arm64 around the binaries `make arm64`
# cross-built. Prints the packages' paths, one a line. Install with
# `apt install ./.build-deb/acceld_VERSION_ARCH.deb` and whichever of the
# others you want (docs/INSTALL.md).
#
# The version is acceldVersion's, with "+dirty" for a tree with
# uncommitted changes; debian/changelog is made from CHANGELOG.md for it
# (scripts/debian-changelog.sh), so that CHANGELOG.md stays the one place
# a release is described and the version says what was built.
set -euo pipefail
cd "$(dirname "$0")/.."
host_arch=$(dpkg --print-architecture)
arch=${ARCH:-$host_arch}
binaries=${ACCELD_BINARIES:-.build-static/release}
tools=()
if [ "$arch" != "$host_arch" ]; then
    [ "$arch" = arm64 ] || { echo "build-deb: ARCH=$arch: acceld cross-builds for arm64 only (Debian's name; ARCH=$host_arch is this machine)" >&2; exit 2; }
    binaries=${ACCELD_BINARIES:-.build-arm64/release}
    tools=(binutils-aarch64-linux-gnu)
fi
# debhelper and its add-ons for what debian/ asks of them: dh-python and
# pybuild for the Python client, bash-completion's dh_bash-completion.
source scripts/setup.sh dpkg-dev debhelper dh-python python3-all python3-setuptools python3-wheel \
    pybuild-plugin-pyproject bash-completion binutils "${tools[@]}"

for program in acceld accelctl acceld-gateway acceld-sensorproxy acceld-ros2; do
    [ -x "$binaries/$program" ] || {
        if [ "$arch" = "$host_arch" ]; then echo "build-deb: no $binaries/$program: run 'make' first (scripts/build-release.sh)" >&2
        else echo "build-deb: no $binaries/$program: run 'make arm64' first (scripts/cross-arm64.sh)" >&2; fi
        exit 1; }
done
# The man pages and completions are made from the native binaries: one made
# before them is stale.
for file in .build-static/share/man/man8/acceld.8 .build-static/share/completions/bash/accelctl; do
    if [ ! -s "$file" ] || [ "$file" -ot .build-static/release/acceld ] || [ "$file" -ot .build-static/release/accelctl ]; then
        echo "build-deb: $file is missing or older than the binaries: run 'make' (it generates the man pages and completions)" >&2; exit 1
    fi
done

release=$(sed -n 's/^public let acceldVersion = "\(.*\)"$/\1/p' Sources/AccelProtocol/Version.swift)
[ -n "$release" ] || { echo "build-deb: no acceldVersion in Sources/AccelProtocol/Version.swift" >&2; exit 1; }
grep -q "^## $release (" CHANGELOG.md || {
    echo "build-deb: CHANGELOG.md has no '## $release (YYYY-MM-DD)' entry for the version in Version.swift: add one" >&2; exit 1; }
# A package from a tree with uncommitted changes must not pass for the
# release: its version says so (and sorts after the release: 0.2.0+dirty).
version=$release
if ! git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    echo "build-deb: not a git work tree: cannot tell whether this is the release $release as committed" >&2
elif [ -n "$(git status --porcelain --untracked-files=normal)" ]; then
    version=$release+dirty
    echo "build-deb: the tree has uncommitted changes: version $version" >&2
fi
maintainer=$(sed -n 's/^Maintainer: //p' debian/control)
./scripts/debian-changelog.sh "$version" "$maintainer" > debian/changelog

# For arm64 on another machine, dpkg-shlibdeps reads the symbols and shlibs
# files of bookworm's arm64 libraries from their package trees, which the
# cross-build keeps beside its binaries (scripts/cross-arm64.sh): the same
# packages its sysroot was made from.
shlibs_dirs=""
cross=()
if [ "$arch" != "$host_arch" ]; then
    shlibs=.build-arm64/shlibs
    ls "$shlibs"/*/DEBIAN/symbols >/dev/null 2>&1 || {
        echo "build-deb: no arm64 library packages in $shlibs (dpkg-shlibdeps needs their symbols files): run 'make arm64' (scripts/cross-arm64.sh) again" >&2; exit 1; }
    shlibs_dirs=$(ls -d "$PWD/$shlibs"/*/ | sed 's:/$::' | tr '\n' ' ')
    cross=(-a"$arch")
fi

out=.build-deb
mkdir -p "$out"
rm -f "$out"/*_"$arch".deb "$out"/*_all.deb "$out"/acceld_*_"$arch".buildinfo "$out"/acceld_*_"$arch".changes
log=$out/dpkg-buildpackage-$arch.log
echo "build-deb: dpkg-buildpackage -b ${cross[*]} (acceld $version, binaries from $binaries; log: $log)" >&2
# -b: binary packages only, as this tree is not a release's source tarball.
# The .debs, .buildinfo and .changes go to .build-deb/, not to dpkg's
# default (the folder above the tree, which other clones may share).
# (Without make install's PREFIX, SYSCONFDIR and DESTDIR, and the make
# flags of `make deb`, which are not debian/rules' business; with Debian's
# python3 first on PATH, the one dh-python builds for, not a python3 of
# one's own such as pyenv's.)
set +e
env -u PREFIX -u SYSCONFDIR -u DESTDIR -u MAKEFLAGS -u MFLAGS -u MAKELEVEL PATH="/usr/bin:/bin:$PATH" \
    ACCELD_BINARIES="$binaries" ACCELD_SHLIBS_DIRS="$shlibs_dirs" ACCELD_DEB_DIR="$out" \
    dpkg-buildpackage -b -us -uc "${cross[@]}" \
    --buildinfo-file="$out/acceld_${version}_$arch.buildinfo" --buildinfo-option=-u"$out" \
    --changes-file="$out/acceld_${version}_$arch.changes" --changes-option=-u"$out" > "$log" 2>&1
status=$?
set -e
if [ "$status" -ne 0 ]; then
    grep -E "error|warning|^dh_|^make" "$log" | tail -25 >&2
    echo "build-deb: dpkg-buildpackage failed (exit $status; the whole log is $log)" >&2
    exit 1
fi
packages=$(ls "$out"/acceld_"$version"_"$arch".deb "$out"/acceld-gateway_"$version"_"$arch".deb \
    "$out"/acceld-sensorproxy_"$version"_"$arch".deb "$out"/acceld-ros2_"$version"_"$arch".deb "$out"/python3-acceld_"$version"_all.deb)
for package in $packages; do
    echo "build-deb: built $package ($(( $(stat -c %s "$package") / 1024 )) kB, $(dpkg-deb -f "$package" Installed-Size) kB installed)" >&2
done
echo "build-deb: acceld's Depends (dpkg-shlibdeps): $(dpkg-deb -f "$out/acceld_${version}_$arch.deb" Depends)" >&2
echo "$packages"
