// SPDX-License-Identifier: Apache-2.0
import AccelCore

/// The classic direction-of-movement gesture: user acceleration over a
/// threshold starts a movement; the direction is the largest axis (and its
/// sign) of the acceleration summed over the first `decisionSeconds` (the
/// push, before the braking); a lull ends it. One event at the end, only
/// if |user| held the start threshold for `minimumPushSeconds` at a
/// stretch: a hand pushes a board for a tenth of a second or more, while a
/// tap, a bump or a one-sample glitch is over in one or two samples.
public struct MovementDetector: Sendable {
    public struct Movement: Sendable, Equatable {
        public let t: Double
        public let start: Double
        public let duration: Double
        public let direction: Direction
        public let peak: Double

        public init(t: Double, start: Double, duration: Double, direction: Direction, peak: Double) {
            self.t = t
            self.start = start
            self.duration = duration
            self.direction = direction
            self.peak = peak
        }
    }

    /// "+x", "-z", ...
    public struct Direction: Sendable, Equatable, CustomStringConvertible {
        public let axis: Axis
        public let positive: Bool
        public var description: String { (positive ? "+" : "-") + axis.rawValue }
        public init(axis: Axis, positive: Bool) {
            self.axis = axis
            self.positive = positive
        }
        /// "+x" ... "-z"; nil for anything else.
        public init?(_ text: String) {
            guard text.count == 2, let sign = text.first, sign == "+" || sign == "-",
                  let axis = Axis(rawValue: String(text.dropFirst())) else { return nil }
            self.init(axis: axis, positive: sign == "+")
        }
        init(dominantIn v: Vector3) {
            let ax = abs(v.x), ay = abs(v.y), az = abs(v.z)
            let axis: Axis = ax >= ay && ax >= az ? .x : (ay >= az ? .y : .z)
            self.init(axis: axis, positive: v[axis] >= 0)
        }
    }

    public var settings: MovementSettings
    public private(set) var isMoving = false
    /// Set by the pipeline when a shake or a fall overlaps this movement:
    /// it is then not reported (it was not a deliberate push).
    public var voided = false
    private var start = 0.0
    private var push = Vector3.zero
    private var peak = 0.0
    private var lastActive = 0.0
    /// The current run of samples at or above the start threshold, and the
    /// longest one so far in this movement (s).
    private var pushSince: Double?
    private var longestPush = 0.0

    public init(settings: MovementSettings = MovementSettings()) { self.settings = settings }

    public mutating func process(user: Vector3, t: Double) -> Movement? {
        let magnitude = user.magnitude
        if !isMoving {
            guard magnitude >= settings.startThreshold else { return nil }
            isMoving = true
            voided = false
            start = t
            push = user
            peak = magnitude
            lastActive = t
            pushSince = t
            longestPush = 0
            return nil
        }
        if magnitude >= settings.startThreshold {
            pushSince = pushSince ?? t
            longestPush = max(longestPush, t - pushSince!)
        } else {
            pushSince = nil
        }
        if t - start <= settings.decisionSeconds { push += user }
        peak = max(peak, magnitude)
        if magnitude >= settings.lullThreshold {
            lastActive = t
            return nil
        }
        guard t - lastActive >= settings.lullSeconds else { return nil }
        isMoving = false
        guard !voided, lastActive - start <= settings.maximumSeconds,
              longestPush >= settings.minimumPushSeconds - 1e-9 else { return nil }
        return Movement(t: t, start: start, duration: lastActive - start, direction: Direction(dominantIn: push), peak: peak)
    }
}
