/// What systemd-networkd's link state file says about a link's network: the DNS servers and
/// the captive-portal URL networkd applies to it, whatever announced them.
///
/// `/run/systemd/netif/links/IFINDEX`, written by `link_save()` in networkd-state-file.c
/// (`KEY=VALUE` lines, the lease file's syntax) for every link networkd manages. Two keys are
/// read (checked against the v255-era source):
///
/// - `CAPTIVE_PORTAL=URL`, from `link_get_captive_portal()`: the URL of DHCPv4 option 114,
///   DHCPv6 option 103 or IPv6 router advertisement option 37 (RFC 8910), whichever the
///   network sent and the `.network` file lets networkd use. Written only when there is one.
///   This is the only place networkd records option 114: its DHCPv4 lease file does not.
/// - `DNS=…`: every DNS server of the link, static and learned (DHCPv4, DHCPv6, RA RDNSS),
///   separated by spaces, each as `in_addr_full_to_string()` writes it:
///   `ADDRESS`, `[ADDRESS]:PORT` or `ADDRESS:PORT`, then optional `%IFINDEX` and `#SERVERNAME`.
///   Only the address is kept, and only for port 53 (plain DNS, what a validation probe asks).
public struct NetworkdLinkState: Sendable, Hashable {
    /// The link's DNS servers on port 53, IPv4 dotted quads and RFC 5952 IPv6, in order.
    public var dnsServers: [String]
    /// The captive-portal API URL, when ``DHCPLeaseParser/captivePortalURL(_:)`` accepts it.
    public var captivePortalURL: String?

    /// A state given field by field.
    public init(dnsServers: [String] = [], captivePortalURL: String? = nil) {
        self.dnsServers = dnsServers
        self.captivePortalURL = captivePortalURL
    }

    /// The state file of the link with `index`, relative to the root (no leading `/`).
    public static func path(index: Int32) -> String { "run/systemd/netif/links/\(index)" }

    /// Reads a link state file. Never fails: text that is not one yields an empty state.
    public init(parsing text: String) {
        let values = DHCPLeaseParser.keyValues(text)
        var servers: [String] = []
        for entry in (values["DNS"] ?? "").split(whereSeparator: { $0 == " " || $0 == "\t" }) {
            guard servers.count < DHCPLeaseParser.dnsServerLimit else { break }
            if let address = Self.address(of: entry), !servers.contains(address) { servers.append(address) }
        }
        self.init(dnsServers: servers, captivePortalURL: values["CAPTIVE_PORTAL"].flatMap { DHCPLeaseParser.captivePortalURL(Array($0.utf8)) })
    }

    /// The address of one `DNS=` entry on port 53, canonical text, or `nil`.
    static func address(of entry: Substring) -> String? {
        var text = entry
        if let hash = text.firstIndex(of: "#") { text = text[..<hash] }
        if let percent = text.firstIndex(of: "%") { text = text[..<percent] }
        var port: Substring?
        if text.first == "[" {
            guard let close = text.firstIndex(of: "]") else { return nil }
            let after = text[text.index(after: close)...]
            if !after.isEmpty {
                guard after.first == ":" else { return nil }
                port = after.dropFirst()
            }
            text = text[text.index(after: text.startIndex)..<close]
        } else if text.filter({ $0 == ":" }).count == 1, let colon = text.firstIndex(of: ":") {
            // IPv4 with a port: an IPv6 address without brackets has several colons.
            port = text[text.index(after: colon)...]
            text = text[..<colon]
        }
        if let port, port != "53" { return nil }
        guard let parsed = IPPrefix.parse(String(text)) else { return nil }
        return parsed.family == .ipv4 ? parsed.bytes.map(String.init).joined(separator: ".") : IPPrefix.ipv6Text(parsed.bytes)
    }
}
