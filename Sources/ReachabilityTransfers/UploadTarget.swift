import Foundation

/// An upload URL taken apart: what is sent, what is shown, and the credentials it carried.
///
/// `user:password@` never travels in the URL (it goes as `Authorization: Basic`) and never
/// appears in errors, progress, JSON or the resume record: those see ``redacted``
/// (`https://***@host/path`) or ``url`` (no userinfo at all).
struct UploadTarget: Sendable, Hashable {
    /// The URL without userinfo: what requests go to and what the resume record stores.
    let url: String
    /// The URL for people: userinfo replaced by `***`, unchanged when there was none.
    let redacted: String
    /// `Basic …` for the URL's userinfo, nil when it had none.
    let authorization: String?
    /// `scheme://host:port`, lowercased with the default port filled in, to tell whether
    /// another URL (a tus upload URL) may receive the credentials.
    let origin: String

    /// Nil unless `text` is an `http`/`https` URL with a host.
    init?(_ text: String) {
        guard let parts = Self.split(text) else { return nil }
        let scheme = parts.scheme.lowercased()
        guard scheme == "http" || scheme == "https" else { return nil }
        let stripped = String(parts.scheme + "://" + parts.hostPort + parts.rest)
        guard let parsed = URL(string: stripped), let host = parsed.host, !host.isEmpty else { return nil }
        if let port = parsed.port, !(1...65535).contains(port) { return nil }
        url = stripped
        redacted = parts.userinfo == nil ? stripped : String(parts.scheme + "://***@" + parts.hostPort + parts.rest)
        authorization = parts.userinfo.map(Self.basicAuthorization)
        origin = Self.origin(scheme: scheme, host: host, port: parsed.port)
    }

    /// `text` with any userinfo replaced by `***` (for URLs that did not parse, too).
    static func redact(_ text: String) -> String {
        guard let parts = split(text), parts.userinfo != nil else { return text }
        return String(parts.scheme + "://***@" + parts.hostPort + parts.rest)
    }

    /// `text` with any userinfo removed.
    static func stripCredentials(_ text: String) -> String {
        guard let parts = split(text), parts.userinfo != nil else { return text }
        return String(parts.scheme + "://" + parts.hostPort + parts.rest)
    }

    /// A `Location` (absolute, or relative to `base`) as an absolute URL without userinfo;
    /// nil when it cannot be resolved to an `http`/`https` URL.
    static func resolve(_ location: String, against base: String) -> String? {
        let trimmed = location.trimmingCharacters(in: .whitespaces)
        guard !trimmed.isEmpty, let baseURL = URL(string: base),
            let resolved = URL(string: trimmed, relativeTo: baseURL)?.absoluteURL
        else { return nil }
        let text = stripCredentials(resolved.absoluteString)
        return UploadTarget(text)?.url
    }

    /// Whether `other` (an absolute URL) is on this URL's origin, so credentials may go there.
    func isSameOrigin(_ other: String) -> Bool {
        UploadTarget(other)?.origin == origin
    }

    private static func origin(scheme: String, host: String, port: Int?) -> String {
        let defaultPort = scheme == "https" ? 443 : 80
        return "\(scheme)://\(host.lowercased()):\(port ?? defaultPort)"
    }

    /// `Basic base64(user:password)`, percent-decoded as RFC 3986 userinfo is encoded.
    private static func basicAuthorization(_ userinfo: Substring) -> String {
        let colon = userinfo.firstIndex(of: ":")
        let user = String(userinfo[..<(colon ?? userinfo.endIndex)])
        let password = colon.map { String(userinfo[userinfo.index(after: $0)...]) } ?? ""
        let pair = (user.removingPercentEncoding ?? user) + ":" + (password.removingPercentEncoding ?? password)
        return "Basic " + Data(pair.utf8).base64EncodedString()
    }

    /// scheme, userinfo (without `@`), host[:port], and the rest (path, query, fragment).
    private static func split(_ text: String) -> (scheme: Substring, userinfo: Substring?, hostPort: Substring, rest: Substring)? {
        guard let separator = text.range(of: "://") else { return nil }
        let scheme = text[..<separator.lowerBound]
        guard !scheme.isEmpty, scheme.allSatisfy({ $0.isLetter || $0.isNumber || "+-.".contains($0) }) else { return nil }
        let afterScheme = text[separator.upperBound...]
        let authorityEnd = afterScheme.firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? afterScheme.endIndex
        let authority = afterScheme[..<authorityEnd]
        let rest = afterScheme[authorityEnd...]
        guard let at = authority.lastIndex(of: "@") else { return (scheme, nil, authority, rest) }
        return (scheme, authority[..<at], authority[authority.index(after: at)...], rest)
    }
}
