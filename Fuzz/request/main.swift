// SPDX-License-Identifier: Apache-2.0
// libFuzzer target: any bytes as a request line (the daemon's parser) and
// as a message line (the clients'). Each must answer with its type or its
// error, never crash; what decodes must encode to something that decodes
// to the same again.
import FuzzerDriver
import AccelProtocol

func fuzzRequest(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let data else { return 0 }
    switch Result(catching: { () throws(ProtocolError) in try Request(parsing: UnsafeBufferPointer(start: data, count: size)) }) {
    case .success(let request): precondition((try? Request(parsing: Array(request.json.utf8))) == request, "a request survives its encoding")
    case .failure(let error): precondition(!error.code.isEmpty && !error.message.isEmpty, "an error always says what and why")
    }
    if let message = try? Message(parsing: UnsafeBufferPointer(start: data, count: size)) {
        precondition(!message.className.isEmpty)
        _ = message.jsonBytes
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
