import Glibc
public import ReachabilityCore

/// Finds an interface's DHCP client lease (systemd-networkd, NetworkManager, dhcpcd, dhclient)
/// and reads the hints in it, under an injectable root.
public struct DHCPLeaseReader: Sendable {
    /// The directory that stands for `/`.
    public var root: String

    public init(root: String = "/") {
        self.root = FileSystem.normalizedRoot(root)
    }

    /// Hints from the newest lease of `interface`, or nil when it has none. A lease for an
    /// address the interface no longer has (from an earlier network) is ignored.
    ///
    /// DNS servers and the captive-portal URL come from the lease; where the lease has none
    /// and systemd-networkd manages the link, from its link state file (``networkdLinkState(index:)``),
    /// the only place networkd records option 114.
    public func hints(interface: String, index: Int32, currentIPv4: [String]) -> DHCPHints? {
        var found: [(path: String, format: DHCPLeaseFormat, modified: Int)] = []
        for candidate in DHCPLeaseFiles.candidates(interface: interface, index: index) {
            let directory = root == "/" ? "/" + candidate.directory : root + "/" + candidate.directory
            if let glob = candidate.glob {
                for name in FileSystem.list(directory) ?? [] where glob.matches(name) {
                    let path = directory + "/" + name
                    if let modified = FileSystem.modificationTime(path) { found.append((path, candidate.format, modified)) }
                }
            } else {
                let path = directory + "/" + candidate.fileName
                if let modified = FileSystem.modificationTime(path) { found.append((path, candidate.format, modified)) }
            }
        }
        // Newest first; among equals, the candidate order (most specific first) stands.
        for lease in found.enumerated().sorted(by: { ($0.element.modified, -$0.offset) > ($1.element.modified, -$1.offset) }).map(\.element) {
            guard let bytes = FileSystem.readBytes(lease.path),
                let hints = DHCPLeaseParser.hints(format: lease.format, contents: bytes, interface: interface)
            else { continue }
            if let address = hints.address, !currentIPv4.isEmpty, !currentIPv4.contains(address) { continue }
            var servers = hints.dnsServers
            var portal = hints.captivePortalURL
            if servers.isEmpty || portal == nil, let state = networkdLinkState(index: index) {
                if servers.isEmpty { servers = state.dnsServers }
                portal = portal ?? state.captivePortalURL
            }
            return DHCPHints(androidMetered: hints.androidMetered, leaseFile: lease.path, dnsServers: servers, captivePortalURL: portal)
        }
        return nil
    }

    /// systemd-networkd's link state file for the link with `index`
    /// (`run/systemd/netif/links/INDEX` under the root), or nil when there is none (networkd
    /// does not manage the link, or does not run). It holds the captive-portal URL of DHCPv4,
    /// DHCPv6 or an IPv6 router advertisement (RFC 8910), so it also serves links without a
    /// DHCPv4 lease.
    public func networkdLinkState(index: Int32) -> NetworkdLinkState? {
        guard index > 0 else { return nil }
        let relative = NetworkdLinkState.path(index: index)
        let path = root == "/" ? "/" + relative : root + "/" + relative
        guard let text = FileSystem.read(path) else { return nil }
        return NetworkdLinkState(parsing: text)
    }
}
