import ReachabilityCore
import ReachabilityLinux

/// A connected socket to a probe's server, out of the target's interface: the host resolved
/// through that interface's DNS servers (an address literal needs none), then each address
/// tried in turn until one connects or the deadline passes.
struct ProbeConnection: Sendable {
    /// The connected descriptor; the caller hands it to NIO or closes it.
    var socket: Int32
    /// The address connected to, `10.77.0.1:80` or `[2001:db8::1]:443`.
    var address: String

    /// At most this many addresses are tried: a name with dozens of addresses must not turn one
    /// probe into dozens of connections.
    static let maximumAttempts = 4

    /// Connects to `host`:`port` for `target`. On failure, the last address tried comes back
    /// with the reason, for the record.
    static func open(
        host: String, port: Int, target: ProbeTarget, namespace: NetworkNamespace?, deadline: ProbeDeadline
    ) async -> Result<ProbeConnection, ConnectionFailure> {
        let addresses: [String]
        switch await resolve(host, target: target, namespace: namespace, deadline: deadline) {
        case .success(let resolved): addresses = resolved
        case .failure(let failure): return .failure(ConnectionFailure(address: nil, failure: failure))
        }
        var last = ConnectionFailure(address: nil, failure: ProbeFailure(detail: "no address to connect to"))
        let attempts = Array(addresses.prefix(maximumAttempts))
        for (index, address) in attempts.enumerated() {
            let text = address.contains(":") ? "[\(address)]:\(port)" : "\(address):\(port)"
            guard !deadline.hasPassed else { break }
            // The last address gets all the time left; one before it at most half, so a
            // black-holed first address does not starve the others.
            let left = deadline.remaining
            let budget = index == attempts.count - 1 ? left : left / 2
            let outcome = await ProbeSocket.connect(
                to: address, port: port, interface: target.interface, namespace: namespace, timeout: budget)
            switch outcome {
            case .success(let socket):
                return .success(ProbeConnection(socket: socket, address: text))
            case .failure(let error):
                let detail = error.isDeadline && deadline.hasPassed ? deadline.timedOut("connecting to \(text)") : error.description
                last = ConnectionFailure(address: text, failure: ProbeFailure(detail: detail))
            }
        }
        if deadline.hasPassed, last.failure.detail == "no address to connect to" {
            last.failure = ProbeFailure(detail: deadline.timedOut("connecting"))
        }
        return .failure(last)
    }

    /// The addresses to try: the literal itself, or the name through the target's DNS servers
    /// from inside its namespace. IPv4 first when the target routes IPv4 (IPv6 alone otherwise).
    private static func resolve(
        _ host: String, target: ProbeTarget, namespace: NetworkNamespace?, deadline: ProbeDeadline
    ) async -> Result<[String], ProbeFailure> {
        if IPPrefix.parse(host) != nil { return .success([host]) }
        // A target that claims neither family is asked about both rather than neither.
        let both = !target.ipv4 && !target.ipv6
        let resolver = LinkResolver(interface: target.interface, servers: target.dnsServers, namespace: namespace)
        let resolution = await resolver.resolve(
            host, ipv4: target.ipv4 || both, ipv6: target.ipv6 || both, timeout: deadline.remaining)
        guard resolution.addresses.isEmpty else {
            let v4 = resolution.addresses.filter { !$0.contains(":") }
            let v6 = resolution.addresses.filter { $0.contains(":") }
            return .success(target.ipv4 || both ? v4 + v6 : v6 + v4)
        }
        // The resolver's failure already names the server: `DNS via 10.9.0.1: name not found (NXDOMAIN)`.
        let via = resolution.server.map { "DNS via \($0)" } ?? "DNS"
        return .failure(ProbeFailure(detail: resolution.failure ?? "\(via): no address for \(host)"))
    }
}

/// A connection that could not be made, with the address it was last tried at.
struct ConnectionFailure: Error, Sendable {
    var address: String?
    var failure: ProbeFailure
}
