import Glibc
import ReachabilityCore

/// Resolves host names through one interface's own DNS servers, over that interface.
///
/// Connectivity validation judges one interface at a time; resolving its probe hosts through
/// the system resolver would measure the primary link's DNS instead (and a captive portal's
/// DNS hijack would go unseen). So each query goes out in a UDP socket created in the
/// interface's namespace and bound to it with `SO_BINDTODEVICE` — except for a server on
/// loopback (a local stub resolver such as systemd-resolved's 127.0.0.53 routes queries by
/// itself, and a device-bound socket would never reach `lo`).
///
/// Each query has a random id (`SystemRandomNumberGenerator`) and leaves from a random source
/// port; a datagram whose id or source does not match is ignored. A and AAAA are asked at
/// once; servers are tried in order, each given an equal share of the time left, and a server
/// that answers for sure (addresses, NXDOMAIN, no record) ends the lookup. No TCP fallback: a
/// truncated answer counts as a failure of that server.
public struct LinkResolver: Sendable {
    /// The interface queries leave through (`IFLA_IFNAME` inside ``namespace``).
    public var interface: String
    /// The servers to ask, IPv4 or IPv6 literals, in order; empty: those of ``resolvConfPath``.
    public var servers: [String]
    /// The namespace the interface lives in; `nil` for the caller's own.
    public var namespace: NetworkNamespace?
    /// Where the servers come from when ``servers`` is empty (`nameserver` lines, at most three).
    public var resolvConfPath: String

    /// A resolver for `interface`, asking `servers` (or, when empty, the `nameserver`s of
    /// `resolvConfPath`, read at each lookup).
    public init(interface: String, servers: [String], namespace: NetworkNamespace?, resolvConfPath: String = "/etc/resolv.conf") {
        self.interface = interface
        self.servers = servers
        self.namespace = namespace
        self.resolvConfPath = resolvConfPath
    }

    /// Resolves `host` to its addresses of the families asked, within `timeout`.
    ///
    /// Blocking: call it off the Swift cooperative pool, or use the `async` overload. An
    /// address literal (`10.0.0.1`, `2001:db8::1`, `[2001:db8::1]`) returns itself without any
    /// query, whatever the families asked. Never takes longer than `timeout` (and a moment).
    public func resolve(_ host: String, ipv4: Bool, ipv6: Bool, timeout: Duration) -> LinkResolution {
        let budget = Self.clamped(timeout)
        return resolve(host, ipv4: ipv4, ipv6: ipv6, deadline: .now + budget, budget: budget)
    }

    /// ``resolve(_:ipv4:ipv6:timeout:)`` with a deadline instead of a timeout.
    public func resolve(_ host: String, ipv4: Bool, ipv6: Bool, deadline: ContinuousClock.Instant) -> LinkResolution {
        resolve(host, ipv4: ipv4, ipv6: ipv6, deadline: deadline, budget: max(.zero, deadline - .now))
    }

    /// ``resolve(_:ipv4:ipv6:timeout:)`` on a dedicated thread, so no task thread blocks. The
    /// lookup is not cancelled with the task; it ends by `timeout` anyway.
    public func resolve(_ host: String, ipv4: Bool, ipv6: Bool, timeout: Duration) async -> LinkResolution {
        let budget = Self.clamped(timeout)
        let deadline = ContinuousClock.now + budget
        if let literal = Self.literal(host) { return LinkResolution(addresses: [literal]) }
        var thread: OwnerThread?
        let resolution = await withCheckedContinuation { (continuation: CheckedContinuation<LinkResolution, Never>) in
            thread = OwnerThread(name: "reach-dns") {
                continuation.resume(returning: self.resolveOnThisThread(host, ipv4: ipv4, ipv6: ipv6, deadline: deadline, budget: budget))
            }
        }
        // The body has resumed: the thread is returning, so this join is immediate.
        thread?.join()
        return resolution
    }

    private func resolve(_ host: String, ipv4: Bool, ipv6: Bool, deadline: ContinuousClock.Instant, budget: Duration) -> LinkResolution {
        if let literal = Self.literal(host) { return LinkResolution(addresses: [literal]) }
        // Entering a namespace moves the calling thread for good: do it on a throwaway one.
        guard namespace != nil else { return lookUp(host, ipv4: ipv4, ipv6: ipv6, deadline: deadline, budget: budget) }
        return OwnerThread.run(name: "reach-dns") {
            self.resolveOnThisThread(host, ipv4: ipv4, ipv6: ipv6, deadline: deadline, budget: budget)
        }
    }

