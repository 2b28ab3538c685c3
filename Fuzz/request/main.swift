// SPDX-License-Identifier: Apache-2.0
// libFuzzer target: any bytes as a request line. The parser must answer
// with a Request or a ProtocolError, never crash.
import FuzzerDriver
import AccelProtocol

func fuzzRequest(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let data else { return 0 }
    switch Result(catching: { () throws(ProtocolError) in try Request(parsing: UnsafeBufferPointer(start: data, count: size)) }) {
    case .success(let request): _ = request.className
    case .failure(let error): precondition(!error.code.isEmpty && !error.message.isEmpty, "an error always says what and why")
    }
    return 0
}

/// SwiftPM renames an executable's main to <target>_main; this is it, and it
/// runs libFuzzer with our callback.
@_cdecl("fuzz_request_main")
func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    var argc = argc
    var argv = argv
    return LLVMFuzzerRunDriver(&argc, &argv) { fuzzRequest($0, $1) }
}
