// SPDX-License-Identifier: Apache-2.0
import AccelCore
@testable import AccelDaemon
@testable import AccelDriver
import AccelMotion
import AccelParts
import Foundation
import Synchronization
import TestSupport
import Testing

/// The IIO backend against a tree that mimics the kernel's sysfs, configfs
/// and device node (FakeIIO), as a driver like st_accel shows them. The
/// kernel stage runs the same code on the real st_accel (docs/TESTING.md).
@Suite("IIO backend")
struct IIOTests {
    @Test("scan layout: channels by index, each aligned to its size, the scan padded to its largest; 12-bit left-justified and big-endian values decode")
    func layout() throws {
        let x = try #require(IIOScanLayout.Element(name: "x", index: 0, type: "le:s12/16>>4"))
        let y = try #require(IIOScanLayout.Element(name: "y", index: 1, type: "be:u10/16>>6"))
        let t = try #require(IIOScanLayout.Element(name: "t", index: 3, type: "le:s64/64>>0"))
        let layout = IIOScanLayout([t, y, x])
        #expect(layout.elements.map(\.offset) == [0, 2, 8])
        #expect(layout.scanBytes == 16)
        // x = -2048 (0x800 << 4 = 0x8000), y = 1023 (0x3FF << 6, big-endian), t = 5
        let scan: [UInt8] = [0x00, 0x80, 0xFF, 0xC0, 0, 0, 0, 0, 5, 0, 0, 0, 0, 0, 0, 0]
        scan.withUnsafeBytes { raw in
            #expect(layout.element("x")!.value(in: raw) == -2048)
            #expect(layout.element("y")!.value(in: raw) == 1023)
            #expect(layout.element("t")!.value(in: raw) == 5)
        }
        for bad in ["xx:s12/16", "le:q12/16", "le:s17/16", "le:s12/12>>0", "le:s12/16>>8"] {
            #expect(IIOScanLayout.Element(name: "x", index: 0, type: bad) == nil, "\(bad)")
        }
    }

    @Test("set-up: x, y, z and the timestamp enabled, the monotonic clock, the device's own trigger, the rate; close undoes them")
    func setUp() throws {
        let fake = FakeIIO()
        let device = try IIODevice.find("lis3dh", paths: fake.paths)
        #expect(device.id == "iio:device0")
        #expect(device.driver == "st-accel-i2c")
        #expect(device.location == "iio:device0 (lis3dh, st-accel-i2c, i2c-1 at 0x18)")
        let buffer = try IIOBuffer(device: device, rate: 400)
        #expect(["x", "y", "z"].map { fake.attribute("scan_elements/in_accel_\($0)_en") } == ["1", "1", "1"])
        #expect(fake.attribute("scan_elements/in_timestamp_en") == "1")
        #expect(fake.attribute("current_timestamp_clock") == "monotonic")
        #expect(fake.attribute("trigger/current_trigger") == "lis3dh-trigger")
        #expect(fake.attribute("sampling_frequency") == "400")
        #expect(fake.attribute("buffer/enable") == "1")
        fake.send([(1000, -500, -2048, 7_000_000), (1, 2, 3, 9_500_000)])
        var scans: [IIOScan] = []
        try buffer.read(into: &scans)
        #expect(scans == [IIOScan(counts: Counts(1000, -500, -2048), timestamp: 7_000_000), IIOScan(counts: Counts(1, 2, 3), timestamp: 9_500_000)])
        // 0.009582 m/s² per digit is 0.977 mg: st_accel's ±2 g scale.
        let g = buffer.chipValue(Counts(1000, -500, -2048))
        #expect(abs(g.x - 0.97709) < 1e-4 && abs(g.z + 2.00111) < 1e-4)
        buffer.close()
        #expect(fake.attribute("buffer/enable") == "0")
        #expect(fake.attribute("trigger/current_trigger") == "")
    }

