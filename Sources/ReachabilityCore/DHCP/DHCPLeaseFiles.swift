/// Where DHCP clients keep an interface's IPv4 lease, as data for the I/O layer.
///
/// One candidate is a directory and a file name, both relative to a root (`/` on a live system,
/// a fixture tree in tests; no leading `/`). A pattern candidate's file name is a ``Glob``
/// over the entries of that directory, its `*` standing for a connection UUID or a Wi-Fi SSID;
/// the others are literal names.
///
/// | Client | Directory | File | Format | Source |
/// |---|---|---|---|---|
/// | systemd-networkd | `run/systemd/netif/leases` | `IFINDEX` | networkd | `link->lease_file` in networkd-link.c |
/// | NetworkManager, internal client | `var/lib/NetworkManager` | `internal-UUID-IFACE.lease` | networkManager | `nm_dhcp_utils_get_leasefile_path()` |
/// | NetworkManager running dhclient | `var/lib/NetworkManager` | `dhclient-UUID-IFACE.lease` | dhclient | same |
/// | dhcpcd 7+ (Debian, Arch, Fedora: `--dbdir=/var/lib/dhcpcd`) | `var/lib/dhcpcd` | `IFACE.lease`, `IFACE-SSID.lease` | dhcpcd | `LEASEFILE` in defs.h, `dhcp_set_leasefile()` |
/// | dhcpcd 7+ default `DBDIR` (BSD-style builds) | `var/db/dhcpcd` | `IFACE.lease`, `IFACE-SSID.lease` | dhcpcd | same |
/// | dhcpcd 5–6 | `var/lib/dhcpcd`, `var/lib/dhcpcd5` (Raspbian), `var/db` | `dhcpcd-IFACE.lease`, `dhcpcd-IFACE-SSID.lease` | dhcpcd | `LEASEFILE` = `DBDIR "/" PACKAGE "-%s%s.lease"` |
/// | ISC dhclient under ifupdown (Debian, Ubuntu) | `var/lib/dhcp` | `dhclient.IFACE.leases` | dhclient | ifupdown's `-lf` argument |
/// | ISC dhclient default (Debian, Ubuntu) | `var/lib/dhcp` | `dhclient.leases` | dhclient | `_PATH_DHCLIENT_DB` |
/// | ISC dhclient under initscripts (RHEL, Fedora) | `var/lib/dhclient` | `dhclient-IFACE.leases` | dhclient | ifup-eth's `-lf` argument |
/// | ISC dhclient default (RHEL, Fedora) | `var/lib/dhclient` | `dhclient.leases` | dhclient | `_PATH_DHCLIENT_DB` |
///
/// The shared `dhclient.leases` files hold several interfaces: pass the interface name to
/// ``DHCPLeaseParser/hints(dhclient:interface:)``. dhcpcd adds `-SSID` only on wireless
/// interfaces, escaping unusual SSID bytes; the pattern `IFACE-*.lease` can also match a
/// different interface whose name starts with `IFACE-` (rare: `wlan0-1` next to `wlan0`).
///
/// Several files may exist at once (a client used earlier, another interface's stale lease):
/// the I/O layer should read every existing candidate and trust the most recently modified,
/// using this order only to break ties, and should compare ``DHCPLeaseHints/address`` with the
/// interface's current addresses.
public struct DHCPLeaseFileCandidate: Sendable, Hashable, CustomStringConvertible {
    /// Relative to the root, no leading or trailing `/`.
    public var directory: String
    /// A literal file name, or a ``Glob`` pattern when ``isPattern``.
    public var fileName: String
    /// How the file is written, which decides the parser that reads it.
    public var format: DHCPLeaseFormat
    /// The client that writes it, for evidence (`"dhcpcd 7+"`, `"NetworkManager internal"`, …).
    public var client: String
    /// ``fileName`` is a ``Glob`` pattern (its `*` stands for a connection UUID or an SSID) to
    /// match against the directory's entries, rather than a literal name.
    public var isPattern: Bool

    /// A candidate; `directory` has no leading `/`, and `fileName` is a literal name unless `isPattern`.
    public init(directory: String, fileName: String, format: DHCPLeaseFormat, client: String, isPattern: Bool = false) {
        self.directory = directory
        self.fileName = fileName
        self.format = format
        self.client = client
        self.isPattern = isPattern
    }

    /// `directory/fileName`, relative to the root.
    public var pattern: String { directory + "/" + fileName }

