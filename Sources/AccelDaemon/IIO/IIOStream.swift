// SPDX-License-Identifier: Apache-2.0
import AccelCore
import AccelDriver
import Dispatch

/// An IIO device's open buffers: the accelerometer's, the gyroscope's
/// beside it where the driver shows one (st_lsm6dsx), its scans paired
/// with the accelerometer's, and the watcher that wakes the reads. Only
/// the sampler's queue touches it.
struct IIOStream {
    let buffer: IIOBuffer
    let gyroscope: IIOBuffer?
    private var watcher: BufferWatcher?
    /// The last read's scans (kept for their capacity).
    private(set) var scans: [IIOScan] = []
    /// The gyroscope's scans read and not yet paired with the accelerometer's.
    private var rates: [IIOScan] = []
    private var lastRate: Vector3?

    init(buffer: IIOBuffer, gyroscope: IIOBuffer?) {
        self.buffer = buffer
        self.gyroscope = gyroscope
    }

    /// `readable` runs on `queue` whenever scans wait (BufferWatcher).
    mutating func listen(on queue: DispatchQueue, readable: @escaping @Sendable () -> Void) {
        guard watcher == nil else { return }
        watcher = BufferWatcher(descriptor: buffer.descriptor, target: queue, readable: readable)
    }

    /// Reads what waits. st_lsm6dsx pushes a FIFO word's gyroscope scan
    /// before its accelerometer scan: those read here are already waiting.
    mutating func read() throws {
        scans.removeAll(keepingCapacity: true)
        try buffer.read(into: &scans)
        try gyroscope?.read(into: &rates)
    }

    /// The gyroscope's reading made with the accelerometer's at
    /// `timestamp`, in the frame `mountMatrix` turns to. st_lsm6dsx stamps
    /// both from one FIFO timestamp, each device adding its own reference
    /// (taken microseconds apart), so the pair is the nearest within half
    /// a period; older ones had no partner. A reading missing keeps the
    /// last, so the fusion never stops.
    mutating func rate(at timestamp: Int64, rate: Int, mountMatrix: MountMatrix) -> Vector3? {
        guard let gyroscope else { return nil }
        let half = Int64(5e8 / Double(rate))
        rates.removeAll { $0.timestamp < timestamp - half }
        if let index = rates.firstIndex(where: { $0.timestamp <= timestamp + half }) {
            lastRate = mountMatrix.apply(gyroscope.mountMatrix.apply(gyroscope.chipValue(rates[index].counts)))
            rates.remove(at: index)
        }
        if rates.count > 256 { rates.removeFirst(rates.count - 256) }
        return lastRate
    }

    /// The buffers are stopped at once; the watcher closes the
    /// accelerometer's descriptor when its loop has ended.
    func close() {
        gyroscope?.close()
        guard let watcher else { return buffer.close() }
        buffer.close(keepingDescriptor: true)
        watcher.stop()
    }
}

/// What the IIO source's reads leave behind: the scans' numbers from
/// their timestamps (`ScanNumbering`), a scan whose gap waits for the next
/// stamp, when scans last came, and whether `stalled` was said.
struct IIOReadTrack {
    var numbering: ScanNumbering
    var held: IIOScan?
    var lastScan: UInt64 = 0
    var stalled = false

    init(rate: Int) {
        numbering = ScanNumbering(rate: rate)
    }
}
