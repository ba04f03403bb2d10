import FoundationEssentials
import Synchronization

/// A client with two uplinks into a router that plays the Internet, a captive portal and each
/// uplink's DNS server, all in private namespaces: for end-to-end tests of connectivity
/// validation (`reach --probe`).
///
/// - The client namespace (``client``) has `va` (10.1.0.2/24, Wi-Fi in ``overrides``) and `wa`
///   (10.2.0.2/24, cellular), veths into the router (``router``: `va-peer` 10.1.0.1, `wa-peer`
///   10.2.0.1), with default routes via 10.1.0.1 metric 100 and via 10.2.0.1 metric 200 unless
///   `defaultRoutes` is false.
/// - The router holds ``internetAddress`` (the probe endpoint: nginx with `/generate_204`, the
///   portal variants, HTTPS with a certificate from ``caFile``, a stalling port and a refused
///   one) and ``portalAddress`` (a portal that redirects every path to ``portalLoginURL``, and
///   the RFC 8908 API on port 8908) on its loopback.
/// - Each uplink's gateway runs dnsmasq in a ``DNSMode``, switched by ``setDNS(_:on:)``.
/// - ``inject(_:)`` and ``remove(_:)`` switch faults (``Fault``) with `ip rule` in the router.
/// - ``writeLease(interface:dns:captivePortal:)`` writes a systemd-networkd lease under
///   ``leaseRoot`` (pass it as `--dhcp-lease-root`).
/// - ``httpRequests()``, ``dnsQueries(on:)`` and ``stalledConnections()`` count what reached the
///   servers: ``probeTraffic`` is their sum.
///
/// ``stop()`` (or `deinit`) ends every server and removes the scratch directory.
public final class PortalNetwork: Sendable {
    /// Where `reach` runs.
    public let client: TestNamespace
    /// Where the servers run and the faults are switched.
    public let router: TestNamespace
    /// Stands for `/` when reading DHCP leases: `--dhcp-lease-root`.
    public let leaseRoot: String
    /// The CA (PEM) that signed the HTTPS server's certificate: `--probe-ca-file`.
    public let caFile: String
    let scratch: String
    let servers: PortalServers
    let dns = Mutex<[Uplink: SpawnedProcess]>([:])
    let faults = Mutex<Set<Fault>>([])
    private let stopped = Mutex(false)

    /// The client's uplinks.
    public enum Uplink: String, Sendable, CaseIterable, Hashable {
        /// `va`, 10.1.0.2 via 10.1.0.1: Wi-Fi in ``PortalNetwork/overrides``.
        case wifi = "va"
        /// `wa`, 10.2.0.2 via 10.2.0.1: cellular in ``PortalNetwork/overrides``.
        case cellular = "wa"

        /// The interface's name in the client namespace.
        public var interface: String { rawValue }
        /// Its peer's name in the router namespace.
        public var peer: String { rawValue + "-peer" }
        /// The client's address on it.
        public var address: String { self == .wifi ? "10.1.0.2" : "10.2.0.2" }
        /// The router's address on it: gateway and DNS server.
        public var gateway: String { self == .wifi ? "10.1.0.1" : "10.2.0.1" }
    }

    /// "The Internet": the probe endpoint (HTTP 80, HTTPS 443, stalling ``stallPort``).
    public static let internetAddress = "10.9.0.1"
    /// The captive portal (HTTP 80, RFC 8908 API on ``apiPort``).
    public static let portalAddress = "10.9.0.2"
    /// The name dnsmasq answers with ``internetAddress`` in ``DNSMode/answer``.
    public static let probeHost = "probe.test"
    /// Where every portal answer points.
    public static let portalLoginURL = "http://10.9.0.2/login"
    /// A port on ``internetAddress`` that accepts connections and never answers.
    public static let stallPort = 8081
    /// A port on ``internetAddress`` nothing listens on (connections are refused).
    public static let refusedPort = 81
    /// The RFC 8908 API's port on ``portalAddress``.
    public static let apiPort = 8908

    /// `--override` options that give the uplinks their roles, without sysfs evidence.
    public static let overrides = ["--override", "va=wifi", "--override", "wa=cellular", "--sysfs-root", "/nonexistent"]

    /// Builds the namespaces and starts the servers; each uplink's dnsmasq starts in `dns`.
    public init(defaultRoutes: Bool = true, dns mode: DNSMode = .answer) async throws {
        // The namespaces first: they vanish with the process, the directory would not.
        client = try TestNamespace()
        router = try TestNamespace()
        try await Self.wire(client: client, router: router)
        let scratch = try UploadTestServer.makeScratch("portal")
        do {
            leaseRoot = scratch + "/leases"
            caFile = scratch + "/tls/ca.pem"
            try FileManager.default.createDirectory(atPath: leaseRoot, withIntermediateDirectories: true)
            servers = try PortalServers.start(in: router, scratch: scratch)
        } catch {
            try? FileManager.default.removeItem(atPath: scratch)
            throw error
        }
        self.scratch = scratch
        // From here on `deinit` cleans up whatever fails.
        for uplink in Uplink.allCases { try setDNS(mode, on: uplink) }
        if defaultRoutes {
            try addDefaultRoute(via: .wifi, metric: 100)
            try addDefaultRoute(via: .cellular, metric: 200)
        }
    }

    /// The veths, addresses, forwarding (so a prohibiting rule answers with ICMP at once) and
    /// the local table's rule moved behind the fault rules (priority 0 cannot be preceded).
    private static func wire(client: TestNamespace, router: TestNamespace) async throws {
        try router.run(["sysctl", "-qw", "net.ipv4.ip_forward=1"])
        try await client.wireUplinks(
            to: router,
            peerCommands: [
                "addr add \(internetAddress)/32 dev lo", "addr add \(portalAddress)/32 dev lo",
                "rule add pref 100 lookup local", "rule del pref 0 lookup local",
            ])
    }

    /// Adds a default route in the client over `uplink` (a lower metric wins).
    public func addDefaultRoute(via uplink: Uplink, metric: Int) throws {
        try client.ip("route", "add", "default", "via", uplink.gateway, "dev", uplink.interface, "metric", String(metric))
    }

    /// Removes the default route ``addDefaultRoute(via:metric:)`` added.
    public func removeDefaultRoute(via uplink: Uplink, metric: Int) throws {
        try client.ip("route", "del", "default", "via", uplink.gateway, "dev", uplink.interface, "metric", String(metric))
    }

    /// Ends every server (dnsmasq, nginx, the stalling server) and removes the scratch
    /// directory; the namespaces go with this object. Safe to call more than once.
    public func stop() {
        guard stopped.withLock({ stopped in defer { stopped = true }; return !stopped }) else { return }
        let resolvers = dns.withLock { table in defer { table = [:] }; return Array(table.values) }
        for resolver in resolvers { resolver.stop(grace: .seconds(2)) }
        servers.stop()
        try? FileManager.default.removeItem(atPath: scratch)
    }

    deinit {
        stop()
    }

    /// Whether these tests can run here: always under `CI=true` (so a missing server or
    /// privilege fails the test instead of skipping it), elsewhere when namespaces work and
    /// nginx, dnsmasq, openssl and python3 are installed.
    public static let isSupported: Bool = {
        if ProcessInfo.processInfo.environment["CI"] == "true" { return true }
        let tools = ["/usr/sbin/nginx", "/usr/sbin/dnsmasq", "/usr/bin/openssl", "/usr/bin/python3"]
        return TestNamespace.isSupported && tools.allSatisfy { FileManager.default.isExecutableFile(atPath: $0) }
    }()
}
