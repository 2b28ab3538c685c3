# Shared by the two guests, guest-checks.sh (busybox) and boot-checks.sh
# (Debian under systemd): the check counters, and i2c-stub dressed as a
# LIS302DL at 0x1c. The caller sets $I2CSET, $STUB_BUS (the stub adapter's
# number) and defines insert_stub, which loads i2c-stub with the arguments
# it is given. Each check prints "CHECK PASS|FAIL: name".

pass=0; fail=0; unsure=0
ok()  { echo "CHECK PASS: $1"; pass=$((pass + 1)); }
# A timing check whose every attempt ran while the host starved the guest
# (the emulator's clock ran late each time): it proves nothing either way,
# says so, and is counted apart; it never passes.
inconclusive() { echo "CHECK INCONCLUSIVE: $1"; unsure=$((unsure + 1)); }
bad() { echo "CHECK FAIL: $1"; fail=$((fail + 1)); }
check() { name=$1; shift; if "$@"; then ok "$name"; else bad "$name"; fi; }
contains() { echo "$1" | grep -q -- "$2"; }

load_stub() {  # [functionality mask]
    rmmod i2c-stub 2>/dev/null
    insert_stub chip_addr=0x1c ${1:+functionality=$1}
    # i2c-stub is a plain register file: seed WHO_AM_I, and STATUS and the
    # outputs both at their addresses and at the aliases a burst from 0xA7
    # reads (the stub ignores the auto-increment bit).
    $I2CSET -y $STUB_BUS 0x1c 0x0f 0x3b
    set_burst_sample 0x38 0xc8 0x80
}
set_sample() {  # x y z [x y z at the real addresses] (raw digits, hex)
    # -f: the kernel's own driver may own 0x1c during the peer check.
    for a in 0x27 0xa7; do $I2CSET -f -y $STUB_BUS 0x1c $a 0x0f; done
    $I2CSET -f -y $STUB_BUS 0x1c 0xa9 $1; $I2CSET -f -y $STUB_BUS 0x1c 0x29 ${4:-$1}
    $I2CSET -f -y $STUB_BUS 0x1c 0xab $2; $I2CSET -f -y $STUB_BUS 0x1c 0x2b ${5:-$2}
    $I2CSET -f -y $STUB_BUS 0x1c 0xad $3; $I2CSET -f -y $STUB_BUS 0x1c 0x2d ${6:-$3}
}
# Burst checks put zeros at the real addresses: only a burst from 0xA7 (the
# auto-increment bit set) sees the sample. Without the bit the stub would
# read 0x27.. and the conversions would come out 0.
set_burst_sample() { set_sample "$1" "$2" "$3" 0x00 0x00 0x00; }
