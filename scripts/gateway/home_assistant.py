# SPDX-License-Identifier: Apache-2.0
"""Home Assistant's MQTT discovery as its documentation describes it, for
the gateway's tests: the topic's form, the keys each component takes (any
other is "extra keys not allowed" to HA's schema), the device classes and
the units each allows, and value templates rendered with Jinja2 as HA
renders them (`value` the payload, `value_json` the payload decoded).
Sources: home-assistant.io/integrations/mqtt (discovery),
/integrations/sensor.mqtt, /integrations/binary_sensor.mqtt, and HA's
sensor device classes (homeassistant/components/sensor/const.py,
DEVICE_CLASS_UNITS)."""
import json
import re

import jinja2

# <discovery_prefix>/<component>/[<node_id>/]<object_id>/config
TOPIC = re.compile(r"^homeassistant/(?P<component>\w+)/(?:(?P<node>[a-zA-Z0-9_-]+)/)?(?P<object>[a-zA-Z0-9_-]+)/config$")

COMMON = {"availability", "availability_mode", "availability_template", "availability_topic", "default_entity_id", "device",
          "device_class", "enabled_by_default", "encoding", "entity_category", "entity_picture", "expire_after", "force_update",
          "icon", "json_attributes_template", "json_attributes_topic", "name", "object_id", "origin", "payload_available",
          "payload_not_available", "qos", "state_topic", "unique_id", "value_template"}
KEYS = {
    "sensor": COMMON | {"last_reset_value_template", "options", "state_class", "suggested_display_precision", "unit_of_measurement"},
    "binary_sensor": COMMON | {"off_delay", "payload_off", "payload_on"},
}
DEVICE_KEYS = {"configuration_url", "connections", "hw_version", "identifiers", "manufacturer", "model", "model_id", "name",
               "serial_number", "suggested_area", "sw_version", "via_device"}
ORIGIN_KEYS = {"name", "sw_version", "support_url"}
AVAILABILITY_KEYS = {"topic", "payload_available", "payload_not_available", "value_template"}
# The sensor device classes used here and the units HA allows with each.
SENSOR_UNITS = {
    "speed": {"Beaufort", "ft/s", "in/s", "m/s", "km/h", "kn", "mph", "mm/s", "mm/d", "mm/h", "in/d", "in/h"},
    "frequency": {"Hz", "kHz", "MHz", "GHz"},
    "enum": {None},
}
BINARY_CLASSES = {"running", "moving", "vibration", "problem", "power", "connectivity"}
STATE_CLASSES = {"measurement", "total", "total_increasing"}


def render(template, payload):
    """A value template as HA renders it; no template: the payload itself."""
    if template is None:
        return payload
    try:
        decoded = json.loads(payload)
    except ValueError:
        decoded = None
    return jinja2.Environment().from_string(template).render(value=payload, value_json=decoded).strip()


def check_discovery(test, configs, base):
    """Every config against the schema; state and availability topics the
    board's own."""
    test.assertTrue(configs, "discovery configs were published")
    unique = set()
    for topic, config in configs.items():
        found = TOPIC.match(topic)
        test.assertIsNotNone(found, f"{topic}: <prefix>/<component>/<node_id>/<object_id>/config")
        component = found.group("component")
        test.assertIn(component, KEYS, topic)
        test.assertLessEqual(set(config), KEYS[component], f"{topic}: keys HA's {component} schema takes")
        test.assertIsInstance(config["state_topic"], str)
        test.assertTrue(config["state_topic"].startswith(base + "/"), topic)
        test.assertIsInstance(config["name"], str)
        test.assertIsInstance(config["unique_id"], str)
        test.assertNotIn(config["unique_id"], unique, "unique ids are unique")
        unique.add(config["unique_id"])
        device = config["device"]
        test.assertLessEqual(set(device), DEVICE_KEYS, topic)
        test.assertIsInstance(device["identifiers"], list)
        test.assertTrue(device["identifiers"] and all(isinstance(i, str) for i in device["identifiers"]), topic)
        test.assertLessEqual(set(config.get("origin", {"name": ""})), ORIGIN_KEYS, topic)
        test.assertIn("name", config.get("origin", {"name": ""}), "origin needs a name")
        test.assertIn(config.get("availability_mode", "latest"), {"all", "any", "latest"})
        for item in config["availability"]:
            test.assertLessEqual(set(item), AVAILABILITY_KEYS, topic)
            test.assertTrue(item["topic"].startswith(base + "/"), topic)
        if component == "sensor":
            device_class = config.get("device_class")
            unit = config.get("unit_of_measurement")
            if device_class is not None:
                test.assertIn(device_class, SENSOR_UNITS, topic)
                test.assertIn(unit, SENSOR_UNITS[device_class], f"{topic}: {unit!r} is a unit HA allows for {device_class}")
            if device_class == "enum":
                test.assertTrue(config["options"] and all(isinstance(o, str) for o in config["options"]), topic)
                test.assertNotIn("state_class", config, "an enum has no state class")
            else:
                test.assertNotIn("options", config, "options only with the enum class")
            if "state_class" in config:
                test.assertIn(config["state_class"], STATE_CLASSES, topic)
                test.assertIsInstance(unit, str, f"{topic}: a measurement has a unit")
            if "suggested_display_precision" in config:
                test.assertIsInstance(config["suggested_display_precision"], int)
        else:
            test.assertIn(config.get("device_class"), BINARY_CLASSES, topic)
