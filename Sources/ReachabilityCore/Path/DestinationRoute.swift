/// How traffic to one destination would leave now: `reach status --to HOST`.
public struct DestinationRoute: Sendable, Hashable, Decodable {
    /// The destination address.
    public var destination: String
    /// The destination's address family, which decided the routing table looked up.
    public var family: AddressFamily
    /// The egress interface the kernel chose (for a VPN, the tunnel; `lo` for a local address).
    public var interface: InterfaceReference
    /// The physical interface under a tunnel egress.
    public var underlay: InterfaceReference?
    /// The next hop's address; `nil` when the destination is on-link (or local).
    public var gateway: String?
    /// The transport the traffic really uses (the underlay's for a tunnel).
    public var status: NetworkPath.Status
    /// Traffic to the destination is paid for by volume: the egress's cost, or for a tunnel its
    /// underlay's unless a user rule set the tunnel's own.
    public var isExpensive: Bool
    /// The egress can carry traffic (UP, LOWER_UP, RUNNING) and has a usable source address;
    /// always true for a local destination.
    public var isUsable: Bool
    /// The destination is an address of this host: traffic to it never leaves the host.
    public var isLocal: Bool

    /// A route as ``PathEvaluator/routes(for:marked:in:)`` computes it.
    public init(
        destination: String, family: AddressFamily, interface: InterfaceReference, underlay: InterfaceReference? = nil,
        gateway: String? = nil, status: NetworkPath.Status, isExpensive: Bool, isUsable: Bool, isLocal: Bool = false
    ) {
        self.destination = destination
        self.family = family
        self.interface = interface
        self.underlay = underlay
        self.gateway = gateway
        self.status = status
        self.isExpensive = isExpensive
        self.isUsable = isUsable
        self.isLocal = isLocal
    }

    enum CodingKeys: String, CodingKey {
        case destination, family, interface, underlay, gateway, status, isExpensive = "expensive", isUsable = "usable", isLocal = "local"
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        destination = try container.decode(String.self, forKey: .destination)
        family = try container.decode(AddressFamily.self, forKey: .family)
        interface = try container.decode(InterfaceReference.self, forKey: .interface)
        underlay = try container.decodeIfPresent(InterfaceReference.self, forKey: .underlay)
        gateway = try container.decodeIfPresent(String.self, forKey: .gateway)
        status = try container.decode(NetworkPath.Status.self, forKey: .status)
        isExpensive = try container.decode(Bool.self, forKey: .isExpensive)
        isUsable = try container.decode(Bool.self, forKey: .isUsable)
        isLocal = try container.decodeIfPresent(Bool.self, forKey: .isLocal) ?? false
    }
}
