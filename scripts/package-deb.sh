#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# make deb: a Debian package of acceld for this machine's architecture,
# from the binaries `make` built and the same file list as make install
# (PREFIX=/usr, binaries stripped), with the maintainer scripts in
# packaging/debian/. With ARCH=arm64 on another machine, the same package
# for arm64 from the binaries `make arm64` cross-built. Prints the
# package's path. Install it with `apt install ./acceld_VERSION_ARCH.deb`
# (docs/INSTALL.md).
set -euo pipefail
cd "$(dirname "$0")/.."
host_arch=$(dpkg --print-architecture)
arch=${ARCH:-$host_arch}
binaries=.build-static/release
tools=""
if [ "$arch" != "$host_arch" ]; then
    [ "$arch" = arm64 ] || { echo "package-deb: ARCH=$arch: acceld cross-builds for arm64 only (Debian's name; ARCH=$host_arch is this machine)" >&2; exit 2; }
    binaries=.build-arm64/release
    tools=aarch64-linux-gnu-
    [ -x "$binaries/acceld" ] || { echo "package-deb: no $binaries/acceld: run 'make arm64' first (scripts/cross-arm64.sh)" >&2; exit 1; }
fi
source scripts/setup.sh binutils ${tools:+binutils-aarch64-linux-gnu}
source scripts/debian-lib.sh  # newest_version

release=$(sed -n 's/^public let acceldVersion = "\(.*\)"$/\1/p' Sources/AccelProtocol/Version.swift)
maintainer="acceld maintainers <maintainers@users.noreply.a-seed-901178f9.example>"
[ -n "$release" ] || { echo "package-deb: no acceldVersion in Sources/AccelProtocol/Version.swift" >&2; exit 1; }
grep -q "^## $release (" CHANGELOG.md || {
    echo "package-deb: CHANGELOG.md has no '## $release (YYYY-MM-DD)' entry for the version in Hub.swift: add one" >&2; exit 1; }
# A package from a tree with uncommitted changes must not pass for the
# release: its version says so (and sorts after the release: 0.2.0+dirty).
version=$release
if ! git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    echo "package-deb: not a git work tree: cannot tell whether this is the release $release as committed" >&2
elif [ -n "$(git status --porcelain --untracked-files=normal)" ]; then
    version=$release+dirty
    echo "package-deb: the tree has uncommitted changes: version $version" >&2
fi
stage=.build-deb/acceld_${version}_${arch}
rm -rf "$stage"
if ! staged=$(DESTDIR=$stage PREFIX=/usr SYSCONFDIR=/etc BINARIES=$binaries STRIP=${tools}strip ./scripts/install.sh install 2>&1); then
    echo "$staged" >&2
    echo "package-deb: staging the package's files with scripts/install.sh failed (above)" >&2
    exit 1
fi
doc=$stage/usr/share/doc/acceld

