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

/// Where `swift build` put the binaries these tests run: beside the test
/// runner itself, so that a build elsewhere (the ThreadSanitizer stage's
/// .build-tsan) tests its own acceld; scripts/test.sh builds them first.
public let buildDirectory: String = {
    var path = [CChar](repeating: 0, count: 4096)
    let length = readlink("/proc/self/exe", &path, path.count - 1)
    guard length > 0 else { return repositoryRoot + "/.build/debug" }
    let runner = String(decoding: path[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    let directory = String(runner[..<(runner.lastIndex(of: "/") ?? runner.endIndex)])
    return FileManager.default.isExecutableFile(atPath: directory + "/acceld") ? directory : repositoryRoot + "/.build/debug"
}()
public let acceldBinary = buildDirectory + "/acceld"
public let accelctlBinary = buildDirectory + "/accelctl"

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

/// Spawn attributes that give the child the signal state a shell would:
/// nothing blocked, every handler default. The test runner's threads block
/// SIGTERM and others, and a child inherits its parent thread's mask: a
/// `timeout` around it then could not stop it.
func withCleanSignals<T>(_ body: (inout posix_spawnattr_t) throws -> T) rethrows -> T {
    var attributes = posix_spawnattr_t()
    posix_spawnattr_init(&attributes)
    defer { posix_spawnattr_destroy(&attributes) }
    var none = sigset_t(), all = sigset_t()
    sigemptyset(&none)
    sigfillset(&all)
    posix_spawnattr_setsigmask(&attributes, &none)
    posix_spawnattr_setsigdefault(&attributes, &all)
    posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
    return try body(&attributes)
}

/// Starts a program in the background (output to /dev/null, or its stderr
/// to `stderrPath`); returns its pid.
public func spawn(_ binary: String, _ arguments: [String], stderrPath: String? = nil) throws -> pid_t {
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    for fd: Int32 in [0, 1, 2] {
        posix_spawn_file_actions_addopen(&actions, fd, "/dev/null", fd == 0 ? O_RDONLY : O_WRONLY, 0)
    }
    if let stderrPath { posix_spawn_file_actions_addopen(&actions, 2, stderrPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644) }
    let argv = ([binary] + arguments).map { strdup($0) } + [nil]
    defer { argv.forEach { free($0) } }
    var pid: pid_t = 0
    let result = withCleanSignals { posix_spawn(&pid, binary, &actions, &$0, argv, environ) }
    guard result == 0 else { throw POSIXError(POSIXErrorCode(rawValue: result) ?? .EIO) }
    return pid
}

/// Runs a built binary to completion and captures its output.
public func run(_ binary: String, _ arguments: [String]) throws -> ProcessResult {
    guard FileManager.default.isExecutableFile(atPath: binary) else {
        Issue.record("\(binary) is missing: run 'swift build' before 'swift test' (scripts/test.sh does)")
        return ProcessResult(status: -1, stdout: "", stderr: "")
    }
    // posix_spawn and CLOEXEC descriptors, each closed exactly once, rather
    // than Foundation's Process: under the parallel suite its Pipe handles
    // could close a descriptor twice (swiftlang/swift#57827), and a CI run
    // lost a child's output, and once failed a spawn with EBADF, that way.
    // (Socket pairs: Glibc's module offers no pipe2, and a pipe made
    // before fcntl set FD_CLOEXEC could leak into another test's child.)
    var outPipe: [Int32] = [-1, -1], errPipe: [Int32] = [-1, -1]
    let kind = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
    guard socketpair(AF_UNIX, kind, 0, &outPipe) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
    guard socketpair(AF_UNIX, kind, 0, &errPipe) == 0 else {
        let code = errno
        outPipe.forEach { close($0) }
        throw POSIXError(POSIXErrorCode(rawValue: code) ?? .EIO)
    }
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
    posix_spawn_file_actions_adddup2(&actions, outPipe[1], 1)
    posix_spawn_file_actions_adddup2(&actions, errPipe[1], 2)
    let argv = ([binary] + arguments).map { strdup($0) } + [nil]
    defer { argv.forEach { free($0) } }
    var pid: pid_t = 0
    let spawned = withCleanSignals { posix_spawn(&pid, binary, &actions, &$0, argv, environ) }
    close(outPipe[1])
    close(errPipe[1])
    guard spawned == 0 else {
        close(outPipe[0])
        close(errPipe[0])
        throw POSIXError(POSIXErrorCode(rawValue: spawned) ?? .EIO)
    }
    // Read both until end of file before waiting, or a full pipe would block the child.
    var output: [Int32: [UInt8]] = [outPipe[0]: [], errPipe[0]: []]
    var open = [outPipe[0], errPipe[0]]
    var chunk = [UInt8](repeating: 0, count: 65536)
    while !open.isEmpty {
        var fds = open.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
        guard poll(&fds, nfds_t(fds.count), -1) >= 0 || errno == EINTR else { break }
        for entry in fds where entry.revents != 0 {
            let n = read(entry.fd, &chunk, chunk.count)
            if n > 0 {
                output[entry.fd]!.append(contentsOf: chunk[0..<n])
            } else if n == 0 || errno != EINTR {
                close(entry.fd)
                open.removeAll { $0 == entry.fd }
            }
        }
    }
    var status: Int32 = 0
    while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
    let code = (status & 0x7F) == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
    return ProcessResult(status: code, stdout: String(decoding: output[outPipe[0]]!, as: UTF8.self),
                         stderr: String(decoding: output[errPipe[0]]!, as: UTF8.self))
}

/// Writes `text` to a fresh temporary file and returns its path.
public func temporaryFile(_ text: String, name: String) throws -> String {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("acceld-tests-\(getpid())")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    let path = directory.appendingPathComponent(name).path
    try text.write(toFile: path, atomically: true, encoding: .utf8)
    return path
}
