import ReachabilityCore
/// One file to upload.
///
/// The file is streamed from disk (never held in memory). In ``Mode-swift.enum/automatic`` mode
/// a server that speaks tus 1.0 gets a resumable upload whose resume record lives in
/// ``stateDirectory``; any other server gets a plain `PUT`.
public struct UploadRequest: Sendable, Hashable {
    /// How the file is sent.
    public enum Mode: Sendable, Hashable {
        /// `PUT URL` with the file as the body. A failed attempt starts again from byte 0.
        case put
        /// `POST URL` with a `multipart/form-data` body (RFC 7578) carrying the file in the
        /// form field `field`, as `curl -F field=@FILE` does. A failed attempt starts again.
        case form(field: String)
        /// tus 1.0 when the server says it speaks it (`OPTIONS` answered with `Tus-Resumable`
        /// or `Tus-Version`), resuming where an earlier call or process stopped; `PUT` otherwise.
        case automatic
    }

    /// The file to send: a regular file (FIFOs, devices and directories are refused).
    public var file: String
    /// An `http` or `https` URL. `user:password@` in it is sent as `Authorization: Basic` and
    /// never shown: errors, progress and the resume record carry the URL without it.
    public var url: String
    /// How the file is sent.
    public var mode: Mode
    /// Extra request headers (`HTTPHeaderField.parse(_:)` checks what a user typed), sent
    /// with every request; credential fields (`Authorization`, `Cookie`, `X-Api-Key`, …) only
    /// to the URL's own origin, not to a tus upload URL on another host. `Content-Length` and
    /// `Transfer-Encoding` are the uploader's and are dropped; protocol headers (tus, the
    /// multipart `Content-Type`) replace headers of the same name.
    public var headers: [HTTPHeaderField]
    /// A PEM file with a CA certificate trusted in addition to the system roots (for `https`).
    public var caFile: String?
    /// How many consecutive attempts may fail without progress before the upload gives up.
    public var maxAttempts: Int
    /// The longest time without sending a body chunk or receiving an answer before the attempt
    /// fails as timed out.
    public var readTimeout: Duration
    /// Where tus resume records are kept (created, mode 0700, when needed). Nil keeps none: a
    /// tus upload then resumes only within the same call.
    public var stateDirectory: String?

    /// ``url`` with any `user:password@` replaced by `***@`: the form to show or log.
    public var redactedURL: String { UploadTarget.redact(url) }

    /// An upload of `file` to `url`: tus when the server speaks it, else `PUT` (see ``Mode-swift.enum``).
    public init(
        file: String, url: String, mode: Mode = .automatic, headers: [HTTPHeaderField] = [], caFile: String? = nil,
        maxAttempts: Int = 5, readTimeout: Duration = .seconds(30), stateDirectory: String? = nil
    ) {
        self.file = file
        self.url = url
        self.mode = mode
        self.headers = headers
        self.caFile = caFile
        self.maxAttempts = maxAttempts
        self.readTimeout = readTimeout
        self.stateDirectory = stateDirectory
    }
}

/// A snapshot of a running upload, reported through the `progress` closure.
public struct UploadProgress: Sendable, Hashable {
    /// Bytes of the file the server holds or that are on their way to it: the offset the
    /// attempt started from plus what it has handed to the connection since.
    public var position: Int64
    /// The file's size.
    public var totalBytes: Int64
    /// Body bytes handed to the connection by this call of ``Uploader/upload(_:progress:)``
    /// (a multipart body's framing is not counted).
    public var bytesSentThisRun: Int64
    /// The attempt (1-based) within this call.
    public var attempt: Int
    /// Whether this is a tus upload (resumable).
    public var resumable: Bool
    /// Set when the uploader is about to wait this long before its next attempt.
    public var retryingAfter: Duration?

    /// A snapshot with these values.
    public init(
        position: Int64, totalBytes: Int64, bytesSentThisRun: Int64, attempt: Int, resumable: Bool,
        retryingAfter: Duration? = nil
    ) {
        self.position = position
        self.totalBytes = totalBytes
        self.bytesSentThisRun = bytesSentThisRun
        self.attempt = attempt
        self.resumable = resumable
        self.retryingAfter = retryingAfter
    }

    /// `position / totalBytes` in `[0, 1]` (1 for an empty file).
    public var fractionCompleted: Double {
        totalBytes > 0 ? min(1, Double(position) / Double(totalBytes)) : 1
    }
}

/// A finished upload.
public struct UploadResult: Sendable, Hashable {
    /// The file's size.
    public var bytes: Int64
    /// Body bytes handed to the connection for this file and URL over all calls in this
    /// process (pauses and retries included).
    public var bytesSentTotal: Int64
    /// Of ``bytesSentTotal``, bytes sent more than once: a plain upload restarted from 0, or tus
    /// bytes that were in flight when an attempt was interrupted and never reached the server.
    /// `bytesSentTotal - bytesResent == bytes - resumedFrom` always holds.
    public var bytesResent: Int64
    /// The offset a tus server already held when this process first asked (from an earlier
    /// process, or a killed one); 0 for a fresh or a non-tus upload.
    public var resumedFrom: Int64
    /// Whether the upload went by tus.
    public var resumable: Bool
    /// The final answer's HTTP status.
    public var status: Int
    /// The uploaded resource: the tus upload URL, or the final answer's `Location`
    /// (credentials removed); nil when the server named none.
    public var location: String?
    /// Attempts made by the final call.
    public var attempts: Int

    /// A result with these values.
    public init(
        bytes: Int64, bytesSentTotal: Int64, bytesResent: Int64, resumedFrom: Int64, resumable: Bool, status: Int,
        location: String?, attempts: Int
    ) {
        self.bytes = bytes
        self.bytesSentTotal = bytesSentTotal
        self.bytesResent = bytesResent
        self.resumedFrom = resumedFrom
        self.resumable = resumable
        self.status = status
        self.location = location
        self.attempts = attempts
    }
}

/// What an upload would move, judged from local state only (no traffic): for the size limits
/// of a `TransferPolicy` before the upload starts.
public struct UploadEstimate: Sendable, Hashable {
    /// The file's size.
    public var size: Int64
    /// Bytes still to send: the size less the offset a tus server last confirmed, according
    /// to a resume record for this file and URL.
    public var remaining: Int64
}
