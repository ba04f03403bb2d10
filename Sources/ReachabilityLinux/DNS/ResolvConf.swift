import ReachabilityCore

/// The `nameserver` lines of `/etc/resolv.conf` (resolv.conf(5)), for a ``LinkResolver`` given
/// no servers of its own.
package enum ResolvConf {
    /// glibc uses the first three (`MAXNS`) and ignores the rest.
    package static let maximumServers = 3

    /// The servers of `nameserver ADDRESS` lines, in order, at most ``maximumServers``.
    /// Comments (`#`, `;`) and other options are skipped, and so is an address that is not an
    /// IPv4 or IPv6 literal (a zone such as `%eth0` is allowed and kept).
    package static func nameservers(in text: String) -> [String] {
        var servers: [String] = []
        for line in text.split(whereSeparator: { $0 == "\n" || $0 == "\r\n" || $0 == "\r" }) {
            let words = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
            guard words.count >= 2, words[0] == "nameserver" else { continue }
            let address = String(words[1])
            let literal = String(address.prefix { $0 != "%" })
            guard IPPrefix.parse(literal) != nil, !servers.contains(address) else { continue }
            servers.append(address)
            if servers.count == maximumServers { break }
        }
        return servers
    }

    /// The servers in the file at `path` (read up to 64 KiB); none if it cannot be read.
    static func nameservers(atPath path: String) -> [String] {
        FileSystem.read(path).map(nameservers(in:)) ?? []
    }
}
