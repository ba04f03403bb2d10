/// The destinations of the kernel route lookups that find the egress interface.
///
/// A lookup sends no packet: it asks the kernel which route a packet *would* take, with policy
/// routing, metrics and every table considered. Any address outside local networks works; set
/// them to your own servers' addresses to ask about the routes that matter to you.
public struct RouteProbes: Sendable, Hashable {
    /// The IPv4 address to look up the route to (Cloudflare's `1.1.1.1` by default).
    public var ipv4: String
    /// The IPv6 address to look up the route to (Cloudflare's `2606:4700:4700::1111` by default).
    public var ipv6: String

    /// Probes towards `ipv4` and `ipv6`, address literals; no packet is ever sent to them.
    public init(ipv4: String = "1.1.1.1", ipv6: String = "2606:4700:4700::1111") {
        self.ipv4 = ipv4
        self.ipv6 = ipv6
    }
}
