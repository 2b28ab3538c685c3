// SPDX-License-Identifier: Apache-2.0
#if canImport(Glibc)
import Glibc
#endif
import AccelClient
import AccelConfiguration
import AccelCore
import AccelDriver
import AccelParts
import AccelTools
import ArgumentParser

struct ProbeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "probe",
        abstract: "Find the chip: every I2C bus, the family's addresses, WHO_AM_I.",
        discussion: """
            Tries the family's addresses (0x18, 0x19, 0x1c, 0x1d, 0x6a, 0x6b) on each bus
            (or on --bus only), reads WHO_AM_I where something answers, names the part
            (or the parts that share that WHO_AM_I, of which --part must name one), and
            ends with a verdict and the next step. Then lists the accelerometers a
            kernel driver already owns, through IIO (/sys/bus/iio), which acceld reads
            with --iio. Exit 0 when a supported chip is found, on i2c-dev or through
            IIO; 68 when nothing answers, 69 when there is no bus, 65 when the chip that
            answers is not one acceld drives (docs/ERRORS.md). On a six-axis part it
            also reads the gyroscope for half a second and says whether its offset at
            rest is within 3 × the datasheet's typical zero-rate level (LSM6DSO ±1,
            LSM6DSL ±3, LSM6DS3 ±10 dps): keep the board still. With --interrupt LINE
            it routes data ready to INT1, then INT2, and says which pin reaches that
            GPIO line, at what rate its edges come, and whether that is the chip's.
            Example: accelctl probe --bus 1 --interrupt GPIO17
            """
    )

    @OptionGroup var chip: ChipOptions
    @OptionGroup var daemon: SocketOption

    @Flag(help: "Probe only the bus given with --bus.")
    var onlyBus = false

    @Option(help: ArgumentHelp("A GPIO line (CHIP:LINE or a line name; 'model' with --simulate) to find the chip's INT pins on: data ready is routed to INT1, then INT2, and the line's edges counted against the chip's rate.", valueName: "line"))
    var interrupt: String?

    func run() throws {
        let time = MonotonicTime()
        let buses: [String]
        if chip.simulate != nil {
            buses = [chip.location]
        } else {
            if (try? DaemonConnection(path: daemon.socket)) != nil { fail(ToolError.daemonOwnsChip(daemon.socket)) }
            let numbers = onlyBus ? [chip.bus] : Probe.buses()
            buses = numbers.map { "/dev/i2c-\($0)" }
            print(buses.isEmpty ? "no /dev/i2c-* buses" : "buses: " + buses.joined(separator: ", "))
            for bus in buses {
                // What the adapter can do (I2C_FUNCS): the driver needs byte
                // data and, for one-transaction samples, I2C block reads.
                do {
                    let f = try I2CBus(path: bus, address: ChipProfile.familyAddresses[0], allowByteReads: true).functionality
                    func yes(_ b: Bool) -> String { b ? "yes" : "no" }
                    print("  \(bus) functions: I2C \(yes(f.plainI2C)), SMBus byte data \(yes(f.byteData)), I2C block read \(yes(f.blockRead)), I2C block write \(yes(f.blockWrite)) (I2C_FUNCS 0x\(String(f.raw, radix: 16)))")
                } catch {
                    print("  \(bus): \(Probe.summary(of: "\(error)"))")
                }
            }
        }
        let model = chip.simulate.map { _ in guarded { try chip.openBus(time: time, socket: daemon.socket) as! ChipModel } }
        let findings = Probe.scan(buses: buses, named: chip.part.flatMap(ChipProfile.named)) { bus, address in
            if let model {
                // The model sits at its part's first address; the others NACK.
                guard address == model.profile.addresses[0] else { throw BusError.noAnswer(path: bus, address: address) }
                return model
            }
            return try I2CBus(path: bus, address: address, force: chip.force, allowByteReads: true)
        }
        for finding in findings {
            let id = finding.whoAmI.map { "WHO_AM_I \(hex($0))" } ?? "error"
            // A failure's advice is the verdict's, said once below.
            let note = finding.error == nil ? finding.note : finding.note.map(Probe.summary)
            print("  \(finding.bus) \(hex(finding.address)): \(id)\(finding.part.map { ": \($0)" } ?? "")\(note.map { ": \($0)" } ?? "")")
        }
        judgeGyroscopes(findings, model: model, time: time)
        if let interrupt { findWiring(interrupt, findings, model: model, time: time) }
        let verdict = Probe.verdict(findings, buses: buses) { bus, address in
            let busOption = bus.hasPrefix("/dev/i2c-") ? " --bus \(bus.dropFirst(9))" : " --simulate \(chip.simulate ?? "")"
            // The part the model plays, or the one named: the next command
            // must test the same chip, not identify it again.
            let part = model.map { " --part \($0.profile.name)" } ?? chip.part.map { " --part \($0)" } ?? ""
            return "accelctl selftest\(busOption) --address \(hex(address))\(part)"
        }
        // Chips a kernel driver owns answer EBUSY above; IIO shows them.
        let iio = chip.simulate == nil ? Probe.iioAccelerometers() : []
        if !iio.isEmpty {
            print("IIO accelerometers (the kernel drives them):")
            for found in iio { print(found.line) }
        }
        if verdict.exitCode != 0, let first = iio.first {
            print("found \(first.device.location) through the kernel's IIO: run acceld --iio \(first.device.id)")
            return
        }
        print(verdict.text)
        if verdict.exitCode != 0 { throw ExitCode(verdict.exitCode) }
    }
}

