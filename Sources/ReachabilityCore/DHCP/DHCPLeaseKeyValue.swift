/// systemd-networkd and NetworkManager (internal client) lease files: `KEY=VALUE` lines.
///
/// ## systemd-networkd
///
/// `/run/systemd/netif/leases/IFINDEX`, written by `dhcp_lease_save()` in systemd's
/// `src/libsystemd-network/sd-dhcp-lease.c` whenever networkd saves the link's state (the link
/// state file `/run/systemd/netif/links/IFINDEX` then names it in `DHCP_LEASE=`; the file is
/// removed when the link has no DHCPv4 lease). The layout followed here is the one that
/// function has written from systemd v220 (when vendor-specific data was first saved) through
/// the v25x releases (checked against the v256-era source):
///
/// ```
/// # This is private data. Do not parse.
/// ADDRESS=192.168.43.37
/// NETMASK=255.255.255.0
/// ROUTER=192.168.43.1
/// SERVER_ADDRESS=192.168.43.1
/// LIFETIME=1h
/// DNS=192.168.43.1
/// CLIENTID=ff…
/// VENDOR_SPECIFIC=414e44524f49445f4d455445524544
/// OPTION_224=…
/// ```
///
/// Option 43 is saved as `VENDOR_SPECIFIC=` followed by `hexmem()` of the payload: lower-case
/// hex, two digits per byte, no separators (read back with `unhexmem()` by `dhcp_lease_load()`).
/// systemd reads the file with `parse_env_file()`, so this parser follows env-file rules as far
/// as they matter: `#` and `;` comment lines, whitespace around key and value ignored, the last
/// assignment of a key wins, and a value wrapped in matching single or double quotes is
/// unquoted. Beyond what systemd writes, a `VENDOR_SPECIFIC` value that is not valid hex
/// (or is colon-separated hex) is accepted, the former as the literal bytes of the text.
///
/// ## NetworkManager, internal DHCP client
///
/// `/var/lib/NetworkManager/internal-CONNECTION_UUID-IFACE.lease`. Two generations:
///
/// - NetworkManager 1.20 and older with the systemd-based internal client (`dhcp=internal`
///   before nettools, or `dhcp=systemd` later) saved leases with its vendored copy of systemd's
///   `dhcp_lease_save()`: the networkd layout above, including `VENDOR_SPECIFIC=`.
/// - The nettools ("n-dhcp4") client, the default internal client since 1.22, writes only
///   `# This is private data. Do not parse.` and `ADDRESS=…` (its `lease_save()` keeps just the
///   address to request it again). Such a file carries no option 43: the parser reports the
///   address and no hint. NetworkManager itself exposes the hint over D-Bus as `Metered`.
///
/// Both generations share the networkd syntax, so one parser serves them.
///
/// ## DNS servers and the captive-portal URL
///
/// Option 6 is saved as `DNS=` followed by the addresses separated by spaces
/// (`serialize_in_addrs()`), and only when the lease has some. Option 114 is parsed by networkd
/// (`lease_parse_captive_portal()`, v254 and later) but `dhcp_lease_save()` does not write it
/// to the lease file (checked against the v255-era source): networkd writes the portal URL
/// that applies to the link, from DHCPv4, DHCPv6 or a router advertisement, to the link state
/// file instead, read by ``NetworkdLinkState``. A `CAPTIVE_PORTAL=` line in a lease file is
/// still read, for other writers of this layout.
extension DHCPLeaseParser {
    /// The `ANDROID_METERED` hint, address, DNS servers and captive-portal URL in a
    /// systemd-networkd lease file.
    ///
    /// Never fails: text that is not a lease yields hints with nothing set.
    public static func hints(networkd text: String) -> DHCPLeaseHints {
        let values = keyValues(text)
        let vendor = values["VENDOR_SPECIFIC"].map(decodeVendorSpecific)
        let address = values["ADDRESS"].flatMap { validIPv4($0[...]) }
        let servers = values["DNS"].map { dnsServers(text: $0) } ?? []
        let portal = values["CAPTIVE_PORTAL"].flatMap { captivePortalURL(Array($0.utf8)) }
        return DHCPLeaseHints(vendorSpecific: vendor, address: address, dnsServers: servers, captivePortalURL: portal)
    }

    /// The `ANDROID_METERED` hint and address in a NetworkManager internal-client lease file
    /// (same syntax as networkd's; see the notes above on what each NetworkManager writes).
    public static func hints(networkManager text: String) -> DHCPLeaseHints {
        hints(networkd: text)
    }

    /// `KEY=VALUE` pairs under env-file rules; later assignments win.
    static func keyValues(_ text: String) -> [String: String] {
        var values: [String: String] = [:]
        for rawLine in text.split(omittingEmptySubsequences: true, whereSeparator: { $0 == "\n" || $0 == "\r\n" || $0 == "\r" }) {
            let line = rawLine.trimmingBlanks()
            guard let first = line.first, first != "#", first != ";" else { continue }
            guard let equals = line.firstIndex(of: "=") else { continue }
            let key = line[..<equals].trimmingBlanks()
            guard !key.isEmpty else { continue }
            var value = line[line.index(after: equals)...].trimmingBlanks()
            if value.count >= 2, let open = value.first, open == "\"" || open == "'", value.last == open {
                value = value.dropFirst().dropLast()
            }
            values[String(key)] = String(value)
        }
        return values
    }

    /// `VENDOR_SPECIFIC=` as systemd writes it (hex), or the literal text when it is not hex.
    static func decodeVendorSpecific(_ value: String) -> [UInt8] {
        decodeHex(value[...].utf8) ?? Array(value.utf8)
    }
}
