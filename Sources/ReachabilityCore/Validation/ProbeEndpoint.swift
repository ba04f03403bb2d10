/// One probe URL, checked when it is given: `http://` or `https://`, a host, an optional port
/// and path. No userinfo (a probe carries no credentials), no fragment.
public struct ProbeEndpoint: Sendable, Hashable, CustomStringConvertible {
    /// The URL as it will be requested (`http://connectivity-check.ubuntu.com/`).
    public var url: String
    /// `https` rather than `http`.
    public var isHTTPS: Bool
    /// The host name or address, without IPv6 brackets.
    public var host: String
    /// The port (80 or 443 unless given).
    public var port: Int
    /// The request target: path and query, at least `/`.
    public var target: String
    /// The body a success carries, when the endpoint answers 200 with a known text (Firefox's
    /// `success`, NetworkManager's `NetworkManager is online`); nil: success is 204, or a 200
    /// with at most one body byte (Chromium's rule).
    public var expectedBody: String?

    /// Parses `text`; `expectedBody` nil takes the known answer of a well-known endpoint
    /// (``knownBodies``), if any.
    public init(parsing text: String, expectedBody: String? = nil) throws(ProbeEndpointError) {
        func fail(_ reason: String) -> ProbeEndpointError { ProbeEndpointError(url: text, reason: reason) }
        guard text.utf8.count <= 2048 else { throw fail("longer than 2048 bytes") }
        guard !text.unicodeScalars.contains(where: { $0.value <= 0x20 || $0.value >= 0x7F }) else {
            throw fail("contains spaces, control or non-ASCII characters")
        }
        let lower = text.lowercased()
        let rest: Substring
        if lower.hasPrefix("http://") {
            isHTTPS = false
            rest = text.dropFirst(7)
        } else if lower.hasPrefix("https://") {
            isHTTPS = true
            rest = text.dropFirst(8)
        } else {
            throw fail("not an http:// or https:// URL")
        }
        guard !rest.contains("#") else { throw fail("a probe URL has no fragment") }
        let authorityEnd = rest.firstIndex(where: { $0 == "/" || $0 == "?" }) ?? rest.endIndex
        let authority = rest[..<authorityEnd]
        var path = String(rest[authorityEnd...])
        if path.hasPrefix("?") { path = "/" + path }
        target = path.isEmpty ? "/" : path
        guard !authority.contains("@") else { throw fail("a probe URL carries no user or password") }
        let (host, port) = try Self.split(authority: authority, isHTTPS: isHTTPS, fail: fail)
        self.host = host
        self.port = port
        let defaultPort = isHTTPS ? 443 : 80
        let hostText = host.contains(":") ? "[\(host)]" : host
        url = (isHTTPS ? "https://" : "http://") + hostText + (port == defaultPort ? "" : ":\(port)") + target
        self.expectedBody = expectedBody ?? Self.knownBodies[host.lowercased() + target]
    }

    private static func split(
        authority: Substring, isHTTPS: Bool, fail: (String) -> ProbeEndpointError
    ) throws(ProbeEndpointError) -> (String, Int) {
        var host: Substring
        var portText: Substring?
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { throw fail("unclosed '[' in the host") }
            host = authority[authority.index(after: authority.startIndex)..<close]
            let after = authority[authority.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { throw fail("unexpected text after the IPv6 address") }
                portText = after.dropFirst()
            }
            // Hex digits, colons and dots (`::ffff:192.0.2.1`) only: `[g::h]` or a zone (`%eth0`)
            // would otherwise pass as a host name.
            let isIPv6Byte: (UInt8) -> Bool = { ASCIIHex.value($0) != nil || $0 == UInt8(ascii: ":") || $0 == UInt8(ascii: ".") }
            guard host.contains(":"), host.utf8.allSatisfy(isIPv6Byte) else { throw fail("brackets hold only an IPv6 address") }
        } else {
            let parts = authority.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
            host = parts[0]
            if parts.count > 1 { portText = parts[1] }
        }
        guard !host.isEmpty else { throw fail("no host") }
        guard host.utf8.count <= 253 else { throw fail("host name longer than 253 bytes") }
        let allowed = host.allSatisfy { $0.isASCIIDigit || ("a"..."z").contains($0) || ("A"..."Z").contains($0) || "-._:".contains($0) }
        guard allowed else { throw fail("host '\(host)' has characters a host name cannot have") }
        var port = isHTTPS ? 443 : 80
        if let portText {
            guard !portText.isEmpty, portText.count <= 5, portText.allSatisfy(\.isASCIIDigit), let value = Int(portText),
                (1...65535).contains(value)
            else { throw fail("port '\(portText)' is not a number from 1 to 65535") }
            port = value
        }
        return (String(host), port)
    }

    public var description: String { url }

    /// Answers of well-known endpoints that reply 200 with a text, by `host/target`
    /// (see the README's list of endpoints).
    public static let knownBodies: [String: String] = [
        "detectportal.firefox.com/success.txt": "success\n",
        "nmcheck.gnome.org/check_network_status.txt": "NetworkManager is online\n",
        "fedoraproject.org/static/hotspot.txt": "OK",
        "www.msftconnecttest.com/connecttest.txt": "Microsoft Connect Test",
        "captive.apple.com/hotspot-detect.html": "<HTML><HEAD><TITLE>Success</TITLE></HEAD><BODY>Success</BODY></HTML>\n",
    ]
}

/// A probe URL that cannot be used, with the reason (`--probe ftp://x: not an http:// or https:// URL`).
public struct ProbeEndpointError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The URL as given.
    public var url: String
    /// What is wrong with it.
    public var reason: String

    /// An error given field by field.
    public init(url: String, reason: String) {
        self.url = url
        self.reason = reason
    }

    public var description: String { "probe URL '\(url)': \(reason)" }
}
