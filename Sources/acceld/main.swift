// SPDX-License-Identifier: Apache-2.0
import AccelConfiguration

let arguments = expandingBareSimulate(Array(CommandLine.arguments.dropFirst()))
// The daemon is what people run: `acceld --help` shows its options after
// the subcommands, where ArgumentParser keeps a default subcommand's
// options for `acceld help run` alone.
if arguments == ["--help"] || arguments == ["-h"] || arguments == ["help"] {
    let run = Acceld.helpMessage(for: RunCommand.self)
    let lines = run.split(separator: "\n", omittingEmptySubsequences: false)
    let options = lines.drop { $0 != "OPTIONS:" }.dropFirst().joined(separator: "\n")
    print(Acceld.helpMessage() + "\n\nOPTIONS OF acceld run (the default subcommand):\n" + options)
} else {
    Acceld.main(arguments)
}
