#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# ARCH=arm64 scripts/previous-release.sh: the previous release's package
# for arm64. Usage: scripts/arm64/previous-release.sh COMMIT AMD64_PACKAGE.
# Cross-builds COMMIT's acceld and accelctl with this tree's cross-build,
# then repacks AMD64_PACKAGE around them (stripped): Architecture, md5sums,
# Installed-Size and the libc6 version change, nothing else. Kept in the
# test cache (scripts/test-cache.sh). Prints the package's path.
set -euo pipefail
cd "$(dirname "$0")/../.."
source scripts/debian-lib.sh  # newest_version
commit=$1 amd64=$2
source scripts/test-cache.sh
# Keyed by the commit, the amd64 package it repacks and the scripts that
# cross-build and repack it.
cache_entry previous-release-arm64 "$commit" "$(sha256sum < "$amd64")" "$(cat scripts/cross-arm64.sh scripts/arm64/previous-release.sh | sha256sum)"
if cache_ready; then ls "$entry"/acceld_*_arm64.deb; exit 0; fi
started=$(date +%s)
cache_begin
source=$entry.partial/src
mkdir -p "$source"
git archive "$commit" | tar -x -C "$source"
binaries=$(dpkg-deb -c "$amd64" | awk '$6 ~ /^\.\/usr\/bin\/./ { sub("./usr/bin/", "", $6); print $6 }')
echo "previous-release: cross-building $commit's $(echo $binaries) for arm64" >&2
ACCELD_ARM64_SOURCE=$source ACCELD_ARM64_PRODUCTS="$(echo $binaries)" ./scripts/cross-arm64.sh ||
    { echo "previous-release: cross-building $commit for arm64 failed (above)" >&2; exit 1; }

tree=$entry.partial/repack
rm -rf "$tree" && dpkg-deb -R "$amd64" "$tree"
for binary in $binaries; do
    aarch64-linux-gnu-strip -o "$tree/usr/bin/$binary" "$source/.build-arm64/release/$binary"
done
glibc=$(aarch64-linux-gnu-objdump -T "$tree"/usr/bin/* | newest_version GLIBC)
sed -i -e 's/^Architecture: .*/Architecture: arm64/' \
       -e "s/^Installed-Size: .*/Installed-Size: $(du -sk --exclude=DEBIAN "$tree" | cut -f1)/" \
       -e "s/libc6 (>= [0-9.]*)/libc6 (>= $glibc)/" "$tree/DEBIAN/control"
(cd "$tree" && find . -type f ! -path './DEBIAN/*' ! -path './etc/*' -printf '%P\0' | LC_ALL=C sort -z | xargs -0 md5sum) > "$tree/DEBIAN/md5sums"
dpkg-deb --root-owner-group -Zgzip --build "$tree" "$entry.partial/" >/dev/null
rm -rf "$tree" "$source"
package=$(cd "$entry.partial" && ls acceld_*_arm64.deb)
cache_commit "$package"
echo "previous-release: repacked $(basename "$amd64") for arm64 as $package in $(( $(date +%s) - started )) s" >&2
echo "$entry/$package"
