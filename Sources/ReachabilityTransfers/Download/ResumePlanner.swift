import ReachabilityCore
/// What a partial download on disk is known to be: the sidecar metadata (`DEST.part.json`)
/// written before the first body byte, plus the length of `DEST.part`.
///
/// For a download written from its start, the length of the partial file is the truth about how
/// many bytes are on disk; for one fetched in segments, ``completed`` is. The metadata holds the
/// validators that tell whether those bytes still belong to the remote resource.
public struct PartialDownload: Sendable, Hashable, Codable {
    /// The URL exactly as the request gave it.
    public var url: String
    /// The full size of the resource, when the server told it.
    public var size: Int64?
    /// The ETag of the response the bytes came from, verbatim (quoted, `W/` kept).
    public var etag: String?
    /// The `Last-Modified` of that response, verbatim.
    public var lastModified: String?
    /// Bytes known written at the last checkpoint (informational; the file's length wins, or
    /// ``completed`` for a segmented download).
    public var bytesWritten: Int64
    /// For a download fetched in segments (``DownloadRequest/connections`` above 1): the byte
    /// ranges of the partial file that hold the resource, sorted and merged, as of the last
    /// checkpoint; the file may have holes elsewhere. Nil for a download written from its start.
    /// Stored as `"completed": [[first, end], …]` (end exclusive).
    public var completed: [Range<Int64>]?

    /// The metadata of a partial download of `url`, from the response its bytes come from;
    /// `completed` for one fetched in segments.
    public init(
        url: String, size: Int64?, etag: String?, lastModified: String?, bytesWritten: Int64 = 0, completed: [Range<Int64>]? = nil
    ) {
        self.url = url
        self.size = size
        self.etag = etag
        self.lastModified = lastModified
        self.bytesWritten = bytesWritten
        self.completed = completed
    }

    /// Bytes in ``completed``; nil for a download written from its start.
    var completedBytes: Int64? { completed.map { $0.reduce(0) { $0 + Int64($1.count) } } }

    /// The validator to send in `If-Range`: a strong ETag, else `Last-Modified`; never a weak
    /// ETag (RFC 9110 §13.1.5 requires a strong comparison).
    public var ifRangeValidator: String? {
        if let etag, EntityTag.isStrong(etag) { return etag }
        return lastModified
    }
}

/// The validators and size one response tells about the resource.
public struct ResourceValidators: Sendable, Hashable {
    /// The full size of the resource, when known.
    public var size: Int64?
    /// The ETag, verbatim.
    public var etag: String?
    /// The `Last-Modified` value, verbatim.
    public var lastModified: String?

    /// Validators as one response told them.
    public init(size: Int64?, etag: String?, lastModified: String?) {
        self.size = size
        self.etag = etag
        self.lastModified = lastModified
    }
}

/// The parts of a response head that resume decisions depend on.
public struct ResponseSummary: Sendable, Hashable {
    /// The HTTP status code.
    public var status: Int
    /// `Content-Length`, parsed.
    public var contentLength: Int64?
    /// `Content-Range`, verbatim.
    public var contentRange: String?
    /// `ETag`, verbatim.
    public var etag: String?
    /// `Last-Modified`, verbatim.
    public var lastModified: String?
    /// `Retry-After`, verbatim.
    public var retryAfter: String?

    /// A response head; the headers it did not carry are nil.
    public init(
        status: Int, contentLength: Int64? = nil, contentRange: String? = nil, etag: String? = nil,
        lastModified: String? = nil, retryAfter: String? = nil
    ) {
        self.status = status
        self.contentLength = contentLength
        self.contentRange = contentRange
        self.etag = etag
        self.lastModified = lastModified
        self.retryAfter = retryAfter
    }
}

/// Pure resume decisions: given what is on disk and what the server answered, what to do.
/// No I/O; the ``Downloader`` carries the decisions out.
public enum ResumePlanner {
    /// The request to send.
    public enum Plan: Sendable, Hashable {
        /// A plain `GET` for the whole resource. `discarding` bytes of an unusable partial
        /// (no metadata, another URL, no validator, longer than the resource) are thrown away.
        case fresh(discarding: Int64)
        /// `GET` with `Range: bytes=OFFSET-` and `If-Range: VALIDATOR`.
        case resume(from: Int64, ifRange: String)
    }

    /// Why bytes on disk were given up.
    public enum RestartReason: Sendable, Hashable {
        /// The server sent the whole resource with a different validator: it changed.
        case resourceChanged
        /// The server sent the whole resource with the same validators: it ignored `Range`.
        case rangeIgnored
        /// A `206` whose `Content-Range` does not start at the offset asked for or is malformed.
        case unexpectedContentRange
        /// A `206` or `416` telling another size, or a `206` with another ETag.
        case sizeOrValidatorMismatch
        /// `416` although the partial file is not complete.
        case rangeNotSatisfiable
    }