# Debian's places and forms: man pages gzipped with -9n (no name or time:
# the same bytes for the same page); the changelog in Debian's format as
# changelog.gz, the name a native package uses; the copyright file; the
# lintian overrides, each with its reason.
gzip -9n "$stage"/usr/share/man/man*/*
rm "$doc/CHANGELOG.md"
./scripts/debian-changelog.sh "$version" "$maintainer" > "$doc/changelog"
gzip -9n "$doc/changelog"
install -m 0644 packaging/debian/copyright "$doc/copyright"
install -D -m 0644 packaging/debian/lintian-overrides "$stage/usr/share/lintian/overrides/acceld"

# The newest glibc symbol version the binaries use is the libc6 they need,
# and the newest GLIBCXX_ the libstdc++6 (the GCC release that added it), so
# that apt refuses a board too old rather than install a binary that fails.
symbols=$("${tools}objdump" -T "$stage"/usr/bin/*)
glibc=$(echo "$symbols" | newest_version GLIBC)
glibcxx=$(echo "$symbols" | newest_version GLIBCXX)
case $glibcxx in
    3.4.2[0-9]|3.4.1*|3.4.[0-9]|3.4) libstdcxx=11 ;;
    3.4.30) libstdcxx=12 ;;
    3.4.31|3.4.32) libstdcxx=13 ;;
    3.4.33) libstdcxx=14 ;;
    *) echo "package-deb: the binaries need GLIBCXX_$glibcxx, newer than this script knows: add the GCC release that brought it" >&2; exit 1 ;;
esac
install -d "$stage/DEBIAN"
cat > "$stage/DEBIAN/control" <<CONTROL
Package: acceld
Version: $version
Architecture: $arch
Maintainer: $maintainer
Installed-Size: $(du -sk --exclude=DEBIAN "$stage" | cut -f1)
Depends: libc6 (>= $glibc), libgcc-s1, libstdc++6 (>= $libstdcxx), libi2c0, libmosquitto1, libsystemd0, systemd, init-system-helpers (>= 1.54~), udev, kmod
Recommends: i2c-tools
Suggests: python3, dbus
Section: misc
Priority: optional
Description: accelerometer daemon for LIS302DL-class chips on I2C
 acceld owns a LIS302DL-class 3-axis accelerometer on an I2C bus and serves
 it over a Unix socket to any number of clients: filtered samples, gravity
 and user acceleration, attitude, and shake, orientation, free-fall and
 movement events. accelctl probes, dumps, self-tests and calibrates the
 chip and shows it live. Runs as a socket-activated systemd service under
 its own user; the Swift runtime is linked in. acceld-gateway, off until
 configured, serves a live web page, the browser's DeviceMotion events and
 Prometheus metrics, so that the daemon itself stays off the network.
 acceld-sensorproxy, also off until enabled, serves the orientation on
 D-Bus as iio-sensor-proxy does, so that desktops rotate the screen.
 The Python client (import acceld) comes with it, and the example programs
 in Python and Swift are in /usr/share/doc/acceld/examples.
CONTROL
# The shared libraries the control file names must be the ones the
# binaries need (libsystemd0: acceld-sensorproxy's sd-bus), on arm64 too.
needed=$("${tools}objdump" -p "$stage"/usr/bin/* | sed -n 's/^ *NEEDED *//p' | sort -u)
for library in libi2c.so.0:libi2c0 libmosquitto.so.1:libmosquitto1 libsystemd.so.0:libsystemd0; do
    if echo "$needed" | grep -qx "${library%%:*}" && ! grep -q "^Depends:.* ${library#*:}," "$stage/DEBIAN/control"; then
        echo "package-deb: the binaries need ${library%%:*} but Depends lacks ${library#*:}" >&2; exit 1
    fi
done
echo /etc/acceld/acceld.conf > "$stage/DEBIAN/conffiles"
# md5sums for dpkg --verify and debsums; conffiles have theirs in dpkg's
# status, as dh_md5sums leaves them out too.
(cd "$stage" && find . -type f ! -path './DEBIAN/*' ! -path './etc/*' -printf '%P\0' | LC_ALL=C sort -z | xargs -0 md5sum) > "$stage/DEBIAN/md5sums"
install -m 0755 packaging/debian/postinst packaging/debian/prerm packaging/debian/postrm "$stage/DEBIAN/"

# gzip: quick to build and to unpack on a small board (xz would save a
# third of the size and take minutes here).
dpkg-deb --root-owner-group -Zgzip --build "$stage" ".build-deb/" >/dev/null
package=.build-deb/acceld_${version}_${arch}.deb
echo "package-deb: built $package ($(( $(stat -c %s "$package") / 1048576 )) MB, $(( $(du -sk --exclude=DEBIAN "$stage" | cut -f1) / 1024 )) MB installed; needs libc6 >= $glibc, libstdc++6 >= $libstdcxx)" >&2
echo "$package"
