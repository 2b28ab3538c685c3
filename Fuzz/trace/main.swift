// SPDX-License-Identifier: Apache-2.0
// libFuzzer target: any bytes as a trace file. Parsed or refused with a
// line number; a parsed trace's times strictly increase and its rotation
// rates (if any) pair up with its rows.
import FuzzerDriver
import AccelCore
import AccelDriver

func fuzzTrace(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let data else { return 0 }
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    do {
        let trace = try Trace(parsing: text, source: "fuzz")
        precondition(zip(trace.times.dropFirst(), trace.times).allSatisfy { $0 > $1 })
        precondition(trace.samples.allSatisfy { $0.x.isFinite && $0.y.isFinite && $0.z.isFinite })
        precondition(trace.rotationRates.map { $0.count == trace.count && $0.allSatisfy { $0.x.isFinite && $0.y.isFinite && $0.z.isFinite } } ?? true)
    } catch let error as Trace.FormatError {
        precondition(error.line >= 0)
    } catch {
        preconditionFailure("unexpected error \(error)")
    }
    return 0
}

/// SwiftPM renames an executable's main to <target>_main; this is it, and it
/// runs libFuzzer with our callback.
@_cdecl("fuzz_trace_main")
func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    var argc = argc
    var argv = argv
    return LLVMFuzzerRunDriver(&argc, &argv) { fuzzTrace($0, $1) }
}
