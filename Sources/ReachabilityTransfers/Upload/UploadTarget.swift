import ReachabilityCore
import FoundationEssentials

/// An upload URL: a ``TransferURL`` (what is sent, shown and stored; credentials go as
/// `Authorization: Basic` and are never shown or stored), plus its origin, to tell whether a
/// tus upload URL the server hands out may receive those credentials.
struct UploadTarget: Sendable, Hashable {
    let transferURL: TransferURL
    /// `scheme://host:port`, lowercased with the default port filled in.
    let origin: String

    /// The URL without userinfo: what requests go to.
    var url: String { transferURL.requestURL }
    /// The URL for people: userinfo and secret query values replaced by `***`.
    var redacted: String { transferURL.redacted }
    /// What identifies the URL in a resume record, without a secret in it.
    var storageKey: String { transferURL.storageKey }
    /// `Basic …` for the URL's userinfo, nil when it had none.
    var authorization: String? { transferURL.authorization }

    /// Nil unless `text` is an `http`/`https` URL with a host.
    init?(_ text: String) {
        guard let parsed = TransferURL(text), let components = URLComponents(string: parsed.requestURL),
            let scheme = components.scheme?.lowercased()
        else { return nil }
        transferURL = parsed
        let port = components.port ?? (scheme == "https" ? 443 : 80)
        origin = "\(scheme)://\(parsed.host.lowercased()):\(port)"
    }

    /// `text` redacted for a message, also when it does not parse.
    static func redact(_ text: String) -> String {
        TransferURL(text)?.redacted ?? TransferURL.redactingUserinfo(text)
    }

    /// A `Location` (absolute, or relative to `base`) as an absolute URL without userinfo;
    /// nil when it cannot be resolved to an `http`/`https` URL.
    static func resolve(_ location: String, against base: String) -> String? {
        let trimmed = String(location.trimmingBlanks())
        guard !trimmed.isEmpty, let baseURL = URL(string: base),
            let resolved = URL(string: trimmed, relativeTo: baseURL)?.absoluteURL
        else { return nil }
        return UploadTarget(resolved.absoluteString)?.url
    }

    /// Whether `other` (an absolute URL) is on this URL's origin, so credentials may go there.
    func isSameOrigin(_ other: String) -> Bool {
        UploadTarget(other)?.origin == origin
    }
}
