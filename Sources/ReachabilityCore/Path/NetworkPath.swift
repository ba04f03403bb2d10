/// How this host reaches the network right now: the value the monitor publishes.
///
/// Its JSON form is a stable contract (see the README), written by ``PathJSON`` and read back
/// with `Decodable`:
/// `{"status","expensive","ipv4","ipv6","primary","underlay","interfaces","identity","connectivity","portalURL"}`.
public struct NetworkPath: Sendable, Hashable, Decodable {
    /// The transport of the path, in the vocabulary of Apple's reachability APIs.
    public enum Status: String, Sendable, Hashable, Codable, CaseIterable {
        case unreachable, wifi, cellular, wired, other
    }

    /// The transport traffic really uses (a tunnel's underlay's type), or ``Status-swift.enum/unreachable``.
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
    /// Whether the path really reaches the Internet. Without probing (the default) a routed
    /// path is ``Connectivity/unknown``; with it, the primary interface's validation.
    public var connectivity: Connectivity
    /// The captive portal's login page when ``connectivity`` is ``Connectivity/portal`` and
    /// the portal named it.
    public var portalURL: String?
    /// The data budgets counting the path's traffic (its primary interface's and its
    /// underlay's), with their state: set by the daemon, which keeps budgets; empty elsewhere.
    public var budgets: [PathBudget] = []

    /// A path given field by field (``PathEvaluator`` computes them; tests and fakes write them).
    public init(
        status: Status, isExpensive: Bool = false, ipv4: Bool = false, ipv6: Bool = false,
        primary: InterfaceReference? = nil, underlay: InterfaceReference? = nil, interfaces: [Interface] = [],
        identity: PathIdentity = .none, connectivity: Connectivity? = nil, portalURL: String? = nil
    ) {
        self.status = status
        self.isExpensive = isExpensive
        self.ipv4 = ipv4
        self.ipv6 = ipv6
        self.primary = primary
        self.underlay = underlay
        self.interfaces = interfaces
        self.identity = identity
        self.connectivity = connectivity ?? (status == .unreachable ? .none : .unknown)
        self.portalURL = portalURL
    }

    /// A path that reaches nothing.
    public static let unreachable = NetworkPath(status: .unreachable)

    /// Whether any traffic can leave: the status is not ``Status-swift.enum/unreachable``.
    public var isReachable: Bool { status != .unreachable }

    /// What a consumer usually means by "the network changed": everything but the interface
    /// list (see ``PathSummary``). `monitor.paths(distinctBy: \.summary)` publishes its changes.
    public var summary: PathSummary { PathSummary(self) }

    /// The interface named `name`, if present.
    public func interface(named name: String) -> Interface? { interfaces.first { $0.name == name } }

    /// What probing found on the primary interface: nil when not probing (or it is no uplink),
    /// `unknown` with no probes while its first round is out.
    public var primaryValidation: InterfaceValidation? { primary.flatMap { interface(named: $0.name)?.validation } }

    enum CodingKeys: String, CodingKey {
        case status, isExpensive = "expensive", ipv4, ipv6, primary, underlay, interfaces, identity, connectivity, portalURL, budgets
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
        // Written since validation exists; an older writer's path reads as not probed.
        connectivity = try container.decodeIfPresent(Connectivity.self, forKey: .connectivity) ?? (status == .unreachable ? .none : .unknown)
        portalURL = try container.decodeIfPresent(String.self, forKey: .portalURL)
        budgets = try container.decodeIfPresent([PathBudget].self, forKey: .budgets) ?? []
    }

}

/// An interface named in a path: its name and type.
public struct InterfaceReference: Sendable, Hashable, Decodable, CustomStringConvertible {
    /// The interface name (`wlan0`, `wg0`).
    public var name: String
    /// The interface's classified type.
    public var type: InterfaceType

    /// A reference to the interface `name` of type `type`.
    public init(name: String, type: InterfaceType) {
        self.name = name
        self.type = type
    }

    public var description: String { "\(name)(\(type))" }
}

/// One interface as published: identity, classification, state, addresses, evidence.
public struct Interface: Sendable, Hashable, Decodable {
    /// The interface name (`IFLA_IFNAME`).
    public var name: String
    /// The kernel's interface index, stable while the interface exists.
    public var index: Int32
    /// The classified type (see ``evidence`` for why).
    public var type: InterfaceType
    /// The interface's own cost (for a tunnel, not its underlay's): traffic over it is paid for by volume.
    public var isExpensive: Bool
    /// Administratively up (`IFF_UP`).
    public var isUp: Bool
    /// UP, LOWER_UP and RUNNING: able to carry traffic.
    public var isRunning: Bool
    /// `address/prefix` strings, IPv4 first.
    public var addresses: [String]
    /// Every signal the classifier considered, the decisive one marked (text only in JSON).
    public var evidence: [Evidence]
    /// What probing found on this interface, when it is an uplink and probing is on; nil otherwise.
    public var validation: InterfaceValidation?
    /// What nl80211 says of it (mode, network, access point, signal), for a Wi-Fi interface
    /// whose facts could be read; nil otherwise.
    public var wifi: WifiFacts?

    /// An interface given field by field.
    public init(
        name: String, index: Int32, type: InterfaceType, isExpensive: Bool, isUp: Bool, isRunning: Bool,
        addresses: [String] = [], evidence: [Evidence] = [], validation: InterfaceValidation? = nil, wifi: WifiFacts? = nil
    ) {
        self.name = name
        self.index = index
        self.type = type
        self.isExpensive = isExpensive
        self.isUp = isUp
        self.isRunning = isRunning
        self.addresses = addresses
        self.evidence = evidence
        self.validation = validation
        self.wifi = wifi
    }

    enum CodingKeys: String, CodingKey {
        case name, index, type, isExpensive = "expensive", isUp = "up", isRunning = "running", addresses, evidence, validation, wifi
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        name = try container.decode(String.self, forKey: .name)
        index = try container.decode(Int32.self, forKey: .index)
        type = try container.decode(InterfaceType.self, forKey: .type)
        isExpensive = try container.decode(Bool.self, forKey: .isExpensive)
        isUp = try container.decode(Bool.self, forKey: .isUp)
        isRunning = try container.decode(Bool.self, forKey: .isRunning)
        // Offline listings (sysfs only) carry no addresses.
        addresses = try container.decodeIfPresent([String].self, forKey: .addresses) ?? []
        evidence = try container.decode([String].self, forKey: .evidence).map(Evidence.init(text:))
        validation = try container.decodeIfPresent(InterfaceValidation.self, forKey: .validation)
        // Written since Wi-Fi facts exist; an older writer's interface has none.
        wifi = try container.decodeIfPresent(WifiFacts.self, forKey: .wifi)
    }
}
