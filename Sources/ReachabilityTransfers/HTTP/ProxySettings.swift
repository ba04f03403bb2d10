import ReachabilityCore
import AsyncHTTPClient
import FoundationEssentials

/// Which proxy a URL goes through, from the variables curl and wget read: `http_proxy` (lower
/// case only, as curl: a CGI program's `HTTP_PROXY` comes from a request header),
/// `https_proxy`/`HTTPS_PROXY`, `all_proxy`/`ALL_PROXY` and `no_proxy`/`NO_PROXY` (a comma list
/// of hosts, domain suffixes such as `.example.com` or `example.com`, IP addresses, CIDR
/// blocks, or `*`). Proxy URLs are `http://[user:pass@]host[:port]` (the default scheme) or
/// `socks5://` / `socks5h://host[:port]`.
public struct ProxySettings: Sendable, Hashable {
    /// The proxy for `http` URLs (`http_proxy`); nil falls back to ``all``.
    public var http: String?
    /// The proxy for `https` URLs (`https_proxy`); nil falls back to ``all``.
    public var https: String?
    /// The proxy for URLs whose scheme has none of its own (`all_proxy`).
    public var all: String?
    /// Hosts reached directly (`no_proxy`): names, domain suffixes, addresses, CIDR blocks, or
    /// `*`. Entries are compared with the lower-cased host, so write them in lower case.
    public var noProxy: [String]

    /// Settings given directly rather than read from the environment; nil is no proxy.
    public init(http: String? = nil, https: String? = nil, all: String? = nil, noProxy: [String] = []) {
        self.http = http
        self.https = https
        self.all = all
        self.noProxy = noProxy
    }

    /// No proxy for anything.
    public static let none = ProxySettings()

    /// The settings in the process's environment.
    public static func fromEnvironment() -> ProxySettings {
        fromEnvironment(ProcessInfo.processInfo.environment)
    }

    /// The settings in `environment`.
    public static func fromEnvironment(_ environment: [String: String]) -> ProxySettings {
        func value(_ names: String...) -> String? {
            names.lazy.compactMap { environment[$0] }.first { !$0.trimmingBlanks().isEmpty }
        }
        let exceptions = value("no_proxy", "NO_PROXY").map {
            $0.split(separator: ",").map { $0.trimmingBlanks().lowercased() }.filter { !$0.isEmpty }
        }
        return ProxySettings(
            http: value("http_proxy"), https: value("https_proxy", "HTTPS_PROXY"), all: value("all_proxy", "ALL_PROXY"),
            noProxy: exceptions ?? []
        )
    }

    /// The proxy for `url`, nil to connect directly.
    /// - Throws: a `proxyFailure` error for a proxy URL that cannot be used.
    func proxy(for url: TransferURL, scheme: String) throws(TransferError) -> HTTPClient.Configuration.Proxy? {
        guard let text = (scheme == "https" ? https : http) ?? all, !bypasses(url.host) else { return nil }
        guard let proxy = Self.parse(text) else {
            throw TransferError(.proxyFailure, url: url.redacted, detail: "unusable proxy setting (expected http://HOST:PORT or socks5://HOST:PORT)")
        }
        return proxy
    }

    /// Whether `host` is excepted by `no_proxy`.
    func bypasses(_ host: String) -> Bool {
        let host = host.lowercased()
        return noProxy.contains { entry in
            if entry == "*" { return true }
            if entry.contains("/") { return Self.cidr(entry, contains: host) }
            let domain = entry.hasPrefix(".") ? String(entry.dropFirst()) : entry
            let bare = domain.split(separator: ":").count == 2 && !domain.contains("[") ? String(domain.split(separator: ":")[0]) : domain
            return host == bare || host.hasSuffix("." + bare)
        }
    }

    /// Whether the CIDR block `entry` (`10.0.0.0/8`, `fd00::/8`) holds the address `host`.
    static func cidr(_ entry: String, contains host: String) -> Bool {
        let parts = entry.split(separator: "/", maxSplits: 1)
        guard parts.count == 2, let network = IPPrefix.parse(String(parts[0])), let address = IPPrefix.parse(host),
            network.family == address.family, let length = Int(parts[1]), (0...network.bytes.count * 8).contains(length)
        else { return false }
        for bit in 0..<length {
            let mask = UInt8(0x80) >> UInt8(bit % 8)
            if network.bytes[bit / 8] & mask != address.bytes[bit / 8] & mask { return false }
        }
        return true
    }

    static func parse(_ text: String) -> HTTPClient.Configuration.Proxy? {
        let withScheme = text.contains("://") ? text : "http://" + text
        guard let components = URLComponents(string: withScheme), let host = components.host, !host.isEmpty,
            let scheme = components.scheme?.lowercased()
        else { return nil }
        let bareHost = host.hasPrefix("[") ? String(host.dropFirst().dropLast()) : host
        switch scheme {
        case "http":
            let port = components.port ?? 1080
            guard (1...65535).contains(port) else { return nil }
            let authorization = components.user.map { HTTPClient.Authorization.basic(username: $0, password: components.password ?? "") }
            return .server(host: bareHost, port: port, authorization: authorization)
        case "socks5", "socks5h":
            let port = components.port ?? 1080
            guard (1...65535).contains(port) else { return nil }
            return .socksServer(host: bareHost, port: port)
        default:
            return nil
        }
    }
}
