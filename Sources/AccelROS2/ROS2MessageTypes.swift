// SPDX-License-Identifier: Apache-2.0

/// A ROS 2 message type as a recording names it: its name, its definition
/// in the `ros2msg` form rosbag2 stores (the type's .msg, then each type it
/// uses after a line of 80 '='), and its REP-2011 type hash, which Iron and
/// later announce beside the name.
public struct ROS2MessageType: Sendable, Equatable {
    public let name: String
    public let definition: String
    public let typeHash: String

    /// ROS 2's type name on DDS (`sensor_msgs::msg::dds_::Imu_`).
    public var ddsName: String {
        let parts = name.split(separator: "/")
        return "\(parts[0])::\(parts[1])::dds_::\(parts[2])_"
    }

    private static func definition(_ main: String, uses: [(String, String)]) -> String {
        uses.reduce(main) { text, used in
            text + String(repeating: "=", count: 80) + "\nMSG: \(used.0)\n" + used.1
        }
    }

    private static let header = ("std_msgs/Header", "builtin_interfaces/Time stamp\nstring frame_id\n")
    private static let time = ("builtin_interfaces/Time", "int32 sec\nuint32 nanosec\n")

    public static let imu = ROS2MessageType(
        name: "sensor_msgs/msg/Imu",
        definition: definition(
            """
            std_msgs/Header header
            geometry_msgs/Quaternion orientation
            float64[9] orientation_covariance
            geometry_msgs/Vector3 angular_velocity
            float64[9] angular_velocity_covariance
            geometry_msgs/Vector3 linear_acceleration
            float64[9] linear_acceleration_covariance

            """,
            uses: [header, time,
                   ("geometry_msgs/Quaternion", "float64 x 0\nfloat64 y 0\nfloat64 z 0\nfloat64 w 1\n"),
                   ("geometry_msgs/Vector3", "float64 x\nfloat64 y\nfloat64 z\n")]),
        // The hash rosidl computes from the type's description (REP-2011);
        // the same in Iron, Jazzy and Kilted, as the type is unchanged.
        typeHash: "RIHS01_7d9a00ff131080897a5ec7e26e315954b8eae3353c3f995c55faf71574000b5b")

    public static let diagnosticArray = ROS2MessageType(
        name: "diagnostic_msgs/msg/DiagnosticArray",
        definition: definition(
            "std_msgs/Header header\ndiagnostic_msgs/DiagnosticStatus[] status\n",
            uses: [header, time,
                   ("diagnostic_msgs/DiagnosticStatus",
                    "byte OK=0\nbyte WARN=1\nbyte ERROR=2\nbyte STALE=3\nbyte level\nstring name\nstring message\nstring hardware_id\n"
                        + "diagnostic_msgs/KeyValue[] values\n"),
                   ("diagnostic_msgs/KeyValue", "string key\nstring value\n")]),
        typeHash: "RIHS01_5a8a36efb05fb25070fa0fb3810290c0e6cd4862b54a8fb975a1ee8dc55a333e")
}
