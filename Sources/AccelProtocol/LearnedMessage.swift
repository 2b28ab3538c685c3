// SPDX-License-Identifier: Apache-2.0

import AccelCore

/// The reply to `learn`: the machine's level at rest and the thresholds
/// acceld now judges its state by (docs/VIBRATION.md, Learning the
/// thresholds). Until a reload or a restart: the configuration file keeps
/// its own, and `configLines` says what to write there to keep these.
public struct LearnedMessage: Sendable, Equatable {
    /// The quietest blocks' 95th percentile of vector RMS, g.
    public var offLevel: Double
    /// Quarter-second blocks it was learned from.
    public var blocks: Int
    /// The idle and running thresholds from now on, g.
    public var idle: Double
    public var running: Double

    public init(offLevel: Double, blocks: Int, idle: Double, running: Double) {
        (self.offLevel, self.blocks, self.idle, self.running) = (offLevel, blocks, idle, running)
    }

    /// `[vibration]`'s lines that keep these thresholds.
    public var configLines: String {
        "[vibration]\nidle-threshold = \(fixed(idle, 4))\nrunning-threshold = \(fixed(running, 4))"
    }

    func encode(_ line: inout JSONLine) {
        line.add("offLevel", offLevel, decimals: 5)
        line.add("blocks", blocks)
        line.add("idle", idle, decimals: 5)
        line.add("running", running, decimals: 5)
    }

    init(_ f: MessageFields) throws(MessageError) {
        self.init(offLevel: try f.number("offLevel"), blocks: try f.int("blocks"), idle: try f.number("idle"), running: try f.number("running"))
    }
}
