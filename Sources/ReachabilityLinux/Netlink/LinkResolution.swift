/// What ``LinkResolver`` found for a host: addresses, or why there are none.
public struct LinkResolution: Sendable, Hashable, CustomStringConvertible {
    /// The addresses found, IPv4 (dotted quad) before IPv6 (RFC 5952); empty on failure. An
    /// address literal resolves to itself.
    public var addresses: [String]
    /// The DNS server that gave the answer, or the last one asked; `nil` when none was (an
    /// address literal, no server known, a name that cannot be asked for).
    public var server: String?
    /// `nil` when ``addresses`` is not empty; otherwise one line naming the server, such as
    /// `DNS via 10.9.0.1: name not found (NXDOMAIN)`, `DNS via 10.9.0.1: no answer in 3 s`
    /// or `no DNS server for wlan0`.
    public var failure: String?

    /// A resolution given field by field.
    public init(addresses: [String] = [], server: String? = nil, failure: String? = nil) {
        self.addresses = addresses
        self.server = server
        self.failure = failure
    }

    public var description: String { failure ?? addresses.joined(separator: ", ") }
}
