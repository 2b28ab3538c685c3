import AccelDaemon
import AccelDriver
import ArgumentParser

struct Acceld: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "acceld",
        abstract: "The accelerometer daemon for LIS302DL-class chips on Linux I2C.",
        discussion: """
            Examples:
              acceld sample --simulate tour --seconds 3   # converted samples from the chip model
              acceld sample --bus 1 --address 0x1c        # the same from a real chip
              acceld replay fall.csv --rate 400           # a recording through the pipeline
            """,
        version: AcceldVersion.string,
        subcommands: [Sample.self, ReplayCommand.self]
    )
}

enum AcceldVersion {
    static let string = "0.1.0"
}
