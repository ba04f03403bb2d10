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

/// The HTTP clients transfers use: one per proxy and uplink (async-http-client sets the proxy
/// per client, and pools connections per client), created on first use; or the one client an
/// adopter gave.
///
/// A pooled keep-alive connection must never outlive the route it was judged on: reused after
/// the route to its host moved from cellular to Wi-Fi, it carried a `--no-cellular` job's 20 MB
/// over cellular (and the job said Wi-Fi); reused after Wi-Fi went away, it stalled the next
/// download until the read timeout. So each run leases the pool of the uplink its gate judged it
/// on (``lease(for:uplink:)``), and when a host is next asked for over another uplink than last
/// time, the pools it was reached through before are retired: taken out at once, their
/// connections closed once the last run holding them ends. A given client is the adopter's, and
/// pooled as the adopter set it up.
final class HTTPClients: Sendable {
    private enum Source: Sendable {
        case owned(ProxySettings)
        case given(HTTPClient)
    }

    /// One pool: a proxy (or none) over one uplink (or the kernel's choice, nil).
    struct PoolKey: Hashable, Sendable {
        var proxy: HTTPClient.Configuration.Proxy?
        var uplink: String?
        /// False for requests whose redirects ``CredentialRedirects`` follows.
        var followsRedirects = true
    }

    /// Where a host is reached: scheme, host and port, through a proxy or not.
    private struct HostKey: Hashable, Sendable {
        var proxy: HTTPClient.Configuration.Proxy?
        var origin: String
    }

    fileprivate final class Pool: Sendable {
        let client: HTTPClient
        /// Runs holding the pool; whether it was retired (shut down once none holds it), or
        /// already shut down.
        struct Holders {
            var count = 0
            var isRetired = false
            var isShutDown = false
        }
        let holders = Mutex(Holders())
        init(client: HTTPClient) { self.client = client }

        /// Marks it shut down; true if it was not yet (the caller shuts the client down).
        func markShutDown() -> Bool {
            holders.withLock { holders in
                defer { holders.isShutDown = true }
                return !holders.isShutDown
            }
        }
    }

    private struct State: Sendable {
        var pools: [PoolKey: Pool] = [:]
        /// Retired pools that runs still hold.
        var retiring: [ObjectIdentifier: Pool] = [:]
        /// The uplink each host was last reached over.
        var lastUplink: [HostKey: String?] = [:]
    }

    /// Hosts remembered at most; past it the memory starts afresh (a host then forgotten only
    /// misses one retirement, which its next run over the same uplink does not need).
    static let rememberedHosts = 4096

    private let source: Source
    private let state = Mutex(State())

    init(proxies: ProxySettings) { source = .owned(proxies) }
    init(client: HTTPClient) { source = .given(client) }

    /// A run's hold on the client of its uplink's pool; ``release()`` once the run ends.
    struct Lease: Sendable {
        /// The client to send the run's requests with.
        let client: HTTPClient
        fileprivate let pool: Pool?
        fileprivate let clients: HTTPClients?

        /// Lets go of the pool: a retired pool no one holds is shut down.
        func release() {
            guard let pool, let clients else { return }
            clients.release(pool)
        }
    }

    /// The client for `url` on a run judged on `uplink` (an interface name; nil: whatever route
    /// the kernel picks), held until the lease is released.
    /// `followsRedirects: false` gives a client that follows none (``CredentialRedirects``).
    func lease(for url: TransferURL, uplink: String?, followsRedirects: Bool = true) throws(TransferError) -> Lease {
        switch source {
        case .given(let client):
            return Lease(client: client, pool: nil, clients: nil)
        case .owned(let proxies):
            let proxy = try proxies.proxy(for: url, scheme: Self.scheme(url))
            let (pool, retired) = state.withLock { state -> (Pool, [Pool]) in
                let retired = Self.retireIfMoved(&state, host: HostKey(proxy: proxy, origin: Self.origin(url)), uplink: uplink)
                let key = PoolKey(proxy: proxy, uplink: uplink, followsRedirects: followsRedirects)
                let pool = state.pools[key] ?? Pool(client: HTTPClient(
                    eventLoopGroup: Self.loops, configuration: Self.configuration(proxy: proxy, followsRedirects: followsRedirects)))
                state.pools[key] = pool
                pool.holders.withLock { $0.count += 1 }
                return (pool, retired)
            }
            for old in retired { retire(old) }
            return Lease(client: pool.client, pool: pool, clients: self)
        }
    }

