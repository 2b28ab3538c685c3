// SPDX-License-Identifier: Apache-2.0
// A data logger: every frame as a row of the project's trace format
// (docs/TRACE-FORMAT.md) on standard output, so `acceld replay` reads the
// file back. Lost samples become a comment where they happened.
// Usage: DataLogger [seconds] > trace.csv
import AccelClient

let seconds = ExampleArguments.seconds(usage: "DataLogger [seconds] > trace.csv: every frame as a row of a trace acceld replay reads")
let manager = MotionManager()
manager.accelerometerUpdateInterval = 0  // every sample the chip makes

func decimals(_ value: Double, _ places: Int) -> String {
    let scale = [1.0, 10, 100, 1e3, 1e4, 1e5, 1e6][places]
    let scaled = Int64((abs(value) * scale).rounded())
    var fraction = String(scaled % Int64(scale))
    while fraction.count < places { fraction = "0" + fraction }
    return (value < 0 && scaled != 0 ? "-" : "") + "\(scaled / Int64(scale)).\(fraction)"
}

let logging = Task {
    var start: Double?
    for await data in manager.accelerometerUpdates() {
        if start == nil {
            let device = manager.device
            print("# source: AccelClient DataLogger from acceld at \(device?.location ?? "?")")
            print("# device: \(device?.chip ?? "?"), ±\(device?.range ?? 0) g, \(device?.rate ?? 0) Hz, g")
            print("t,x,y,z")
            start = data.timestamp
        }
        let a = data.acceleration
        print([decimals(data.timestamp - start!, 6), decimals(a.x, 5), decimals(a.y, 5), decimals(a.z, 5)].joined(separator: ","))
    }
}
let notices = Task {
    for await notice in manager.notices() {
        if case .lostSamples(let count) = notice { print("# \(count) samples lost here") }
    }
}
try await Task.sleep(for: .seconds(min(seconds, 1e9)))
logging.cancel()
notices.cancel()
// Returning while a task still prints races the process's exit: wait for each to end.
await logging.value
await notices.value
