// SPDX-License-Identifier: Apache-2.0
import AccelProtocol
import Dispatch
import Synchronization

public typealias VibrationHandler = @Sendable (VibrationMessage?, (any Error)?) -> Void

/// A machine's vibration in Core Motion's shape: start updates with the
/// windows you want and a handler on your queue, or read the latest
/// window; the machine's changes of state (off, idle, running) beside.
/// One reconnecting connection to acceld (`DaemonLink`), watched only
/// while something is started. docs/VIBRATION.md has the figures.
///
///     let vibration = VibrationManager()
///     vibration.startVibrationUpdates(windows: VibrationWatch(window: 1, spectrumBins: 256), to: .main) { window, error in
///         if let window { print(window.velocity, "mm/s", window.peaks.first ?? []) }
///     }
///     vibration.startMachineUpdates(to: .main) { change in print("machine", change.state) }
public final class VibrationManager: Sendable {
    public let socketPath: String
    private let link: DaemonLink
    private let shared = Shared()

    /// Shared with the link's thread.
    private final class Shared: Sendable {
        let state = Mutex(State())
    }

    private struct State {
        var windows: VibrationWatch?
        var vibration: (queue: DispatchQueue, handler: VibrationHandler)?
        var machine: (queue: DispatchQueue, handler: @Sendable (MachineMessage) -> Void)?
        var latest: VibrationMessage?
    }

    public init(socketPath: String = DaemonConnection.defaultSocket) {
        self.socketPath = socketPath
        let shared = self.shared
        link = DaemonLink(socketPath: socketPath, backoff: .program, label: "AccelClient.vibration") { updates in
            for update in updates { Self.handle(update, shared: shared) }
        }
    }

    deinit { link.stop() }

    /// The newest window, for clients that pull; nil before the first.
    public var latestVibration: VibrationMessage? { shared.state.withLock { $0.latest } }

    public var isVibrationActive: Bool { shared.state.withLock { $0.windows != nil } }

    /// Windows as they end, each after the handler's previous one. A
    /// handler that started without a daemon gets `ClientError.noDaemon`
    /// once; the connection is retried with back-off meanwhile.
    public func startVibrationUpdates(windows: VibrationWatch = VibrationWatch(), to queue: DispatchQueue,
                                      withHandler handler: @escaping VibrationHandler) {
        shared.state.withLock {
            $0.windows = windows
            $0.vibration = (queue, handler)
        }
        rewatch()
    }

    /// Windows for `latestVibration` only.
    public func startVibrationUpdates(windows: VibrationWatch = VibrationWatch()) {
        shared.state.withLock { $0.windows = windows }
        rewatch()
    }

    public func stopVibrationUpdates() {
        shared.state.withLock {
            $0.windows = nil
            $0.vibration = nil
        }
        rewatch()
    }

    /// The machine's changes of state, judged by acceld on one-second windows.
    public func startMachineUpdates(to queue: DispatchQueue, withHandler handler: @escaping @Sendable (MachineMessage) -> Void) {
        shared.state.withLock { $0.machine = (queue, handler) }
        rewatch()
    }

    public func stopMachineUpdates() {
        shared.state.withLock { $0.machine = nil }
        rewatch()
    }

    /// The watch for what is started, or none; the link connects while there is one.
    private func rewatch() {
        let (windows, machine) = shared.state.withLock { ($0.windows, $0.machine != nil) }
        var streams: Set<StreamName> = []
        if windows != nil { streams.insert(.vibration) }
        if machine { streams.insert(.machine) }
        guard !streams.isEmpty else {
            link.watch(nil)
            return link.stop()
        }
        link.watch(.watch(streams: streams, rate: nil, fields: .all, latency: nil, vibration: windows))
        link.start()
    }

    private static func handle(_ update: DaemonLink.Update, shared: Shared) {
        switch update {
        case .message(_, .vibration(let window)):
            let target = shared.state.withLock { state -> (queue: DispatchQueue, handler: VibrationHandler)? in
                state.latest = window
                return state.vibration
            }
            if let target { target.queue.async { target.handler(window, nil) } }
        case .message(_, .machine(let change)):
            if let target = shared.state.withLock({ $0.machine }) { target.queue.async { target.handler(change) } }
        case .message(_, .error(let error)):
            let refusal = ClientError.refusedRequest(code: error.code, message: error.message)
            if let target = shared.state.withLock({ $0.vibration }) { target.queue.async { target.handler(nil, refusal) } }
        case .disconnected(let error):
            if let target = shared.state.withLock({ $0.vibration }) { target.queue.async { target.handler(nil, error) } }
        default:
            break
        }
    }
}
