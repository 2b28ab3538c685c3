# SPDX-License-Identifier: Apache-2.0
"""ROS 2's message types for PyPI's cyclonedds, declared from their .msg
definitions: on DDS a ROS 2 type is <package>::msg::dds_::<Name>_ with the
.msg's members in order (float64: float64, byte: uint8 as octet, T[9]:
array, T[]: sequence). test_dds checks these against the definitions
rosbags ships in its type store, so a slip here is a failure there."""
from dataclasses import dataclass, field

from cyclonedds.idl import IdlStruct
from cyclonedds.idl.types import array, byte, float64, int32, sequence, uint32


@dataclass
class Time(IdlStruct, typename="builtin_interfaces::msg::dds_::Time_"):
    sec: int32
    nanosec: uint32


@dataclass
class Header(IdlStruct, typename="std_msgs::msg::dds_::Header_"):
    stamp: Time
    frame_id: str


@dataclass
class Quaternion(IdlStruct, typename="geometry_msgs::msg::dds_::Quaternion_"):
    x: float64
    y: float64
    z: float64
    w: float64


@dataclass
class Vector3(IdlStruct, typename="geometry_msgs::msg::dds_::Vector3_"):
    x: float64
    y: float64
    z: float64


@dataclass
class Imu(IdlStruct, typename="sensor_msgs::msg::dds_::Imu_"):
    header: Header
    orientation: Quaternion
    orientation_covariance: array[float64, 9]
    angular_velocity: Vector3
    angular_velocity_covariance: array[float64, 9]
    linear_acceleration: Vector3
    linear_acceleration_covariance: array[float64, 9]


@dataclass
class KeyValue(IdlStruct, typename="diagnostic_msgs::msg::dds_::KeyValue_"):
    key: str
    value: str


@dataclass
class DiagnosticStatus(IdlStruct, typename="diagnostic_msgs::msg::dds_::DiagnosticStatus_"):
    level: byte
    name: str
    message: str
    hardware_id: str
    values: sequence[KeyValue] = field(default_factory=list)


@dataclass
class DiagnosticArray(IdlStruct, typename="diagnostic_msgs::msg::dds_::DiagnosticArray_"):
    header: Header
    status: sequence[DiagnosticStatus] = field(default_factory=list)
