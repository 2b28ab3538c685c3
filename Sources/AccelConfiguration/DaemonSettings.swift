// SPDX-License-Identifier: Apache-2.0
/// The [socket] and [daemon] sections of the configuration file.
public struct SocketSettings: Sendable, Equatable {
    /// Where clients connect. systemd's acceld.socket passes its own instead.
    public var path = "/run/acceld/acceld.sock"
    /// File mode of a socket acceld creates itself (octal).
    public var mode: UInt32 = 0o660
    /// Group of that socket; empty: the daemon's own group.
    public var group = ""
    public var maxClients = 64
    /// Longest request line; longer ones get an error and are skipped.
    public var maxLineBytes = 4096
    /// Bytes queued for one client before its messages are dropped (and
    /// counted); they flow again once it drains to half (`ClientConnection`).
    public var clientBufferBytes = 256 * 1024
    /// A client that has not drained its buffer for this long is disconnected.
    public var clientStuckSeconds = 10.0
    public init() {}
}

public struct DaemonSettings: Sendable, Equatable {
    /// Members of this group may configure, calibrate and self-test (root
    /// and the daemon's own user always may). Empty: nobody else.
    public var privilegedGroup = ""
    public var calibrationFile = "/var/lib/acceld/calibration.json"
    public var powerDownOnExit = true
    /// Wait for a missing device at start instead of exiting.
    public var waitForDevice = false
    /// SCHED_FIFO priority of the sampler's thread (1 to 99); 0: normal
    /// scheduling. Refused (no RLIMIT_RTPRIO), acceld says so and goes on.
    public var realtimePriority = 10
    public init() {}
}
