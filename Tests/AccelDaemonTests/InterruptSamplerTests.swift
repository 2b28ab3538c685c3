// SPDX-License-Identifier: Apache-2.0
@testable import AccelDaemon
import AccelCore
import AccelDriver
import AccelMotion
import AccelParts
import Testing

/// The interrupt-paced sampler on the chip model and its pin, on a virtual
/// clock: the rig does what InterruptThread does (wait on the line, then
/// step), with a wake as late as `lateness` says.
final class InterruptRig {
    let time = VirtualTime()
    let model: ChipModel
    let sampler: Sampler
    var frames: [Frame] = []
    var deviceEvents: [DeviceEvent] = []
    var lateness: () -> UInt64 = { 0 }
    /// The clock's reading (s) when the model's motion starts.
    let motionEpoch: Double

    init(part: ChipProfile = .lis302dl, rate: Int = 400, rateError: Double = 0.01, pin: ChipProfile.InterruptPin = .int1,
         linePin: ChipProfile.InterruptPin? = nil, fallback: Bool = false, motion: MotionScript = .rest(),
         wakeOnMotion: WakeOnMotion? = nil, transfer: UInt64 = 0) throws {
        var imperfections = ChipModel.Imperfections()
        imperfections.rateError = rateError
        let time = self.time
        motionEpoch = time.seconds
        let model = ChipModel(profile: part, motion: motion, time: time, imperfections: imperfections)
        self.model = model
        let bus: RegisterBus = transfer > 0 ? TimedBus(model, time: time, transfer: transfer) : model
        sampler = Sampler(connect: { try Accelerometer(bus: bus, time: time, part: part) },
                          configuration: DeviceConfiguration(range: 2, rate: rate, interruptPin: pin),
                          settings: MotionSettings(), time: time)
        sampler.interruptSource = { SimulatedInterruptLine(model: model, pin: linePin ?? pin, time: time) }
        sampler.interruptFallback = fallback
        sampler.wakeOnMotion = wakeOnMotion
        sampler.output = { [unowned self] output in
            switch output {
            case .frame(let frame, _): frames.append(frame)
            case .batch(let deliveries): frames += deliveries.map(\.frame)
            case .device(let event): deviceEvents.append(event)
            case .configuration: break
            }
        }
        try sampler.open()
    }

    /// Waits and steps until the clock has advanced `seconds`.
    func run(seconds: Double) throws {
        let end = time.nanoseconds + UInt64(seconds * 1e9)
        var next = InterruptThread.Next(line: sampler.pacing.line, wait: sampler.edgeTimeout)
        while time.nanoseconds < end, let line = next.line {
            let edges = try line.wait(nanoseconds: next.wait)
            time.advance(seconds: Double(lateness()) / 1e9)
            // Inside the queue, as InterruptThread runs it: a timer that
            // takes over (interrupt-fallback) steps there too.
            next = sampler.queue.sync { sampler.interruptStep(.success(edges)) }
        }
    }

    /// The model's sample instants, in seconds, as the frames' t (the grid
    /// starts where the chip last powered up or changed its rate).
    func isOnTheChipsGrid(_ frame: Frame) -> Bool {
        let instant = UInt64((frame.t * 1e9).rounded())
        let period = model.periodNanoseconds
        let phase = (model.sampleInstant(after: 0) ?? 0) % period
        let offset = (instant + period + period / 2 - phase) % period
        return abs(Int64(offset) - Int64(period / 2)) < 2_000  // 2 µs: the frame's t is a Double of seconds
    }
}

/// The chip model behind a bus whose every transaction takes `transfer`
/// ns of the virtual clock, as the wire does: samples are made during a read.
final class TimedBus: RegisterBus {
    private let model: ChipModel
    private let time: VirtualTime
    private let transfer: UInt64

    init(_ model: ChipModel, time: VirtualTime, transfer: UInt64) {
        self.model = model
        self.time = time
        self.transfer = transfer
    }

    var location: String { model.location }
    var maximumReadLength: Int { model.maximumReadLength }

    private func taking<T>(_ body: () throws -> T) rethrows -> T {
        defer { time.set(nanoseconds: time.nanoseconds + transfer) }
        return try body()
    }

