// SPDX-License-Identifier: Apache-2.0
/// Parses a 7-bit address, always hexadecimal as i2cdetect prints it:
/// "0x1c" or "1c".
public func parseAddress(_ text: String) -> UInt8? {
    let digits = text.lowercased().hasPrefix("0x") ? String(text.dropFirst(2)) : text
    guard let value = UInt8(digits, radix: 16), value <= 0x7F else { return nil }
    return value
}
