#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Runs inside the QEMU guest (busybox, a real Debian kernel, i2c-stub):
# the project's own binaries against /dev/i2c-0. Each check prints
# "CHECK PASS|FAIL: name"; the last line counts them. i2c-tools are called
# by absolute path: busybox's built-in i2cget would shadow them.
PATH=/bin:/sbin:/usr/bin:/usr/sbin
I2CGET=/usr/sbin/i2cget I2CSET=/usr/sbin/i2cset I2CDUMP=/usr/sbin/i2cdump I2CDETECT=/usr/sbin/i2cdetect
STUB_BUS=0
insert_stub() { insmod /lib/modules/i2c-stub.ko "$@"; }
. /guest-lib.sh

insmod /lib/modules/i2c-dev.ko
insmod /lib/modules/i2c-smbus.ko
load_stub
echo "kernel $(uname -r); adapters: $(ls /dev/i2c-*)"

# 1. probe finds the chip through CI2C, and reads I2C_FUNCS as the kernel reports them.
out=$(accelctl probe --bus 0 --only-bus 2>&1); status=$?
echo "$out"
check "probe finds WHO_AM_I 0x3b at 0x1c on /dev/i2c-0" sh -c '[ '$status' = 0 ] && echo "$0" | grep -q "found LIS302DL at 0x1c on /dev/i2c-0"' "$out"
funcs=$($I2CDETECT -F 0)
echo "$funcs" | grep -E "I2C block read|SMBus Read Byte"
kernel_block=$(echo "$funcs" | grep "I2C Block Read" | grep -q yes && echo yes || echo no)
check "I2C_FUNCS read and understood (I2C block read: $kernel_block, as i2cdetect -F says)" contains "$out" "I2C block read $kernel_block"

# 2. configure writes the whole configuration (over garbage left behind) and reads it back.
$I2CSET -y 0 0x1c 0x21 0x10; $I2CSET -y 0 0x1c 0x22 0x24
out=$(acceld sample --bus 0 --range 8 --rate 400 --seconds 0.1 2>&1); status=$?
echo "$out" | head -3
r1=$($I2CGET -y 0 0x1c 0x20); r2=$($I2CGET -y 0 0x1c 0x21); r3=$($I2CGET -y 0 0x1c 0x22)
echo "after sample: CTRL_REG1=$r1 CTRL_REG2=$r2 CTRL_REG3=$r3"
check "configure wrote CTRL_REG1..3 (read back, then powered down: 0xa7 0x00 0x00)" [ "$status" = 0 -a "$r1" = 0xa7 -a "$r2" = 0x00 -a "$r3" = 0x00 ]
check "samples from the I2C block read convert at ±8 g (56 digits = 4.032 g)" contains "$out" "4.032"

# 3. errors from the kernel, each with its own advice and exit code.
out=$(acceld sample --bus 0 --address 0x1d --seconds 0.1 2>&1); status=$?
echo "$out"
check "a wrong address gives 'nothing answers' (exit 68)" sh -c '[ '$status' = 68 ] && echo "$0" | grep -q "nothing answers at 0x1d"' "$out"
out=$(acceld sample --bus 7 2>&1); status=$?
check "a missing bus gives its advice (exit 69)" sh -c '[ '$status' = 69 ] && echo "$0" | grep -q "no I2C bus at /dev/i2c-7"' "$out"

