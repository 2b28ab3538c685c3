// SPDX-License-Identifier: Apache-2.0
// The vtables of net.hadess.SensorProxy (iio-sensor-proxy 3.x) and
// net.hadess.SensorProxy.Compass; each entry forwards to sp_handlers.
#include "CSensorProxyBus.h"
#include <errno.h>
#include <stdio.h>
#include <string.h>

#define OBJECT "/net/hadess/SensorProxy"
#define COMPASS_OBJECT "/net/hadess/SensorProxy/Compass"
#define INTERFACE "net.hadess.SensorProxy"
#define COMPASS_INTERFACE "net.hadess.SensorProxy.Compass"

static int on_method(sd_bus_message *m, void *userdata, sd_bus_error *error) {
    const sp_handlers *h = userdata;
    int r = h->method(h->context, sd_bus_message_get_interface(m), sd_bus_message_get_member(m),
                      sd_bus_message_get_sender(m));
    if (r < 0) return sd_bus_error_set_errno(error, r);
    return sd_bus_reply_method_return(m, "");
}

static int on_property(sd_bus *bus, const char *path, const char *interface, const char *property,
                       sd_bus_message *reply, void *userdata, sd_bus_error *error) {
    (void) bus; (void) path;
    const sp_handlers *h = userdata;
    sp_value value;
    memset(&value, 0, sizeof value);
    int r = h->property(h->context, interface, property, &value);
    if (r < 0) return sd_bus_error_set_errno(error, r);
    switch (value.type) {
    case 'b': return sd_bus_message_append_basic(reply, 'b', &value.boolean);
    case 'd': return sd_bus_message_append_basic(reply, 'd', &value.number);
    case 's': value.string[sizeof value.string - 1] = 0; return sd_bus_message_append_basic(reply, 's', value.string);
    default: return -EINVAL;
    }
}

// HasAccelerometer and AccelerometerOrientation change (and say so in
// PropertiesChanged); the absent sensors' properties never do.
#define CHANGING SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE
#define FIXED SD_BUS_VTABLE_PROPERTY_CONST

static const sd_bus_vtable proxy_vtable[] = {
    SD_BUS_VTABLE_START(0),
    SD_BUS_PROPERTY("HasAccelerometer", "b", on_property, 0, CHANGING),
    SD_BUS_PROPERTY("AccelerometerOrientation", "s", on_property, 0, CHANGING),
    SD_BUS_PROPERTY("HasAmbientLight", "b", on_property, 0, FIXED),
    SD_BUS_PROPERTY("LightLevelUnit", "s", on_property, 0, FIXED),
    SD_BUS_PROPERTY("LightLevel", "d", on_property, 0, FIXED),
    SD_BUS_PROPERTY("HasProximity", "b", on_property, 0, FIXED),
    SD_BUS_PROPERTY("ProximityNear", "b", on_property, 0, FIXED),
    SD_BUS_METHOD("ClaimAccelerometer", "", "", on_method, SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_METHOD("ReleaseAccelerometer", "", "", on_method, SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_METHOD("ClaimLight", "", "", on_method, SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_METHOD("ReleaseLight", "", "", on_method, SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_METHOD("ClaimProximity", "", "", on_method, SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_METHOD("ReleaseProximity", "", "", on_method, SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_VTABLE_END
};

static const sd_bus_vtable compass_vtable[] = {
    SD_BUS_VTABLE_START(0),
    SD_BUS_PROPERTY("HasCompass", "b", on_property, 0, FIXED),
    SD_BUS_PROPERTY("CompassHeading", "d", on_property, 0, FIXED),
    SD_BUS_METHOD("ClaimCompass", "", "", on_method, SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_METHOD("ReleaseCompass", "", "", on_method, SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_VTABLE_END
};

static int on_name_owner_changed(sd_bus_message *m, void *userdata, sd_bus_error *error) {
    (void) error;
    const sp_handlers *h = userdata;
    const char *name = NULL, *old_owner = NULL, *new_owner = NULL;
    if (sd_bus_message_read(m, "sss", &name, &old_owner, &new_owner) < 0) return 0;
    // A unique name that lost its owner: that peer has left the bus.
    if (name[0] == ':' && new_owner[0] == 0) h->vanished(h->context, name);
    return 0;
}

int sp_add_objects(sd_bus *bus, const sp_handlers *handlers) {
    void *userdata = (void *) handlers;
    int r = sd_bus_add_object_vtable(bus, NULL, OBJECT, INTERFACE, proxy_vtable, userdata);
    if (r < 0) return r;
    r = sd_bus_add_object_vtable(bus, NULL, COMPASS_OBJECT, COMPASS_INTERFACE, compass_vtable, userdata);
    if (r < 0) return r;
    return sd_bus_match_signal(bus, NULL, "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus",
                               "NameOwnerChanged", on_name_owner_changed, userdata);
}

void sp_value_set_string(sp_value *value, const char *string) {
    value->type = 's';
    snprintf(value->string, sizeof value->string, "%s", string);
}

int sp_emit_changed(sd_bus *bus, const char *first, const char *second) {
    return sd_bus_emit_properties_changed(bus, OBJECT, INTERFACE, first, second, NULL);
}
