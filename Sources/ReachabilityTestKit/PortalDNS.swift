import FoundationEssentials
import Glibc
import Synchronization

extension PortalNetwork {
    /// How an uplink's DNS server (dnsmasq on its gateway address) answers.
    public enum DNSMode: String, Sendable, CaseIterable {
        /// `probe.test` is ``PortalNetwork/internetAddress``; any other name is refused (no
        /// upstream server).
        case answer
        /// Every query is answered REFUSED (no names, no upstream server).
        case refuse
        /// Every name is answered NXDOMAIN.
        case nxdomain
        /// Every name is ``PortalNetwork/portalAddress``: a hijacking portal.
        case hijack
        /// No server: queries meet a closed port (ICMP port unreachable).
        case absent
        /// No server, and queries to the gateway's port 53 are dropped: the resolver times out.
        case silent

        var arguments: [String] {
            switch self {
            case .answer: ["--address=/\(PortalNetwork.probeHost)/\(PortalNetwork.internetAddress)"]
            case .refuse, .absent, .silent: []
            case .nxdomain: ["--address=/#/"]
            case .hijack: ["--address=/#/\(PortalNetwork.portalAddress)"]
            }
        }

        var runsServer: Bool { self != .absent && self != .silent }
    }

    /// Restarts the DNS server of `uplink` in `mode` and waits until it listens. Its query log
    /// (``dnsQueries(on:)``) carries on across restarts.
    public func setDNS(_ mode: DNSMode, on uplink: Uplink) throws {
        let old = dns.withLock { $0.removeValue(forKey: uplink) }
        old?.stop(grace: .seconds(2))
        if mode == .silent { try inject(.dnsDropped(uplink)) } else { try remove(.dnsDropped(uplink)) }
        guard mode.runsServer else { return }
        let directory = scratch + "/dns-\(uplink.interface)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let arguments = [
            "/usr/sbin/dnsmasq", "--no-daemon", "--conf-file=/dev/null", "--no-resolv", "--no-hosts", "--bind-interfaces",
            "--listen-address=\(uplink.gateway)", "--port=53", "--pid-file=", "--log-queries", "--log-facility=\(directory)/queries.log",
        ] + mode.arguments
        let process = try UploadTestServer.start(arguments, in: router, scratch: directory)
        dns.withLock { $0[uplink] = process }
        let deadline = ContinuousClock.now + .seconds(20)
        while ContinuousClock.now < deadline && process.isRunning {
            let listening = (try? router.run(["ss", "-Hlun"])) ?? ""
            if listening.contains("\(uplink.gateway):53 ") { return }
            usleep(20_000)
        }
        let output = (try? String(contentsOfFile: directory + "/output.log", encoding: .utf8)) ?? ""
        throw TestNamespaceError(message: "dnsmasq did not listen on \(uplink.gateway):53: \(output)")
    }

    /// The queries the DNS server of `uplink` logged (`query[A] probe.test from 10.1.0.2`), in
    /// order, across restarts.
    public func dnsQueries(on uplink: Uplink) -> [String] {
        let log = (try? String(contentsOfFile: scratch + "/dns-\(uplink.interface)/queries.log", encoding: .utf8)) ?? ""
        return log.split(separator: "\n").compactMap { line in
            line.firstRange(of: "query[").map { String(line[$0.lowerBound...]) }
        }
    }
}
