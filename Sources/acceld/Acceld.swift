// SPDX-License-Identifier: Apache-2.0
import AccelConfiguration
import AccelDaemon
import AccelCore
import AccelDriver
import AccelProtocol
import ArgumentParser

struct Acceld: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "acceld",
        abstract: "The accelerometer daemon for LIS302DL-class chips on Linux I2C.",
        discussion: """
            Examples:
              acceld --simulate --socket /tmp/acceld.sock # the daemon on the chip model
              acceld --config /etc/acceld/acceld.conf     # the daemon on a real chip
              acceld sample --simulate tour --seconds 3   # the chip model's samples
              acceld sample --bus 1 --address 0x1c        # the same from a real chip
              acceld replay fall.csv --rate 400           # a recording through the pipeline
            """,
        version: acceldVersion,
        subcommands: [RunCommand.self, Sample.self, ReplayCommand.self],
        defaultSubcommand: RunCommand.self
    )
}
