/// Options 6 (DNS servers) and 114 (captive-portal API URL), as every lease format records
/// them, checked the same way whatever the format.
extension DHCPLeaseParser {
    /// The longest captive-portal URL kept. RFC 8910 allows up to 255 bytes in the DHCPv4
    /// option (more through RFC 3396 concatenation); anything past this is not a URL a
    /// client should fetch.
    public static let captivePortalURLLimit = 2048

    /// More DNS servers than any lease holds (option 6 fits 63): a list is cut here.
    static let dnsServerLimit = 32

    /// The captive-portal API URL in an option 114 payload (or a lease file's text of it), or
    /// `nil` unless it is an `http://` or `https://` URL (scheme in any case) with something
    /// after the scheme, of 1…``captivePortalURLLimit`` bytes, every one printable ASCII
    /// (`!`…`~`: no space, no control byte, no UTF-8). Trailing NULs, which some servers send
    /// as a C string terminator, are dropped first.
    ///
    /// RFC 8910 asks for `https`; `http` is kept too because networks in the field send it and
    /// the caller decides what to trust. The RFC's "no portal" URN
    /// (`urn:ietf:params:capport:unrestricted`) is not a URL to fetch and yields `nil`.
    public static func captivePortalURL(_ payload: [UInt8]) -> String? {
        var bytes = payload[...]
        while bytes.last == 0 { bytes = bytes.dropLast() }
        guard !bytes.isEmpty, bytes.count <= captivePortalURLLimit, bytes.allSatisfy({ (0x21...0x7E).contains($0) }) else {
            return nil
        }
        let lowered = bytes.prefix(8).map { (0x41...0x5A).contains($0) ? $0 | 0x20 : $0 }
        let scheme = lowered.starts(with: Array("https://".utf8)) ? 8 : lowered.starts(with: Array("http://".utf8)) ? 7 : 0
        guard scheme > 0, bytes.count > scheme else { return nil }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The IPv4 addresses in a text list (`192.168.1.1 192.168.1.2` as systemd writes it,
    /// `192.168.1.1,192.168.1.2` as dhclient does), in order, duplicates and anything that
    /// is not a dotted quad dropped.
    static func dnsServers(text: some StringProtocol) -> [String] {
        var servers: [String] = []
        for word in text.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "," }) {
            guard servers.count < dnsServerLimit else { break }
            if let address = validIPv4(Substring(word)), !servers.contains(address) { servers.append(address) }
        }
        return servers
    }

    /// The addresses of an option 6 payload. As systemd's `lease_parse_in_addrs()`, a payload
    /// whose length is not a multiple of 4 is refused whole; `0.0.0.0` entries are dropped.
    static func dnsServers(option payload: [UInt8]) -> [String] {
        guard payload.count % 4 == 0 else { return [] }
        var servers: [String] = []
        for offset in stride(from: 0, to: payload.count, by: 4) {
            guard servers.count < dnsServerLimit else { break }
            if let address = dottedQuad(payload, at: offset), !servers.contains(address) { servers.append(address) }
        }
        return servers
    }
}
