# SPDX-License-Identifier: Apache-2.0
# Sourced by qemu-host.sh (the two amd64 QEMU stages) and arm64-boot-test.sh.
# judge_guest STAGE LOG MARKER: fails unless the guest's console LOG has
# "MARKER: N passed, 0 failed". QEMU exits 0 on power-off whatever
# happened, so only the guest's own verdict counts.
judge_guest() {
    local stage=$1 log=$2 marker=$3 summary failed
    summary=$(tr -d '\r' < "$log" | grep -oE "$marker: [0-9]+ passed, [0-9]+ failed" || true)
    if [ -z "$summary" ]; then
        echo "$stage: the guest never reported; its console:" >&2
        tail -40 "$log" >&2
        return 1
    fi
    failed=$(echo "$summary" | sed -E 's/.* ([0-9]+) failed/\1/')
    [ "$failed" -eq 0 ] && return 0
    # Repeated last, so the tail of the log that CI keeps names them.
    echo "$stage: $failed check(s) failed:" >&2
    tr -d '\r' < "$log" | grep -E 'CHECK FAIL' | sed 's/^/  /' >&2
    return 1
}