    func readRegister(_ subAddress: UInt8) throws -> UInt8 { try taking { try model.readRegister(subAddress) } }
    func writeRegister(_ subAddress: UInt8, _ value: UInt8) throws { try taking { try model.writeRegister(subAddress, value) } }
    func readBlock(from subAddress: UInt8, into buffer: UnsafeMutableRawBufferPointer) throws {
        try taking { try model.readBlock(from: subAddress, into: buffer) }
    }
}

@Suite("Interrupt-paced sampling")
struct InterruptSamplerTests {
    @Test("data ready at 400 Hz, a clock 1 % fast: every sample, once, stamped at its instant; one read per sample")
    func everySampleOnce() throws {
        let rig = try InterruptRig()
        try rig.run(seconds: 30)
        let seqs = rig.frames.map(\.seq)
        #expect(rig.frames.count > 11_900)
        #expect(seqs == Array(seqs.first!...seqs.last!), "consecutive")
        #expect(rig.sampler.counters.lost == 0 && rig.model.counters.samplesLost == 0)
        #expect(rig.sampler.counters.wakes == rig.sampler.counters.published, "reads per sample: 1.000")
        #expect(rig.frames.allSatisfy(rig.isOnTheChipsGrid))
    }

    @Test("wakes late by up to 3 periods now and then: each lost sample counted exactly, stamps still the chip's")
    func lateWakes() throws {
        let rig = try InterruptRig(rate: 400)
        var random = SeededRandom(seed: 38)
        rig.lateness = { Double.random(in: 0..<1, using: &random) < 0.02 ? UInt64.random(in: 0...7_500_000, using: &random) : UInt64.random(in: 0...200_000, using: &random) }
        try rig.run(seconds: 20)
        let seqs = rig.frames.map(\.seq)
        let skipped = zip(seqs, seqs.dropFirst()).map { Int($1 - $0) - 1 }.reduce(0, +)
        #expect(skipped > 0, "some samples were overwritten")
        #expect(skipped == rig.sampler.counters.lost)
        #expect(rig.sampler.counters.lost == rig.model.counters.samplesLost, "what the chip lost, no more, no less")
        #expect(rig.frames.allSatisfy(rig.isOnTheChipsGrid))
        #expect(zip(rig.frames, rig.frames.dropFirst()).allSatisfy { $1.t > $0.t })
    }

    @Test("the LIS3DH's FIFO watermark on INT1 when clients allow latency: batches, nothing lost, each sample at its instant")
    func watermark() throws {
        let rig = try InterruptRig(part: .lis3dh, rate: 400)
        _ = try rig.sampler.queue.sync { try rig.sampler.allowLatency(milliseconds: 50) }
        #expect(rig.sampler.driver!.fifoWatermark > 4)
        try rig.run(seconds: 10)
        let seqs = rig.frames.map(\.seq)
        #expect(seqs == Array(seqs.first!...seqs.last!))
        #expect(rig.model.counters.samplesLost == 0)
        let perWake = Double(rig.sampler.counters.published) / Double(rig.sampler.counters.wakes)
        #expect(perWake > Double(rig.sampler.driver!.fifoWatermark) - 1, "\(perWake) samples a wake")
        #expect(rig.frames.suffix(3000).allSatisfy(rig.isOnTheChipsGrid))
    }

    @Test("a FIFO part at a watermark of one, reads 0.8 ms long and wakes up to a period late: the edge of a sample that a second read took (the pin stayed up) is not taken for a later sample's; every stamp is its own sample's instant")
    func samplesMadeDuringTheRead() throws {
        let rig = try InterruptRig(part: .lis3dh, rate: 400, transfer: 400_000)
        var random = SeededRandom(seed: 26)
        rig.lateness = { UInt64.random(in: 0...2_500_000, using: &random) }
        try rig.run(seconds: 10)
        let frames = Array(rig.frames.suffix(3000))
        let seqs = frames.map(\.seq)
        #expect(seqs == Array(seqs.first!...seqs.last!))
        let period = Double(rig.model.periodNanoseconds) / 1e9
        let misplaced = frames.filter { !rig.isOnTheChipsGrid($0) || abs(($0.t - frames[0].t) / period - Double($0.seq - frames[0].seq)) > 0.01 }
        #expect(misplaced.count == 0, "\(misplaced.count) of \(frames.count) frames off their own sample's instant, the first: \(misplaced.first.map { "seq \($0.seq) at \($0.t) s" } ?? "")")
        #expect(rig.sampler.counters.wakes < rig.sampler.counters.published * 95 / 100, "reads that found two samples, as a late wake makes")
    }

