import NIOHTTP1
import ReachabilityCore

/// The one request a probe sends: a plain `GET` that no cache answers and that carries nothing
/// about the user (no cookies, no credentials).
enum ProbeRequest {
    /// The head for `endpoint`, asking for `accept` (`*/*`, or the RFC 8908 media type).
    static func head(for endpoint: ProbeEndpoint, accept: String, userAgent: String) -> HTTPRequestHead {
        var head = HTTPRequestHead(version: .http1_1, method: .GET, uri: endpoint.target)
        head.headers.add(name: "Host", value: hostHeader(endpoint))
        head.headers.add(name: "User-Agent", value: userAgent)
        head.headers.add(name: "Accept", value: accept)
        head.headers.add(name: "Cache-Control", value: "no-cache")
        // One request per connection: the answer ends when the server closes, and no
        // connection outlives its probe.
        head.headers.add(name: "Connection", value: "close")
        return head
    }

    /// `host`, `host:8080`, `[2001:db8::1]:8080`: the port only when it is not the scheme's.
    static func hostHeader(_ endpoint: ProbeEndpoint) -> String {
        let host = endpoint.host.contains(":") ? "[\(endpoint.host)]" : endpoint.host
        let defaultPort = endpoint.isHTTPS ? 443 : 80
        return endpoint.port == defaultPort ? host : "\(host):\(endpoint.port)"
    }
}
