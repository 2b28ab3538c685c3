// SPDX-License-Identifier: Apache-2.0
import AccelCore
import AccelDriver
import AccelParts

/// The chip as the i2c-dev source serves it: how it is opened, its driver
/// and the configuration on it, and what clients were told of it (the
/// part, the bus's needs, the corrections). Only the sampler's queue
/// touches it.
struct ServedChip {
    /// Opens the bus and identifies the chip (again after a fault closed it).
    let connect: () throws -> Accelerometer
    var driver: Accelerometer?
    var configuration: DeviceConfiguration
    /// The part whose scales clients were told: another part answering at
    /// the address later is refused, never served with these scales.
    var part: String?
    /// `rate = auto` with no part named: the rate is the identified part's
    /// nearest 100 Hz, known only once WHO_AM_I has answered.
    var automaticRate = false
    /// The rate whose bus needs were last said (Sampler+Bus).
    var announcedBusRate: Int?
    /// Configured, the chip turns on until then (ns): nothing is read before.
    var turningOnUntil: UInt64?
    var calibration: Calibration = .identity
    var mountMatrix: MountMatrix = .identity
}
