// SPDX-License-Identifier: Apache-2.0
import AccelSensorProxy
import CSensorProxyBus
import CSystemd
import Glibc

/// The system bus side: owns net.hadess.SensorProxy, answers calls and
/// property reads from the model, signals what changed, and runs the one
/// loop (the bus, acceld's mailbox, SIGTERM and SIGINT) on this thread.
final class SensorProxyBus {
    static let name = "net.hadess.SensorProxy"
    private var bus: OpaquePointer?
    private var model = SensorProxyModel()
    private let link: AcceldLink
    private let mailbox: Mailbox
    private var handlers = sp_handlers()
    private var lastStatus = ""

    init(link: AcceldLink, mailbox: Mailbox) {
        self.link = link
        self.mailbox = mailbox
    }

    /// Connects (DBUS_SYSTEM_BUS_ADDRESS, or the system bus's socket),
    /// exports the objects, then takes the name: a caller never sees the
    /// name without the objects behind it.
    func open() throws(StartupError) {
        var connection: OpaquePointer?
        var r = sd_bus_open_system(&connection)
        guard r >= 0, let connection else {
            let address = getenv("DBUS_SYSTEM_BUS_ADDRESS").map { String(cString: $0) } ?? "unix:path=/run/dbus/system_bus_socket"
            throw StartupError(code: StartupError.noBus, message: "cannot connect to the system bus at \(address) (\(Self.describe(r))): is dbus running (systemctl status dbus), or is DBUS_SYSTEM_BUS_ADDRESS wrong?")
        }
        bus = connection
        handlers.context = Unmanaged.passUnretained(self).toOpaque()
        handlers.method = { context, interface, member, sender in
            let me = Unmanaged<SensorProxyBus>.fromOpaque(context!).takeUnretainedValue()
            return me.method(interface: interface.map { String(cString: $0) } ?? "", member: member.map { String(cString: $0) } ?? "",
                             sender: sender.map { String(cString: $0) } ?? "")
        }
        handlers.property = { context, interface, property, value in
            let me = Unmanaged<SensorProxyBus>.fromOpaque(context!).takeUnretainedValue()
            return me.property(interface: String(cString: interface!), name: String(cString: property!), into: value!)
        }
        handlers.vanished = { context, name in
            let me = Unmanaged<SensorProxyBus>.fromOpaque(context!).takeUnretainedValue()
            me.apply(me.model.vanished(String(cString: name!)))
        }
        r = withUnsafePointer(to: &handlers) { sp_add_objects(connection, $0) }
        guard r >= 0 else { throw StartupError(code: StartupError.software, message: "exporting /net/hadess/SensorProxy failed: \(Self.describe(r))") }
        // No queueing and no replacement: a second owner is a mistake to report.
        r = sd_bus_request_name(connection, Self.name, 0)
        switch -r {
        case _ where r >= 0: break
        case EEXIST, EALREADY:
            throw StartupError(code: StartupError.nameTaken, message: "\(Self.name) is already owned on the system bus: iio-sensor-proxy is probably running; stop it (systemctl disable --now iio-sensor-proxy) and start acceld-sensorproxy again")
        case EACCES, EPERM:
            throw StartupError(code: StartupError.notPermitted, message: "the bus's policy does not let uid \(getuid()) own \(Self.name): install acceld-sensorproxy.conf in /usr/share/dbus-1/system.d (it allows root and acceld-sensorproxy), then reload dbus")
        default:
            throw StartupError(code: StartupError.noBus, message: "requesting \(Self.name) failed: \(Self.describe(r))")
        }
    }

    /// Runs until SIGTERM or SIGINT (returns) or the bus fails (throws).
    func run() throws(StartupError) {
        var signals = sigset_t()
        sigemptyset(&signals)
        sigaddset(&signals, SIGTERM)
        sigaddset(&signals, SIGINT)
        let signalFD = signalfd(-1, &signals, Int32(SFD_CLOEXEC))
        notifyStatus()
        while true {
            // Everything queued on the bus first: sd_bus_process handles one message a call.
            while true {
                let r = sd_bus_process(bus, nil)
                guard r >= 0 else { throw StartupError(code: StartupError.noBus, message: "the system bus connection failed: \(Self.describe(r))") }
                if r == 0 { break }
            }
            var fds = [pollfd(fd: sd_bus_get_fd(bus), events: Int16(truncatingIfNeeded: sd_bus_get_events(bus)), revents: 0),
                       pollfd(fd: mailbox.fd, events: Int16(POLLIN), revents: 0),
                       pollfd(fd: signalFD, events: Int16(POLLIN), revents: 0)]
            var timeout: UInt64 = 0
            var wait: Int32 = -1
            if sd_bus_get_timeout(bus, &timeout) >= 0, timeout != UInt64.max {
                var now = timespec()
                clock_gettime(CLOCK_MONOTONIC, &now)
                let nowUs = UInt64(now.tv_sec) * 1_000_000 + UInt64(now.tv_nsec) / 1000
                wait = timeout > nowUs ? Int32(min((timeout - nowUs + 999) / 1000, 60_000)) : 0
            }
            if poll(&fds, nfds_t(fds.count), wait) < 0, errno != EINTR {
                throw StartupError(code: StartupError.software, message: "poll failed: \(Self.describe(-errno))")
            }
            if fds[2].revents != 0 { break }
            if fds[1].revents != 0 {
                for update in mailbox.take() { apply(model.acceld(update)) }
            }
        }
        sd_bus_flush(bus)
        sd_bus_release_name(bus, Self.name)
        sd_bus_flush_close_unref(bus)
        bus = nil
    }

    private func method(interface: String, member: String, sender: String) -> Int32 {
        guard let call = MethodCall(interface: interface, member: member) else { return -EBADMSG }
        apply(model.call(call, from: sender))
        return 0
    }

    private func property(interface: String, name: String, into value: UnsafeMutablePointer<sp_value>) -> Int32 {
        switch model.state.value(interface: interface, property: name) {
        case .boolean(let b)?: value.pointee.type = CChar(UInt8(ascii: "b")); value.pointee.boolean = b ? 1 : 0
        case .number(let d)?: value.pointee.type = CChar(UInt8(ascii: "d")); value.pointee.number = d
        case .string(let s)?: sp_value_set_string(value, s)
        case nil: return -ENOENT
        }
        return 0
    }

    /// Logs, signals the changed properties in one PropertiesChanged, and
    /// tells acceld's thread whether to watch.
    private func apply(_ effects: SensorProxyModel.Effects) {
        for line in effects.log { log(line) }
        if !effects.changed.isEmpty {
            let names = effects.changed.map(\.rawValue)
            let r = names.count == 1 ? sp_emit_changed(bus, names[0], nil) : sp_emit_changed(bus, names[0], names[1])
            if r < 0 { log("PropertiesChanged failed: \(Self.describe(r))") }
        }
        link.setWantsOrientation(model.wantsOrientation)
        notifyStatus()
    }

    /// systemctl status shows who claims and what acceld says.
    private func notifyStatus() {
        let status = model.status
        guard status != lastStatus else { return }
        lastStatus = status
        sd_notify(0, "STATUS=\(status)")
    }

    static func describe(_ r: Int32) -> String { String(cString: strerror(abs(r))) }
}

func log(_ line: String) {
    var text = "acceld-sensorproxy: \(line)\n"
    text.withUTF8 { _ = write(2, $0.baseAddress, $0.count) }
}
