// SPDX-License-Identifier: Apache-2.0
#if canImport(Glibc)
import Glibc
#endif
import AccelCore
import AccelDriver
import AccelParts

/// What answered where, on the buses a person asked about.
public struct ProbeFinding: Sendable, Equatable {
    public let bus: String
    public let address: UInt8
    public let whoAmI: UInt8?
    /// The supported parts that answer with this WHO_AM_I ("LIS3DH or
    /// LIS2DH12" when several do), if any.
    public let part: String?
    /// A relative's name, an error, or nil when all is well.
    public let note: String?
    /// What failed here, when something did (a missing bus, a permission).
    public var error: BusError? = nil
}

public enum Probe {
    /// The I2C adapters the kernel exposes: /dev/i2c-N, sorted by N.
    public static func buses() -> [Int] {
        guard let directory = opendir("/dev") else { return [] }
        defer { closedir(directory) }
        var numbers: [Int] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if name.hasPrefix("i2c-"), let n = Int(name.dropFirst(4)) { numbers.append(n) }
        }
        return numbers.sorted()
    }

    /// Tries every address on every bus: reads WHO_AM_I where something
    /// answers. `open` gives the bus for (bus, address) or throws BusError.
    /// `named` is the part the person named with --part: where it is one
    /// of the parts sharing the WHO_AM_I found, that is the answer.
    public static func scan(buses: [String], addresses: [UInt8] = ChipProfile.familyAddresses, named: ChipProfile? = nil,
                            open: (String, UInt8) throws -> RegisterBus) -> [ProbeFinding] {
        var findings: [ProbeFinding] = []
        for bus in buses {
            for address in addresses {
                do {
                    let device = try open(bus, address)
                    let id = try device.readRegister(0x0F)
                    let candidates = ChipProfile.candidates(whoAmI: id)
                    let chosen = named.flatMap { named in candidates.first { $0.name == named.name } }.map { [$0] } ?? candidates
                    let parts = chosen.map { ([$0.name] + $0.aliases).joined(separator: "/") }
                    let note: String? = switch parts.count {
                    case 0: ChipProfile.relatives[id].map { "suggests \($0), not supported yet" } ?? "unknown WHO_AM_I"
                    case 1: nil
                    default: "these parts share WHO_AM_I \(hex(id)) at different scales: name yours with --part"
                    }
                    findings.append(ProbeFinding(bus: bus, address: address, whoAmI: id,
                                                 part: parts.isEmpty ? nil : parts.joined(separator: " or "), note: note))
                } catch BusError.noAnswer {
                    continue
                } catch {
                    findings.append(ProbeFinding(bus: bus, address: address, whoAmI: nil, part: nil, note: "\(error)",
                                                 error: error as? BusError))
                    // Permission or a missing bus: the other addresses fare the same.
                    if let e = error as? BusError, case .transfer = e {} else { break }
                }
            }
        }
        return findings
    }

    /// One line with the verdict and the next step, and the exit code that
    /// says it to a script (docs/ERRORS.md): 0 found, 68 nothing answered,
    /// 69 no bus, or the code of what failed (77 for a permission).
    public static func verdict(_ findings: [ProbeFinding], buses: [String],
                               command: (String, UInt8) -> String) -> (text: String, exitCode: Int32) {
        let hits = findings.filter { $0.part != nil }
        if !hits.isEmpty {
            let found = hits.map { hit in
                let next = command(hit.bus, hit.address)
                // A part shared by several WHO_AM_I answers must be named, unless the command names it already.
                let choice = hit.note == nil || next.contains(" --part ") ? ""
                    : " --part " + hit.part!.split(separator: " or ").map { String($0.split(separator: "/")[0]) }.joined(separator: "|")
                return "\(hit.part!) at \(hex(hit.address)) on \(hit.bus): run \(next)\(choice)"
            }
            return ("found " + found.joined(separator: "; and "), 0)
        }
        if let other = findings.first(where: { $0.whoAmI != nil }) {
            return ("a chip answers at \(hex(other.address)) on \(other.bus) with WHO_AM_I \(hex(other.whoAmI!)) (\(other.note ?? "")), but no part this acceld drives", 65)
        }
        if let failure = findings.first(where: { $0.note != nil }) {
            return (failure.note!, failure.error?.exitCode ?? 1)
        }
        if buses.isEmpty {
            return ("no I2C buses found: enable I2C (Raspberry Pi: dtparam=i2c_arm=on, or raspi-config > Interface Options > I2C) and load i2c-dev (modprobe i2c-dev). No chip at hand? accelctl probe --simulate runs on the chip model", 69)
        }
        let addresses = ChipProfile.familyAddresses.map(hex).joined(separator: ", ")
        return ("nothing answered at \(addresses) on \(buses.joined(separator: ", ")): check power and wiring (SDA, SCL, GND, VDD), and the SDO strap (LIS302DL: 0x1c low, 0x1d high; LIS3DH and the LIS331 parts: 0x18 low, 0x19 high; the LSM6DS parts: SA0 0x6a low, 0x6b high)", 68)
    }

    /// A failure's first clause, for the per-bus lines: the verdict says
    /// the whole advice once.
    public static func summary(of error: String) -> String {
        error.split(separator: ": ", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? error
    }
}

extension Probe {
    /// One line per IIO accelerometer the kernel drives: name, driver, bus
    /// address, channels, frequencies, and how acceld reads it.
    public static func iioAccelerometers(paths: IIOPaths = IIOPaths()) -> [(device: IIODevice, line: String)] {
        IIODevice.accelerometers(paths: paths).map { device in
            let frequencies = device.availableFrequencies.map { $0 == $0.rounded() ? String(Int($0)) : String($0) }
            var parts = ["channels " + device.channels.joined(separator: ", ")]
            parts.append(frequencies.isEmpty ? "frequency \(device.samplingFrequency.map { String($0) } ?? "not settable")" : frequencies.joined(separator: "/") + " Hz")
            let buffered = device.attribute("scan_elements/in_accel_x_en") != nil
            parts.append(buffered ? "buffer: read it with acceld --iio \(device.id)" : "no buffer: acceld cannot stream it")
            return (device, "  \(device.location): " + parts.joined(separator: "; "))
        }
    }
}
