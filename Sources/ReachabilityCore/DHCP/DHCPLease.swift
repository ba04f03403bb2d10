/// Reading a DHCP client's lease for the Android "metered" hint, without NetworkManager.
///
/// Android's hotspot and USB tethering DHCP server put the ASCII text `ANDROID_METERED` in
/// DHCP option 43 (vendor-encapsulated options) when its upstream is metered. NetworkManager
/// checks for it with a plain substring search over the option's payload (`memmem` in its
/// nettools client, `strstr` on dhclient's `vendor_encapsulated_options`), and Android's own
/// `DhcpResults.hasMeteredHint()` does `vendorInfo.contains("ANDROID_METERED")`. The payload is
/// not a well-formed list of sub-options (Android sends the bare text), so this module does the
/// same substring search rather than decoding sub-options. See `anchors.md` §2.7 and §5 item 3.
///
/// Everything here is pure: parsers take a `String` or `[UInt8]` that the I/O layer read from
/// one of the files named by ``DHCPLeaseFiles``; malformed input never traps, it yields `nil`
/// (not a lease of that format) or a lease without the hint. The formats, each documented on
/// its parser:
///
/// | Format | Client | Parser |
/// |---|---|---|
/// | ``DHCPLeaseFormat/networkd`` | systemd-networkd | ``DHCPLeaseParser/hints(networkd:)`` |
/// | ``DHCPLeaseFormat/networkManager`` | NetworkManager's internal client | ``DHCPLeaseParser/hints(networkManager:)`` |
/// | ``DHCPLeaseFormat/dhclient`` | ISC dhclient (also under NetworkManager) | ``DHCPLeaseParser/hints(dhclient:interface:)`` |
/// | ``DHCPLeaseFormat/dhcpcd`` | dhcpcd | ``DHCPLeaseParser/hints(dhcpcd:)`` |
public enum DHCPLeaseFormat: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// `KEY=VALUE` lines written by systemd's `dhcp_lease_save()`.
    case networkd
    /// ISC dhclient's `lease { … }` blocks.
    case dhclient
    /// A raw DHCP (BOOTP) reply message, as dhcpcd stores it.
    case dhcpcd
    /// NetworkManager's internal client: the networkd `KEY=VALUE` layout.
    case networkManager

    public var description: String { rawValue }
}

/// What a DHCP lease says that matters for cost.
public struct DHCPLeaseHints: Sendable, Hashable, CustomStringConvertible {
    /// Option 43 contains `ANDROID_METERED`: the server is an Android device sharing a metered
    /// connection (hotspot or USB tethering), or NetworkManager sharing a metered one.
    public var androidMetered: Bool
    /// The raw payload of option 43 (vendor-encapsulated options) when the lease has one;
    /// `nil` when the lease has no option 43 (or the format does not record it).
    public var vendorSpecific: [UInt8]?
    /// The leased IPv4 address, dotted quad, when the lease records it. Compare it with the
    /// interface's current addresses: a lease file can outlive the network it came from.
    public var address: String?
    /// The DNS servers of option 6, dotted quads in the lease's order; empty when the lease
    /// names none (or the format does not record them). Validation asks these, not the
    /// system's resolver, so that it judges this network's DNS.
    public var dnsServers: [String]
    /// The captive-portal API URL of option 114 (RFC 8910), when the lease has one that
    /// ``DHCPLeaseParser/captivePortalURL(_:)`` accepts.
    public var captivePortalURL: String?

    /// Hints given field by field; `androidMetered` is taken as given, not derived from
    /// `vendorSpecific` (the parsers derive it).
    public init(
        androidMetered: Bool = false, vendorSpecific: [UInt8]? = nil, address: String? = nil, dnsServers: [String] = [],
        captivePortalURL: String? = nil
    ) {
        self.androidMetered = androidMetered
        self.vendorSpecific = vendorSpecific
        self.address = address
        self.dnsServers = dnsServers
        self.captivePortalURL = captivePortalURL
    }

    /// Hints derived from an option 43 payload (or its absence), an address, DNS servers and a
    /// portal URL.
    init(vendorSpecific: [UInt8]?, address: String?, dnsServers: [String] = [], captivePortalURL: String? = nil) {
        self.init(
            androidMetered: vendorSpecific.map(DHCPLeaseParser.containsAndroidMetered) ?? false,
            vendorSpecific: vendorSpecific, address: address, dnsServers: dnsServers, captivePortalURL: captivePortalURL)
    }

    public var description: String {
        var parts: [String] = [androidMetered ? "ANDROID_METERED" : "no metered hint"]
        if let vendorSpecific { parts.append("option 43: \(vendorSpecific.count) bytes") }
        if let address { parts.append("address \(address)") }
        if !dnsServers.isEmpty { parts.append("DNS \(dnsServers.joined(separator: " "))") }
        if let captivePortalURL { parts.append("captive portal API \(captivePortalURL)") }
        return parts.joined(separator: ", ")
    }
}

