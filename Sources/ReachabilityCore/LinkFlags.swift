/// The kernel's `IFF_*` interface flags (`ifi_flags` of `RTM_NEWLINK`, or sysfs `flags`).
public struct LinkFlags: OptionSet, Sendable, Hashable {
    public let rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    /// Administratively up (`IFF_UP`).
    public static let up = LinkFlags(rawValue: 0x1)
    public static let broadcast = LinkFlags(rawValue: 0x2)
    public static let loopback = LinkFlags(rawValue: 0x8)
    public static let pointToPoint = LinkFlags(rawValue: 0x10)
    /// Operationally up as RFC 2863 sees it (`IFF_RUNNING`).
    public static let running = LinkFlags(rawValue: 0x40)
    public static let noARP = LinkFlags(rawValue: 0x80)
    public static let master = LinkFlags(rawValue: 0x400)
    public static let slave = LinkFlags(rawValue: 0x800)
    /// The driver signals carrier (`IFF_LOWER_UP`).
    public static let lowerUp = LinkFlags(rawValue: 0x10000)
    public static let dormant = LinkFlags(rawValue: 0x20000)

    /// UP, LOWER_UP and RUNNING: the only state in which a link can carry traffic.
    public var canCarryTraffic: Bool { isSuperset(of: [.up, .lowerUp, .running]) }
}
