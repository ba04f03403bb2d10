/// Which network a path leads into, beyond its type: a move from one Wi-Fi to another keeps the
/// status `wifi` but changes the identity. Consumers compare identities to notice such moves
/// (a download may want to re-validate).
public struct PathIdentity: Sendable, Hashable, Decodable {
    /// The primary interface's name.
    public var interface: String?
    /// The primary interface's index: it changes when a device is re-plugged, even under the same name.
    public var index: Int32?
    /// The next hops of the reachable families' egress routes, IPv4 first.
    public var gateways: [String]
    /// The network prefixes of the primary interface's global addresses, e.g. `192.168.1.0/24`.
    public var prefixes: [String]
    /// The physical interface under a tunnel.
    public var underlay: String?
    /// The Wi-Fi network's name when the path leaves over Wi-Fi (the underlay's, under a VPN).
    /// The BSSID is not part of the identity: a roam between access points of one SSID is the
    /// same network.
    public var ssid: String?

    /// An identity given part by part; with nothing given, ``none``.
    public init(
        interface: String? = nil, index: Int32? = nil, gateways: [String] = [], prefixes: [String] = [], underlay: String? = nil,
        ssid: String? = nil
    ) {
        self.interface = interface
        self.index = index
        self.gateways = gateways
        self.prefixes = prefixes
        self.underlay = underlay
        self.ssid = ssid
    }

    /// No network.
    public static let none = PathIdentity()
}
