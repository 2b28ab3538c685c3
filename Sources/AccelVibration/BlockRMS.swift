// SPDX-License-Identifier: Apache-2.0
import AccelCore

/// The vector RMS of consecutive blocks of samples, each block's own mean
/// removed (gravity and any offset): the machine's level, block by block.
struct BlockRMS {
    let size: Int
    private var count = 0
    private var start = 0.0
    private var sums = Vector3.zero, squares = Vector3.zero

    init(size: Int) { self.size = max(1, size) }

    /// The block this sample completes: its RMS (g) and when it began.
    mutating func append(_ g: Vector3, at time: Double) -> (rms: Double, start: Double)? {
        if count == 0 { start = time }
        sums = sums + g
        squares = squares + Vector3(g.x * g.x, g.y * g.y, g.z * g.z)
        count += 1
        guard count == size else { return nil }
        let n = Double(count)
        let variance = (squares.x + squares.y + squares.z) / n - (sums.x * sums.x + sums.y * sums.y + sums.z * sums.z) / (n * n)
        let block = (max(0, variance).squareRoot(), start)
        reset()
        return block
    }

    /// Starts the block again (after a gap).
    mutating func reset() {
        count = 0
        sums = .zero
        squares = .zero
    }
}
