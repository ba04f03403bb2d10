import ReachabilityCore
/// One file to download.
///
/// The download writes `NAME.part` and a sidecar `NAME.part.json` next to the destination
/// (both mode 0600, never through a symlink), then renames the partial file to `destination`
/// once it is complete (and verified).
public struct DownloadRequest: Sendable, Hashable {
    /// An `http` or `https` URL. Userinfo in it is sent as Basic authorization and never shown
    /// or stored.
    public var url: String
    /// The path of the finished file. Its directory must exist and be writable; an existing
    /// file there must be a regular file (it is replaced, keeping its mode).
    public var destination: String
    /// The expected SHA-256 of the whole file, as hex (either case); nil skips verification.
    /// Setting it computes the hash (see ``computesSHA256``).
    public var expectedSHA256: String?
    /// Whether to compute the file's SHA-256 as it arrives, for ``DownloadResult/sha256``
    /// (default false; always computed when ``expectedSHA256`` is set).
    ///
    /// It costs about 0.6 CPU seconds per GiB, and a partial file left by another process is
    /// read once more to hash what it holds; without it nothing on disk is ever read back.
    public var computesSHA256: Bool
    /// A PEM file with a CA certificate trusted in addition to the system roots (for `https`).
    public var caFile: String?
    /// How many consecutive attempts may fail without bringing new bytes before the download
    /// gives up. Bytes fetched again (a server ignoring `Range`) are not new.
    public var maxAttempts: Int
    /// The longest time, over the whole download, spent waiting between failed attempts
    /// before it gives up.
    public var maxRetryTime: Duration
    /// The longest time without receiving anything (response head or body bytes) before the
    /// attempt fails as timed out.
    public var readTimeout: Duration
    /// Extra request headers (`-H`). `Range` and `If-Range` are the downloader's own.
    public var headers: [HTTPHeaderField]
    /// How many connections may fetch the file at once, in ``connectionRange`` (default 1).
    ///
    /// Above 1, the first request asks for the first 4 MiB only (`Range: bytes=0-4194303`, from
    /// the end of a partial file written from its start). When the server answers `206` with the
    /// resource's size and more remains, that body becomes the first segment and the rest is
    /// fetched in segments, each with its own `Range: bytes=FIRST-LAST` request and `If-Range`,
    /// by up to `connections` connections at once, written in place into the partial file. A
    /// segment is at least 1 MiB (the last bytes excepted) and sized to take about two seconds
    /// at its connection's rate; segments are handed out front first. Every answer must be the
    /// same resource (size, ETag, Last-Modified), else the download starts again from byte 0.
    /// A server that ignores `Range` (`200`), does not tell the size, or a file that fits in the
    /// first request, gets the one-connection download, unchanged.
    ///
    /// The metadata records the completed ranges (``PartialDownload/completed``), made durable
    /// every second and on a pause, so a pause, a `kill -9` or a crash resumes each missing
    /// range (bytes written after the last record are fetched again after a `kill -9`). A
    /// SHA-256, when computed, comes from reading the completed prefix back as it grows rather
    /// than from the bytes as they arrive. The byte limit of ``Download/run(byteLimit:admit:progress:)`` holds across
    /// all connections together, and progress is their sum. A client given to
    /// ``Downloader/init(client:retryPolicy:)`` needs room for that many connections per host.
    public var connections: Int

    /// Whether the download hashes what it writes.
    var hashes: Bool { computesSHA256 || expectedSHA256 != nil }

    /// The values ``connections`` may take.
    public static let connectionRange: ClosedRange<Int> = 1...16

    /// A download of `url` into `destination`; by default no checksum and no hash, up to 5 failed attempts in
    /// a row without new bytes, at most 10 minutes of waiting between attempts, and a 30-second
    /// read timeout.
    public init(
        url: String, destination: String, expectedSHA256: String? = nil, caFile: String? = nil,
        maxAttempts: Int = 5, maxRetryTime: Duration = .seconds(600), readTimeout: Duration = .seconds(30),
        headers: [HTTPHeaderField] = [], connections: Int = 1, computesSHA256: Bool = false
    ) {
        self.url = url
        self.destination = destination
        self.expectedSHA256 = expectedSHA256
        self.computesSHA256 = computesSHA256
        self.caFile = caFile
        self.maxAttempts = maxAttempts
        self.maxRetryTime = maxRetryTime
        self.readTimeout = readTimeout
        self.headers = headers
        self.connections = connections
    }
}

/// A snapshot of a running download, reported through the `progress` closure.
public struct DownloadProgress: Sendable, Hashable {
    /// Bytes of the resource in the partial file now.
    public var bytesOnDisk: Int64
    /// The resource's full size, when known.
    public var totalBytes: Int64?
    /// Body bytes received by this call of ``Downloader/download(_:progress:)``.
    public var bytesReceivedThisRun: Int64
    /// Bytes received again although they were already on disk and still valid, across the
    /// runs of this process for this destination. Resuming keeps this at 0; only a server
    /// that ignores `Range` for an unchanged resource makes it grow.
    public var bytesRefetched: Int64
    /// The attempt (1-based) within this call.
    public var attempt: Int
    /// Set when the downloader is about to wait this long before its next attempt.
    public var retryingAfter: Duration?
    /// Why it retries, with ``retryingAfter``.
    public var retryCause: TransferError?

