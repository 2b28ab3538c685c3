# SPDX-License-Identifier: Apache-2.0
# Sourced by the stages that build things from inputs that rarely change
# (the kernels, the Debian userlands, the sid chroot and arm64 sysroot, the
# previous release's packages): where those are kept, outside the clone, so
# that the next run on this machine (CI's fresh clone too) reuses them.
#
#   $ACCELD_CACHE  ${XDG_CACHE_HOME:-~/.cache}/acceld-test; with
#                  ACCELD_TEST_CACHE=off, acceld-test-off/<hash of the
#                  clone's path> beside it, emptied at the start of each
#                  test.sh run: everything is built from nothing, as on a
#                  fresh machine.
#   cache_entry NAME INPUT...   sets $entry to NAME's folder for exactly
#                  these inputs ($ACCELD_CACHE/NAME/<hash of the inputs>)
#   cache_ready [FILE...]       true when $entry is whole: made to the end
#                  (its stamp, written last, names the inputs) and each FILE
#                  still has the checksum it had then. Says "from the cache".
#                  An entry half-made or damaged is said, removed, and false.
#   cache_begin                 an empty $entry.partial to build into
#   cache_commit [FILE...]      stamps $entry.partial (checksums of the
#                  FILEs, relative to it) and renames it to $entry at once
# A run killed mid-way leaves only a .partial folder, never an entry.
# Removes a folder of the cache, after unmounting anything a killed run
# left mounted beneath it (a chroot's /proc and /dev), so rm never walks
# into the host's.
cache_remove() {
    local target
    awk -v root="$1/" 'index($2, root) == 1 { print $2 }' /proc/mounts | sort -r | while read -r target; do
        ${as_root:-} umount -l "$target"
    done
    ${as_root:-} rm -rf "$1"
}

if [ "${ACCELD_TEST_CACHE:-on}" = off ]; then
    # Outside the clone too: dpkg-buildpackage's clean walks the source
    # tree with find, and a sid chroot's /proc beneath it failed the walk.
    export ACCELD_CACHE=${ACCELD_NO_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/acceld-test-off/$(printf '%s' "$PWD" | sha256sum | cut -c1-12)}
    if [ -z "${ACCELD_NO_CACHE_DIR:-}" ]; then
        # Once per run: stages started by this run share what they built.
        export ACCELD_NO_CACHE_DIR=$ACCELD_CACHE
        echo "test-cache: ACCELD_TEST_CACHE=off: building everything from nothing in $ACCELD_CACHE" >&2
        cache_remove "$ACCELD_CACHE"
    fi
else
    export ACCELD_CACHE=${ACCELD_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/acceld-test}
fi
mkdir -p "$ACCELD_CACHE"

cache_entry() {
    cache_name=$1; shift
    entry=$ACCELD_CACHE/$cache_name/$(printf '%s\n' "$@" | sha256sum | cut -c1-16)
    cache_inputs=$(printf '%s\n' "$@")
}

# The stamp: the inputs, a line "--", then sha256sum's lines for the files
# named at commit.
cache_whole() {
    [ -f "$entry/.stamp" ] && [ "$(sed -n '/^--$/q;p' "$entry/.stamp")" = "$cache_inputs" ] || return 1
    local sums f; sums=$(sed '1,/^--$/d' "$entry/.stamp")
    for f in "$@"; do echo "$sums" | grep -qF "  $f" || return 1; done
    [ -z "$sums" ] || (cd "$entry" && echo "$sums" | sha256sum --check --quiet --status -)
}

cache_ready() {
    if cache_whole "$@"; then
        touch "$entry/.stamp"
        echo "test-cache: $cache_name from the cache ($entry)" >&2
        return 0
    fi
    if [ -e "$entry" ]; then
        echo "test-cache: $cache_name in $entry is incomplete or damaged (a run killed mid-way?): making it again" >&2
        cache_remove "$entry"
    fi
    return 1
}

cache_begin() {
    cache_remove "$entry.partial"
    mkdir -p "$entry.partial"
    echo "test-cache: $cache_name is not cached for these inputs: making it (in $entry)" >&2
}

cache_commit() {
    { echo "$cache_inputs"; echo "--"; (cd "$entry.partial" && [ $# -eq 0 ] || sha256sum "$@"); } > "$entry.partial/.stamp"
    cache_remove "$entry"
    mv "$entry.partial" "$entry"
    # Entries of the same name for other inputs, unused for two weeks
    # (cache_ready touches its stamp), are an old kernel or userland: gone.
    local old
    for old in "$ACCELD_CACHE/$cache_name"/*/.stamp; do
        [ -e "$old" ] && [ -n "$(find "$old" -mtime +14)" ] && cache_remove "${old%/.stamp}"
    done
    return 0
}
