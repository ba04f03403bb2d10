/// An IP address family.
public enum AddressFamily: String, Sendable, Hashable, Codable, CaseIterable, CustomStringConvertible {
    /// IPv4 (`AF_INET`).
    case ipv4
    /// IPv6 (`AF_INET6`).
    case ipv6

    public var description: String { self == .ipv4 ? "IPv4" : "IPv6" }
}
