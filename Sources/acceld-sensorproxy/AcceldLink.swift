// SPDX-License-Identifier: Apache-2.0
import AccelClient
import AccelCore
import AccelProtocol
import AccelSensorProxy
import Dispatch
import Glibc
import Synchronization

/// acceld's socket, on a thread of its own: AccelClient's `DaemonLink`,
/// reconnected with back-off (0.1 s doubling to 5 s) as the gateway's
/// DaemonFeed is, watching the orientation stream only while
/// `wantsOrientation` is set. What happens is posted to `mailbox`; the
/// bus's thread takes it.
final class AcceldLink: Sendable {
    var socketPath: String { link.socketPath }
    private let link: DaemonLink
    private let wanted = Mutex(false)

    init(socketPath: String, mailbox: Mailbox) {
        link = DaemonLink(socketPath: socketPath, backoff: .service, label: "acceld-sensorproxy.acceld") { updates in
            for update in updates {
                switch update {
                case .connected(let hello, _):
                    mailbox.post(.connected(device: "\(hello.device.chip) at \(hello.device.location)"))
                case .disconnected(let error):
                    mailbox.post(.disconnected(reason: error.description))
                case .message(_, .event(.orientation(let change))):
                    mailbox.post(.orientation(change.orientation))
                // The watch reply carries the orientation decided so far.
                case .message(_, .watch(let reply)):
                    if let current = reply.orientation { mailbox.post(.orientation(current)) }
                default:
                    break
                }
            }
        }
    }

    /// Whether the orientation stream should be watched (the bus says it
    /// after every call): a change is sent at once when connected, and the
    /// watch again on every reconnection while set.
    func setWantsOrientation(_ value: Bool) {
        wanted.withLock { wanted in
            guard value != wanted else { return }
            wanted = value
            link.watch(value ? .watch(streams: [.orientation], rate: nil, fields: .all, latency: nil) : nil)
        }
    }

    func start() { link.start() }
}

/// Updates from acceld's thread to the bus's: a list under a lock, and a
/// pipe whose read end the bus's poll() waits on beside the bus itself.
final class Mailbox: Sendable {
    /// The read end.
    let fd: Int32
    private let writeEnd: Int32
    private let updates = Mutex<[AcceldUpdate]>([])

    init() throws(StartupError) {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else {
            throw StartupError(code: StartupError.software, message: "pipe failed: \(String(cString: strerror(errno)))")
        }
        for end in ends {
            _ = fcntl(end, F_SETFL, O_NONBLOCK)
            _ = fcntl(end, F_SETFD, FD_CLOEXEC)
        }
        fd = ends[0]
        writeEnd = ends[1]
    }

    func post(_ update: AcceldUpdate) {
        updates.withLock { $0.append(update) }
        var one: UInt8 = 1
        _ = write(writeEnd, &one, 1)  // a full pipe has wake-ups enough already
    }

    func take() -> [AcceldUpdate] {
        var drain = [UInt8](repeating: 0, count: 256)
        while read(fd, &drain, drain.count) > 0 {}
        return updates.withLock { taken in defer { taken = [] }; return taken }
    }
}
