import ReachabilityCore
import AsyncHTTPClient
import FoundationEssentials
import NIOCore
import NIOHTTP1
import Synchronization

/// How one attempt ended.
enum AttemptOutcome: Sendable {
    case completed
    /// Give up the partial file and ask again without `Range`.
    case restart(ResumePlanner.RestartReason)
    /// The body ended cleanly before the end of the resource: ask for the rest.
    case incomplete
    case transient(TransferError, retryAfter: Duration?)
    case fatal(TransferError)
    /// The run's byte limit was reached, or `admit` said no.
    case limitReached
    case cancelled
    /// The opening request of a segmented download was answered with a range of a larger
    /// resource: the rest is fetched in segments, starting with this body.
    case split(SegmentHandoff)
    /// The opening request's `206` did not tell the size: ask again without a bounded range.
    case openingRefused

    var isCompleted: Bool {
        if case .completed = self { return true }
        return false
    }

    var isTimeout: Bool {
        if case .transient(let error, _) = self, error.kind == .timedOut { return true }
        return false
    }
}

struct AttemptReport: Sendable {
    var outcome: AttemptOutcome
    var received: Int64 = 0
    var refetched: Int64 = 0
    var restarted = false
    /// The partial file, when this attempt created it.
    var part: PartFile?
    /// The metadata, when this attempt wrote new metadata.
    var metadata: PartialDownload?
}

/// One request of a download: sends it, decides what the response means, and streams the
/// body into the partial file, next to a watchdog that ends it when nothing arrives for the
/// read timeout (the one read-timeout mechanism: head and body alike).
struct DownloadAttempt: Sendable {
    let download: Download
    /// The run's client (its uplink's pool).
    let client: HTTPClient
    let plan: ResumePlanner.Plan
    /// For a download that may use several connections: ask for this many bytes only, so that
    /// a server serving ranges tells the size and the rest can be split (see `splitOff`).
    let opening: Int64?
    let metadata: PartialDownload?
    let part: PartFile?
    let byteLimit: Int64?
    let admit: (@Sendable (Int64?) async -> Bool)?
    let base: ProgressBase
    let progress: @Sendable (DownloadProgress) -> Void

    /// How much is written between two `sync_file_range` calls.
    static let writebackStep: Int64 = 16 << 20

    /// Runs the attempt. A one-connection download of an owned client runs on one of the
    /// clients' event loops, where its connection is then made: each chunk is written by the
    /// thread that read it, as curl does, instead of waking another thread per chunk (0.8 of
    /// curl's throughput on 2 cores before, on par after). A `pwrite` held up by dirty-page
    /// throttling then holds up the other transfers of that loop too (they are most likely
    /// waiting for the same disk); whatever may fsync runs on the global executor.
    func run() async -> AttemptReport {
        guard opening == nil, let loop = download.downloader.clients.ownedLoop() else { return await watchedExchange() }
        return await withTaskExecutorPreference(EventLoopTaskExecutor(loop)) { await watchedExchange() }
    }

    private func watchedExchange() async -> AttemptReport {
        let timeout = download.request.readTimeout
        let (report, timedOut) = await ActivityClock.watching(timeout: timeout, otherwise: AttemptReport(outcome: .cancelled)) { activity in
            await self.exchange(activity: activity)
        }
        guard timedOut, !Task.isCancelled else { return report }
        var timed = report
        switch report.outcome {
        case .cancelled, .transient:
            timed.outcome = .transient(TransferError(.timedOut, url: download.url.redacted, detail: "nothing received for \(timeout)"), retryAfter: nil)
        default:
            break
        }
        return timed
    }

    private func exchange(activity: ActivityClock) async -> AttemptReport {
        let url = download.url
        var httpRequest = RequestBuilder.request(url, headers: download.request.headers, tls: download.tls)
        switch plan {
        case .resume(let offset, let validator):
            httpRequest.headers.replaceOrAdd(name: "Range", value: opening.map { "bytes=\(offset)-\(offset + $0 - 1)" } ?? "bytes=\(offset)-")
            httpRequest.headers.replaceOrAdd(name: "If-Range", value: validator)
        case .fresh:
            if let opening { httpRequest.headers.replaceOrAdd(name: "Range", value: "bytes=0-\(opening - 1)") }
        }
        activity.touch()
        let response: HTTPClientResponse
        do {
            response = try await CredentialRedirects.execute(
                httpRequest, on: client, timeout: .nanoseconds(Int64(download.request.readTimeout.nanoseconds)))
        } catch let error as TransferError {
            return AttemptReport(outcome: .fatal(error))
        } catch {
            return AttemptReport(outcome: Self.outcome(ErrorClassifier.classify(error, url: url)))
        }
        activity.touch()
        // Off the event loop: readying the partial file may fsync.
        let (prepared, prepareReport) = await withTaskExecutorPreference(globalConcurrentExecutor) {
            var report = AttemptReport(outcome: .completed)
            let prepared = await self.prepareBody(response, report: &report)
            return (prepared, report)
        }
        let report = prepareReport
        guard let (part, validators, refetchLimit) = prepared else { return report }
        if opening != nil, response.status == .partialContent, let split = splitOff(response, part: part, validators: validators, report: report) {
            return split
        }
        return await stream(response.body, into: part, validators: validators, refetchLimit: refetchLimit, activity: activity, report: report)
    }

