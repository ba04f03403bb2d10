import FoundationEssentials
import ReachabilityCore

/// What an RFC 8908 captive-portal API answer says: `captive: true` is a portal (with its
/// `user-portal-url`), `captive: false` is not; anything else is no answer at all.
enum CaptivePortalAPIAnswer {
    /// The media types accepted: RFC 8908's, and plain JSON, which some deployments send.
    static let mediaTypes: Set<String> = ["application/captive+json", "application/json"]

    /// Judges one answer: a 200 with a JSON media type and a JSON object holding a boolean `captive`.
    static func judge(_ response: ProbeResponse) -> ProbeVerdict {
        guard response.status == 200 else {
            return ProbeVerdict(failure: "API answered \(response.status) \(printable(response.reason))".trimmingSuffixSpace)
        }
        let type = (response.header("Content-Type") ?? "").split(separator: ";").first.map {
            $0.trimmingBlanks().lowercased()
        }
        guard let type, mediaTypes.contains(type) else {
            let named = type.map { "'\(printable($0))'" } ?? "none"
            return ProbeVerdict(failure: "API answered Content-Type \(named), not application/captive+json")
        }
        guard let body = try? JSONDecoder().decode(Body.self, from: Data(response.body)) else {
            return ProbeVerdict(failure: "API answer is not a JSON object")
        }
        switch body.captive {
        case true?:
            let url = body.userPortalURL.flatMap(portalURL)
            return ProbeVerdict(outcome: .portal, portalURL: url, detail: "API: captive" + (url.map { ", portal \($0)" } ?? ""))
        case false?:
            return ProbeVerdict(outcome: .notCaptive, detail: "API: not captive")
        case nil:
            return ProbeVerdict(failure: "API answer has no boolean 'captive'")
        }
    }

    /// `user-portal-url` when it is an http(s) URL of printable ASCII of at most 2048 bytes:
    /// it is shown to a user and may be opened, so nothing else is passed on.
    static func portalURL(_ text: String) -> String? {
        let lower = text.lowercased()
        guard text.utf8.count <= 2048, lower.hasPrefix("http://") || lower.hasPrefix("https://"), text.utf8.count > 8,
            text.utf8.allSatisfy({ (0x21...0x7E).contains($0) })
        else { return nil }
        return text
    }

    /// A server's text fit for a detail: printable ASCII, at most 64 characters.
    private static func printable(_ text: String) -> String {
        String(String.UnicodeScalarView(text.unicodeScalars.prefix(64).map { (0x20...0x7E).contains($0.value) ? $0 : "?" }))
    }

    /// The fields a probe reads; any other field, or a field of another type, is ignored.
    private struct Body: Decodable {
        var captive: Bool?
        var userPortalURL: String?

        enum CodingKeys: String, CodingKey {
            case captive
            case userPortalURL = "user-portal-url"
        }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            captive = try? container.decodeIfPresent(Bool.self, forKey: .captive)
            userPortalURL = try? container.decodeIfPresent(String.self, forKey: .userPortalURL)
        }
    }
}

extension String {
    fileprivate var trimmingSuffixSpace: String { hasSuffix(" ") ? String(dropLast()) : self }
}
