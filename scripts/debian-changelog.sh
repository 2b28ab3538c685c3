#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Prints CHANGELOG.md in Debian's changelog format, newest first, for the
# packages' debian/changelog (scripts/build-deb.sh writes it there before
# dpkg-buildpackage, which installs it as each one's changelog.gz).
# Usage: scripts/debian-changelog.sh VERSION "MAINTAINER <EMAIL>"
# CHANGELOG.md's entries are "## VERSION (YYYY-MM-DD)" then "- " items, an
# item on one line. A VERSION with "+dirty" (a build from uncommitted
# changes) gets an UNRELEASED entry of its own on top.
set -euo pipefail
cd "$(dirname "$0")/.."
version=$1 maintainer=$2

# item TEXT: "  * TEXT" wrapped at 78 columns, continuation lines indented.
item() {
    printf '%s\n' "$1" | tr -d '`' | fold -s -w 74 | sed -e 's/ *$//' -e '1s/^/  * /' -e '2,$s/^/    /'
}
trailer() { printf '\n -- %s  %s\n\n' "$maintainer" "$1"; }

if [ "$version" != "${version%+dirty}" ]; then
    printf 'acceld (%s) UNRELEASED; urgency=medium\n\n' "$version"
    item "Built from a work tree with uncommitted changes: not a release."
    trailer "$(date -R -u)"
fi

entries=0
heading='^## ([0-9][0-9A-Za-z.+~-]*) \(([0-9]{4}-[0-9]{2}-[0-9]{2})\)$'
date=""
while IFS= read -r line; do
    if [[ $line =~ $heading ]]; then
        [ -z "$date" ] || trailer "$date"
        printf 'acceld (%s) unstable; urgency=medium\n\n' "${BASH_REMATCH[1]}"
        date=$(date -R -u -d "${BASH_REMATCH[2]} 12:00")
        entries=$((entries + 1))
    elif [ -n "$date" ] && [ "${line:0:2}" = "- " ]; then
        item "${line:2}"
    elif [ -n "$date" ] && [ -n "$line" ]; then
        echo "debian-changelog: CHANGELOG.md: not an item or a '## VERSION (YYYY-MM-DD)' heading: $line" >&2
        exit 1
    fi
done < CHANGELOG.md
[ -z "$date" ] || trailer "$date"
[ "$entries" -gt 0 ] || { echo "debian-changelog: no '## VERSION (YYYY-MM-DD)' entries in CHANGELOG.md" >&2; exit 1; }
