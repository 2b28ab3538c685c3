# SPDX-License-Identifier: Apache-2.0
# Sourced by the scripts that fetch from Debian's archive or make packages:
# what they share. Sets $mirror and $security_mirror (the archive this
# machine's apt uses; deb.debian.org without one) and defines
# newest_version.
apt_uris=$( (sed -n 's/^URIs: *//p' /etc/apt/sources.list.d/*.sources 2>/dev/null
             awk '$1 == "deb" { print $2 }' /etc/apt/sources.list 2>/dev/null) ) || true
mirror=$(echo "$apt_uris" | grep -v security | head -1) || true
mirror=${mirror:-http://deb.debian.org/debian}
security_mirror=$(echo "$apt_uris" | grep security | head -1) || true

# newest_version NAME: the newest NAME_x.y symbol version in the objdump -T
# listing on standard input (GLIBC: the libc6 the binaries need).
newest_version() {
    grep -o "${1}_[0-9.]*" | sed "s/${1}_//" | sort -uV | tail -1
}
