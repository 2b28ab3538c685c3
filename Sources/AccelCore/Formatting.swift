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
