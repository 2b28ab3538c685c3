// SPDX-License-Identifier: Apache-2.0
import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Testing

/// The checkout's root, and ../shared/data beside it.
public let repositoryRoot: String = {
    var parts = #filePath.split(separator: "/").map(String.init)
    parts.removeLast(3)  // Tests/TestSupport/ProcessSupport.swift
    return "/" + parts.joined(separator: "/")
}()
public let sharedData = repositoryRoot + "/../shared/data"

/// The binaries `swift build` made (scripts/test.sh builds them first).
public let acceldBinary = repositoryRoot + "/.build/debug/acceld"
public let accelctlBinary = repositoryRoot + "/.build/debug/accelctl"

public struct ProcessResult: Sendable {
    public let status: Int32
    public let stdout: String
    public let stderr: String
}

/// Runs acceld with `arguments` to completion and captures its output.
public func acceld(_ arguments: [String]) throws -> ProcessResult { try run(acceldBinary, arguments) }

/// Runs a program that leaves a server behind (tmux new-session -d): its
/// output goes to /dev/null, since the server would hold captured pipes
/// open. posix_spawn and a blocking waitpid: Foundation's Process did not
/// reap such children when two tests spawned them at once.
public func runDetached(_ binary: String, _ arguments: [String]) throws -> Int32 {
    let pid = try spawn(binary, arguments)
    var status: Int32 = 0
    while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
    return (status & 0x7F) == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
}

/// Starts a program in the background (output to /dev/null); returns its pid.
public func spawn(_ binary: String, _ arguments: [String]) throws -> pid_t {
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    for fd: Int32 in [0, 1, 2] {
        posix_spawn_file_actions_addopen(&actions, fd, "/dev/null", fd == 0 ? O_RDONLY : O_WRONLY, 0)
    }
    let argv = ([binary] + arguments).map { strdup($0) } + [nil]
    defer { argv.forEach { free($0) } }
    var pid: pid_t = 0
    let result = posix_spawn(&pid, binary, &actions, nil, argv, environ)
    guard result == 0 else { throw POSIXError(POSIXErrorCode(rawValue: result) ?? .EIO) }
    return pid
}

/// Runs a built binary to completion and captures its output.
public func run(_ binary: String, _ arguments: [String]) throws -> ProcessResult {
    guard FileManager.default.isExecutableFile(atPath: binary) else {
        Issue.record("\(binary) is missing: run 'swift build' before 'swift test' (scripts/test.sh does)")
        return ProcessResult(status: -1, stdout: "", stderr: "")
    }
    let process = Process()
    process.executableURL = URL(fileURLWithPath: binary)
    process.arguments = arguments
    let out = Pipe(), err = Pipe()
    process.standardOutput = out
    process.standardError = err
    process.standardInput = FileHandle.nullDevice
    try process.run()
    // Read both pipes before waiting, or a full pipe would block the child.
    let outData = out.fileHandleForReading.readDataToEndOfFile()
    let errData = err.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return ProcessResult(status: process.terminationStatus, stdout: String(decoding: outData, as: UTF8.self),
                         stderr: String(decoding: errData, as: UTF8.self))
}

/// Writes `text` to a fresh temporary file and returns its path.
public func temporaryFile(_ text: String, name: String) throws -> String {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("acceld-tests-\(getpid())")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    let path = directory.appendingPathComponent(name).path
    try text.write(toFile: path, atomically: true, encoding: .utf8)
    return path
}
