// SPDX-License-Identifier: Apache-2.0
import AccelCore
import AccelDriver
import AccelROS2

/// Why a bag cannot be played, naming the file (docs/ROS2.md).
public struct BagError: Error, Equatable, CustomStringConvertible {
    public let source: String
    public let reason: String
    public var description: String { "\(source): \(reason)" }
}

extension Trace {
    /// A ROS 2 bag in MCAP (`accelctl record --format mcap`) as a trace:
    /// the sensor_msgs/msg/Imu messages of its `imu/data_raw` topic, the
    /// inverse of ImuConversion's: m/s² back to g by standard gravity,
    /// rates in rad/s as they are (none where the part had no gyroscope),
    /// time from each header.stamp, from the first. Raw rather than
    /// `imu/data`: every part has it, and the orientation is acceld's to
    /// work out again. `source` names the file in errors.
    public init(mcap bytes: [UInt8], source: String = "bag") throws(BagError) {
        let bag: MCAPReader
        do throws(MCAPError) {
            bag = try MCAPReader(bytes: bytes) { $0.isRawImu || $0.isDiagnostics }
        } catch {
            throw BagError(source: source, reason: error.description)
        }
        guard let channel = bag.channels.first(where: \.isRawImu) else {
            let found = bag.channels.map { "\($0.topic) (\($0.schema?.name ?? "no schema"))" }
            throw BagError(source: source, reason: "no sensor_msgs/msg/Imu topic ending in imu/data_raw, which acceld replay plays; "
                + (found.isEmpty ? "the bag has no topics at all" : "the topics are \(found.joined(separator: ", "))")
                + ": record one with accelctl record --format mcap, or ros2 bag record /imu/data_raw")
        }
        guard channel.messageEncoding == "cdr" else {
            throw BagError(source: source, reason: "\(channel.topic)'s messages are in \(channel.messageEncoding), not cdr, "
                + "which ROS 2 records: record it with rosbag2 or accelctl record --format mcap")
        }
        var messages: [(stamp: Int64, message: ImuMessage)] = []
        for (index, message) in bag.messages.lazy.filter({ $0.channel == channel.id }).enumerated() {
            let which = "message \(index + 1) on \(channel.topic) (log time \(message.logTime) ns)"
            let imu: ImuMessage
            do throws(CDRError) { imu = try ImuMessage(cdr: message.data) } catch { throw BagError(source: source, reason: "\(which): \(error)") }
            // As a CSV trace's cells must be: the chip model cannot quantise a NaN.
            guard [imu.linearAcceleration, imu.angularVelocity].allSatisfy({ $0.x.isFinite && $0.y.isFinite && $0.z.isFinite }) else {
                throw BagError(source: source, reason: "\(which): its linear_acceleration or angular_velocity is not a finite number: "
                    + "the message is damaged; record it again")
            }
            messages.append((imu.header.stamp.unixNanoseconds, imu))
        }
        // In stamp order, as a reader that orders by stamp plays them.
        messages.sort { $0.stamp < $1.stamp }
        guard let first = messages.first?.stamp else {
            throw BagError(source: source, reason: "no messages on \(channel.topic): there is nothing to play")
        }
        for (previous, next) in zip(messages, messages.dropFirst()) where next.stamp == previous.stamp {
            throw BagError(source: source, reason: "two messages on \(channel.topic) have the stamp \(next.stamp) ns: "
                + "a trace's times must increase; record it again")
        }
        let hasGyroscope = messages.contains { $0.message.angularVelocityCovariance.first != -1 }
        let standardGravity = ImuConversion.standardGravity
        self.init(comments: ["source: \(bag.library.isEmpty ? "an MCAP bag" : bag.library), \(channel.topic)"] + Trace.device(in: bag),
                  times: messages.map { Double($0.stamp - first) / 1e9 },
                  samples: messages.map { $0.message.linearAcceleration / standardGravity },
                  rotationRates: hasGyroscope ? messages.map(\.message.angularVelocity) : nil)
    }

    /// The `device:` line accelctl record's CSV carries, from the first
    /// diagnostics that name the chip, so that replay plays the part the
    /// bag was recorded on. Diagnostics that cannot be read are passed
    /// over: they say which part, not what it felt.
    private static func device(in bag: MCAPReader) -> [String] {
        let channels = Set(bag.channels.filter(\.isDiagnostics).map(\.id))
        for message in bag.messages where channels.contains(message.channel) {
            guard let array = try? DiagnosticArrayMessage(cdr: message.data) else { continue }
            for status in array.status {
                let values = Dictionary(status.values.map { ($0.key, $0.value) }) { first, _ in first }
                guard let chip = values["chip"], !chip.isEmpty else { continue }
                let range = values["range"].map { ", ±\($0) g" } ?? "", rate = values["rate"].map { ", \($0) Hz" } ?? ""
                return ["device: \(chip)\(range)\(rate)"]
            }
        }
        return []
    }
}

extension MCAPReader.Channel {
    var isRawImu: Bool { schema?.name == ROS2MessageType.imu.name && topic.hasSuffix("imu/data_raw") }
    var isDiagnostics: Bool { schema?.name == ROS2MessageType.diagnosticArray.name }
}