    @Test("a line that never fires (the chip routes INT1, the line is INT2): acceld stops with its own message")
    func silentLine() throws {
        #expect {
            _ = try InterruptRig(linePin: .int2)
        } throws: { error in
            guard let error = error as? GPIOError, case .silent = error else { return false }
            return error.exitCode == 74 && "\(error)".contains("interrupt-fallback = timer")
        }
    }

    @Test("the same with interrupt-fallback = timer: the timer paces the reads, said once")
    func silentLineFallback() throws {
        let rig = try InterruptRig(linePin: .int2, fallback: true)
        #expect(rig.sampler.pacing.line == nil && rig.sampler.interruptSource == nil)
    }

    @Test("a line gone silent while the chip makes samples (its routing cleared): said once with the figures, every sample still read or counted",
          arguments: [false, true])
    func stuckLine(fallback: Bool) throws {
        let rig = try InterruptRig(rate: 100, fallback: fallback)
        try rig.run(seconds: 1)
        try rig.model.writeRegister(0x22, 0x00)  // CTRL_REG3: INT1 to ground, as a glitch or another program might leave it
        try rig.run(seconds: 2)
        let said = rig.deviceEvents.filter { $0.state == .interruptLost }
        #expect(said.count == 1, "\(said)")
        #expect(said.first?.message.contains("8 reads in a row found a new sample while the chip model's INT1 gave no edge; it reads low") == true)
        let seqs = rig.frames.map(\.seq)
        #expect(zip(seqs, seqs.dropFirst()).map { Int($1 - $0) - 1 }.reduce(0, +) == rig.sampler.counters.lost)
        if fallback {
            #expect(rig.sampler.pacing.line == nil && rig.sampler.interruptSource == nil, "the timer, for good")
            rig.sampler.queue.sync { rig.sampler.stop(powerDown: false) }
        } else {
            #expect(rig.sampler.pacing.line != nil && rig.time.nanoseconds > 2_900_000_000, "the line paces on")
        }
    }

    @Test("stopped, acceld leaves the INT routing as it found it (another program's INT2 routing), and lets go of the line")
    func routingRestored() throws {
        let time = VirtualTime()
        let model = ChipModel(profile: .lis302dl, motion: MotionScript.rest(), time: time)
        try model.writeRegister(0x22, 0xA0)  // IHL, I2CFG = 100: someone's data ready on INT2, active low
        let sampler = Sampler(connect: { try Accelerometer(bus: model, time: time, part: .lis302dl) },
                              configuration: DeviceConfiguration(range: 2, rate: 100, interruptPin: .int1), settings: MotionSettings(), time: time)
        weak var released: InterruptLine?
        sampler.interruptSource = {
            let line = SimulatedInterruptLine(model: model, pin: .int1, time: time)
            released = line
            return line
        }
        try sampler.open()
        #expect(model.peek(0x22) == 0x04, "INT1's data ready, active high, while acceld runs")
        sampler.queue.sync { sampler.stop(powerDown: true) }
        #expect(model.peek(0x22) == 0xA0)
        #expect(released == nil, "the line is let go")
    }

    @Test("the LSM6DSO's data ready on INT2: each frame carries its own rotation rate", arguments: [ChipProfile.lsm6dso])
    func sixAxis(part: ChipProfile) throws {
        let rig = try InterruptRig(part: part, rate: 104, pin: .int2)
        try rig.run(seconds: 5)
        #expect(rig.frames.count > 500)
        #expect(rig.frames.allSatisfy { $0.rotationRate != nil })
        #expect(rig.sampler.counters.lost == 0)
    }
}
