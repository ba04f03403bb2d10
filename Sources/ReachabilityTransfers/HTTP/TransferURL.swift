import FoundationEssentials
import ReachabilityCore

/// A transfer's URL, split into what is sent, what is shown and what is stored. Credentials in
/// the URL (`https://user:pass@host/…`) are sent as `Authorization: Basic` and never appear in
/// a message, a log line, JSON or a file; query parameters that look like secrets
/// (`token=`, `sig=`, `X-Amz-Signature=`, …) are shown as `***`.
public struct TransferURL: Sendable, Hashable, CustomStringConvertible {
    /// The URL as given.
    private let original: String
    /// The URL requested: without userinfo.
    public let requestURL: String
    /// The `Authorization` header value for userinfo in the URL.
    let authorization: String?
    /// The URL with userinfo and secret query values replaced by `***`: for messages and JSON.
    public let redacted: String
    /// The host, without brackets or port (what routes are looked up for).
    public let host: String
    /// What identifies the resource in a sidecar file without a secret in it: the redacted URL,
    /// plus a digest of the requested URL when something was redacted.
    let storageKey: String
    /// The URL holds a credential: userinfo, or a query value that looks like a secret. Such a
    /// URL is never written to disk (the daemon keeps it in memory only).
    public let hasSecrets: Bool

    /// Parses an `http` or `https` URL with a host; nil otherwise.
    public init?(_ text: String) {
        guard text.utf8.count <= 64 << 10, var components = URLComponents(string: text),
            let scheme = components.scheme?.lowercased(), scheme == "http" || scheme == "https",
            let host = components.host, !host.isEmpty
        else { return nil }
        if let port = components.port, !(1...65535).contains(port) { return nil }
        guard Self.hasValidAuthority(text) else { return nil }
        original = text
        self.host = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        if let user = components.user {
            let pair = user + ":" + (components.password ?? "")
            authorization = "Basic " + Data(pair.utf8).base64EncodedString()
        } else {
            authorization = nil
        }
        components.user = nil
        components.password = nil
        requestURL = components.string ?? text
        var shown = components
        if authorization != nil { shown.percentEncodedUser = "***" }
        let items = shown.percentEncodedQueryItems ?? []
        let hasSecretQuery = items.contains { Self.isSecret($0.name) && $0.value != nil }
        if hasSecretQuery {
            shown.percentEncodedQueryItems = items.map { item in
                Self.isSecret(item.name) && item.value != nil ? URLQueryItem(name: item.name, value: "***") : item
            }
        }
        redacted = shown.string ?? "(unprintable URL)"
        hasSecrets = authorization != nil || hasSecretQuery
        if !hasSecretQuery {
            storageKey = requestURL
        } else {
            let digest = ASCIIHex.lowercase(SHA256Hasher.hash(Array(requestURL.utf8)))
            storageKey = redacted + " sha256:" + digest.prefix(32)
        }
    }

    public var description: String { redacted }

    /// `text` with anything between `://` and an `@` replaced by `***`: for a URL that does not
    /// even parse, in an error message.
    public static func redactingUserinfo(_ text: String) -> String {
        guard let at = text.firstIndex(of: "@"), let scheme = text.firstRange(of: "://"), scheme.upperBound <= at else { return text }
        return String(text[..<scheme.upperBound]) + "***" + String(text[at...])
    }

    /// The file name a download of `url` gets by default: the last path component, without
    /// query or fragment; `index.html` when there is none (as curl's `-O` and wget do).
    public static func fileName(of url: String) -> String {
        let withoutQuery = url.split(separator: "?", maxSplits: 1).first.map(String.init) ?? url
        let withoutFragment = withoutQuery.split(separator: "#", maxSplits: 1).first.map(String.init) ?? withoutQuery
        let parts = withoutFragment.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count > 3, let last = parts.last, !last.isEmpty, last != ".", last != ".." else { return "index.html" }
        return String(last)
    }

    /// Query parameter names treated as secrets (case-insensitive substrings).
    /// What URLComponents lets through: a bracketed host that is no IPv6 address (`[zz]`,
    /// `[]`, `[v1.x]`), a port too long to be a number. The authority after `//`: userinfo
    /// dropped, then `[IPv6]` or a name, then nothing, `:` or `:PORT` with PORT in 1-65535.
    static func hasValidAuthority(_ text: String) -> Bool {
        // Bytes, not Characters: `#` followed by an emoji modifier is one Character.
        let bytes = Array(text.utf8)
        guard let scheme = bytes.indices.first(where: { bytes[$0...].starts(with: Array("://".utf8)) }) else { return false }
        let start = scheme + 3
        let end = bytes[start...].firstIndex { $0 == 0x2F || $0 == 0x3F || $0 == 0x23 } ?? bytes.endIndex  // / ? #
        var authority = bytes[start..<end]
        if let at = authority.lastIndex(of: 0x40) { authority = authority[(at + 1)...] }  // userinfo@
        var rest = authority[authority.endIndex...]
        if authority.first == 0x5B {  // [IPv6]
            guard let close = authority.firstIndex(of: 0x5D) else { return false }
            let literal = String(decoding: authority[(authority.startIndex + 1)..<close], as: UTF8.self)
            guard let parsed = IPPrefix.parse(literal), parsed.family == .ipv6 else { return false }
            rest = authority[(close + 1)...]
        } else if let colon = authority.lastIndex(of: 0x3A) {
            rest = authority[colon...]
        }
        guard let first = rest.first else { return true }
        guard first == 0x3A else { return false }
        let port = rest.dropFirst()
        // Leading zeros are allowed (`:065520` is 65520), as RFC 3986 and URLComponents allow them.
        guard port.allSatisfy({ (0x30...0x39).contains($0) }) else { return false }
        if port.isEmpty { return true }
        let significant = port.drop { $0 == 0x30 }
        guard significant.count <= 5, let number = Int(String(decoding: significant, as: UTF8.self)) else { return false }
        return (1...65535).contains(number)
    }

    static let secretNames = ["token", "sig", "secret", "password", "passwd", "pwd", "key", "credential", "auth", "session"]

    /// Whether a query parameter or header named `name` looks like it carries a secret.
    public static func isSecret(_ name: String) -> Bool {
        let lowered = name.lowercased()
        return secretNames.contains { lowered.contains($0) }
    }

    /// Whether a header field named `name` carries a credential: `Authorization`,
    /// `Proxy-Authorization`, `Cookie`, or a name that looks like a secret (`X-Api-Key`,
    /// `X-Auth-Token`). Such fields go to the URL's own origin only, and are never logged.
    public static func isCredentialHeader(_ name: String) -> Bool {
        let lowered = name.lowercased()
        return ["authorization", "proxy-authorization", "cookie"].contains(lowered) || isSecret(lowered)
    }

    /// `text` with every occurrence of the original URL (and its userinfo) redacted: for error
    /// details that quote the URL.
    func redact(_ text: String) -> String {
        var out = text.replacing(original, with: redacted)
        if original != requestURL { out = out.replacing(requestURL, with: redacted) }
        return out
    }
}
