/// Two private namespaces for gating by route: a client with a "Wi-Fi" veth (`va`, 10.1.0.2)
/// and a "cellular" one (`wa`, 10.2.0.2), both to a server namespace that holds
/// ``serverAddress`` on its loopback. The client reaches the server only by the routes a test
/// adds (``route(via:metric:)``), never by a default route; roles come from `--override`
/// `va=wifi` / `wa=cellular`.
public struct RoutedNamespaces: Sendable {
    /// Where the client runs: `reach`, `curl`.
    public let client: TestNamespace
    /// Where servers listen, on ``serverAddress``.
    public let server: TestNamespace
    /// The server's address, reached from the client only through a route a test adds.
    public static let serverAddress = "10.9.0.1"

    public init() async throws {
        client = try TestNamespace()
        server = try TestNamespace()
        try await client.wireUplinks(to: server, peerCommands: ["addr add \(Self.serverAddress)/32 dev lo"])
    }

    /// The client's uplinks.
    public enum Uplink: String, Sendable {
        case wifi = "va"
        case cellular = "wa"

        var gateway: String { self == .wifi ? "10.1.0.1" : "10.2.0.1" }
    }

    /// Adds a host route to the server over `uplink` (a lower metric wins).
    public func route(via uplink: Uplink, metric: Int) throws {
        try client.ip("route", "add", Self.serverAddress, "via", uplink.gateway, "dev", uplink.rawValue, "metric", String(metric))
    }

    /// Removes the route ``route(via:metric:)`` added.
    public func removeRoute(via uplink: Uplink, metric: Int) throws {
        try client.ip("route", "del", Self.serverAddress, "via", uplink.gateway, "dev", uplink.rawValue, "metric", String(metric))
    }

    /// `--override` options that give the uplinks their roles, without sysfs evidence.
    public static let overrides = ["--override", "va=wifi", "--override", "wa=cellular", "--sysfs-root", "/nonexistent"]
}
