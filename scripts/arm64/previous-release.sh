#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# ARCH=arm64 scripts/previous-release.sh: the previous release's package
# for arm64. Usage: scripts/arm64/previous-release.sh COMMIT AMD64_PACKAGE.
# Cross-builds COMMIT's acceld and accelctl with this tree's cross-build,
# then repacks AMD64_PACKAGE around them (stripped): Architecture, md5sums,
# Installed-Size and the libc6 version change, nothing else. Cached in
# .build-upgrade/COMMIT/arm64. Prints the package's path.
set -euo pipefail
cd "$(dirname "$0")/../.."
source scripts/debian-lib.sh  # newest_version
commit=$1 amd64=$2
cache=.build-upgrade
out=$cache/$commit/arm64
package=$(ls "$out"/acceld_*_arm64.deb 2>/dev/null | head -1 || true)
if [ -n "$package" ]; then echo "$package"; exit 0; fi
started=$(date +%s)
source=$cache/src-arm64-$commit
rm -rf "$source" && mkdir -p "$source"
git archive "$commit" | tar -x -C "$source"
binaries=$(dpkg-deb -c "$amd64" | awk '$6 ~ /^\.\/usr\/bin\/./ { sub("./usr/bin/", "", $6); print $6 }')
echo "previous-release: cross-building $commit's $(echo $binaries) for arm64 (cached in $out)" >&2
ACCELD_ARM64_SOURCE=$source ACCELD_ARM64_PRODUCTS="$(echo $binaries)" ./scripts/cross-arm64.sh ||
    { echo "previous-release: cross-building $commit for arm64 failed (above)" >&2; exit 1; }

tree=$cache/repack-$commit
rm -rf "$tree" && dpkg-deb -R "$amd64" "$tree"
for binary in $binaries; do
    aarch64-linux-gnu-strip -o "$tree/usr/bin/$binary" "$source/.build-arm64/release/$binary"
done
glibc=$(aarch64-linux-gnu-objdump -T "$tree"/usr/bin/* | newest_version GLIBC)
sed -i -e 's/^Architecture: .*/Architecture: arm64/' \
       -e "s/^Installed-Size: .*/Installed-Size: $(du -sk --exclude=DEBIAN "$tree" | cut -f1)/" \
       -e "s/libc6 (>= [0-9.]*)/libc6 (>= $glibc)/" "$tree/DEBIAN/control"
(cd "$tree" && find . -type f ! -path './DEBIAN/*' ! -path './etc/*' -printf '%P\0' | LC_ALL=C sort -z | xargs -0 md5sum) > "$tree/DEBIAN/md5sums"
mkdir -p "$out"
dpkg-deb --root-owner-group -Zgzip --build "$tree" "$out/" >/dev/null
rm -rf "$tree" "$source"
package=$(ls "$out"/acceld_*_arm64.deb)
echo "previous-release: repacked $(basename "$amd64") for arm64 as $(basename "$package") in $(( $(date +%s) - started )) s" >&2
echo "$package"
