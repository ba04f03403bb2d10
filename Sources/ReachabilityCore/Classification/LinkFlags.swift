/// The kernel's `IFF_*` interface flags (`ifi_flags` of `RTM_NEWLINK`, or sysfs `flags`).
public struct LinkFlags: OptionSet, Sendable, Hashable {
    public let rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    /// Administratively up (`IFF_UP`).
    public static let up = LinkFlags(rawValue: 0x1)
    /// The link has a valid broadcast address (`IFF_BROADCAST`).
    public static let broadcast = LinkFlags(rawValue: 0x2)
    /// The loopback interface (`IFF_LOOPBACK`): never an egress.
    public static let loopback = LinkFlags(rawValue: 0x8)
    /// A point-to-point link with no link-layer neighbours (`IFF_POINTOPOINT`): PPP, tun, WireGuard.
    public static let pointToPoint = LinkFlags(rawValue: 0x10)
    /// Operationally up as RFC 2863 sees it (`IFF_RUNNING`).
    public static let running = LinkFlags(rawValue: 0x40)
    /// The link does no ARP (`IFF_NOARP`): tunnels and other links without a link layer.
    public static let noARP = LinkFlags(rawValue: 0x80)
    /// A bond or team master (`IFF_MASTER`); bridges do not set it.
    public static let master = LinkFlags(rawValue: 0x400)
    /// Enslaved to a bond or team (`IFF_SLAVE`); bridge ports do not set it.
    public static let slave = LinkFlags(rawValue: 0x800)
    /// The driver signals carrier (`IFF_LOWER_UP`).
    public static let lowerUp = LinkFlags(rawValue: 0x10000)
    /// The driver reports the link dormant (`IFF_DORMANT`): up, but waiting for an external event
    /// such as 802.1X authentication.
    public static let dormant = LinkFlags(rawValue: 0x20000)

    /// UP, LOWER_UP and RUNNING: the only state in which a link can carry traffic.
    public var canCarryTraffic: Bool { isSuperset(of: [.up, .lowerUp, .running]) }
}