/// Parsers for the lease files of systemd-networkd, ISC dhclient, dhcpcd and NetworkManager.
public enum DHCPLeaseParser {
    /// DHCP option 43, vendor-encapsulated options (RFC 2132 §8.4).
    public static let vendorSpecificOption: UInt8 = 43

    /// DHCP option 6, domain name servers (RFC 2132 §3.8): IPv4 addresses, 4 bytes each.
    public static let dnsServersOption: UInt8 = 6

    /// DHCP option 114, the captive-portal API URL (RFC 8910 §2.1).
    public static let captivePortalOption: UInt8 = 114

    /// The marker Android's DHCP server sends in option 43 on a metered upstream.
    public static let androidMeteredMarker: [UInt8] = Array("ANDROID_METERED".utf8)

    /// Whether `payload` contains `ANDROID_METERED` anywhere (case-sensitive, like
    /// NetworkManager's `memmem` and Android's `String.contains`), alone or among sub-options.
    public static func containsAndroidMetered(_ payload: [UInt8]) -> Bool {
        contains(payload, androidMeteredMarker)
    }

    /// Parses `contents` as `format`. Text formats are decoded as UTF-8 (invalid sequences
    /// become U+FFFD, which cannot be part of the marker). `interface` selects the dhclient
    /// lease block and is ignored by the other formats.
    ///
    /// - Returns: `nil` when the contents are not a lease of that format (a dhcpcd file that is
    ///   not a DHCP message, a dhclient file without a complete block for `interface`).
    public static func hints(format: DHCPLeaseFormat, contents: [UInt8], interface: String?) -> DHCPLeaseHints? {
        switch format {
        case .networkd: hints(networkd: String(decoding: contents, as: UTF8.self))
        case .networkManager: hints(networkManager: String(decoding: contents, as: UTF8.self))
        case .dhclient: hints(dhclient: String(decoding: contents, as: UTF8.self), interface: interface)
        case .dhcpcd: hints(dhcpcd: contents)
        }
    }

    // MARK: - Shared helpers

    /// Naive substring search; both sides are short (an option is at most a few hundred bytes).
    static func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
        guard !needle.isEmpty else { return true }
        guard haystack.count >= needle.count else { return false }
        var start = 0
        while start <= haystack.count - needle.count {
            var offset = 0
            while offset < needle.count, haystack[start + offset] == needle[offset] { offset += 1 }
            if offset == needle.count { return true }
            start += 1
        }
        return false
    }

    /// Contiguous hex (`414e44`, systemd's `hexmem()`), optionally with `:` between bytes
    /// (`41:4e:44`). Each colon-separated group may be one or two digits, as ISC dhclient
    /// prints bytes with `%x` (no zero padding: `1:4:c0`). `nil` if anything else appears or a
    /// contiguous run has an odd length.
    static func decodeHex(_ text: Substring.UTF8View) -> [UInt8]? {
        let bytes = Array(text)
        guard !bytes.isEmpty else { return [] }
        if bytes.contains(UInt8(ascii: ":")) {
            var result: [UInt8] = []
            result.reserveCapacity(bytes.count / 3 + 1)
            for group in bytes.split(separator: UInt8(ascii: ":"), omittingEmptySubsequences: false) {
                guard group.count == 1 || group.count == 2 else { return nil }
                var value: UInt8 = 0
                for digit in group {
                    guard let nibble = ASCIIHex.value(digit) else { return nil }
                    value = value << 4 | nibble
                }
                result.append(value)
            }
            return result
        }
        guard bytes.count % 2 == 0 else { return nil }
        var result: [UInt8] = []
        result.reserveCapacity(bytes.count / 2)
        var index = 0
        while index < bytes.count {
            guard let high = ASCIIHex.value(bytes[index]), let low = ASCIIHex.value(bytes[index + 1]) else { return nil }
            result.append(high << 4 | low)
            index += 2
        }
        return result
    }

    /// `a.b.c.d` from four bytes of `bytes` starting at `offset`, or `nil` when out of range
    /// or all zero (`0.0.0.0` means "no address" in BOOTP).
    static func dottedQuad(_ bytes: [UInt8], at offset: Int) -> String? {
        guard offset >= 0, offset + 4 <= bytes.count else { return nil }
        let quad = bytes[offset..<(offset + 4)]
        guard quad.contains(where: { $0 != 0 }) else { return nil }
        return quad.map(String.init).joined(separator: ".")
    }

    /// Accepts `a.b.c.d` with four decimal octets 0…255; anything else is `nil`.
    static func validIPv4(_ text: Substring) -> String? {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4 else { return nil }
        for part in parts {
            guard (1...3).contains(part.count), part.allSatisfy(\.isASCII), part.allSatisfy(\.isNumber),
                let value = Int(part), value <= 255
            else { return nil }
        }
        return String(text)
    }
}