    /// The file name as a ``Glob`` for a pattern candidate; `nil` for a literal name (open it
    /// directly: an interface name may contain `?`, which a glob would treat as a wildcard).
    public var glob: Glob? { isPattern ? Glob(fileName) : nil }

    public var description: String { "\(pattern) (\(format), \(client))" }
}

/// The lease files that may hold an interface's IPv4 lease, per DHCP client: the table on
/// ``DHCPLeaseFileCandidate`` as data, for the I/O layer to read under its root.
public enum DHCPLeaseFiles {
    /// The lease files that may hold `interface`'s IPv4 lease, most specific first.
    ///
    /// - Parameters:
    ///   - interface: the interface name (`IFLA_IFNAME`).
    ///   - index: the interface index (networkd names its lease file after it).
    /// - Returns: no candidates at all for a name that cannot be a path component (empty,
    ///   `.`, `..`, or containing `/` or NUL); no pattern candidates for a name containing
    ///   glob characters (`*`, `?`, `[`), which would make the pattern ambiguous.
    public static func candidates(interface: String, index: Int32) -> [DHCPLeaseFileCandidate] {
        guard !interface.isEmpty, interface != ".", interface != "..",
            !interface.contains("/"), !interface.contains("\u{0}")
        else { return [] }
        let globSafe = !interface.contains(where: { $0 == "*" || $0 == "?" || $0 == "[" })
        let name = interface
        var result: [DHCPLeaseFileCandidate] = []
        func literal(_ directory: String, _ file: String, _ format: DHCPLeaseFormat, _ client: String) {
            result.append(DHCPLeaseFileCandidate(directory: directory, fileName: file, format: format, client: client))
        }
        func pattern(_ directory: String, _ file: String, _ format: DHCPLeaseFormat, _ client: String) {
            guard globSafe else { return }
            result.append(
                DHCPLeaseFileCandidate(directory: directory, fileName: file, format: format, client: client, isPattern: true))
        }
        if index > 0 {
            literal("run/systemd/netif/leases", String(index), .networkd, "systemd-networkd")
        }
        pattern("var/lib/NetworkManager", "internal-*-\(name).lease", .networkManager, "NetworkManager internal")
        pattern("var/lib/NetworkManager", "dhclient-*-\(name).lease", .dhclient, "NetworkManager dhclient")
        literal("var/lib/dhcpcd", "\(name).lease", .dhcpcd, "dhcpcd 7+")
        pattern("var/lib/dhcpcd", "\(name)-*.lease", .dhcpcd, "dhcpcd 7+ (wireless, per SSID)")
        literal("var/db/dhcpcd", "\(name).lease", .dhcpcd, "dhcpcd 7+")
        pattern("var/db/dhcpcd", "\(name)-*.lease", .dhcpcd, "dhcpcd 7+ (wireless, per SSID)")
        literal("var/lib/dhcpcd", "dhcpcd-\(name).lease", .dhcpcd, "dhcpcd 5-6")
        pattern("var/lib/dhcpcd", "dhcpcd-\(name)-*.lease", .dhcpcd, "dhcpcd 6 (wireless, per SSID)")
        literal("var/lib/dhcpcd5", "dhcpcd-\(name).lease", .dhcpcd, "dhcpcd 5-6 (Raspbian)")
        pattern("var/lib/dhcpcd5", "dhcpcd-\(name)-*.lease", .dhcpcd, "dhcpcd 6 (Raspbian, per SSID)")
        literal("var/db", "dhcpcd-\(name).lease", .dhcpcd, "dhcpcd 5-6")
        literal("var/lib/dhcp", "dhclient.\(name).leases", .dhclient, "dhclient (ifupdown)")
        literal("var/lib/dhclient", "dhclient-\(name).leases", .dhclient, "dhclient (initscripts)")
        literal("var/lib/dhcp", "dhclient.leases", .dhclient, "dhclient (shared)")
        literal("var/lib/dhclient", "dhclient.leases", .dhclient, "dhclient (shared)")
        return result
    }

    /// ``candidates(interface:index:)`` as `(pattern, format)` pairs, the pattern relative to
    /// the root with `*` where a connection UUID or SSID goes.
    public static func patterns(interface: String, index: Int32) -> [(pattern: String, format: DHCPLeaseFormat)] {
        candidates(interface: interface, index: index).map { ($0.pattern, $0.format) }
    }
}
