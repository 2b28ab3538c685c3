// SPDX-License-Identifier: Apache-2.0
// What acceld-ros2 calls: Cyclone DDS's C API (Debian: cyclonedds-dev) and
// the ROS 2 types idlc generated from ../ros2_types.idl.
#ifndef ACCELD_ROS2_DDS_H
#define ACCELD_ROS2_DDS_H
#include <dds/dds.h>
#include "ros2_types.h"

// The descriptors' own addresses. Swift sees a C const global as a value:
// withUnsafePointer(to:) gives the address of a copy, valid only inside
// its closure (the release build's copy was gone by dds_create_topic, and
// libddsc read through a null pointer).
static inline const dds_topic_descriptor_t *ros2_imu_descriptor(void) {
    return &sensor_msgs_msg_dds__Imu__desc;
}
static inline const dds_topic_descriptor_t *ros2_diagnostic_array_descriptor(void) {
    return &diagnostic_msgs_msg_dds__DiagnosticArray__desc;
}
#endif
