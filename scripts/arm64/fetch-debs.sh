# SPDX-License-Identifier: Apache-2.0
# Sourced by cross-arm64.sh and boot/arm64-kernel.sh: downloads Debian
# packages of another architecture or suite without touching the machine's
# own apt. Each gets a private apt (its own sources, lists and status file
# under $cache/apt/), so dpkg never learns of arm64 and the machine's
# package lists stay as they were. Needs $cache (an absolute path: apt reads
# relative Dir:: options as nested, and callers cd) and $mirror (and fail,
# for fetch_debs).

# apt_sources NAME ARCH LINE...: a private apt NAME for ARCH reading these
# sources.list lines.
apt_sources() {
    local root=$cache/apt/$1-$2; shift 2
    mkdir -p "$root/lists/partial" "$root/archives/partial" "$root/preferences.d"
    [ -f "$root/status" ] || : > "$root/status"
    printf '%s\n' "$@" > "$root/sources.list"
}

# private_apt NAME ARCH apt-get|apt-cache ARGS...: that apt alone. A NAME
# never given sources is a suite of $mirror's main.
private_apt() {
    local name=$1 arch=$2 command=$3; shift 3
    local root=$cache/apt/$name-$arch
    [ -f "$root/sources.list" ] ||
        apt_sources "$name" "$arch" "deb [arch=$arch signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $mirror $name main"
    # sid's Release file may be past its Valid-Until date on a mirror or a
    # snapshot; its signature is still checked. Root downloads into the
    # caller's folders (no _apt sandbox).
    "$command" -q -o APT::Architecture="$arch" -o APT::Architectures="$arch" \
        -o Dir::State="$root" -o Dir::State::Lists="$root/lists" -o Dir::State::status="$root/status" \
        -o Dir::Cache="$root" -o Dir::Cache::archives="$root/archives" \
        -o Dir::Etc::SourceList="$root/sources.list" -o Dir::Etc::SourceParts=/dev/null \
        -o Dir::Etc::Preferences="$root/preferences" -o Dir::Etc::PreferencesParts="$root/preferences.d" \
        -o Acquire::Check-Valid-Until=false -o Debug::NoLocking=1 -o APT::Sandbox::User=root "$@"
}

# update_lists SUITE ARCH: the archive's package list, at most a day old.
update_lists() {
    local suite=$1 arch=$2 lists=$cache/apt/$1-$2/lists
    [ -z "$(find "$lists" -maxdepth 1 -name '*Packages*' -mmin -1440 2>/dev/null)" ] || return 0
    private_apt "$suite" "$arch" apt-get update --error-on=any > "$cache/apt-update.log" 2>&1 || {
        tail -5 "$cache/apt-update.log" >&2
        fail "cannot read Debian $suite's package list for $arch from $mirror (above): is the archive reachable?"
    }
}

# fetch_debs SUITE ARCH DEST PACKAGE...: the newest version of each package
# in DEST. Fails naming the missing package.
fetch_debs() {
    local suite=$1 arch=$2 dest=$3; shift 3
    update_lists "$suite" "$arch"
    mkdir -p "$dest"
    local package
    for package in "$@"; do
        private_apt "$suite" "$arch" apt-cache show "$package" > /dev/null 2>&1 ||
            fail "Debian $suite has no package $package for $arch (at $mirror): it may have been renamed; see packages.debian.org/$suite/$package"
    done
    (cd "$dest" && private_apt "$suite" "$arch" apt-get download "$@" > "$cache/apt-download.log" 2>&1) || {
        tail -5 "$cache/apt-download.log" >&2
        fail "downloading $* from Debian $suite ($arch) failed (above)"
    }
}

# deb_version SUITE ARCH PACKAGE: the version apt would download (after
# update_lists).
deb_version() {
    private_apt "$1" "$2" apt-cache show "$3" 2>/dev/null | sed -n 's/^Version: //p' | head -1
}