struct DumpCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "dump",
        abstract: "Every register with its name, raw value and decoded fields.",
        discussion: """
            Registers whose read has a side effect (HP_FILTER_RESET, the
            interrupt sources) are listed but not read.
            Example: accelctl dump --bus 1 --address 0x1c
            """
    )

    @OptionGroup var chip: ChipOptions
    @OptionGroup var daemon: SocketOption

    func run() throws {
        let bus = guarded { try chip.openBus(time: MonotonicTime(), socket: daemon.socket) }
        // The part decides the map: named, or the one WHO_AM_I names.
        let profile = guarded { try Accelerometer.identify(bus, part: chip.profile) }
        print("registers of the \(profile.name) at \(bus.location)")
        var values: [UInt8: UInt8] = [:]
        for address in RegisterMap.readable(profile) { values[address] = guarded { try bus.readRegister(address) } }
        RegisterMap.lines(profile, values: values).forEach { print($0) }
        print("other addresses are reserved on the \(profile.name) and were not read")
    }
}

struct SelfTestCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "selftest",
        abstract: "The datasheet self-test: per-axis deflection against the limits, PASS or FAIL.",
        discussion: """
            Follows the part's own procedure under the conditions its limits were
            published for (smallest range, 50 Hz or the nearest rate above, the
            limits' mode): averages the outputs, turns the self-test actuator on,
            averages again, and compares the difference per axis with the
            datasheet's limits (LIS302DL: X −32..−3, Y and Z +3..+32 digits at
            ±2 g; LIS3DH: 17..360 digits in normal mode). On a six-axis part
            (LSM6DSO, LSM6DSL, LSM6DS3) the gyroscope's self-test follows, as ST's
            example runs it: 208 Hz at ±2000 dps, the change of the rate with ST_G
            on must be 150..700 dps on every axis. Exit 0 on PASS, 1 when either
            test FAILs, 64 for a part without one (H3LIS331DL, LIS3DSH). Keep the
            board still while it runs (about half a second).
            Example: accelctl selftest --bus 1
            """
    )

    @OptionGroup var chip: ChipOptions
    @OptionGroup var daemon: SocketOption

    func run() throws {
        let time = MonotonicTime()
        let (report, gyroscope) = guarded {
            try chip.withChip(time: time, socket: daemon.socket) { driver in
                (try driver.selfTest(), driver.profile.gyroscope == nil ? nil : try driver.gyroscopeSelfTest())
            }
        }
        print(report.summary)
        if let gyroscope { print(gyroscope.summary) }
        if !report.passed || gyroscope?.passed == false { throw ExitCode(1) }
    }
}

