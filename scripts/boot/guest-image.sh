# SPDX-License-Identifier: Apache-2.0
# Sourced (as root) by boot-test.sh and arm64-boot-test.sh: what makes a
# Debian userland into a guest that runs one checks script under systemd
# and powers off, and the initramfs that hands over to it.

# guest_image TREE IMAGE HOSTNAME SERIAL SCRIPT: finishes the copied
# userland TREE (SERIAL is the console's getty, masked; SCRIPT the checks
# in /payload, which the guest finds as a tar on its second disk) and packs
# it into IMAGE with mkfs.ext4 -d (no loop mount). QEMU's snapshot=on keeps
# IMAGE unwritten.
guest_image() {
    local tree=$1 image=$2 hostname=$3 serial=$4 script=$5 unit
    # Nor does apt need the mirror's package lists: the guest has no network,
    # every dependency is installed, and parsing 50 MB of lists took apt half
    # a minute per run under emulation.
    find "$tree/var/lib/apt/lists" -maxdepth 1 -type f -delete
    rm -f "$tree"/var/cache/apt/*.bin
    echo "$hostname" > "$tree/etc/hostname"
    echo "/dev/vda / ext4 rw 0 1" > "$tree/etc/fstab"
    # What only costs time under emulation.
    for unit in getty@tty1.service "serial-getty@$serial.service" apt-daily.timer apt-daily-upgrade.timer \
                dpkg-db-backup.timer e2scrub_all.timer e2scrub_reap.service fstrim.timer \
                systemd-pstore.service systemd-journal-flush.service systemd-update-utmp.service \
                proc-sys-fs-binfmt_misc.automount; do
        ln -sf /dev/null "$tree/etc/systemd/system/$unit"
    done
    cat > "$tree/etc/systemd/system/acceld-boot-test.service" <<UNIT
[Unit]
Description=acceld boot test ($script)
After=multi-user.target
# In [Unit]: systemd ignores them in [Service], and the guest never stops.
SuccessAction=poweroff-force
FailureAction=poweroff-force

[Service]
Type=oneshot
ExecStartPre=/bin/sh -c 'mkdir -p /payload && tar -xf /dev/vdb -C /payload'
ExecStart=/bin/bash /payload/$script
StandardOutput=journal+console
StandardError=journal+console
TimeoutStartSec=25min

[Install]
WantedBy=multi-user.target
UNIT
    ln -sf /etc/systemd/system/acceld-boot-test.service "$tree/etc/systemd/system/multi-user.target.wants/"
    mkfs.ext4 -q -F -L root -d "$tree" "$image" 2G
}

# guest_initramfs DIR OUTPUT BUSYBOX MODULES_ROOT VERSION: a busybox
# initramfs that loads virtio and ext4 (from the kernel's modules under
# MODULES_ROOT), mounts /dev/vda and switch_roots into systemd.
guest_initramfs() {
    local dir=$1 output=$2 busybox=$3 root=$4 version=$5 module
    rm -rf "$dir" && mkdir -p "$dir"/{bin,dev,proc,sys,newroot,modules}
    cp "$busybox" "$dir/bin/busybox"
    mknod -m 600 "$dir/dev/console" c 5 1
    for module in virtio_pci virtio_blk crc32c_generic ext4; do
        modprobe -d "$root" -S "$version" --show-depends "$module" | awk '{ print $2 }'
    done | awk '!seen[$0]++' | while read -r path; do
        cp "$path" "$dir/modules/"
        basename "$path" >> "$dir/modules/order"
    done
    # The disk may take a while to appear under emulation: up to 30 s.
    cat > "$dir/init" <<'INIT'
#!/bin/busybox sh
/bin/busybox --install -s /bin
mount -t proc proc /proc; mount -t sysfs sysfs /sys; mount -t devtmpfs devtmpfs /dev
for module in $(cat /modules/order); do insmod /modules/$module; done
for i in $(seq 300); do [ -b /dev/vda ] && break; sleep 0.1; done
mount -t ext4 -o rw /dev/vda /newroot || { echo "BOOT-INIT: cannot mount /dev/vda"; poweroff -f; }
umount /proc /sys
mount --move /dev /newroot/dev
exec switch_root /newroot /sbin/init
INIT
    chmod +x "$dir/init"
    (cd "$dir" && find . | cpio -o -H newc 2>/dev/null) > "$output"
}
