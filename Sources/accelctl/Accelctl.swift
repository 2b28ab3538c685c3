// SPDX-License-Identifier: Apache-2.0
import AccelConfiguration
import AccelCore
import AccelDriver
import AccelProtocol
import ArgumentParser

struct Accelctl: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "accelctl",
        abstract: "Bring up a LIS302DL-class accelerometer, and use it through acceld.",
        discussion: """
            Direct to the chip (stop acceld first): probe, dump, selftest, calibrate, rate.
            Through acceld (or --direct): watch, events, vibration, status, record, configure, zero.
            Offline: plot (a trace replayed: acceld replay). Every command takes --simulate to run on the chip model.
            Exit codes: docs/ACCELCTL.md.

            A first session with a new board:
              accelctl probe                 # which bus, which address, which chip
              accelctl dump                  # every register, decoded
              accelctl selftest              # the datasheet self-test, PASS or FAIL
              accelctl calibrate             # six faces: offsets and scales for acceld
              accelctl rate                  # real output rate, noise, bus speed
            """,
        version: acceldVersion,
        subcommands: [ProbeCommand.self, DumpCommand.self, SelfTestCommand.self, CalibrateCommand.self, RateCommand.self,
                      WatchCommand.self, EventsCommand.self, VibrationCommand.self, StatusCommand.self, RecordCommand.self,
                      ConfigureCommand.self, ZeroCommand.self, PlotCommand.self, ReplayMovedCommand.self]
    )
}
