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
            return DHCPHints(androidMetered: hints.androidMetered, leaseFile: lease.path)
        }
        return nil
    }
}
