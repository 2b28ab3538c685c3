// SPDX-License-Identifier: Apache-2.0
import AccelClient
import AccelCore
import AccelProtocol
import AccelROS2

/// `accelctl record --format mcap`: acceld's frames as a ROS 2 bag
/// (docs/ROS2.md): sensor_msgs/Imu on /imu/data_raw (and /imu/data with a
/// gyroscope), diagnostic_msgs/DiagnosticArray on /diagnostics once a
/// second from the daemon's `status`.
struct MCAPRecorder {
    let client: DaemonConnection
    let seconds: Double
    let file: String
    let frameID: String

    /// Records; returns the samples lost on the way (gaps in `seq`).
    func run() -> Int {
        let device = client.device
        let gyroscope = device.gyroscope != nil
        let recording = guarded {
            try ROS2Recording(path: file, conversion: ImuConversion(frameID: frameID, device: device),
                              library: "accelctl \(acceldVersion)")
        }
        let fields: FrameFields = gyroscope ? [.acc, .attitude, .rotation] : .acc
        _ = guarded { try client.request(.watch(streams: [.frames], rate: nil, fields: fields, latency: nil)) }
        var bar = ProgressBar("recording \(fixed(seconds, 1)) s to \(file)")
        var first: Double?, lastSeq: UInt64?, nextReport = 1.0, lost = 0
        while true {
            switch guarded({ try client.next(timeout: 2) }) {
            case .frame(let frame)?:
                let start = first ?? frame.t
                first = start
                if frame.t - start > seconds { break }
                if let lastSeq { lost += max(0, Int(frame.seq) - Int(lastSeq) - 1) }
                lastSeq = frame.seq
                guarded { try recording.record(frame) }
                if frame.t - start >= nextReport {
                    client.send(.status)  // its reply comes among the frames
                    nextReport += 1
                }
                bar.show((frame.t - start) / seconds)
                continue
            case .status(let status)?:
                guarded { try recording.record(status) }
                continue
            default:
                continue
            }
            break
        }
        if case .status(let status) = guarded({ try client.request(.status) }) { guarded { try recording.record(status) } }
        guarded { try recording.finish() }
        let counts = recording.counts.sorted { $0.key < $1.key }.map { "\($0.value) on \($0.key)" }.joined(separator: ", ")
        bar.finish("\(counts) written to \(file)")
        return lost
    }
}
