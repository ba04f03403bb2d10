import ReachabilityCore
import AsyncHTTPClient
import FoundationEssentials
import NIOCore
import NIOHTTP1

/// What every connection of a segmented run works with.
struct SegmentContext: Sendable {
    let download: Download
    /// The run's client (its uplink's pool).
    let client: HTTPClient
    let part: PartFile
    /// The sidecar as the run began: the resource's size and validators.
    let metadata: PartialDownload
    let board: SegmentBoard

    var size: Int64 { board.size }
}

/// How one request of a segment ended, and what it wrote.
struct SegmentFetchResult: Sendable {
    var written: Int64 = 0
    /// `completed` (the whole segment is on disk), `incomplete` (the body ended early), or how
    /// the attempt failed.
    var outcome: AttemptOutcome
}

/// One request of a segmented download: asks for one segment with `Range: bytes=FIRST-LAST`
/// and `If-Range`, checks that the answer is that part of the same resource (same size, same
/// validators), and writes the body at its place with positional writes, each chunk within
/// the shared byte budget. A watchdog ends it when nothing arrives for the read timeout.
struct SegmentFetch: Sendable {
    let context: SegmentContext
    let segment: Range<Int64>
    /// The opening request's body, when this segment is the one it carries.
    let handedOver: HTTPClientResponse.Body?

    private var download: Download { context.download }

    func run() async -> SegmentFetchResult {
        context.board.fetching(true)
        defer { context.board.fetching(false) }
        let timeout = download.request.readTimeout
        let (result, timedOut) = await ActivityClock.watching(timeout: timeout, otherwise: SegmentFetchResult(outcome: .cancelled)) { activity in
            await self.exchange(activity: activity)
        }
        guard timedOut, !Task.isCancelled else { return result }
        var timed = result
        switch result.outcome {
        case .cancelled, .transient:
            timed.outcome = .transient(TransferError(.timedOut, url: download.url.redacted, detail: "nothing received for \(timeout)"), retryAfter: nil)
        default:
            break
        }
        return timed
    }

    private func exchange(activity: ActivityClock) async -> SegmentFetchResult {
        activity.touch()
        if let handedOver { return await write(handedOver, activity: activity) }
        let url = download.url
        var request = RequestBuilder.request(url, headers: download.request.headers, tls: download.tls)
        request.headers.replaceOrAdd(name: "Range", value: "bytes=\(segment.lowerBound)-\(segment.upperBound - 1)")
        let validator = context.metadata.ifRangeValidator
        if let validator { request.headers.replaceOrAdd(name: "If-Range", value: validator) }
        let response: HTTPClientResponse
        do {
            response = try await CredentialRedirects.execute(
                request, on: context.client, timeout: .nanoseconds(Int64(download.request.readTimeout.nanoseconds)))
        } catch let error as TransferError {
            return SegmentFetchResult(outcome: .fatal(error))
        } catch {
            return SegmentFetchResult(outcome: DownloadAttempt.outcome(ErrorClassifier.classify(error, url: url)))
        }
        activity.touch()
        if let refusal = judge(response, validator: validator) { return SegmentFetchResult(outcome: refusal) }
        return await write(response.body, activity: activity)
    }

    /// Nil when the response is this segment of the resource the partial file holds; otherwise
    /// how the attempt ends.
    private func judge(_ response: HTTPClientResponse, validator: String?) -> AttemptOutcome? {
        let headers = response.headers
        let summary = ResponseSummary(
            status: Int(response.status.code), contentLength: headers.first(name: "content-length").flatMap(ContentLength.parse),
            contentRange: headers.first(name: "content-range"), etag: headers.first(name: "etag"),
            lastModified: headers.first(name: "last-modified"), retryAfter: headers.first(name: "retry-after")
        )
        let url = download.url.redacted
        let plan = ResumePlanner.Plan.resume(from: segment.lowerBound, ifRange: validator ?? "")
        switch ResumePlanner.decide(plan: plan, metadata: context.metadata, response: summary) {
        case .append:
            // Every segment's answer must carry the strong ETag the run began with: an answer
            // without it could be of another version of the file, and its bytes would be mixed in.
            let known = context.metadata
            guard let etag = summary.etag, etag == known.etag else { return .restart(.sizeOrValidatorMismatch) }
            if let modified = summary.lastModified, let stored = known.lastModified, modified != stored { return .restart(.sizeOrValidatorMismatch) }
            return nil
        case .writeFromStart(_, let restart):
            return .restart(restart ?? .resourceChanged)
        case .alreadyComplete:
            return .restart(.rangeNotSatisfiable)
        case .restartWithoutRange(let reason):
            return .restart(reason)
        case .retry(let status):
            let retryAfter = summary.retryAfter.flatMap { RetryPolicy.parseRetryAfter($0, now: Int64(Date().timeIntervalSince1970)) }
            return .transient(TransferError(.httpStatus(status), url: url), retryAfter: retryAfter.flatMap { $0 > .zero ? $0 : nil })
        case .fail(let status):
            return .fatal(TransferError(.httpStatus(status), url: url))
        }
    }

    /// Writes the body at its place: never past the segment, never past the byte budget.
    private func write(_ body: HTTPClientResponse.Body, activity: ActivityClock) async -> SegmentFetchResult {
        let board = context.board
        var position = segment.lowerBound
        var writebackFrom = position
        var result = SegmentFetchResult(outcome: .incomplete)
        do {
            for try await chunk in body {
                activity.touch()
                let wanted = min(Int64(chunk.readableBytes), segment.upperBound - position)
                // More than asked for: the segment is done, the rest is not ours.
                guard wanted > 0 else { break }
                let granted = board.budget?.take(wanted) ?? wanted
                if granted > 0 {
                    let (written, error) = chunk.withUnsafeReadableBytes { raw in
                        context.part.write(UnsafeRawBufferPointer(rebasing: raw.prefix(Int(granted))), at: position)
                    }
                    if written > 0 { board.wrote(position..<(position + Int64(written))) }
                    position += Int64(written)
                    result.written += Int64(written)
                    if let error {
                        result.outcome = .fatal(error.transferError(url: download.url.redacted))
                        return result
                    }
                }
                if granted < wanted {
                    result.outcome = .limitReached
                    return result
                }
                if position - writebackFrom >= DownloadAttempt.writebackStep {
                    context.part.startWriteback(offset: writebackFrom, length: position - writebackFrom)
                    writebackFrom = position
                }
            }
        } catch {
            result.outcome = Task.isCancelled ? .cancelled : DownloadAttempt.outcome(ErrorClassifier.classify(error, url: download.url))
            return result
        }
        if Task.isCancelled, position < segment.upperBound {
            result.outcome = .cancelled
            return result
        }
        result.outcome = position == segment.upperBound ? .completed : .incomplete
        return result
    }
}
