// SPDX-License-Identifier: Apache-2.0
/// `--simulate` may stand alone on acceld's and accelctl's command lines,
/// and then means the built-in demo motion. ArgumentParser has no option
/// whose value is optional, so the word is put in before it parses.
public func expandingBareSimulate(_ arguments: [String]) -> [String] {
    var arguments = arguments
    var index = arguments.startIndex
    while index < arguments.endIndex {
        if arguments[index] == "--simulate" && (index + 1 == arguments.endIndex || arguments[index + 1].hasPrefix("-")) {
            arguments.insert("demo", at: index + 1)
        }
        index += 1
    }
    return arguments
}