    /// What to do with a response.
    public enum Action: Sendable, Hashable {
        /// The body is the resource from byte 0: truncate the partial file and write from 0.
        /// `restart` is set when bytes on disk are given up (with the reason).
        case writeFromStart(ResourceValidators, restart: RestartReason?)
        /// The body continues the partial file at `offset`.
        case append(at: Int64, ResourceValidators)
        /// The partial file already holds the whole resource (`416` for a complete file).
        case alreadyComplete
        /// Give up the partial file and send a fresh request without `Range`.
        case restartWithoutRange(RestartReason)
        /// A transient failure (`408`, `429`, `5xx`): retry later, after `Retry-After` if given.
        case retry(status: Int)
        /// A final failure (other `4xx`, unexpected statuses).
        case fail(status: Int)
    }

    /// Decides the request for `url` given the sidecar metadata and the partial file's length
    /// (nil when there is no partial file).
    public static func plan(url: String, metadata: PartialDownload?, partLength: Int64?) -> Plan {
        guard let partLength, partLength > 0 else { return .fresh(discarding: 0) }
        guard let metadata, metadata.url == url, let validator = metadata.ifRangeValidator else {
            return .fresh(discarding: partLength)
        }
        if let size = metadata.size, partLength > size { return .fresh(discarding: partLength) }
        return .resume(from: partLength, ifRange: validator)
    }

    /// Decides what to do with `response` to the request made for `plan`.
    public static func decide(plan: Plan, metadata: PartialDownload?, response: ResponseSummary) -> Action {
        let status = response.status
        switch status {
        case 408, 429, 500...599: return .retry(status: status)
        case 200, 206, 416: break
        default: return .fail(status: status)
        }
        let contentRange = response.contentRange.flatMap(ContentRange.init)

        switch plan {
        case .fresh:
            switch status {
            case 200:
                return .writeFromStart(
                    ResourceValidators(size: response.contentLength, etag: response.etag, lastModified: response.lastModified),
                    restart: nil
                )
            case 206:
                // Not asked for; usable only when it starts at byte 0 (the rest is resumed later).
                guard let contentRange, let range = contentRange.range, range.lowerBound == 0 else {
                    return .retry(status: status)
                }
                return .writeFromStart(
                    ResourceValidators(size: contentRange.total, etag: response.etag, lastModified: response.lastModified),
                    restart: nil
                )
            default:
                return .fail(status: status)
            }

        case .resume(let offset, _):
            let known = metadata
            switch status {
            case 200:
                let validators = ResourceValidators(
                    size: response.contentLength, etag: response.etag, lastModified: response.lastModified
                )
                return .writeFromStart(validators, restart: sameResource(known, validators) ? .rangeIgnored : .resourceChanged)
            case 206:
                guard let contentRange, let range = contentRange.range else {
                    return .restartWithoutRange(.unexpectedContentRange)
                }
                guard range.lowerBound == offset else { return .restartWithoutRange(.unexpectedContentRange) }
                if let expected = known?.size, let total = contentRange.total, expected != total {
                    return .restartWithoutRange(.sizeOrValidatorMismatch)
                }
                if let stored = known?.etag, EntityTag.isStrong(stored), let sent = response.etag, sent != stored {
                    return .restartWithoutRange(.sizeOrValidatorMismatch)
                }
                let size = contentRange.total ?? known?.size
                if let size, range.upperBound >= size { return .restartWithoutRange(.unexpectedContentRange) }
                return .append(
                    at: offset,
                    ResourceValidators(
                        size: size, etag: response.etag ?? known?.etag,
                        lastModified: response.lastModified ?? known?.lastModified
                    )
                )
            default:  // 416
                guard let size = known?.size, offset == size else { return .restartWithoutRange(.rangeNotSatisfiable) }
                if let total = contentRange?.total, total != size { return .restartWithoutRange(.sizeOrValidatorMismatch) }
                return .alreadyComplete
            }
        }
    }

    /// Whether a full response describes the same resource the partial bytes came from.
    static func sameResource(_ metadata: PartialDownload?, _ validators: ResourceValidators) -> Bool {
        guard let metadata else { return false }
        if let size = metadata.size, let newSize = validators.size, size != newSize { return false }
        if let etag = metadata.etag, EntityTag.isStrong(etag) {
            return validators.etag == etag
        }
        if let lastModified = metadata.lastModified {
            return validators.lastModified == lastModified
        }
        return false
    }
}
