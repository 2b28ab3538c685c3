// SPDX-License-Identifier: Apache-2.0
import AccelCore
import AccelDriver
import ArgumentParser

// `--simulate` may stand alone: it then means the built-in demo motion.
var arguments = Array(CommandLine.arguments.dropFirst())
if let index = arguments.firstIndex(of: "--simulate"),
   index + 1 == arguments.count || arguments[index + 1].hasPrefix("-") {
    arguments.insert("demo", at: index + 1)
}
Acceld.main(arguments)
