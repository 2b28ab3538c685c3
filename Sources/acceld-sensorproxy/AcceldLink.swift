// SPDX-License-Identifier: Apache-2.0
import AccelClient
import AccelCore
import AccelProtocol
import AccelSensorProxy
import Dispatch
import Glibc
import Synchronization

/// acceld's socket, on a thread of its own: one connection, reconnected
/// with back-off (0.1 s doubling to 5 s) as the gateway's DaemonFeed does,
/// watching the orientation stream only while `wantsOrientation` is set.
/// What happens is posted to `mailbox`; the bus's thread takes it.
final class AcceldLink: Sendable {
    let socketPath: String
    private let wanted = Mutex(false)
    private let mailbox: Mailbox
    private let queue = DispatchQueue(label: "acceld-sensorproxy.acceld")

    init(socketPath: String, mailbox: Mailbox) {
        self.socketPath = socketPath
        self.mailbox = mailbox
    }

    /// Whether the orientation stream should be watched; taken up within
    /// a tenth of a second.
    func setWantsOrientation(_ value: Bool) { wanted.withLock { $0 = value } }

    func start() { queue.async { self.run() } }

    // (The connection and the following are functions of their own: as one
    // loop, Swift 6.3.1's optimizer never finished compiling it, -O.)
    private func run() {
        var away = false
        while true {
            let connection = connect(awaySaid: away)
            let device = connection.device
            mailbox.post(.connected(device: "\(device.chip) at \(device.location)"))
            do {
                try follow(connection)
            } catch {
                mailbox.post(.disconnected(reason: error.description))
                away = true
            }
        }
    }

    /// A connection, tried with back-off until acceld answers; an outage
    /// is posted once, not once per attempt.
    private func connect(awaySaid: Bool) -> DaemonConnection {
        var backoff = 0.1
        var said = awaySaid
        while true {
            do throws(ClientError) {
                return try DaemonConnection(path: socketPath)
            } catch {
                if !said { mailbox.post(.disconnected(reason: error.description)) }
                said = true
                MonotonicTime().sleep(seconds: backoff)
                backoff = min(backoff * 2, 5)
            }
        }
    }

    /// Posts what one connection says until it fails, watching the
    /// orientation stream only while it is wanted.
    private func follow(_ connection: DaemonConnection) throws(ClientError) {
        var watching = false
        while true {
            let want = wanted.withLock { $0 }
            if want != watching {
                connection.send(want ? .watch(streams: [.orientation], rate: nil, fields: .all, latency: nil) : .unwatch(streams: nil))
                watching = want
            }
            switch try connection.next(timeout: 0.1) {
            case .event(.orientation(let change))?: mailbox.post(.orientation(change.orientation))
            // The watch reply carries the orientation decided so far.
            case .watch(let reply)?: if let current = reply.orientation { mailbox.post(.orientation(current)) }
            default: break
            }
        }
    }
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
