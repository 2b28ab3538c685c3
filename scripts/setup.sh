#!/usr/bin/env bash
# Installs what acceld needs to build and test on Debian, and says so.
# Usage: scripts/setup.sh [extra Debian packages...]
set -euo pipefail

packages=(libi2c-dev "$@")
missing=()
for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if [ ${#missing[@]} -gt 0 ]; then
    sudo=""
    [ "$(id -u)" -eq 0 ] || sudo="sudo"
    echo "setup: installing ${missing[*]} with apt-get${sudo:+ (through sudo)}" >&2
    export DEBIAN_FRONTEND=noninteractive
    $sudo apt-get update -qq
    $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

if ! command -v swift >/dev/null 2>&1; then
    for candidate in /opt/swift/usr/bin /usr/share/swift/usr/bin; do
        [ -x "$candidate/swift" ] && export PATH="$candidate:$PATH"
    done
fi
command -v swift >/dev/null 2>&1 || {
    echo "setup: no Swift toolchain found: install Swift 6 (swift.org/install) and put it on PATH" >&2
    exit 1
}