    /// Records that `host` is now reached over `uplink`; when that is another uplink than
    /// last time, takes out the pool it was reached through and returns it for retirement.
    private static func retireIfMoved(_ state: inout State, host: HostKey, uplink: String?) -> [Pool] {
        if state.lastUplink.count >= rememberedHosts, state.lastUplink[host] == nil { state.lastUplink.removeAll(keepingCapacity: true) }
        let previous = state.lastUplink.updateValue(uplink, forKey: host)
        guard let previous, previous != uplink else { return [] }
        return state.pools.removeValue(forKey: PoolKey(proxy: host.proxy, uplink: previous)).map { [$0] } ?? []
    }

    /// The pool keys in use now (for tests).
    var poolKeys: Set<PoolKey> { state.withLock { Set($0.pools.keys) } }

    private func retire(_ pool: Pool) {
        let idle = pool.holders.withLock { holders -> Bool in
            holders.isRetired = true
            return holders.count == 0
        }
        if idle {
            if pool.markShutDown() { pool.client.shutdown(queue: .global()) { _ in } }
        } else {
            state.withLock { $0.retiring[ObjectIdentifier(pool)] = pool }
        }
    }

    private func release(_ pool: Pool) {
        let idleAndRetired = pool.holders.withLock { holders -> Bool in
            holders.count -= 1
            return holders.isRetired && holders.count == 0
        }
        guard idleAndRetired else { return }
        _ = state.withLock { $0.retiring.removeValue(forKey: ObjectIdentifier(pool)) }
        if pool.markShutDown() { pool.client.shutdown(queue: .global()) { _ in } }
    }

    private static func scheme(_ url: TransferURL) -> String {
        url.requestURL.lowercased().hasPrefix("https:") ? "https" : "http"
    }

    /// `scheme://host:port/` of a request URL: what one pool's connections are per.
    private static func origin(_ url: TransferURL) -> String {
        let text = url.requestURL
        guard let schemeEnd = text.firstRange(of: "://") else { return text }
        let rest = text[schemeEnd.upperBound...]
        let authority = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        return text[..<schemeEnd.upperBound].lowercased() + authority.lowercased()
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
    static func configuration(proxy: HTTPClient.Configuration.Proxy?, followsRedirects: Bool = true) -> HTTPClient.Configuration {
        var configuration = HTTPClient.Configuration()
        configuration.timeout = HTTPClient.Configuration.Timeout(connect: .seconds(15))
        configuration.connectionPool.retryConnectionEstablishment = false
        configuration.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = 64
        configuration.decompression = .disabled
        configuration.redirectConfiguration = followsRedirects ? .follow(max: 10, allowCycles: false) : .disallow
        configuration.proxy = proxy
        return configuration
    }

    /// Starts shutting the owned clients down (a given one is the adopter's).
    func shutdown() {
        guard case .owned = source else { return }
        for pool in takeAllPools() { pool.client.shutdown(queue: .global()) { _ in } }
    }

    func shutdownGracefully() async throws {
        guard case .owned = source else { return }
        for pool in takeAllPools() { try await pool.client.shutdown() }
    }

    /// Every pool not yet shut down, taken out, retired ones still held among them (whose
    /// release then finds them shut down).
    private func takeAllPools() -> [Pool] {
        let pools = state.withLock { state -> [Pool] in
            defer {
                state.pools.removeAll()
                state.retiring.removeAll()
            }
            return Array(state.pools.values) + Array(state.retiring.values)
        }
        return pools.filter { $0.markShutDown() }
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
