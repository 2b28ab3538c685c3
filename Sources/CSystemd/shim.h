// SPDX-License-Identifier: Apache-2.0
// systemd's sd-bus and sd_notify, from Debian's libsystemd-dev, for
// acceld-sensorproxy's D-Bus face. sd-bus's vtable macros cannot be
// imported into Swift: CSensorProxyBus holds the vtable.
#include <systemd/sd-bus.h>
#include <systemd/sd-daemon.h>
