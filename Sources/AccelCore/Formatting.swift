// SPDX-License-Identifier: Apache-2.0
/// Fixed-point decimal text without Foundation, e.g. fixed(-0.5, 3) = "-0.500".
public func fixed(_ value: Double, _ decimals: Int) -> String {
    var scale = 1.0
    for _ in 0..<decimals { scale *= 10 }
    let scaled = (abs(value) * scale).rounded()
    guard scaled < 9e15 else { return String(value) }
    let whole = Int64(scaled)
    let unit = Int64(scale)
    var fraction = String(whole % unit)
    while fraction.count < decimals { fraction = "0" + fraction }
    let sign = value < 0 && whole != 0 ? "-" : ""
    return decimals == 0 ? sign + String(whole) : sign + String(whole / unit) + "." + fraction
}

/// "0x1c": addresses and register values the way datasheets print them.
public func hex(_ value: UInt8) -> String {
    let digits = String(value, radix: 16)
    return "0x" + (digits.count == 1 ? "0" + digits : digits)
}

/// "0x4812": registers read as one little-endian number, two hex digits a
/// register; one byte's worth prints as one.
public func hex(_ value: UInt32) -> String {
    var digits = String(value, radix: 16)
    while digits.count % 2 == 1 { digits = "0" + digits }
    return "0x" + digits
}
