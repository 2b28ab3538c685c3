#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The man pages and shell completions, generated from the argument parsers
# every time `make` runs (build-release.sh calls this last), so they never
# drift from --help and a stale one is never installed:
#   .build-static/share/man/man8/acceld.8, man1/accelctl.1
#   .build-static/share/completions/{bash,zsh,fish}/...
# The pages come from swift-argument-parser's generate-manual plugin, which
# builds the package itself: it does so in .build (debug), the build
# `swift build` and the tests share, never in .build-static (its build would
# relink the static release binaries against the shared Swift runtime).
# The hand-written sections in packaging/man/ are merged in, and EXIT
# STATUS is made from the exit-code tables of docs/ERRORS.md (acceld) and
# docs/ACCELCTL.md (accelctl). The completions come from the release
# binaries' --generate-completion-script. Any failure stops the build with
# the reason.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup.sh

out=.build-static/share
rm -rf "$out"
fail() { echo "build-docs: $*" >&2; exit 1; }
# Whatever stops this leaves nothing behind that make install could take.
trap 'status=$?; [ "$status" -eq 0 ] || rm -rf "$out"' EXIT

# The pages' date is the last commit's (the same page for the same source).
if [ -n "${SOURCE_DATE_EPOCH:-}" ]; then
    date=$(date -u -d "@$SOURCE_DATE_EPOCH" +%F)
else
    date=$(git log -1 --format=%cs 2>/dev/null || date -u +%F)
fi

# generate-manual PRODUCT SECTION: runs the plugin (it writes a page for
# every executable, in one section) and keeps PRODUCT's page.
generated=.build/plugins/GenerateManual/outputs
generate_manual() {
    local product=$1 section=$2 log=.build/generate-manual.log
    mkdir -p .build
    rm -rf "$generated"
    if ! swift package plugin generate-manual --configuration debug --section "$section" --date "$date" > "$log" 2>&1; then
        grep -E "error|failed" "$log" | head -20 >&2
        fail "swift-argument-parser's generate-manual plugin failed (whole log: $log); no man pages were made"
    fi
    local page=$generated/$product/$product.$section
    [ -s "$page" ] || fail "the generate-manual plugin made no $page (whole log: $log)"
    cp "$page" "$out/man/man$section/$product.$section"
}

# exit_status MARKDOWN HEADING: the first table after HEADING ("" for the
# first in the file), code and cause, as an mdoc list.
exit_status() {
    awk -v heading="$2" '
        heading == "" || $0 == heading { on = 1 }
        on && /^\| *[0-9]+ *\|/ {
            split($0, cell, "|")
            code = cell[2]; cause = cell[3]
            gsub(/^ +| +$/, "", code); gsub(/^ +| +$/, "", cause)
            gsub(/`/, "", cause); gsub(/\\/, "\\e", cause)
            print ".It Sy " code; print cause; rows++
        }
        on && rows && !/^\|/ { exit }
        END { if (!rows) exit 1 }' "$1" || fail "no exit-code table in $1${2:+ under '$2'}"
}

# merge PAGE SECTIONS EXITS: the generated page without its generic EXIT
# STATUS (".Ex -std"), then FILES etc. from SECTIONS, with the table of
# exit codes where SECTIONS says @EXIT-STATUS@.
merge() {
    local page=$1 sections=$2 exits=$3 merged
    [ -s "$sections" ] || fail "missing the hand-written sections $sections"
    grep -q '^\.Sh "EXIT STATUS"' "$page" || fail "$page has no EXIT STATUS section to replace: has the plugin's output changed?"
    # In the help's discussions a blank line is a paragraph break (.Pp in
    # mdoc) and indented lines are examples, kept as typed (.Bd -literal).
    merged=$(sed -e '/^\.Sh "EXIT STATUS"/,$d' -e 's/^$/.Pp/' "$page" | awk '
                 /^  / { if (!literal) print ".Bd -literal -offset indent"; literal = 1; print substr($0, 3); next }
                 literal { print ".Ed"; literal = 0 }
                 { print }
                 END { if (literal) print ".Ed" }'
             grep -v '^\.\\"' "$sections" | awk -v exits="$exits" '$0 == "@EXIT-STATUS@" { print exits; next } { print }')
    printf '%s\n' "$merged" > "$page"
}

mkdir -p "$out/man/man1" "$out/man/man8"
generate_manual acceld 8
generate_manual accelctl 1
generate_manual acceld-gateway 8
generate_manual acceld-sensorproxy 8
generate_manual acceld-ros2 8
merge "$out/man/man8/acceld.8" packaging/man/acceld.8.sections "$(exit_status docs/ERRORS.md "")"
merge "$out/man/man1/accelctl.1" packaging/man/accelctl.1.sections "$(exit_status docs/ACCELCTL.md "## Exit codes")"
merge "$out/man/man8/acceld-gateway.8" packaging/man/acceld-gateway.8.sections "$(exit_status docs/GATEWAY.md "## Exit codes")"
merge "$out/man/man8/acceld-sensorproxy.8" packaging/man/acceld-sensorproxy.8.sections "$(exit_status docs/SENSORPROXY.md "## Exit codes")"
merge "$out/man/man8/acceld-ros2.8" packaging/man/acceld-ros2.8.sections "$(exit_status docs/ROS2.md "## Exit codes")"

# A page man cannot format is not shipped.
for page in "$out"/man/man*/*; do
    problems=$(LC_ALL=C.UTF-8 MANROFFSEQ='' MANWIDTH=80 man --warnings -E UTF-8 -l -Tutf8 -Z "$page" 2>&1 >/dev/null || true)
    [ -z "$problems" ] || fail "$page does not format cleanly: $problems"
done

# The completions, from the binaries `make` just built.
for binary in acceld accelctl acceld-gateway acceld-sensorproxy acceld-ros2; do
    for shell in bash zsh fish; do
        case $shell in
            bash) file=$out/completions/bash/$binary ;;
            zsh)  file=$out/completions/zsh/_$binary ;;
            fish) file=$out/completions/fish/$binary.fish ;;
        esac
        mkdir -p "$(dirname "$file")"
        # (bash-completion sources the file: a #! line has no business there.)
        ".build-static/release/$binary" --generate-completion-script "$shell" | sed '1{/^#!/d}' > "$file" \
            || fail "$binary --generate-completion-script $shell failed"
        [ -s "$file" ] || fail "$binary --generate-completion-script $shell printed nothing"
    done
done
echo "build-docs: man pages and completions in $out" >&2
