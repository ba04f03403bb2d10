/// Opt-in connectivity validation: which URLs to probe and how often. Off unless at least one
/// endpoint is given; nothing is ever sent without one.
public struct ConnectivityValidation: Sendable, Hashable {
    /// The probe URLs, in order (`--probe URL`, `probe = URL`). HTTP ones can detect a portal;
    /// HTTPS ones, next to an HTTP one, tell `partial` from `full`.
    public var endpoints: [ProbeEndpoint]
    /// How long one round of probes on one interface may take, DNS included.
    public var timeout: Duration
    /// The first re-probe after a round that did not find `full`; it doubles up to ``maximumRetry``.
    public var initialRetry: Duration
    /// The longest wait between re-probes while not `full` (Android: 10 minutes).
    public var maximumRetry: Duration
    /// How long a `full` network goes before it is checked again.
    public var recheckInterval: Duration
    /// PEM file of extra CA certificates trusted by HTTPS probes (a private probe server).
    public var caFile: String?

    /// A validation with these endpoints; by default a 3 s round, re-probes from 1 s doubling to
    /// 10 minutes, and a `full` network re-checked every 30 minutes.
    public init(
        endpoints: [ProbeEndpoint], timeout: Duration = .seconds(3), initialRetry: Duration = .seconds(1),
        maximumRetry: Duration = .seconds(600), recheckInterval: Duration = .seconds(1800), caFile: String? = nil
    ) {
        self.endpoints = endpoints
        self.timeout = timeout
        self.initialRetry = initialRetry
        self.maximumRetry = maximumRetry
        self.recheckInterval = recheckInterval
        self.caFile = caFile
    }

    /// Whether anything will be probed.
    public var isEnabled: Bool { !endpoints.isEmpty }
}

/// One uplink to validate: the interface probes are bound to, the families it routes, and
/// where its network says to ask (DNS servers, the RFC 8908 API).
public struct ProbeTarget: Sendable, Hashable {
    /// The interface name, for `SO_BINDTODEVICE`.
    public var interface: String
    /// The interface index.
    public var index: Int32
    /// A default route for IPv4 leaves through it, and it has a global IPv4 address.
    public var ipv4: Bool
    /// The same for IPv6.
    public var ipv6: Bool
    /// The DNS servers its lease names; empty: the system's (`/etc/resolv.conf`).
    public var dnsServers: [String]
    /// The RFC 8908 captive-portal API URL its network announced (DHCP option 114).
    public var captivePortalAPI: String?
    /// The network namespace the interface lives in (nil: the process's own).
    public var namespacePath: String?

    /// A target given field by field.
    public init(
        interface: String, index: Int32, ipv4: Bool, ipv6: Bool, dnsServers: [String] = [], captivePortalAPI: String? = nil,
        namespacePath: String? = nil
    ) {
        self.interface = interface
        self.index = index
        self.ipv4 = ipv4
        self.ipv6 = ipv6
        self.dnsServers = dnsServers
        self.captivePortalAPI = captivePortalAPI
        self.namespacePath = namespacePath
    }
}
