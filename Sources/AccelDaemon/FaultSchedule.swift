// SPDX-License-Identifier: Apache-2.0
#if canImport(Glibc)
import Glibc
#endif
import AccelConfiguration
import AccelCore
import AccelDriver
import Dispatch

/// Faults to inject into the simulated chip at set times, for tests and
/// demonstrations: `eio@5+2` (every transfer fails with EIO from 5 s for
/// 2 s), `gone@3+1` (the chip stops answering), `reset@10` (a power glitch:
/// registers back to power-down), `stuck@4+1` (ZYXDA never sets).
public struct Fault: Sendable, Equatable {
    public enum Kind: String, Sendable, CaseIterable { case eio, gone, reset, stuck }
    public let kind: Kind
    public let at: Double
    public let seconds: Double

    public struct ParseError: Error, CustomStringConvertible {
        public let text: String
        public var description: String {
            "fault '\(text)' is not KIND@START[+SECONDS] with KIND one of \(Kind.allCases.map(\.rawValue).joined(separator: ", ")), e.g. eio@5+2 or reset@10"
        }
    }

    public init(parsing text: String) throws {
        let parts = text.split(separator: "@", maxSplits: 1)
        guard parts.count == 2, let kind = Kind(rawValue: String(parts[0])) else { throw ParseError(text: text) }
        let times = parts[1].split(separator: "+", maxSplits: 1)
        guard let at = Double(times[0]), at >= 0 else { throw ParseError(text: text) }
        let seconds = times.count == 2 ? Double(times[1]) : 0
        guard let seconds, seconds >= 0, kind == .reset || seconds > 0 else { throw ParseError(text: text) }
        self.kind = kind
        self.at = at
        self.seconds = seconds
    }

    /// Arms the fault on `model`, whose every access happens on `queue`.
    func schedule(on model: ChipModel, queue: DispatchQueue) {
        let box = UncheckedBox(model)
        queue.asyncAfter(deadline: .now() + at) {
            let model = box.value
            switch kind {
            case .eio: model.fail(forSeconds: seconds, errno: EIO)
            case .gone: model.present = false
            case .reset: model.resetToPowerDown()
            case .stuck: model.dataReadyStuck = true
            }
        }
        guard kind == .gone || kind == .stuck else { return }
        queue.asyncAfter(deadline: .now() + at + seconds) {
            box.value.present = true
            box.value.dataReadyStuck = false
        }
    }
}

/// Carries a value that is not Sendable to the queue that alone touches it.
private struct UncheckedBox<T>: @unchecked Sendable {
    let value: T
    init(_ value: T) { self.value = value }
}