# 4. dump's raw values are i2cdump's.
dump=$(accelctl dump --bus 0 2>&1)
echo "$dump" | head -6
table=$($I2CDUMP -y 0 0x1c b)
# (busybox awk has no strtonum: hex by hand)
mismatches=$(echo "$dump" | awk -v table="$table" '
    function h(s,   i, n) { s = tolower(s); sub(/^0x/, "", s); n = 0; for (i = 1; i <= length(s); i++) n = n * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1; return n }
    BEGIN { n = split(table, rows, "\n"); for (i = 2; i <= n; i++) { split(rows[i], c, " "); base = h(substr(c[1], 1, 2)); for (j = 0; j < 16; j++) v[base + j] = c[j + 2] } }
    /^0x[0-9a-f][0-9a-f]  / && $3 ~ /^0x/ { a = h($1); if (("0x" v[a]) != $3) { print $1, $2, $3, "i2cdump:", v[a]; bad++ } ; seen++ }
    END { print "compared", seen + 0 }')
echo "$mismatches"
check "dump's raw values equal i2cdump's" sh -c 'echo "$0" | grep -q "compared [1-9]" && ! echo "$0" | grep -q i2cdump:' "$mismatches"

# 5. acceld on the real bus: a client gets the registers' values in g.
acceld --bus 0 --socket /tmp/acceld.sock --calibration-file /tmp/calibration.json 2>/tmp/acceld.log &
daemon=$!
for i in $(seq 50); do [ -S /tmp/acceld.sock ] && break; sleep 0.1; done
frames=$(accelctl events --socket /tmp/acceld.sock --json --streams frames --count 3 2>&1)
echo "$frames" | head -1
check "a client of acceld gets 56/-56/-128 digits as 1.008/-1.008/-2.304 g at ±2 g" contains "$frames" '"acc":\[1.0080,-1.0080,-2.3040\]'
set_burst_sample 0x01 0xff 0x7f
sleep 0.3
frames=$(accelctl events --socket /tmp/acceld.sock --json --streams frames --count 2 2>&1)
check "a feeder's new register values reach the client (1/-1/127 digits)" contains "$frames" '"acc":\[0.0180,-0.0180,2.2860\]'
out=$(accelctl configure --socket /tmp/acceld.sock --range 8 2>&1); echo "$out"
sleep 0.3
frames=$(accelctl events --socket /tmp/acceld.sock --json --streams frames --count 2 2>&1)
check "after configure --range 8 the same digits read 72 mg each" contains "$frames" '"acc":\[0.0720,-0.0720,9.1440\]'
kill -TERM $daemon; wait $daemon; status=$?
r1=$($I2CGET -y 0 0x1c 0x20)
echo "acceld exited $status; CTRL_REG1=$r1"
check "SIGTERM: acceld exits 0 and powers the chip down (PD clear: 0x27)" [ "$status" = 0 -a "$r1" = 0x27 ]
cat /tmp/acceld.log

# 6. an adapter without I2C block reads: a clear refusal, or byte reads when allowed.
load_stub 0x007f0000
set_sample 0x38 0xc8 0x80
out=$(acceld sample --bus 0 --seconds 0.1 2>&1); status=$?
echo "$out"
check "without I2C block reads acceld says why and how (exit 72)" sh -c '[ '$status' = 72 ] && echo "$0" | grep -q "lacks I2C block reads"' "$out"
out=$(acceld sample --bus 0 --seconds 0.1 --allow-byte-reads 2>&1); status=$?
echo "$out" | head -3
check "--allow-byte-reads falls back to byte reads and converts the same" sh -c '[ '$status' = 0 ] && echo "$0" | grep -q "1.008"' "$out"
load_stub

# 7. the kernel's own lis3lv02d driver as a peer: same registers, same g.
insmod /lib/modules/lis3lv02d.ko
insmod /lib/modules/lis3lv02d_i2c.ko
echo lis3lv02d 0x1c > /sys/bus/i2c/devices/i2c-0/new_device
sleep 0.5
position=/sys/devices/platform/lis3lv02d/position
if [ -r $position ]; then
    kernel=""
    for s in "0x38 0xc8 0x80" "0x01 0xff 0x7f" "0x10 0xf0 0x00"; do
        set_sample $s
        kernel="$kernel $(cat $position)"
    done
    echo "kernel positions (mg):$kernel"
    echo 0x1c > /sys/bus/i2c/devices/i2c-0/delete_device
    ours=""
    for s in "0x38 0xc8 0x80" "0x01 0xff 0x7f" "0x10 0xf0 0x00"; do
        set_sample $s
        ours="$ours $(acceld sample --bus 0 --seconds 0.05 --every 1 2>/dev/null | awk 'function mg(g) { return int(g * 1000 + (g < 0 ? -0.5 : 0.5)) } !/^#/ { printf "(%d,%d,%d)", mg($5), mg($6), mg($7); exit }')"
    done
    echo "acceld positions (mg):$ours"
    check "acceld's conversion agrees with the kernel's lis3lv02d (mg at ±2 g)" [ "$kernel" = "$ours" ]
else
    bad "the kernel's lis3lv02d did not bind to the stub chip ($(dmesg | grep -i lis3 | tail -2))"
fi

echo "KERNEL-CHECKS: $pass passed, $fail failed"
