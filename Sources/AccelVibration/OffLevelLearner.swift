// SPDX-License-Identifier: Apache-2.0
import AccelCore

/// Learns the machine's level at rest (its off level) from quarter-second
/// blocks over a span, and from it the idle threshold
/// (`MachineStateSettings.learned(offLevel:)`): the level a part's noise
/// and the room give, which no default can know. A block at or above the
/// running threshold means the machine ran: nothing is learned from that.
public struct OffLevelLearner: Sendable {
    public enum Progress: Sendable, Equatable {
        case learning
        /// A block at `rms` (g), beginning at `time`, reached the running threshold.
        case ran(rms: Double, time: Double)
        case learned(LearnedLevel)
    }

    private let settings: MachineStateSettings
    private let blocksWanted: Int
    private var blocks: BlockRMS
    private var levels: [Double] = []

    /// - Throws: `LearnError.tooShort` for a span shorter than 8 blocks.
    public init(settings: MachineStateSettings, rate: Double, seconds: Double) throws(LearnError) {
        blocksWanted = Int((seconds / StateBlocks.duration).rounded())
        guard blocksWanted >= 8 else { throw .tooShort(seconds: seconds) }
        self.settings = settings
        blocks = BlockRMS(size: Int((StateBlocks.duration * rate).rounded()))
    }

    public mutating func append(_ g: Vector3, at time: Double) -> Progress {
        guard let block = blocks.append(g, at: time) else { return .learning }
        guard block.rms < settings.running else { return .ran(rms: block.rms, time: block.start) }
        levels.append(block.rms)
        guard levels.count >= blocksWanted else { return .learning }
        let sorted = levels.sorted()
        let offLevel = sorted[min(sorted.count - 1, Int((0.95 * Double(sorted.count)).rounded(.up)) - 1)]
        return .learned(LearnedLevel(offLevel: offLevel, blocks: levels.count, settings: settings.learned(offLevel: offLevel)))
    }

    /// Lost samples: the block begins again; the blocks learned stay.
    public mutating func reset() { blocks.reset() }
}

/// What was learned: the off level (g), over how many blocks, and the
/// machine's state settings with the thresholds it gives.
public struct LearnedLevel: Sendable, Equatable {
    public let offLevel: Double
    public let blocks: Int
    public let settings: MachineStateSettings
}

public enum LearnError: Error, Sendable, Equatable, CustomStringConvertible {
    case tooShort(seconds: Double)

    public var description: String {
        switch self {
        case .tooShort(let seconds):
            "\(seconds) s is too short to learn the machine's off level: at least 2 s (8 quarter-second blocks), a minute to be sure of it"
        }
    }
}
