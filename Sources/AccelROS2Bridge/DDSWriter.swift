// SPDX-License-Identifier: Apache-2.0
import AccelROS2
import CROS2Types
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

public struct DDSError: Error, CustomStringConvertible {
    public let description: String
    init(_ what: String, _ code: dds_return_t) {
        description = "\(what): \(String(cString: dds_strretcode(code)))"
    }
}

/// One DDS domain participant as ROS 2 makes one: USER_DATA `enclave=/;`
/// (what rmw_cyclonedds_cpp announces for the default security enclave).
public final class DDSParticipant {
    let handle: dds_entity_t

    public init(domain: Int) throws(DDSError) {
        let qos = dds_create_qos()
        defer { dds_delete_qos(qos) }
        let enclave = Array("enclave=/;".utf8)
        dds_qset_userdata(qos, enclave, enclave.count)
        let handle = dds_create_participant(dds_domainid_t(domain), qos, nil)
        guard handle > 0 else { throw DDSError("cannot join DDS domain \(domain)", handle) }
        self.handle = handle
    }

    deinit { dds_delete(handle) }
}

/// A ROS 2 publisher on DDS: the topic `rt` + its name, ROS 2's type name,
/// the writer's QoS, its USER_DATA `typehash=RIHS01_…;` as Iron and later
/// announce it, and a listener that says once when a reader's QoS cannot
/// be met (a reliable subscriber of a best-effort topic receives nothing).
public final class DDSWriter {
    public struct QoS: Sendable {
        public var reliable: Bool
        public var depth: Int
        public init(reliable: Bool, depth: Int) {
            self.reliable = reliable
            self.depth = depth
        }
    }

    let handle: dds_entity_t
    private let topic: dds_entity_t
    private let listener: OpaquePointer
    private let incompatible: Unmanaged<IncompatibleReaders>

    public init(participant: DDSParticipant, name: String, type: ROS2MessageType,
                descriptor: UnsafePointer<dds_topic_descriptor_t>, qos wanted: QoS,
                log: @escaping @Sendable (String) -> Void) throws(DDSError) {
        let topic = dds_create_topic(participant.handle, descriptor, "rt" + name, nil, nil)
        guard topic > 0 else { throw DDSError("cannot create the DDS topic rt\(name) (\(type.ddsName))", topic) }
        let qos = dds_create_qos()
        defer { dds_delete_qos(qos) }
        dds_qset_reliability(qos, wanted.reliable ? DDS_RELIABILITY_RELIABLE : DDS_RELIABILITY_BEST_EFFORT, 100_000_000)
        dds_qset_history(qos, DDS_HISTORY_KEEP_LAST, Int32(wanted.depth))
        dds_qset_durability(qos, DDS_DURABILITY_VOLATILE)
        let typeHash = Array("typehash=\(type.typeHash);".utf8)
        dds_qset_userdata(qos, typeHash, typeHash.count)
        let readers = Unmanaged.passRetained(IncompatibleReaders(topic: name, reliable: wanted.reliable, log: log))
        let listener = dds_create_listener(readers.toOpaque())!
        dds_lset_offered_incompatible_qos(listener) { _, status, arg in
            Unmanaged<IncompatibleReaders>.fromOpaque(arg!).takeUnretainedValue().seen(policy: status.last_policy_id)
        }
        let handle = dds_create_writer(participant.handle, topic, qos, listener)
        guard handle > 0 else {
            dds_delete_listener(listener)
            readers.release()
            throw DDSError("cannot create the DDS writer on rt\(name)", handle)
        }
        self.topic = topic
        self.handle = handle
        self.listener = listener
        incompatible = readers
    }

    deinit {
        dds_delete(handle)
        dds_delete_listener(listener)
        incompatible.release()
    }

    /// Writes `sample` with the message's own instant as the source timestamp.
    func write(_ sample: UnsafeRawPointer, stamp: ROS2Time) throws(DDSError) {
        let code = dds_write_ts(handle, sample, dds_time_t(stamp.unixNanoseconds))
        guard code >= 0 else { throw DDSError("cannot write", code) }
    }
}

/// Says once per topic that a reader asked for what the writer does not
/// offer, and what to change.
private final class IncompatibleReaders: Sendable {
    let topic: String
    let reliable: Bool
    let log: @Sendable (String) -> Void
    private let said = Atomic(false)

    init(topic: String, reliable: Bool, log: @escaping @Sendable (String) -> Void) {
        self.topic = topic
        self.reliable = reliable
        self.log = log
    }

    func seen(policy: UInt32) {
        guard !said.exchange(true, ordering: .relaxed) else { return }
        let advice = policy == DDS_RELIABILITY_QOS_POLICY_ID.rawValue && !reliable
            ? "it asks for reliable delivery of a best-effort topic: subscribe with rclcpp::SensorDataQoS() (qos_profile_sensor_data in Python), or set [ros2] reliability = reliable"
            : "its QoS asks for more than this topic offers (DDS policy \(policy)): match [ros2] reliability and depth to it"
        log("a subscriber of \(topic) gets nothing: \(advice)")
    }
}