    /// A progress report given field by field.
    public init(
        bytesOnDisk: Int64, totalBytes: Int64?, bytesReceivedThisRun: Int64, bytesRefetched: Int64, attempt: Int,
        retryingAfter: Duration? = nil, retryCause: TransferError? = nil
    ) {
        self.retryCause = retryCause
        self.bytesOnDisk = bytesOnDisk
        self.totalBytes = totalBytes
        self.bytesReceivedThisRun = bytesReceivedThisRun
        self.bytesRefetched = bytesRefetched
        self.attempt = attempt
        self.retryingAfter = retryingAfter
    }

    /// `bytesOnDisk / totalBytes` in `[0, 1]`, nil while the size is unknown.
    public var fractionCompleted: Double? {
        guard let totalBytes, totalBytes > 0 else { return nil }
        return min(1, Double(bytesOnDisk) / Double(totalBytes))
    }
}

/// A finished download.
public struct DownloadResult: Sendable, Hashable {
    /// The destination path, now holding the whole file.
    public var path: String
    /// The file's size.
    public var bytes: Int64
    /// SHA-256 of the file, lowercase hex, when the request computed it
    /// (``DownloadRequest/computesSHA256`` or ``DownloadRequest/expectedSHA256``).
    public var sha256: String?
    /// How many times bytes on disk were given up and the download started again from 0
    /// (resource changed, `Range` ignored, an unusable partial file), over all runs of this
    /// process for this destination.
    public var restarts: Int
    /// Body bytes received over all runs of this process for this destination (pauses and
    /// retries included). Equal to ``bytes`` when nothing had to be fetched twice and no
    /// partial file from an earlier process was reused.
    public var bytesDownloadedTotal: Int64
    /// See ``DownloadProgress/bytesRefetched``.
    public var bytesRefetched: Int64
    /// Attempts made by the final call.
    public var attempts: Int

    /// A result given field by field.
    public init(
        path: String, bytes: Int64, sha256: String?, restarts: Int, bytesDownloadedTotal: Int64,
        bytesRefetched: Int64 = 0, attempts: Int = 1
    ) {
        self.path = path
        self.bytes = bytes
        self.sha256 = sha256
        self.restarts = restarts
        self.bytesDownloadedTotal = bytesDownloadedTotal
        self.bytesRefetched = bytesRefetched
        self.attempts = attempts
    }
}

/// What a server says about a resource, from ``Downloader/probe(_:timeout:caFile:headers:)``.
public struct RemoteResource: Sendable, Hashable {
    /// The URL probed.
    public var url: String
    /// The full size, when the server told it.
    public var size: Int64?
    /// The ETag, verbatim (quoted; `W/` for a weak one).
    public var etag: String?
    /// The `Last-Modified` value, verbatim.
    public var lastModified: String?
    /// Whether the server serves byte ranges (`Accept-Ranges: bytes`, or a `206` answer).
    public var acceptsRanges: Bool

    /// What a server said about `url`, field by field.
    public init(url: String, size: Int64?, etag: String?, lastModified: String?, acceptsRanges: Bool) {
        self.url = url
        self.size = size
        self.etag = etag
        self.lastModified = lastModified
        self.acceptsRanges = acceptsRanges
    }

    /// Whether a partial download of this resource could be resumed: ranges served and a
    /// strong ETag or a `Last-Modified` to send in `If-Range`.
    public var isResumable: Bool {
        acceptsRanges && ((etag.map(EntityTag.isStrong) ?? false) || lastModified != nil)
    }
}

