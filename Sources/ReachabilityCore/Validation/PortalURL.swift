/// Portal login-page URLs as probes find them (a `Location`, a meta refresh, a script), resolved
/// against the probe's URL and checked: they come from a network that may be hostile, and end
/// up printed on terminals and in JSON.
package enum PortalURL {
    /// The longest URL kept, in bytes.
    package static let maximumLength = 2048

    /// `reference` resolved against `endpoint` (RFC 3986 §5.2: absolute, `//host`, `/path`,
    /// `?query`, `#fragment` or a relative path, dot segments removed), if the result is
    /// ``isAcceptable(_:)``. Other schemes (`javascript:`, `ftp:`) give nil.
    package static func resolve(_ reference: some StringProtocol, against endpoint: ProbeEndpoint) -> String? {
        let text = String(reference).trimmingBlanks()
        guard !text.isEmpty, text.utf8.count <= maximumLength, text.utf8.allSatisfy(isVisibleASCII) else { return nil }
        let resolved: String
        if let scheme = scheme(of: text) {
            // Absolute: only the web's schemes, written in lower case so checks can be exact.
            let lower = scheme.lowercased()
            guard lower == "http" || lower == "https" else { return nil }
            resolved = lower + text.dropFirst(scheme.count)
        } else {
            resolved = relative(text, base: endpoint)
        }
        return isAcceptable(resolved) ? resolved : nil
    }

    /// Whether `url` may be shown as a portal's URL: `http://` or `https://` and a host, no user
    /// info (`http://bank.example@evil/` reads as the bank), at most ``maximumLength`` bytes,
    /// and nothing but visible ASCII (no control characters, spaces or escape sequences).
    package static func isAcceptable(_ url: String) -> Bool {
        let bytes = url.utf8
        guard bytes.count <= maximumLength, bytes.allSatisfy(isVisibleASCII) else { return false }
        let rest: Substring
        if url.hasPrefix("http://") {
            rest = url.dropFirst(7)
        } else if url.hasPrefix("https://") {
            rest = url.dropFirst(8)
        } else {
            return false
        }
        let authority = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        guard !authority.contains("@"), !authority.contains("\\") else { return false }
        return !authority.isEmpty && !authority.hasPrefix(":")
    }

    /// Printable ASCII without the space.
    package static func isVisibleASCII(_ byte: UInt8) -> Bool {
        byte > 0x20 && byte < 0x7F
    }

    /// The scheme of an absolute reference (`ALPHA *( ALPHA / DIGIT / "+" / "-" / "." ) ":"`
    /// before any `/`, `?` or `#`), or nil for a relative one.
    private static func scheme(of text: Substring) -> Substring? {
        guard let colon = text.firstIndex(of: ":") else { return nil }
        let scheme = text[..<colon]
        guard let first = scheme.first, first.isASCII, first.isLetter else { return nil }
        let allowed = scheme.allSatisfy { $0.isASCII && ($0.isLetter || $0.isASCIIDigit || "+-.".contains($0)) }
        return allowed ? scheme : nil
    }

    /// A relative reference merged with the probe's URL.
    private static func relative(_ text: Substring, base endpoint: ProbeEndpoint) -> String {
        let scheme = endpoint.isHTTPS ? "https" : "http"
        if text.hasPrefix("//") { return scheme + ":" + text }
        let defaultPort = endpoint.isHTTPS ? 443 : 80
        let host = endpoint.host.contains(":") ? "[\(endpoint.host)]" : endpoint.host
        let origin = scheme + "://" + host + (endpoint.port == defaultPort ? "" : ":\(endpoint.port)")
        let basePath = endpoint.target.prefix { $0 != "?" }
        if text.hasPrefix("?") { return origin + basePath + text }
        if text.hasPrefix("#") { return origin + endpoint.target + text }
        let pathEnd = text.firstIndex { $0 == "?" || $0 == "#" } ?? text.endIndex
        let path = text[..<pathEnd]
        let merged: String
        if path.hasPrefix("/") {
            merged = String(path)
        } else {
            // RFC 3986 §5.2.3: the base path up to its last slash, then the reference.
            let directory = basePath.lastIndex(of: "/").map { basePath[...$0] } ?? "/"
            merged = String(directory) + path
        }
        return origin + removingDotSegments(merged) + text[pathEnd...]
    }

    /// RFC 3986 §5.2.4 on an absolute path: `.` segments dropped, `..` removes the one before
    /// (never above the root).
    private static func removingDotSegments(_ path: String) -> String {
        let segments = path.split(separator: "/", omittingEmptySubsequences: false).dropFirst()
        var output: [Substring] = []
        for (offset, segment) in segments.enumerated() {
            let isLast = offset == segments.count - 1
            switch segment {
            case ".":
                if isLast { output.append("") }
            case "..":
                if !output.isEmpty { output.removeLast() }
                if isLast { output.append("") }
            default:
                output.append(segment)
            }
        }
        return "/" + output.joined(separator: "/")
    }
}
