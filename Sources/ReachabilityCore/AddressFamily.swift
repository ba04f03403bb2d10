/// An IP address family.
public enum AddressFamily: String, Sendable, Hashable, Codable, CaseIterable, CustomStringConvertible {
    case ipv4
    case ipv6

    public var description: String { self == .ipv4 ? "IPv4" : "IPv6" }
}