    @Test("offset and mount matrix: (raw + offset) × scale in g, then the driver's mount matrix")
    func offsetAndMountMatrix() throws {
        let fake = FakeIIO(scale: "9.80665", offset: "1", mountMatrix: "0, 1, 0; -1, 0, 0; 0, 0, 1")
        // Its last use is its paths: kept until the buffer is done, or its deinit could remove the tree first.
        try withExtendedLifetime(fake) {
            let buffer = try IIOBuffer(device: try IIODevice.find("iio:device0", paths: fake.paths), rate: 100)
            #expect(buffer.chipValue(Counts(1, 2, -2)) == Vector3(2, 3, -1))
            #expect(buffer.mountMatrix.apply(Vector3(2, 3, -1)) == Vector3(3, -2, -1))
        }
    }

    @Test("no trigger of its own: an hrtimer trigger made through configfs at the rate, removed again on close")
    func hrtimer() throws {
        let fake = FakeIIO(ownTrigger: false, hrtimer: true)
        // What the kernel does when the folder is made: a trigger of that name.
        fake.addTrigger(number: 3, name: "acceld-device0")
        let buffer = try IIOBuffer(device: try IIODevice.find(nil, paths: fake.paths), rate: 200)
        #expect(buffer.trigger == "acceld-device0")
        #expect(FileManager.default.fileExists(atPath: "\(fake.paths.configfs)/triggers/hrtimer/acceld-device0"))
        #expect((try? String(contentsOfFile: "\(fake.paths.devices)/trigger3/sampling_frequency", encoding: .utf8)) == "200\n")
        buffer.close()
        #expect(!FileManager.default.fileExists(atPath: "\(fake.paths.configfs)/triggers/hrtimer/acceld-device0"))
    }

    @Test("refusals name what is missing and what to do, each with its exit code")
    func refusals() throws {
        let fake = FakeIIO(ownTrigger: false)
        do {
            _ = try IIOBuffer(device: try IIODevice.find(nil, paths: fake.paths), rate: 100)
            Issue.record("set up without any trigger")
        } catch let error as IIOError {
            #expect(error.exitCode == 72 && "\(error)".contains("modprobe iio-trig-hrtimer"))
        }
        #expect(fake.attribute("buffer/enable") == "0")
        #expect(throws: IIOError.unsupportedRate(device: "iio:device0 (lis3dh)", rate: 300, available: [1, 10, 25, 50, 100, 200, 400])) {
            fake.addTrigger(number: 0, name: "lis3dh-trigger")
            _ = try IIOBuffer(device: try IIODevice.find(nil, paths: fake.paths), rate: 300)
        }
        let missing = #expect(throws: IIOError.self) { _ = try IIODevice.find("mpu6050", paths: fake.paths) }
        #expect(missing?.exitCode == 69 && "\(missing!)".contains("iio:device0 (lis3dh)"))

        let gyro = FakeIIO(name: "l3g4200d", number: 1, root: fake.root)
        for axis in ["x", "y", "z"] { unlink("\(gyro.folder)/in_accel_\(axis)_raw"); unlink("\(gyro.folder)/scan_elements/in_accel_\(axis)_en") }
        gyro.write("\(gyro.folder)/in_anglvel_x_raw", "0")
        let notAccelerometer = #expect(throws: IIOError.self) { _ = try IIODevice.find("iio:device1", paths: fake.paths) }
        #expect(notAccelerometer?.exitCode == 65 && "\(notAccelerometer!)".contains("it has anglvel"))

        let second = FakeIIO(name: "adxl345", number: 2, root: fake.root)
        let ambiguous = #expect(throws: IIOError.self) { _ = try IIODevice.find(nil, paths: second.paths) }
        #expect(ambiguous?.exitCode == 78 && "\(ambiguous!)".contains("iio:device2 (adxl345)"))

