import FoundationEssentials

extension PortalNetwork {
    /// Every request nginx answered (the probe endpoint, HTTPS, the portal, the RFC 8908
    /// API), one `ADDRESS:PORT CLIENT "REQUEST" STATUS` line each, in order. nginx writes a
    /// line when a response ends.
    public func httpRequests() -> [String] {
        let log = (try? String(contentsOfFile: servers.accessLog, encoding: .utf8)) ?? ""
        return log.split(separator: "\n").map(String.init)
    }

    /// How many connections the stalling server (``stallPort``) accepted.
    public func stalledConnections() -> Int {
        let log = (try? String(contentsOfFile: servers.stallLog, encoding: .utf8)) ?? ""
        return log.split(separator: "\n").filter { $0 == "accepted" }.count
    }

    /// Everything that reached a server so far: HTTP requests, stalled connections and DNS
    /// queries on both uplinks.
    public var probeTraffic: Int {
        httpRequests().count + stalledConnections() + Uplink.allCases.reduce(0) { $0 + dnsQueries(on: $1).count }
    }

    /// `http://ADDRESS[:PORT]PATH` on ``internetAddress`` (or `host`).
    public static func url(_ path: String, host: String = internetAddress, port: Int? = nil, https: Bool = false) -> String {
        (https ? "https://" : "http://") + host + (port.map { ":\($0)" } ?? "") + path
    }
}
