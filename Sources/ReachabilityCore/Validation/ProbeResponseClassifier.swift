/// Reads one probe's HTTP answer as NetworkManager, Android and Chromium do.
///
/// - The expected answer is a success. Without ``ProbeEndpoint/expectedBody`` (or with a blank
///   one): a 204, or a 200 with at most one body byte (Chromium, AOSP). With it: a 200 whose
///   body, ASCII blanks trimmed at both ends, starts with the expected text trimmed the same way
///   (NetworkManager's prefix rule), or a 204. On any 2xx, `X-NetworkManager-Status: online`.
/// - A 511 (RFC 6585) is a portal on any endpoint, with the login page its body names.
/// - Plain HTTP, otherwise: a 3xx is a portal sending the browser to its `Location`; another
///   2xx is a portal's page where the answer belongs (its meta refresh or script names the login
///   page); 4xx, 5xx and anything else are failures.
/// - HTTPS, otherwise: a failure. The certificate was verified, so no portal answered (a 3xx
///   included): the network or the server is broken.
public enum ProbeResponseClassifier {
    /// The longest reason phrase kept in ``ProbeVerdict/detail``, in characters.
    public static let maximumReasonLength = 64

    /// The verdict on one answer: `status` and `reason` from its status line, its `headers`, and
    /// the first bytes of its `body` the prober read (64 KiB are plenty). Never traps: every
    /// text of the answer may be hostile.
    public static func classify(
        endpoint: ProbeEndpoint, status: Int, reason: String, headers: [(name: String, value: String)], body: [UInt8]
    ) -> ProbeVerdict {
        let line = statusLine(status: status, reason: reason)
        if let detail = expectationMet(endpoint: endpoint, status: status, headers: headers, body: body, line: line) {
            return ProbeVerdict(outcome: .success, detail: detail)
        }
        if status == 511 {
            return ProbeVerdict(outcome: .portal, portalURL: pageURL(body, endpoint: endpoint), detail: line)
        }
        switch status {
        case 300...399:
            let location = headers.first { $0.name.utf8.lowercasedEquals("location") }?.value
            let url = location.flatMap { PortalURL.resolve($0, against: endpoint) }
            let target = url.map { " to \($0)" } ?? (location == nil ? " without a Location" : " to an unusable Location")
            let detail = line + target
            guard !endpoint.isHTTPS else { return ProbeVerdict(outcome: .failure, detail: "\(detail), not the expected answer") }
            return ProbeVerdict(outcome: .portal, portalURL: url ?? pageURL(body, endpoint: endpoint), detail: detail)
        case 200...299:
            let detail = "\(line), \(byteCount(body.count)): not the expected answer"
            guard !endpoint.isHTTPS else { return ProbeVerdict(outcome: .failure, detail: detail) }
            return ProbeVerdict(outcome: .portal, portalURL: pageURL(body, endpoint: endpoint), detail: detail)
        default:
            return ProbeVerdict(outcome: .failure, detail: line)
        }
    }

    /// The success detail when the answer is the expected one, else nil.
    private static func expectationMet(
        endpoint: ProbeEndpoint, status: Int, headers: [(name: String, value: String)], body: [UInt8], line: String
    ) -> String? {
        let online = headers.contains {
            $0.name.utf8.lowercasedEquals("x-networkmanager-status") && String($0.value).trimmingBlanks().utf8.lowercasedEquals("online")
        }
        if (200...299).contains(status), online { return "\(line), X-NetworkManager-Status: online" }
        if status == 204 { return line }
        guard status == 200 else { return nil }
        let expected = ASCIIBytes.trimmed(ArraySlice(endpoint.expectedBody?.utf8 ?? "".utf8))
        let met = expected.isEmpty ? body.count <= 1 : ASCIIBytes.trimmed(body[...]).starts(with: expected)
        return met ? "\(line), \(byteCount(body.count))" : nil
    }

    /// The first usable URL a portal's page names, resolved against the probe's URL.
    private static func pageURL(_ body: [UInt8], endpoint: ProbeEndpoint) -> String? {
        for candidate in PortalPageScanner.candidates(in: body) {
            if let url = PortalURL.resolve(candidate, against: endpoint) { return url }
        }
        return nil
    }

    /// `302 Found`: the code and the server's reason phrase in printable ASCII, at most
    /// ``maximumReasonLength`` characters; the standard phrase when the server sent none
    /// (HTTP/2 has none).
    private static func statusLine(status: Int, reason: String) -> String {
        let printable = reason.unicodeScalars.filter { $0.value >= 0x20 && $0.value < 0x7F }
        let phrase = String(String(String.UnicodeScalarView(printable)).trimmingBlanks().prefix(maximumReasonLength)).trimmingBlanks()
        let text = phrase.isEmpty ? standardPhrases[status] ?? "" : String(phrase)
        return text.isEmpty ? "\(status)" : "\(status) \(text)"
    }

    private static func byteCount(_ count: Int) -> String {
        count == 1 ? "1 byte" : "\(count) bytes"
    }

    /// RFC 9110's phrases for the codes a probe meets.
    private static let standardPhrases: [Int: String] = [
        200: "OK", 201: "Created", 202: "Accepted", 204: "No Content", 206: "Partial Content",
        301: "Moved Permanently", 302: "Found", 303: "See Other", 304: "Not Modified", 307: "Temporary Redirect",
        308: "Permanent Redirect", 400: "Bad Request", 401: "Unauthorized", 403: "Forbidden", 404: "Not Found",
        407: "Proxy Authentication Required", 408: "Request Timeout", 429: "Too Many Requests", 500: "Internal Server Error",
        502: "Bad Gateway", 503: "Service Unavailable", 504: "Gateway Timeout", 511: "Network Authentication Required",
    ]
}
