#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Sources/CROS2Types from its IDL with Debian's idlc (cyclonedds-tools):
# the C types and topic descriptors acceld-ros2 writes with. No type
# information (-t): ROS 2's own rmw_cyclonedds_cpp announces none, and a
# reader then matches by the type's name, as ROS 2 nodes do.
#   generate-types.sh          writes them
#   generate-types.sh --check  fails if regenerating would change them
set -euo pipefail
cd "$(dirname "$0")/../.."
target=Sources/CROS2Types
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp "$target/ros2_types.idl" "$work/"
(cd "$work" && idlc -t ros2_types.idl)
# idlc names the IDL's absolute path in a comment: the temporary one here.
sed -i "s|^  Source: .*|  Source: $target/ros2_types.idl|" "$work/ros2_types.c" "$work/ros2_types.h"
if [ "${1:-}" = --check ]; then
    diff -u "$target/ros2_types.c" "$work/ros2_types.c" && diff -u "$target/include/ros2_types.h" "$work/ros2_types.h" || {
        echo "generate-types: $target differs from what idlc $(idlc -v 2>&1 | head -1) makes of ros2_types.idl: run scripts/ros2/generate-types.sh" >&2
        exit 1
    }
    echo "generate-types: $target is what idlc makes of ros2_types.idl" >&2
else
    cp "$work/ros2_types.c" "$target/"
    cp "$work/ros2_types.h" "$target/include/"
fi
