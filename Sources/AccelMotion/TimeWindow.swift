// SPDX-License-Identifier: Apache-2.0
/// A FIFO of timestamped values in a ring buffer that grows as needed, for
/// sliding time windows: push at the back, drop from the front by age.
/// No allocation once it has reached the window's size.
struct TimeWindow<Value>: Sendable where Value: Sendable {
    private var times: [Double]
    private var values: [Value?]
    private var head = 0
    private(set) var count = 0

    init(capacity: Int = 64) {
        times = [Double](repeating: 0, count: capacity)
        values = [Value?](repeating: nil, count: capacity)
    }

    var isEmpty: Bool { count == 0 }
    var firstTime: Double? { count > 0 ? times[head] : nil }
    var lastTime: Double? { count > 0 ? times[(head + count - 1) % times.count] : nil }

    mutating func append(_ t: Double, _ value: Value) {
        if count == times.count { grow() }
        let index = (head + count) % times.count
        times[index] = t
        values[index] = value
        count += 1
    }

    /// Drops entries older than `cutoff` (strictly).
    mutating func drop(before cutoff: Double) {
        while count > 0 && times[head] < cutoff {
            values[head] = nil
            head = (head + 1) % times.count
            count -= 1
        }
    }

    /// Drops entries older than `cutoff` (strictly), handing each to `removed`.
    mutating func drop(before cutoff: Double, removed: (Value) -> Void) {
        while count > 0 && times[head] < cutoff {
            removed(values[head]!)
            values[head] = nil
            head = (head + 1) % times.count
            count -= 1
        }
    }

    mutating func removeAll() {
        while count > 0 { drop(before: .infinity) }
    }

    func forEach(_ body: (Double, Value) -> Void) {
        for i in 0..<count {
            let index = (head + i) % times.count
            body(times[index], values[index]!)
        }
    }

    private mutating func grow() {
        var newTimes = [Double](repeating: 0, count: times.count * 2)
        var newValues = [Value?](repeating: nil, count: times.count * 2)
        for i in 0..<count {
            newTimes[i] = times[(head + i) % times.count]
            newValues[i] = values[(head + i) % times.count]
        }
        times = newTimes
        values = newValues
        head = 0
    }
}
