import ReachabilityCore
import AsyncHTTPClient
import Dispatch
import NIOCore
import NIOPosix
import NIOSSL
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// The HTTP clients transfers use: one per proxy (async-http-client sets the proxy per client),
/// created on first use, or the one client an adopter gave.
final class HTTPClients: Sendable {
    private enum Source: Sendable {
        case owned(ProxySettings)
        case given(HTTPClient)
    }

    private let source: Source
    private let clients = Mutex<[HTTPClient.Configuration.Proxy?: HTTPClient]>([:])

    init(proxies: ProxySettings) { source = .owned(proxies) }
    init(client: HTTPClient) { source = .given(client) }

    /// The client for `url`.
    func client(for url: TransferURL) throws(TransferError) -> HTTPClient {
        switch source {
        case .given(let client):
            return client
        case .owned(let proxies):
            let scheme = url.requestURL.lowercased().hasPrefix("https:") ? "https" : "http"
            let proxy = try proxies.proxy(for: url, scheme: scheme)
            return clients.withLock { clients in
                if let client = clients[proxy] { return client }
                let client = HTTPClient(eventLoopGroup: Self.loops, configuration: Self.configuration(proxy: proxy))
                clients[proxy] = client
                return client
            }
        }
    }

    /// The owned clients' event loops, one per core, for the life of the process (as NIO's
    /// singleton). Not the singleton itself: a download's body is written on its loop (see
    /// ``DownloadAttempt/run()``), and a `pwrite` held up by dirty-page throttling on a slow
    /// disk must not hold up the control socket or connectivity probes, which use the singleton.
    private static let loops = MultiThreadedEventLoopGroup(numberOfThreads: System.coreCount)

    /// A loop of the owned clients (nil for a given client, whose group is the adopter's).
    func ownedLoop() -> (any EventLoop)? {
        guard case .owned = source else { return nil }
        return Self.loops.next()
    }

    /// Retries are ours (with backoff and Retry-After), so the pool fails fast; byte ranges are
    /// of the encoded body, so nothing is decompressed. A request waiting for a connection
    /// counts against its read timeout, so the pool has room for several segmented downloads
    /// of one host at once (the default is 8 connections per host).
    static func configuration(proxy: HTTPClient.Configuration.Proxy?) -> HTTPClient.Configuration {
        var configuration = HTTPClient.Configuration()
        configuration.timeout = HTTPClient.Configuration.Timeout(connect: .seconds(15))
        configuration.connectionPool.retryConnectionEstablishment = false
        configuration.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = 64
        configuration.decompression = .disabled
        configuration.redirectConfiguration = .follow(max: 10, allowCycles: false)
        configuration.proxy = proxy
        return configuration
    }

    /// Starts shutting the owned clients down (a given one is the adopter's).
    func shutdown() {
        guard case .owned = source else { return }
        for client in clients.withLock({ Array($0.values) }) { client.shutdown(queue: .global()) { _ in } }
    }

    func shutdownGracefully() async throws {
        guard case .owned = source else { return }
        for client in clients.withLock({ Array($0.values) }) { try await client.shutdown() }
    }

    /// A TLS configuration trusting `caFile` too, or nil for the defaults.
    static func tlsConfiguration(caFile: String?, url: TransferURL) throws(TransferError) -> TLSConfiguration? {
        guard let caFile else { return nil }
        guard access(caFile, R_OK) == 0 else {
            throw TransferError(.tlsFailure, url: url.redacted, path: caFile, detail: "CA file \(caFile) is not readable")
        }
        var configuration = TLSConfiguration.makeClientConfiguration()
        configuration.additionalTrustRoots = [.file(caFile)]
        return configuration
    }
}
