// SPDX-License-Identifier: Apache-2.0
// What acceld-ros2 calls: Cyclone DDS's C API (Debian: cyclonedds-dev) and
// the ROS 2 types idlc generated from ../ros2_types.idl.
#ifndef ACCELD_ROS2_DDS_H
#define ACCELD_ROS2_DDS_H
#include <dds/dds.h>
#include "ros2_types.h"
#endif
