// SPDX-License-Identifier: Apache-2.0
// iio-sensor-proxy's two D-Bus objects as sd-bus vtables, which are C
// macros Swift cannot import. Every method call, property read and
// vanished peer is forwarded to the Swift side through these handlers;
// no logic lives here.
#ifndef CSENSORPROXYBUS_H
#define CSENSORPROXYBUS_H

#include <systemd/sd-bus.h>

/// A property's value as Swift hands it back: `type` is the D-Bus
/// signature letter ('b', 'd' or 's'); a string is set with
/// sp_value_set_string, which copies it.
typedef struct {
    char type;
    int boolean;
    double number;
    char string[64];
} sp_value;

void sp_value_set_string(sp_value *value, const char *string);

typedef struct {
    void *context;
    /// A method call with no arguments (sd-bus has checked the signature):
    /// 0 to reply with nothing, or a negative errno for an error reply.
    int (*method)(void *context, const char *interface, const char *member, const char *sender);
    /// Fills `value` for a property; 0, or a negative errno.
    int (*property)(void *context, const char *interface, const char *property, sp_value *value);
    /// A unique name (":1.42") left the bus.
    void (*vanished)(void *context, const char *name);
} sp_handlers;

/// Adds /net/hadess/SensorProxy and /net/hadess/SensorProxy/Compass and
/// the NameOwnerChanged match. `handlers` must outlive the bus.
/// 0, or a negative errno.
int sp_add_objects(sd_bus *bus, const sp_handlers *handlers);

/// PropertiesChanged on /net/hadess/SensorProxy for up to two properties
/// (the second may be NULL), with their new values.
int sp_emit_changed(sd_bus *bus, const char *first, const char *second);

#endif