struct CalibrateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "calibrate",
        abstract: "Guided six-position calibration (or --flat), saved where acceld reads it.",
        discussion: """
            Put the board on each of its six faces in turn, in any order, and hold it
            still: accelctl waits until it is still (a progress bar shows it),
            averages for a second, and moves on. Per axis it computes the offset and
            the scale from the +1 g and −1 g faces and shows the residuals. With
            --flat only the +Z-up face is used, for offsets. The result is written
            atomically to --output; acceld reads it at start (restart it, or send
            the values with a calibrate request). On a six-axis part it first
            averages the gyroscope for a second with the board still, and stores
            that offset too (acceld's fusion starts from it); a board that moves
            meanwhile is refused (exit 1): keep it still and run it again.
            Example: accelctl calibrate --output /var/lib/acceld/calibration.json
            """
    )

    @OptionGroup var chip: ChipOptions
    @OptionGroup var daemon: SocketOption

    @Flag(help: "Quick calibration: board flat, +Z up; offsets only.")
    var flat = false

    @Option(help: ArgumentHelp("Where to save the calibration.", valueName: "file"))
    var output: String = DaemonSettings().calibrationFile

    @Option(help: ArgumentHelp("The board's mount matrix, as in acceld.conf (IIO form).", valueName: "matrix"))
    var mountMatrix: String = MountMatrix.identity.description

    @Option(help: "Give up after this many seconds.")
    var timeout: Double = 300

    func run() throws {
        let time = MonotonicTime()
        let matrix = guarded { try MountMatrix(parsing: mountMatrix) }
        let driver = guarded { try chip.openDriver(time: time, socket: daemon.socket) }
        guarded { try driver.configure(driver.defaultConfiguration()) }
        defer { try? driver.powerDown() }
        let gyroscopeOffset = measureGyroscope(driver)
        var procedure = SixPositionCalibration(mountMatrix: matrix, flat: flat)
        print(flat ? "put the board flat, +Z (faceUp) up, and keep it still"
                   : "put the board on each face in turn and hold it still: " + procedure.remaining.map { "\($0.rawValue) up (\($0.orientation))" }.joined(separator: ", "))
        // One bar per phase: waiting for a still face, then averaging it.
        var bar = ProgressBar("waiting for a still board")
        var averaging: SixPositionCalibration.Face?
        let start = time.seconds
        while !procedure.isDone {
            guard time.seconds - start < timeout else { fail(ToolError.usage("calibration timed out after \(Int(timeout)) s with \(procedure.remaining.map(\.rawValue).joined(separator: ", ")) still to do")) }
            let reading = guarded { try driver.nextReading() }
            let status = procedure.add(chip: driver.chipAcceleration(reading.counts), t: time.seconds)
            switch status {
            case .waiting(let face, let stillness):
                if averaging != nil {
                    bar.finish("moved: waiting again")
                    bar = ProgressBar("waiting for a still board")
                    averaging = nil
                }
                bar.show(stillness, detail: face.map { "on \($0.rawValue) up" } ?? "(not on a face still to do: \(procedure.remaining.map(\.rawValue).joined(separator: " ")))")
            case .measuring(let face, let progress):
                if averaging != face {
                    bar.finish("still on \(face.rawValue) up")
                    bar = ProgressBar("averaging \(face.rawValue) up (\(face.orientation))")
                    averaging = face
                }
                bar.show(progress)
            case .measured, .done:
                bar.finish(procedure.isDone ? "all faces measured" : "done; still to do: \(procedure.remaining.map(\.rawValue).joined(separator: " "))")
                bar = ProgressBar("waiting for a still board")
                averaging = nil
            }
        }
        var (calibration, residuals) = procedure.result()
        calibration.gyroscopeOffset = gyroscopeOffset
        print("offset (g):  x \(fixed(calibration.offset.x, 4))  y \(fixed(calibration.offset.y, 4))  z \(fixed(calibration.offset.z, 4))")
        print("scale:       x \(fixed(calibration.scale.x, 4))  y \(fixed(calibration.scale.y, 4))  z \(fixed(calibration.scale.z, 4))")
        for (face, residual) in residuals { print("residual \(face.rawValue) up: \(fixed(residual, 1)) mg") }
        guarded { try CalibrationStore(path: output).save(calibration) }
        print("saved to \(output)")
    }
}

struct RateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rate",
        abstract: "Measure the real output data rate, the noise at rest and the time of one burst.",
        discussion: """
            Polls STATUS every 200 µs for --seconds and counts new samples. The
            datasheet allows ±10 % on the ODR. Keep the board still for the noise.
            Example: accelctl rate --rate 400 --seconds 5
            """
    )

    @OptionGroup var chip: ChipOptions
    @OptionGroup var daemon: SocketOption

    @Option(help: "Output data rate to measure at, Hz, from the part's table. [default: the part's rate nearest 100 Hz]")
    var rate: Int?

    @Option(help: "How long to measure.")
    var seconds: Double = 2

    func run() throws {
        let time = MonotonicTime()
        var bar = ProgressBar("measuring")
        let report = guarded {
            try chip.withChip(time: time, socket: daemon.socket, rate: rate) { driver in
                try RateMeter.measure(driver, time: time, seconds: seconds) { bar.show($0) }
            }
        }
        bar.finish()
        print("output data rate: \(fixed(report.measured, 2)) Hz (nominal \(report.nominal) Hz, \(report.deviation >= 0 ? "+" : "")\(fixed(report.deviation * 100, 1)) %, \(report.withinTolerance ? "within" : "OUTSIDE") the datasheet's ±10 %)")
        print("samples: \(report.samples), overruns while polling: \(report.overruns)")
        print("noise at rest (RMS): x \(fixed(report.noise.x, 1)) mg  y \(fixed(report.noise.y, 1)) mg  z \(fixed(report.noise.z, 1)) mg")
        print("one 7-byte burst: \(fixed(report.burstMicroseconds, 1)) µs (median)")
        guard report.isReliable else {
            // A busy machine polls late: then the intervals cannot say the
            // chip's period, and a wrong rate is worse than none.
            printError("accelctl: the rate is not reliable: \(report.overruns) of \(report.samples) reads found samples overwritten (this machine could not poll faster than the chip); measure again when it is less busy, or for longer (--seconds)")
            throw ExitCode(75)
        }
        if !report.withinTolerance { throw ExitCode(1) }
    }
}
