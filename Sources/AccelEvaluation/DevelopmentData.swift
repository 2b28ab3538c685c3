// SPDX-License-Identifier: Apache-2.0
import AccelCore
import AccelDriver

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The development recordings in ../shared/data with what each one is known
/// to contain: Core Motion's gravity and activity labels (coremotion/), the
/// labelled activities of daily life (daily/), the double-tap times
/// (gestures/), the drops (freefall/). Everything the regression table
/// judges against comes from the files themselves, not from this code.
public struct DevelopmentData: Sendable {
    public let root: String

    public init(root: String) { self.root = root }

    /// Core Motion's own truth beside a coremotion/ recording.
    public struct Truth: Sendable {
        public enum Activity: Int, Sendable { case rest = 0, drive = 1, shake = 2, chop = 3 }
        public var times: [Double] = []
        public var activity: [Activity] = []
        public var gravity: [Vector3] = []
        /// Core Motion's user acceleration, g.
        public var user: [Vector3] = []

        /// The row at or just before `t` (rows are 40 ms apart).
        public func index(at t: Double) -> Int {
            var lo = 0, hi = times.count - 1
            while lo < hi {
                let mid = (lo + hi + 1) / 2
                if times[mid] <= t { lo = mid } else { hi = mid - 1 }
            }
            return lo
        }

        /// Gravity linearly interpolated at `t`.
        public func gravity(at t: Double) -> Vector3 {
            let i = index(at: t)
            guard i + 1 < times.count, t > times[i] else { return gravity[i] }
            let f = (t - times[i]) / (times[i + 1] - times[i])
            return gravity[i] + (gravity[i + 1] - gravity[i]) * f
        }

        public func activity(at t: Double) -> Activity { activity[index(at: t)] }

        /// Runs of one activity: (activity, start, end).
        public var segments: [(activity: Activity, start: Double, end: Double)] {
            var result: [(Activity, Double, Double)] = []
            var start = 0
            for i in 1...times.count where i == times.count || activity[i] != activity[start] {
                result.append((activity[start], times[start], times[i - 1]))
                start = i
            }
            return result
        }
    }

    public struct Recording: Sendable {
        public let path: String
        public let trace: Trace
        public var motion: TraceMotion { TraceMotion(trace, name: path) }
        public var duration: Double { trace.duration }
        public var name: String { String(path.split(separator: "/").last ?? "") }
    }

    public func recording(_ path: String) throws -> Recording {
        Recording(path: path, trace: try Trace(contentsOf: root + "/" + path))
    }

    /// The .csv files of a folder, sorted, without the .truth.csv files.
    public func files(in folder: String) -> [String] {
        guard let dir = opendir(root + "/" + folder) else { return [] }
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name.hasSuffix(".csv") && !name.hasSuffix(".truth.csv") { names.append(folder + "/" + name) }
        }
        return names.sorted()
    }

    public func truth(for path: String) throws -> Truth {
        let truthPath = root + "/" + path.replacingSuffix(".csv", with: ".truth.csv")
        guard let text = readTextFile(truthPath) else { throw DataError(message: "cannot read \(truthPath)") }
        var truth = Truth()
        for line in text.split(separator: "\n").dropFirst() where !line.hasPrefix("#") {
            let v = line.split(separator: ",").compactMap { Double($0.trimmingCharacters(in: .whitespaces)) }
            guard v.count >= 8, let activity = Truth.Activity(rawValue: Int(v[1])) else { continue }
            truth.times.append(v[0])
            truth.activity.append(activity)
            truth.gravity.append(Vector3(v[2], v[3], v[4]))
            truth.user.append(Vector3(v[5], v[6], v[7]))
        }
        return truth
    }

    /// Core Motion's rotation rate beside a coremotion/ recording, from
    /// rotation/ under the same name (`t,wx,wy,wz`, rad/s), as a trace whose
    /// samples are rates, so that `TraceMotion` interpolates it.
    public func rotation(for path: String) throws -> Trace {
        let name = path.split(separator: "/").last.map(String.init) ?? path
        let rotationPath = root + "/rotation/" + name
        guard let text = readTextFile(rotationPath) else { throw DataError(message: "cannot read \(rotationPath)") }
        var trace = Trace()
        for line in text.split(separator: "\n").dropFirst() where !line.hasPrefix("#") {
            let v = line.split(separator: ",").compactMap { Double($0.trimmingCharacters(in: .whitespaces)) }
            guard v.count == 4 else { continue }
            trace.times.append(v[0])
            trace.samples.append(Vector3(v[1], v[2], v[3]))
        }
        guard trace.count > 1 else { throw DataError(message: "\(rotationPath) has no rows of t,wx,wy,wz") }
        return trace
    }

    /// daily/: the UCI HAPT labels from the comment line
    /// "labelled segments (start-end s:code): 9.36-29.98:5 ...".
    /// Codes 1-3 walking and stairs, 4-6 sitting, standing, lying.
    public static func dailySegments(_ trace: Trace) -> [(code: Int, start: Double, end: Double)] {
        guard let line = trace.comments.first(where: { $0.contains("labelled segments") }),
              let list = line.after("):") else { return [] }
        return list.split(separator: " ").compactMap { item in
            let parts = item.split(separator: ":")
            guard parts.count == 2, let code = Int(parts[1]) else { return nil }
            let times = parts[0].split(separator: "-").compactMap { Double($0) }
            guard times.count == 2 else { return nil }
            return (code, times[0], times[1])
        }
    }

    /// gestures/doubletap_*: "reported a double tap at t = 1.43 s".
    public static func doubleTapTime(_ trace: Trace) -> Double? {
        guard let line = trace.comments.first(where: { $0.contains("double tap at t = ") }),
              let rest = line.after("double tap at t = ") else { return nil }
        return Double(rest.prefix { $0.isNumber || $0 == "." })
    }

    /// freefall/: the fall as the recording shows it, the longest run of rows
    /// with |a| < 0.5 g (half way between free fall and rest): its first
    /// row, and the time from there to the first row above again.
    public static func recordedFall(_ trace: Trace) -> (start: Double, duration: Double) {
        var best = (start: 0.0, duration: 0.0)
        var start: Double?
        for (t, g) in zip(trace.times, trace.samples) {
            if g.magnitude < 0.5 { start = start ?? t } else if let s = start {
                if t - s > best.duration { best = (s, t - s) }
                start = nil
            }
        }
        return best
    }

    public struct DataError: Error, CustomStringConvertible {
        public let message: String
        public var description: String { message }
    }
}

extension String {
    func replacingSuffix(_ suffix: String, with replacement: String) -> String {
        hasSuffix(suffix) ? String(dropLast(suffix.count)) + replacement : self
    }
}

extension String {
    /// What follows the first occurrence of `marker`.
    func after(_ marker: String) -> Substring? {
        let m = Array(marker.utf8), u = Array(utf8)
        guard u.count >= m.count else { return nil }
        for i in 0...(u.count - m.count) where Array(u[i..<(i + m.count)]) == m {
            return Substring(String(decoding: u[(i + m.count)...], as: UTF8.self))
        }
        return nil
    }
}

extension Substring {
    func trimmingCharacters(in _: WhitespaceSet) -> Substring {
        var s = self
        while s.first == " " || s.first == "\r" { s = s.dropFirst() }
        while s.last == " " || s.last == "\r" { s = s.dropLast() }
        return s
    }
}

enum WhitespaceSet { case whitespaces }
