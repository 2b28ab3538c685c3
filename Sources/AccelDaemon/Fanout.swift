// SPDX-License-Identifier: Apache-2.0
import AccelMotion
import AccelProtocol
import Synchronization

/// What the sampler's thread needs to deliver to one client: a copy of its
/// subscription, made by the control side whenever the client changes it.
struct Subscriber: Sendable {
    let connection: any ClientSink
    /// The subscription this copy was made from (ClientConnection drops
    /// lines for an older one, so a snapshot taken just before an unwatch
    /// delivers nothing after its reply).
    let generation: Int
    let streams: Set<StreamName>
    let fields: FrameFields
    /// Deliver every `decimation`-th sample: seq ≡ `phase` (mod `decimation`).
    let decimation: UInt64
    let phase: UInt64
    let reference: Attitude?
    /// The windows of its `vibration` messages (nil: the default).
    var vibration: VibrationWatch? = nil

    func watches(_ event: MotionEvent) -> Bool {
        StreamName(rawValue: event.className).map(streams.contains) ?? false
    }
}

/// Delivery on the sampler's thread: frames and events go to the clients
/// of the latest snapshot, which the control side swaps in (a lock held
/// only to swap or copy a reference). Each client's lines are appended to
/// its outbox and sent at the flush, one write per client per wake (a FIFO
/// wake brings 18: docs/PERFORMANCE.md, "Fewer system calls per wake").
/// The latest frame and orientation are kept for `poll` and new watchers.
final class Fanout: Sendable {
    private let shared = Mutex(Shared())

    private struct Shared {
        var subscribers: [Subscriber] = []
        var latest: Frame?
        /// The orientation decided so far, for new watchers (gpsd likewise
        /// answers WATCH with the current state).
        var orientation = DeviceOrientation.unknown
        /// The chip's wake-up unit woke acceld: the next event says so.
        var wakeMark = false
    }

    /// The next motion event delivered carries `"wake":"chip"`.
    func markWake() { shared.withLock { $0.wakeMark = true } }

    /// The clients from now on (control side).
    func replace(_ subscribers: [Subscriber]) {
        shared.withLock { $0.subscribers = subscribers }
    }

    var subscribers: [Subscriber] { shared.withLock { $0.subscribers } }
    var latest: Frame? { shared.withLock { $0.latest } }
    var orientation: DeviceOrientation { shared.withLock { $0.orientation } }

    /// Frames, oldest first, with the events each completed: appended for
    /// every client at whose rate they fall, then one flush per client.
    func publish(_ deliveries: some BidirectionalCollection<Delivery>) {
        guard let newest = deliveries.last?.frame else { return }
        let (subscribers, marked) = shared.withLock { shared in
            for delivery in deliveries {
                for case .orientation(let change) in delivery.events { shared.orientation = change.orientation }
            }
            shared.latest = newest
            let marked = shared.wakeMark ? deliveries.first { !$0.events.isEmpty }?.frame.seq : nil
            if marked != nil { shared.wakeMark = false }
            return (shared.subscribers, marked)
        }
        guard !subscribers.isEmpty else { return }
        for delivery in deliveries { append(delivery.frame, delivery.events, to: subscribers, wakeMark: delivery.frame.seq == marked) }
        for subscriber in subscribers { subscriber.connection.flush() }
    }

    /// A message every client that `wants` it is sent, encoded once.
    func broadcast(_ message: Message, to wants: (Subscriber) -> Bool) {
        let line = message.jsonBytes
        for subscriber in subscribers where wants(subscriber) {
            subscriber.connection.append(line, isReply: false, generation: subscriber.generation)
            subscriber.connection.flush()
        }
    }

    /// Encoded once per set of fields, for every client that wants those
    /// fields (most want the same: one encoding).
    private func append(_ frame: Frame, _ events: [MotionEvent], to subscribers: [Subscriber], wakeMark: Bool) {
        var encoded: (fields: FrameFields, line: [UInt8])?
        for subscriber in subscribers {
            let connection = subscriber.connection
            if subscriber.streams.contains(.frames) && frame.seq % subscriber.decimation == subscriber.phase {
                let line: [UInt8]
                if let reference = subscriber.reference {
                    line = frame.jsonBytes(fields: subscriber.fields, reference: reference)
                } else if let encoded, encoded.fields == subscriber.fields {
                    line = encoded.line
                } else {
                    line = frame.jsonBytes(fields: subscriber.fields)
                    encoded = (subscriber.fields, line)
                }
                connection.append(line, isReply: false, generation: subscriber.generation)
            }
            for (index, event) in events.enumerated() where subscriber.watches(event) {
                let line = wakeMark && index == 0 ? event.jsonBytes(wake: "chip") : Message.event(event).jsonBytes
                connection.append(line, isReply: false, generation: subscriber.generation)
            }
        }
    }
}
