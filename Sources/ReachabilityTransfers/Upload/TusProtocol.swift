import ReachabilityCore
import FoundationEssentials

/// The pure parts of tus 1.0 (https://tus.io/protocols/resumable-upload): headers, and what
/// each answer means. No I/O, so every decision is a table test.
enum TusProtocol {
    /// The protocol version sent as `Tus-Resumable` with every request.
    static let version = "1.0.0"

    /// What the metadata says about the file: its name, and a type (some servers, such as
    /// tuspyserver, refuse `HEAD` on an upload created without both).
    static func metadata(filename: String, filetype: String = "application/octet-stream") -> String {
        encodeMetadata([("filename", filename), ("filetype", filetype)])
    }

    /// `Upload-Metadata`: comma-separated `key base64(value)` pairs, in the order given. Keys
    /// must be non-empty ASCII without spaces or commas; others are left out.
    static func encodeMetadata(_ pairs: [(key: String, value: String)]) -> String {
        pairs.compactMap { pair in
            guard !pair.key.isEmpty, pair.key.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F && $0 != 0x2C }) else { return nil }
            return pair.key + " " + Data(pair.value.utf8).base64EncodedString()
        }.joined(separator: ",")
    }

    /// Whether an `OPTIONS` answer comes from a tus server: a success that names the protocol.
    static func speaksTus(status: Int, tusResumable: String?, tusVersion: String?) -> Bool {
        guard (200..<300).contains(status) else { return false }
        let versions = (tusVersion ?? tusResumable ?? "").split(separator: ",").map { String($0.trimmingBlanks()) }
        return versions.contains(version)
    }

    /// What an `OPTIONS` answer means for detection.
    enum Detection: Sendable, Hashable {
        /// The server speaks tus 1.0.
        case tus
        /// It does not: send the file plainly.
        case plain
        /// A failure that may pass (`503`, `429`): ask again.
        case retry
    }

    /// `501 Not Implemented` and `405 Method Not Allowed` say "no OPTIONS here" (Python's
    /// `http.server`, many plain servers): no tus, not a failure to retry.
    static func detection(status: Int, tusResumable: String?, tusVersion: String?) -> Detection {
        if status == 501 || status == 405 { return .plain }
        if UploadStatus.isRetryable(status) { return .retry }
        return speaksTus(status: status, tusResumable: tusResumable, tusVersion: tusVersion) ? .tus : .plain
    }

    /// `Upload-Offset` / `Upload-Length`: a non-negative decimal integer, nothing else.
    static func parseOffset(_ value: String?) -> Int64? {
        guard let text = value?.trimmingBlanks(), !text.isEmpty, text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 })
        else { return nil }
        return Int64(text)
    }

    /// What to do after `HEAD` on an upload URL.
    enum HeadDecision: Sendable, Hashable {
        /// Send the rest from this offset.
        case resume(offset: Int64)
        /// The upload is gone or is not this file's: create a new one (from byte 0).
        case recreate(reason: String)
        /// Ask again later (`408`, `429`, `5xx`).
        case retry(status: Int)
        /// Give up with this status.
        case fail(status: Int)
    }

    static func decideHead(status: Int, offset: String?, length: String?, size: Int64) -> HeadDecision {
        switch status {
        case 200..<300:
            guard let offset = parseOffset(offset) else { return .recreate(reason: "no Upload-Offset in the answer") }
            if let length = parseOffset(length), length != size {
                return .recreate(reason: "the server's Upload-Length \(length) is not the file's size \(size)")
            }
            guard offset <= size else { return .recreate(reason: "the server's offset \(offset) is past the file's end") }
            return .resume(offset: offset)
        case 404, 410:
            return .recreate(reason: "the server no longer has the upload (HTTP \(status))")
        case 403:
            // tus servers answer 403 for an upload that can no longer be changed.
            return .recreate(reason: "the server refuses the upload (HTTP 403)")
        default:
            return UploadStatus.isRetryable(status) ? .retry(status: status) : .fail(status: status)
        }
    }

    /// What to do after a `PATCH` that sent the file from `sentFrom`.
    enum PatchDecision: Sendable, Hashable {
        /// The server now holds this many bytes.
        case advanced(offset: Int64)
        /// The server accepted the `PATCH` but its offset did not move past where it started:
        /// what was sent did not land. A failed attempt, or a server that never advances would
        /// be sent the file forever.
        case stalled(offset: Int64)
        /// The server's offset is not ours (`409`), or it did not say: ask with `HEAD`.
        case resynchronize
        /// The upload is gone: create a new one.
        case recreate(reason: String)
        case retry(status: Int)
        case fail(status: Int)
    }

    static func decidePatch(status: Int, offset: String?, sentFrom: Int64, size: Int64) -> PatchDecision {
        switch status {
        case 200..<300:
            guard let offset = parseOffset(offset), offset <= size else { return .resynchronize }
            return offset > sentFrom || offset == size ? .advanced(offset: offset) : .stalled(offset: offset)
        case 409:
            return .resynchronize
        case 404, 410:
            return .recreate(reason: "the server no longer has the upload (HTTP \(status))")
        default:
            return UploadStatus.isRetryable(status) ? .retry(status: status) : .fail(status: status)
        }
    }
}

/// How any upload answer's status is judged.
enum UploadStatus {
    /// `408`, `429` and `5xx` may go away on their own; any other failure will not.
    static func isRetryable(_ status: Int) -> Bool {
        status == 408 || status == 429 || (500..<600).contains(status)
    }

    enum Decision: Sendable, Hashable {
        case success
        case retry
        case fail
    }

    /// A plain `PUT` or form `POST`: `2xx` is done; a redirect is a failure (the body
    /// cannot be sent twice in one attempt, so it is not followed).
    static func decide(_ status: Int) -> Decision {
        if (200..<300).contains(status) { return .success }
        return isRetryable(status) ? .retry : .fail
    }
}
