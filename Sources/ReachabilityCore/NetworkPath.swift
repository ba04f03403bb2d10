/// How this host reaches the network right now: the value the monitor publishes.
///
/// Its JSON form is a stable contract (see the README):
/// `{"status","expensive","ipv4","ipv6","primary","underlay","interfaces"}`.
public struct NetworkPath: Sendable, Hashable, Codable {
    /// The transport of the path, in the vocabulary of Apple's reachability APIs.
    public enum Status: String, Sendable, Hashable, Codable, CaseIterable {
        case unreachable, wifi, cellular, wired, other
    }

    public var status: Status
    /// Traffic over this path is paid for by volume (cellular, tethered phone, or a user rule).
    public var isExpensive: Bool
    /// A usable IPv4 default route leaves through an interface with a global IPv4 address.
    public var ipv4: Bool
    /// The same for IPv6; an IPv6-only network is reachable.
    public var ipv6: Bool
    /// The interface traffic leaves through (for a VPN, the tunnel).
    public var primary: InterfaceReference?
    /// The physical interface under a tunnel primary.
    public var underlay: InterfaceReference?
    /// Every interface, ordered by index, with the evidence behind its type.
    public var interfaces: [Interface]
    /// Which network the path leads into: changes on a move between networks of the same type.
    public var identity: PathIdentity

    public init(
        status: Status, isExpensive: Bool = false, ipv4: Bool = false, ipv6: Bool = false,
        primary: InterfaceReference? = nil, underlay: InterfaceReference? = nil, interfaces: [Interface] = [],
        identity: PathIdentity = .none
    ) {
        self.status = status
        self.isExpensive = isExpensive
        self.ipv4 = ipv4
        self.ipv6 = ipv6
        self.primary = primary
        self.underlay = underlay
        self.interfaces = interfaces
        self.identity = identity
    }

    /// A path that reaches nothing.
    public static let unreachable = NetworkPath(status: .unreachable)

    public var isReachable: Bool { status != .unreachable }

    /// The interface named `name`, if present.
    public func interface(named name: String) -> Interface? { interfaces.first { $0.name == name } }

    enum CodingKeys: String, CodingKey {
        case status, isExpensive = "expensive", ipv4, ipv6, primary, underlay, interfaces, identity
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        status = try container.decode(Status.self, forKey: .status)
        isExpensive = try container.decode(Bool.self, forKey: .isExpensive)
        ipv4 = try container.decode(Bool.self, forKey: .ipv4)
        ipv6 = try container.decode(Bool.self, forKey: .ipv6)
        primary = try container.decodeIfPresent(InterfaceReference.self, forKey: .primary)
        underlay = try container.decodeIfPresent(InterfaceReference.self, forKey: .underlay)
        interfaces = try container.decode([Interface].self, forKey: .interfaces)
        identity = try container.decodeIfPresent(PathIdentity.self, forKey: .identity) ?? .none
    }

    // Explicit so that `null` is written for a missing primary or underlay (the contract).
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(status, forKey: .status)
        try container.encode(isExpensive, forKey: .isExpensive)
        try container.encode(ipv4, forKey: .ipv4)
        try container.encode(ipv6, forKey: .ipv6)
        try container.encode(primary, forKey: .primary)
        try container.encode(underlay, forKey: .underlay)
        try container.encode(interfaces, forKey: .interfaces)
        try container.encode(identity, forKey: .identity)
    }
}

/// An interface named in a path: its name and type.
public struct InterfaceReference: Sendable, Hashable, Codable, CustomStringConvertible {
    public var name: String
    public var type: InterfaceType

    public init(name: String, type: InterfaceType) {
        self.name = name
        self.type = type
    }

    public var description: String { "\(name)(\(type))" }
}

/// One interface as published: identity, classification, state, addresses, evidence.
public struct Interface: Sendable, Hashable, Codable {
    public var name: String
    public var index: Int32
    public var type: InterfaceType
    public var isExpensive: Bool
    /// Administratively up (`IFF_UP`).
    public var isUp: Bool
    /// UP, LOWER_UP and RUNNING: able to carry traffic.
    public var isRunning: Bool
    /// `address/prefix` strings, IPv4 first.
    public var addresses: [String]
    /// The classifier's evidence, decisive signal marked.
    public var evidence: [String]

    public init(
        name: String, index: Int32, type: InterfaceType, isExpensive: Bool, isUp: Bool, isRunning: Bool,
        addresses: [String] = [], evidence: [String] = []
    ) {
        self.name = name
        self.index = index
        self.type = type
        self.isExpensive = isExpensive
        self.isUp = isUp
        self.isRunning = isRunning
        self.addresses = addresses
        self.evidence = evidence
    }

    enum CodingKeys: String, CodingKey {
        case name, index, type, isExpensive = "expensive", isUp = "up", isRunning = "running", addresses, evidence
    }
}