        let unbuffered = FakeIIO(name: "mma8452", number: 3, root: fake.root)
        try FileManager.default.removeItem(atPath: "\(unbuffered.folder)/scan_elements")
        let noBuffer = #expect(throws: IIOError.self) { _ = try IIOBuffer(device: try IIODevice.find("mma8452", paths: fake.paths), rate: 100) }
        #expect(noBuffer?.exitCode == 72 && "\(noBuffer!)".contains("has no IIO buffer"))

        unlink("\(fake.folder)/in_accel_scale")
        let noScale = #expect(throws: IIOError.self) { _ = try IIOBuffer(device: try IIODevice.find("lis3dh", paths: fake.paths), rate: 100) }
        #expect(noScale?.exitCode == 72 && "\(noScale!)".contains("in_accel_x_scale (or in_accel_scale)"))
    }

    @Test("another reader: named from /proc, never displaced; i2c-dev's EBUSY names the kernel driver and the IIO device")
    func owners() throws {
        let fake = FakeIIO()
        try FileManager.default.createDirectory(atPath: "\(fake.paths.proc)/4242/fd", withIntermediateDirectories: true)
        symlink("\(fake.paths.dev)/iio:device0", "\(fake.paths.proc)/4242/fd/7")
        fake.write("\(fake.paths.proc)/4242/comm", "iio-sensor-prox")
        let device = try IIODevice.find("lis3dh", paths: fake.paths)
        #expect(IIOBuffer.holder(of: device) == "iio-sensor-prox (PID 4242)")
        #expect("\(IIOError.busy(device: device.description, holder: "iio-sensor-prox (PID 4242)"))".contains("systemctl stop iio-sensor-proxy"))

        let owner = try #require(KernelOwner(bus: 1, address: 0x18, i2cDevices: fake.i2cDevices, iioPaths: fake.paths))
        #expect(owner.driver == "st-accel-i2c" && owner.iio?.id == "iio:device0")
        #expect(owner.advice.contains("acceld --iio iio:device0"))
        #expect(owner.advice.contains("echo 1-0018 | sudo tee /sys/bus/i2c/drivers/st-accel-i2c/unbind"))
        #expect(KernelOwner(bus: 1, address: 0x19, i2cDevices: fake.i2cDevices, iioPaths: fake.paths) == nil)
    }

    @Test("numbering from timestamps: a clock 5 % off its rate makes no gaps, nor stamps up to 0.95 of a period late; a gap counts exactly the scans missing")
    func numbering() {
        var random = SeededRandom(seed: 7)
        for ratio in [0.95, 1.0, 1.05] {
            var numbering = ScanNumbering(rate: 400)
            let period = 2_500_000 * ratio
            var made = 1e9
            var truth: [Int64: Int] = [:]
            var decided: [Int64: Int] = [:]
            for i in 0..<4000 {
                let skipped = i % 300 == 299 ? 3 : 0  // a gap of 3 now and then
                made += period * Double(1 + skipped)
                // Stamped when the interrupt was handled: 20 to 60 µs
                // after, and now and then up to 0.95 period late (a busy
                // CPU), after a gap too.
                let late = i % 50 == 7 || i % 300 == 299 ? 0.95 * period * Double.random(in: 0...1, using: &random)
                    : 20_000 + 40_000 * Double.random(in: 0...1, using: &random)
                let stamp = Int64(made + late)
                truth[stamp] = skipped
                for (timestamp, missing) in numbering.number(stamp) {
                    #expect(decided[timestamp] == nil, "sample \(i): decided twice")
                    decided[timestamp] = missing
                }
            }
            if let last = numbering.release(now: .max) { decided[last.timestamp] = last.missing }
            let wrong = decided.filter { truth[$0.key] != $0.value }
            #expect(decided.count == truth.count && wrong.isEmpty, "at \(ratio): \(wrong.count) scans numbered wrong, \(truth.count - decided.count) undecided")
            #expect(decided.values.reduce(0, +) == 13 * 3)
        }
    }

    @Test("a scan that seems to follow a gap waits for the next stamp, and alone is released two periods later")
    func heldScan() {
        var numbering = ScanNumbering(rate: 100)
        #expect(numbering.number(0).map(\.missing) == [0])
        #expect(numbering.number(10_000_000).map(\.missing) == [0])
        // 28 ms after: a sample missing, or one stamped 8 ms late? Held.
        #expect(numbering.number(28_000_000).isEmpty)
        #expect(numbering.release(now: 40_000_000) == nil, "not yet two periods")
        // The next, on time at 30 ms: the 28 ms one was late, nothing missing.
        #expect(numbering.number(30_000_000).map(\.missing) == [0, 0])
        #expect(numbering.number(58_000_000).isEmpty)
        #expect(numbering.release(now: 80_000_000)?.missing == 2, "alone: two samples missing stand")
    }

    @Test("the sampler: frames numbered by timestamp, gaps counted lost; a silent trigger is stalled, an unplugged device lost, then back", .daemons)
    func sampler() async throws {
        let fake = FakeIIO()
        let paths = fake.paths
        let sampler = IIOSampler(connect: { rate in try IIOBuffer(device: try IIODevice.find("lis3dh", paths: paths), rate: rate) },
                                 configuration: DeviceConfiguration(range: 2, rate: 100), settings: MotionSettings(), time: MonotonicTime())
        let outputs = Mutex<[SamplerOutput]>([])
        sampler.output = { output in outputs.withLock { $0.append(output) } }
        try sampler.queue.sync { try sampler.open() }
        #expect(sampler.configuration.range == 2 && sampler.identity?.chip == "LIS3DH")
        sampler.queue.async { sampler.start() }
        // Stopped however the test ends (stop is idempotent): a sampler left
        // running would read through an unowned reference after the test.
        defer { sampler.queue.sync { sampler.stop(powerDown: true) } }
        let frames = { outputs.withLock { $0.flatMap { output -> [Frame] in
            switch output {
            case .frame(let frame, _): [frame]
            case .batch(let deliveries): deliveries.map(\.frame)
            case .device, .configuration: []
            }
        } } }
        let states = { outputs.withLock { $0.compactMap { if case .device(let event) = $0 { event.state } else { nil } } } }
        func wait(_ what: String, _ done: () -> Bool) async throws {
            for _ in 0..<600 where !done() { try await Task.sleep(nanoseconds: 50_000_000) }
            #expect(done(), "waited 30 s for \(what); the states so far: \(states())")
        }
        // 10 ms apart, then two missing, then on.
        fake.send([(1000, 0, 0, 1_000_000_000), (1001, 0, 0, 1_010_000_000), (1002, 0, 0, 1_020_000_000), (1005, 0, 0, 1_050_000_000)])
        try await wait("four frames") { frames().count == 4 }
        #expect(frames().map(\.seq) == [0, 1, 2, 5])
        #expect(frames().map(\.t) == [1.0, 1.01, 1.02, 1.05])
        #expect(sampler.queue.sync { sampler.counters.lost } == 2)
        try await wait("stalled") { states().contains(.stalled) }
        fake.unplug()
        try await wait("lost") { states().contains(.lost) }
        fake.replug()
        // A back after the loss, not the last state: 2 s after it, with no
        // scan sent, the sampler says stalled, and a test kept that long off
        // the pool's threads (synchronous tests beside it hold them) would
        // never see back as the last.
        try await wait("back") { states().drop { $0 != .lost }.contains(.back) }
        fake.send([(1010, 0, 0, 1_100_000_000)])
        try await wait("a frame after the return") { frames().count == 5 }
        #expect(frames().last?.seq == 10)
        let counters = sampler.queue.sync { sampler.counters }
        #expect(counters.published == 5 && counters.lost == 6 && counters.recoveries == 1)
        sampler.queue.sync { sampler.stop(powerDown: true) }
        #expect(fake.attribute("buffer/enable") == "0")
    }
}
