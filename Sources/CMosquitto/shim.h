// SPDX-License-Identifier: Apache-2.0
// Eclipse Mosquitto's client library, from Debian's libmosquitto-dev, for
// acceld-gateway's MQTT face. Nothing else: the Swift side (MQTTPublisher)
// calls it directly.
#include <mosquitto.h>
