/// How traffic to one destination would leave now: `reach status --to HOST`.
public struct DestinationRoute: Sendable, Hashable, Codable {
    /// The destination address.
    public var destination: String
    public var family: AddressFamily
    /// The egress interface the kernel chose (for a VPN, the tunnel).
    public var interface: InterfaceReference
    /// The physical interface under a tunnel egress.
    public var underlay: InterfaceReference?
    public var gateway: String?
    /// The transport the traffic really uses (the underlay's for a tunnel).
    public var status: NetworkPath.Status
    public var isExpensive: Bool
    /// The egress can carry traffic (UP, LOWER_UP, RUNNING) and has a usable source address.
    public var isUsable: Bool

    public init(
        destination: String, family: AddressFamily, interface: InterfaceReference, underlay: InterfaceReference? = nil,
        gateway: String? = nil, status: NetworkPath.Status, isExpensive: Bool, isUsable: Bool
    ) {
        self.destination = destination
        self.family = family
        self.interface = interface
        self.underlay = underlay
        self.gateway = gateway
        self.status = status
        self.isExpensive = isExpensive
        self.isUsable = isUsable
    }

    enum CodingKeys: String, CodingKey {
        case destination, family, interface, underlay, gateway, status, isExpensive = "expensive", isUsable = "usable"
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(destination, forKey: .destination)
        try container.encode(family, forKey: .family)
        try container.encode(interface, forKey: .interface)
        try container.encode(underlay, forKey: .underlay)
        try container.encode(gateway, forKey: .gateway)
        try container.encode(status, forKey: .status)
        try container.encode(isExpensive, forKey: .isExpensive)
        try container.encode(isUsable, forKey: .isUsable)
    }
}
