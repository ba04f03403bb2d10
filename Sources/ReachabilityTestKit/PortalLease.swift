import FoundationEssentials
import ReachabilityCore

extension PortalNetwork {
    /// The index of `uplink`'s interface in the client namespace (from `ip -o link show`:
    /// `/sys/class/net` shows the namespace `reach` was started from, not the client's).
    public func interfaceIndex(_ uplink: Uplink) throws -> Int {
        let line = try client.ip("-o", "link", "show", uplink.interface)
        guard let index = line.split(separator: ":").first.flatMap({ Int($0.trimmingBlanks()) }) else {
            throw TestNamespaceError(message: "no index in '\(line)'")
        }
        return index
    }

    /// The path of `uplink`'s systemd-networkd lease under ``leaseRoot``.
    public func leasePath(_ uplink: Uplink) throws -> String {
        leaseRoot + "/run/systemd/netif/leases/\(try interfaceIndex(uplink))"
    }

    /// Writes a systemd-networkd lease for `interface`, as networkd saves it: its address and
    /// gateway, `dns` as `DNS=` (the gateway's dnsmasq unless given; none when empty) and
    /// `captivePortal` as `CAPTIVE_PORTAL=` (RFC 8910's option 114).
    public func writeLease(interface uplink: Uplink, dns: [String]? = nil, captivePortal: String? = nil) throws {
        var lines = [
            "# This is private data. Do not parse.", "ADDRESS=\(uplink.address)", "NETMASK=255.255.255.0",
            "ROUTER=\(uplink.gateway)", "SERVER_ADDRESS=\(uplink.gateway)", "LIFETIME=1h",
        ]
        let servers = dns ?? [uplink.gateway]
        if !servers.isEmpty { lines.append("DNS=" + servers.joined(separator: " ")) }
        if let captivePortal { lines.append("CAPTIVE_PORTAL=\(captivePortal)") }
        let path = try leasePath(uplink)
        try FileManager.default.createDirectory(atPath: String(path[..<(path.lastIndex(of: "/") ?? path.endIndex)]), withIntermediateDirectories: true)
        try (lines.joined(separator: "\n") + "\n").write(toFile: path, atomically: false, encoding: .utf8)
    }

    /// Removes `uplink`'s lease, if any.
    public func removeLease(_ uplink: Uplink) throws {
        try? FileManager.default.removeItem(atPath: try leasePath(uplink))
    }
}