    static func outcome(_ verdict: ErrorClassifier.Verdict) -> AttemptOutcome {
        switch verdict {
        case .transient(let error): .transient(error, retryAfter: nil)
        case .fatal(let error): .fatal(error)
        case .cancelled: .cancelled
        }
    }

    /// Decides what the response head means and readies the partial file; nil when the attempt
    /// ends here (`report.outcome` says how).
    private func prepareBody(_ response: HTTPClientResponse, report: inout AttemptReport) async -> (PartFile, ResourceValidators, Int64)? {
        let url = download.url
        let headers = response.headers
        let summary = ResponseSummary(
            status: Int(response.status.code), contentLength: headers.first(name: "content-length").flatMap(ContentLength.parse),
            contentRange: headers.first(name: "content-range"), etag: headers.first(name: "etag"),
            lastModified: headers.first(name: "last-modified"), retryAfter: headers.first(name: "retry-after")
        )
        let paths = download.paths
        switch ResumePlanner.decide(plan: plan, metadata: metadata, response: summary) {
        case .retry(let status):
            // A Retry-After in the past (or zero) means the usual backoff, not a hot loop.
            let retryAfter = summary.retryAfter.flatMap { RetryPolicy.parseRetryAfter($0, now: Int64(Date().timeIntervalSince1970)) }
            report.outcome = .transient(TransferError(.httpStatus(status), url: url.redacted), retryAfter: retryAfter.flatMap { $0 > .zero ? $0 : nil })
            return nil
        case .fail(let status):
            report.outcome = .fatal(TransferError(.httpStatus(status), url: url.redacted))
            return nil
        case .restartWithoutRange(let reason):
            report.outcome = .restart(reason)
            return nil
        case .alreadyComplete:
            report.outcome = .completed
            return nil
        case .writeFromStart(let fresh, let restart):
            if !(await admitted(remaining: fresh.size)) {
                report.outcome = .limitReached
                return nil
            }
            do throws(FileError) {
                var refetchLimit: Int64 = 0
                let part: PartFile
                if let existing = self.part {
                    if restart == .rangeIgnored { refetchLimit = existing.length }
                    try existing.truncate()
                    part = existing
                } else {
                    part = try PartFile(directory: download.directory, name: paths.partName, truncate: true, hashing: download.request.hashes)
                    report.part = part
                }
                // The validators are durable before the first body byte is.
                let newMetadata = PartialDownload(url: url.storageKey, size: fresh.size, etag: fresh.etag, lastModified: fresh.lastModified, bytesWritten: 0)
                try MetadataFile.write(newMetadata, name: paths.metadataName, in: download.directory)
                report.metadata = newMetadata
                report.restarted = restart != nil
                return (part, fresh, refetchLimit)
            } catch {
                report.outcome = .fatal(error.transferError(url: url.redacted))
                return nil
            }
        case .append(let offset, let known):
            guard let existing = self.part, existing.length == offset else {
                report.outcome = .restart(.unexpectedContentRange)
                return nil
            }
            if !(await admitted(remaining: known.size.map { $0 - offset })) {
                report.outcome = .limitReached
                return nil
            }
            if metadata?.size != known.size || metadata?.etag != known.etag || metadata?.lastModified != known.lastModified {
                let updated = PartialDownload(url: url.storageKey, size: known.size, etag: known.etag, lastModified: known.lastModified, bytesWritten: offset)
                try? MetadataFile.write(updated, name: paths.metadataName, in: download.directory)
                report.metadata = updated
            }
            return (existing, known, 0)
        }
    }

    private func admitted(remaining: Int64?) async -> Bool {
        guard let admit else { return true }
        return await admit(remaining.map { max(0, $0) })
    }
}
