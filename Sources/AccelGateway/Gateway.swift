// SPDX-License-Identifier: Apache-2.0
import AccelConfiguration
import AccelProtocol
import Logging
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOWebSocket
import Synchronization

/// acceld-gateway: a client of acceld's socket that holds every network
/// face (the live page and its WebSocket streams, /metrics, MQTT), so that
/// the daemon itself never touches the network. One event loop serves all
/// connections; one connection to acceld feeds them all: the metrics and
/// the MQTT publisher on the feed's thread, the WebSocket hub on the loop.
public final class Gateway: Sendable {
    public enum StartError: Error, CustomStringConvertible {
        case listen(address: String, reason: String, code: Int32)

        public var description: String {
            switch self {
            case .listen(let address, let reason, _): "cannot listen on \(address): \(reason)"
            }
        }

        public var exitCode: Int32 {
            switch self {
            case .listen(_, _, let code): code
            }
        }
    }

    private let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
    private let settings: GatewaySettings
    private let shared: GatewayContext
    private let feed: DaemonFeed
    private let hub: NIOLoopBound<StreamHub>
    private let limiter: ConnectionLimiter
    private let logger = Logger(label: "acceld-gateway")
    private let metrics: GatewayMetrics
    private let mqtt: MQTTPublisher?

    /// Throws when the MQTT face cannot be set up (its password or TLS files).
    public init(settings: GatewaySettings, daemonSocket: String, assets: WebAssets) throws(MQTTPublisher.SetupError) {
        let loop = group.next()
        let metrics = GatewayMetrics(vibration: settings.vibration)
        let mqtt = settings.mqtt.enabled ? try MQTTPublisher(settings: settings.mqtt, metrics: metrics, vibration: settings.vibration) : nil
        self.mqtt = mqtt
        // The hub lives on the loop: made there, used only there.
        let hub = try! loop.submit { NIOLoopBound(StreamHub(loop: loop, metrics: metrics), eventLoop: loop) }.wait()
        self.settings = settings
        self.metrics = metrics
        self.hub = hub
        self.shared = GatewayContext(policy: HostPolicy(names: settings.serverNames), assets: assets, metrics: metrics,
                                     metricsEnabled: settings.metrics)
        self.limiter = ConnectionLimiter(limit: settings.maxConnections, metrics: metrics)
        let logger = logger
        let windows = settings.vibration ? VibrationWatch(window: 1, overlap: 0.5, spectrumBins: settings.vibrationBins) : nil
        feed = DaemonFeed(socketPath: daemonSocket, vibration: windows) { updates in
            metrics.record(updates)
            mqtt?.route(updates)
            for update in updates {
                switch update {
                case .connected(let hello): logger.notice("connected to acceld \(hello.version): \(hello.device.chip) at \(hello.device.rate) Hz")
                case .disconnected(let reason): logger.warning("acceld is not reachable (\(reason)); trying again with back-off")
                case .message: break
                }
            }
            loop.execute { hub.value.handle(updates) }
        }
    }

    /// Starts listening (on `descriptor` when systemd passed one, else on
    /// `[gateway] listen`) when HTTP or metrics are on, connects to acceld
    /// and to the broker. Returns where it listens (nil: it does not).
    public func start(descriptor: Int32? = nil) throws -> String? {
        let listening = settings.http || settings.metrics ? try listen(descriptor: descriptor) : nil
        feed.start()
        mqtt?.start()
        return listening
    }

    private func listen(descriptor: Int32?) throws -> String {
        let shared = shared, hub = hub, limiter = limiter
        let bootstrap = ServerBootstrap(group: group)
            .serverChannelOption(.backlog, value: 256)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.writeBufferWaterMark, value: .init(low: 32 * 1024, high: 256 * 1024))
            .childChannelInitializer { channel in
                guard limiter.admit(channel) else { return channel.eventLoop.makeSucceededVoidFuture() }
                return channel.eventLoop.makeCompletedFuture { try Gateway.configure(channel, shared: shared, hub: hub) }
            }
        let address = settings.listen
        let channel: Channel
        do {
            if let descriptor {
                channel = try bootstrap.withBoundSocket(descriptor).wait()
            } else {
                let (host, port) = GatewaySettings.endpoint(address) ?? ("127.0.0.1", 8080)
                channel = try bootstrap.bind(host: host, port: port).wait()
            }
        } catch let error as IOError {
            let (reason, code): (String, Int32) = switch error.errnoCode {
            case EADDRINUSE: ("the address is in use (another gateway, or another server): stop it, or choose another port with --listen HOST:PORT or [gateway] listen", 69)
            case EACCES: ("permission denied (a port below 1024 needs CAP_NET_BIND_SERVICE; the unit's socket can pass one)", 77)
            case EADDRNOTAVAIL: ("no interface of this machine has that address: choose another with --listen HOST:PORT or [gateway] listen", 69)
            default: (error.description, 69)
            }
            throw StartError.listen(address: address, reason: reason, code: code)
        } catch {
            throw StartError.listen(address: address, reason: "\(error)", code: 69)
        }
        serverChannel.withLock { $0 = channel }
        guard let local = channel.localAddress, let ip = local.ipAddress, let port = local.port else { return address }
        return ip.contains(":") ? "[\(ip)]:\(port)" : "\(ip):\(port)"
    }

    private let serverChannel = Mutex<Channel?>(nil)

    /// The port actually bound (for `listen` port 0, used by the tests).
    public var port: Int? { serverChannel.withLock { $0?.localAddress?.port } }

    /// Stops listening, says goodbye to WebSocket clients and disconnects
    /// from acceld.
    public func stop() {
        feed.stop()
        mqtt?.stop()
        if let channel = serverChannel.withLock({ $0 }) {
            try? channel.close().wait()
            let hub = hub
            try? channel.eventLoop.submit { hub.value.closeAll() }.wait()
        }
        try? group.syncShutdownGracefully()
    }

    private static func configure(_ channel: Channel, shared: GatewayContext, hub: NIOLoopBound<StreamHub>) throws {
        let http = HTTPHandler(shared)
        let pipeline = channel.pipeline.syncOperations
        try pipeline.addHandlers([IdleStateHandler(readTimeout: .seconds(10)), IdleCloser()])
        let upgrader = NIOWebSocketServerUpgrader(
            maxFrameSize: 1 << 14,
            shouldUpgrade: { channel, head in
                let allowed = StreamHub.Stream(uri: head.uri) != nil
                    && shared.policy.allowsHost(head.headers["host"].first ?? "")
                    && shared.policy.allowsOrigin(head.headers["origin"].first)
                // Refused: the request goes on to HTTPHandler, which says why.
                return channel.eventLoop.makeSucceededFuture(allowed ? HTTPHeaders() : nil)
            },
            upgradePipelineHandler: { channel, head in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(WebSocketSession(stream: StreamHub.Stream(uri: head.uri)!, hub: hub.value))
                }
            })
        let bound = NIOLoopBound(http, eventLoop: channel.eventLoop)
        try pipeline.configureHTTPServerPipeline(
            withServerUpgrade: ([upgrader], { context in
                // A WebSocket client sends nothing: no idle limit for it.
                let pipeline = context.pipeline.syncOperations
                pipeline.removeHandler(bound.value, promise: nil)
                if let idle = try? pipeline.context(handlerType: IdleStateHandler.self) { pipeline.removeHandler(context: idle, promise: nil) }
                if let closer = try? pipeline.context(handlerType: IdleCloser.self) { pipeline.removeHandler(context: closer, promise: nil) }
            }),
            withErrorHandling: true)
        try pipeline.addHandler(http)
    }
}