/// Why a download, upload or probe failed. ``description`` is one line naming the URL or path.
public struct TransferError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong, for programs to compare with (`error.kind == .diskFull`). A struct over a
    /// private code, as async-http-client's `HTTPClientError`, so kinds can be added without
    /// breaking a `switch` in an adopter's code.
    public struct Kind: Sendable, Hashable, CustomStringConvertible {
        private enum Code: Hashable {
            case invalidURL, unreachable, httpStatus(Int), notWritable, diskFull, checksumMismatch, resourceChanged
            case tlsFailure, timedOut, cancelled, io, byteLimitReached, protocolError, proxyFailure, invalidRequest
            case exitStatus, cannotRun
        }

        private let code: Code

        /// Not an `http`/`https` URL, or unparsable. Raised before any traffic.
        public static let invalidURL = Kind(code: .invalidURL)
        /// Could not connect (refused, no route, name not resolved), after the retries.
        public static let unreachable = Kind(code: .unreachable)
        /// The server answered with this status (a `4xx`, or a `5xx`/`429` after the retries).
        public static func httpStatus(_ status: Int) -> Kind { Kind(code: .httpStatus(status)) }
        /// The destination's directory is missing or not writable. Raised before any traffic.
        public static let notWritable = Kind(code: .notWritable)
        /// The file system is full; the partial file and metadata are kept for a later resume.
        public static let diskFull = Kind(code: .diskFull)
        /// The finished file's SHA-256 is not the expected one; the partial file is removed.
        public static let checksumMismatch = Kind(code: .checksumMismatch)
        /// The resource changed under every attempt (more restarts than `maxAttempts`).
        public static let resourceChanged = Kind(code: .resourceChanged)
        /// The TLS handshake failed (untrusted or invalid certificate, unreadable CA file).
        public static let tlsFailure = Kind(code: .tlsFailure)
        /// Nothing was received for `readTimeout`, after the retries.
        public static let timedOut = Kind(code: .timedOut)
        /// The calling task was cancelled; the partial file and metadata are consistent.
        public static let cancelled = Kind(code: .cancelled)
        /// Another I/O failure (connection reset after the retries, a file error).
        public static let io = Kind(code: .io)
        /// The run moved the bytes it was allowed on this network (a size limit's budget); the
        /// partial file is consistent and the transfer resumes where it stopped.
        public static let byteLimitReached = Kind(code: .byteLimitReached)
        /// The server's answer broke HTTP (malformed headers, a redirect loop, too many
        /// redirects): retrying would get the same answer, so it is not retried.
        public static let protocolError = Kind(code: .protocolError)
        /// The proxy refused the connection or asked for credentials.
        public static let proxyFailure = Kind(code: .proxyFailure)
        /// A request setting is out of its range (``DownloadRequest/connections``). Raised before
        /// any traffic.
        public static let invalidRequest = Kind(code: .invalidRequest)
        /// A command job's command exited unsuccessfully (or was killed by a signal) on every
        /// attempt; ``TransferError/url`` is the command's name.
        public static let exitStatus = Kind(code: .exitStatus)
        /// A command job's command could not be started (not found, not executable).
        public static let cannotRun = Kind(code: .cannotRun)

        /// The HTTP status, for ``httpStatus(_:)``.
        public var httpStatus: Int? {
            if case .httpStatus(let status) = code { return status }
            return nil
        }

        public var description: String {
            switch code {
            case .invalidURL: "invalidURL"
            case .unreachable: "unreachable"
            case .httpStatus(let status): "httpStatus(\(status))"
            case .notWritable: "notWritable"
            case .diskFull: "diskFull"
            case .checksumMismatch: "checksumMismatch"
            case .resourceChanged: "resourceChanged"
            case .tlsFailure: "tlsFailure"
            case .timedOut: "timedOut"
            case .cancelled: "cancelled"
            case .io: "io"
            case .byteLimitReached: "byteLimitReached"
            case .protocolError: "protocolError"
            case .proxyFailure: "proxyFailure"
            case .invalidRequest: "invalidRequest"
            case .exitStatus: "exitStatus"
            case .cannotRun: "cannotRun"
            }
        }

        fileprivate func summary(url: String, path: String?) -> String {
            switch code {
            case .invalidURL: "invalid URL \(url)"
            case .unreachable: "cannot reach \(url)"
            case .httpStatus(let code): "\(url) answered HTTP \(code)"
            case .notWritable: "cannot write \(path ?? "the destination") for \(url)"
            case .diskFull: "disk full writing \(path ?? "the destination") from \(url) (partial file kept)"
            case .checksumMismatch: "SHA-256 mismatch for \(path ?? "the download") from \(url)"
            case .resourceChanged: "\(url) kept changing during the download"
            case .tlsFailure: "TLS failure with \(url)"
            case .timedOut: "timed out receiving \(url)"
            case .cancelled: "download of \(url) cancelled (partial file kept)"
            case .io: "I/O error with \(url)" + (path.map { " (\($0))" } ?? "")
            case .byteLimitReached: "stopped \(url) at the byte limit for this network (partial file kept)"
            case .protocolError: "\(url) broke HTTP"
            case .proxyFailure: "the proxy failed for \(url)"
            case .invalidRequest: "invalid request for \(url)"
            case .exitStatus: url
            case .cannotRun: "cannot run \(url)"
            }
        }
    }

    /// What went wrong.
    public var kind: Kind
    /// The URL the error is about.
    public var url: String
    /// The local path the error is about, if any.
    public var path: String?
    /// Extra detail (the underlying error), one line.
    public var detail: String

    /// An error of `kind` about `url`, which is shown as given (pass it without credentials), and
    /// the local file `path` when one is involved.
    public init(_ kind: Kind, url: String, path: String? = nil, detail: String = "") {
        self.kind = kind
        self.url = url
        self.path = path
        self.detail = detail
    }

    public var description: String {
        let summary = kind.summary(url: url, path: path)
        let line = detail.isEmpty ? summary : "\(summary): \(detail)"
        return String(line.map { $0 == "\n" || $0 == "\r" ? " " : $0 })
    }
}

/// The error of downloads before uploads shared it; use ``TransferError``.
@available(*, deprecated, renamed: "TransferError")
public typealias DownloadError = TransferError