    /// Enters ``namespace`` (if any) and looks up: only on a thread of our own.
    private func resolveOnThisThread(
        _ host: String, ipv4: Bool, ipv6: Bool, deadline: ContinuousClock.Instant, budget: Duration
    ) -> LinkResolution {
        if let namespace {
            do throws(NamespaceError) {
                try namespace.enterOnCurrentThread()
            } catch {
                return LinkResolution(failure: "DNS for \(interface): cannot enter its network namespace: \(error)")
            }
        }
        return lookUp(host, ipv4: ipv4, ipv6: ipv6, deadline: deadline, budget: budget)
    }

    /// The servers in turn, on the calling thread (already in the namespace).
    private func lookUp(_ host: String, ipv4: Bool, ipv6: Bool, deadline: ContinuousClock.Instant, budget: Duration) -> LinkResolution {
        let servers = servers.isEmpty ? ResolvConf.nameservers(atPath: resolvConfPath) : servers
        guard !servers.isEmpty else { return LinkResolution(failure: "no DNS server for \(interface)") }
        // A target that asks for neither family is asked about both rather than neither.
        let types: [DNSRecordType] = ipv4 == ipv6 ? [.a, .aaaa] : ipv4 ? [.a] : [.aaaa]
        do throws(DNSMessageError) {
            _ = try DNSMessage.query(id: 0, name: host, type: types[0])
        } catch {
            return LinkResolution(failure: error.description)
        }
        var silent: [String] = []
        var last: LinkResolution?
        for (position, text) in servers.enumerated() {
            let now = ContinuousClock.now
            guard now < deadline else { break }
            guard let server = SocketPeer(text, port: 53, interface: interface) else {
                last = LinkResolution(server: text, failure: "DNS via \(text): not an IP address")
                continue
            }
            let share = (deadline - now) / (servers.count - position)
            let outcome = DNSExchange(server: server, interface: interface).run(name: host, types: types, deadline: now + share)
            let addresses = types.flatMap { outcome.answers[$0]?.addresses ?? [] }
            if !addresses.isEmpty { return LinkResolution(addresses: addresses, server: text) }
            let answered = types.compactMap { outcome.answers[$0] }
            if let error = outcome.error {
                last = LinkResolution(server: text, failure: "DNS via \(text): \(error)")
            } else if answered.isEmpty {
                silent.append(text)
            } else {
                let failure = LinkResolution(server: text, failure: "DNS via \(text): \(Self.summary(answered))")
                if answered.count == types.count, answered.allSatisfy(\.isDefinitive) { return failure }
                last = failure
            }
        }
        if let last { return last }
        let asked = silent.isEmpty ? [servers[0]] : silent
        return LinkResolution(server: asked.last, failure: "DNS via \(asked.joined(separator: ", ")): no answer in \(Self.seconds(budget))")
    }

    /// One failure for the answers of one server: NXDOMAIN wins (the name does not exist),
    /// then "no A or AAAA record" when each type had none, else the first failure.
    static func summary(_ answers: [DNSAnswer]) -> String {
        let failures = answers.compactMap(\.failure)
        if let missing = failures.first(where: { $0.contains("NXDOMAIN") }) { return missing }
        if failures.count == 2, failures.allSatisfy({ $0.hasPrefix("no ") && $0.hasSuffix(" record") }) { return "no A or AAAA record" }
        return failures.first ?? "no address"
    }

    /// The address itself when `host` is an IPv4 or IPv6 literal (brackets allowed).
    static func literal(_ host: String) -> String? {
        var text = Substring(host)
        if text.first == "[", text.last == "]" { text = text.dropFirst().dropLast() }
        return IPPrefix.parse(String(text)) != nil ? String(text) : nil
    }

    /// A timeout between zero and a day: a negative one is zero, a huge one must not overflow
    /// the clock.
    static func clamped(_ timeout: Duration) -> Duration {
        min(max(timeout, .zero), .seconds(86_400))
    }

    /// `3 s`, `1.5 s`, `0.25 s`: a budget as the failure text shows it.
    static func seconds(_ duration: Duration) -> String {
        let (whole, attoseconds) = duration.components
        let hundredths = Int64(whole) * 100 + (attoseconds + 5_000_000_000_000_000) / 10_000_000_000_000_000
        let fraction = hundredths % 100
        let integer = String(hundredths / 100)
        if fraction == 0 { return "\(integer) s" }
        return fraction % 10 == 0 ? "\(integer).\(fraction / 10) s" : "\(integer).\(fraction < 10 ? "0" : "")\(fraction) s"
    }
}
