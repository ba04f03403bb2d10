public import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import NIOSSL
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Resumable HTTP(S) downloads: `Range` + `If-Range` resume, a crash-safe partial file,
/// retries with backoff, optional SHA-256 verification and an atomic finish.
///
/// ```swift
/// let downloader = Downloader()
/// defer { downloader.shutdown() }
/// let result = try await downloader.download(
///     DownloadRequest(url: "https://example.com/image.iso", destination: "/srv/image.iso")
/// ) { progress in print(progress.bytesOnDisk, progress.totalBytes ?? -1) }
/// ```
///
/// While it runs, a download writes `DEST.part` and the sidecar `DEST.part.json` (URL, size,
/// ETag, Last-Modified, bytes written). The partial file's length is the truth about what is on
/// disk: a later call — in this process after a cancellation, or in another process after a
/// crash or `SIGKILL` — resumes with `Range: bytes=N-` and `If-Range`, and never asks again
/// for bytes already on disk. If the resource changed (or the server ignores `Range`) the
/// download starts again from 0 without mixing old and new bytes. On success the partial file
/// is fsync'd and renamed to `DEST`, and the metadata removed.
///
/// Cancelling the calling task stops the transfer promptly and leaves the partial file and its
/// metadata consistent: that is how to pause.
public final class Downloader: Sendable {
    private struct Ledger: Sendable {
        var received: Int64 = 0
        var refetched: Int64 = 0
        var restarts = 0
    }

    private let client: HTTPClient
    private let ownsClient: Bool
    /// How waits between attempts are computed.
    public let retryPolicy: RetryPolicy
    /// Per destination, over the runs of this process: bytes received, refetched, restarts.
    private let ledgers = Mutex<[String: Ledger]>([:])
    private let active = Mutex<Set<String>>([])

    /// A downloader with its own `HTTPClient` (call ``shutdown()`` when done with it).
    public convenience init(retryPolicy: RetryPolicy = RetryPolicy()) {
        var configuration = HTTPClient.Configuration()
        configuration.timeout = HTTPClient.Configuration.Timeout(connect: .seconds(15))
        // Retries are ours (with backoff and Retry-After); the pool must fail fast.
        configuration.connectionPool.retryConnectionEstablishment = false
        configuration.decompression = .disabled
        configuration.redirectConfiguration = .follow(max: 5, allowCycles: false)
        self.init(
            client: HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration),
            ownsClient: true, retryPolicy: retryPolicy
        )
    }

    /// A downloader using `client`, which the caller keeps and shuts down. Configure it with
    /// decompression disabled (byte ranges are of the encoded body) and, ideally,
    /// `connectionPool.retryConnectionEstablishment = false`.
    public convenience init(client: HTTPClient, retryPolicy: RetryPolicy = RetryPolicy()) {
        self.init(client: client, ownsClient: false, retryPolicy: retryPolicy)
    }

    private init(client: HTTPClient, ownsClient: Bool, retryPolicy: RetryPolicy) {
        self.client = client
        self.ownsClient = ownsClient
        self.retryPolicy = retryPolicy
    }

    /// Starts shutting the owned `HTTPClient` down and returns at once (usable in `defer`);
    /// does nothing for a client given to ``init(client:retryPolicy:)``. Downloads still
    /// running fail. Use ``shutdownGracefully()`` to wait until it is done.
    public func shutdown() {
        guard ownsClient else { return }
        client.shutdown(queue: .global()) { _ in }
    }

    /// Shuts the owned `HTTPClient` down and waits for it (does nothing for a client given to
    /// ``init(client:retryPolicy:)``).
    public func shutdownGracefully() async throws {
        if ownsClient { try await client.shutdown() }
    }

    // MARK: Probe

    /// Asks the server about `url` without downloading it: `HEAD`, or — when `HEAD` is refused
    /// (`405`, `501`) — `GET` with `Range: bytes=0-0`.
    public func probe(_ url: String, timeout: Duration = .seconds(30), caFile: String? = nil) async throws(TransferError) -> RemoteResource {
        try Self.validate(url)
        let tls = try Self.tlsConfiguration(caFile: caFile, url: url)
        var head = HTTPClientRequest(url: url)
        head.method = .HEAD
        head.headers.add(name: "Accept-Encoding", value: "identity")
        head.tlsConfiguration = tls
        let response: HTTPClientResponse
        do {
            response = try await client.execute(head, timeout: .nanoseconds(Int64(timeout.nanoseconds)))
        } catch {
            throw Self.classify(error, url: url).error
        }
        let status = Int(response.status.code)
        if status == 405 || status == 501 {
            return try await probeWithRange(url, timeout: timeout, tls: tls)
        }
        guard (200..<300).contains(status) else { throw TransferError(.httpStatus(status), url: url) }
        let headers = response.headers
        return RemoteResource(
            url: url,
            size: headers.first(name: "content-length").flatMap { Int64($0) },
            etag: headers.first(name: "etag"),
            lastModified: headers.first(name: "last-modified"),
            acceptsRanges: headers[canonicalForm: "accept-ranges"].contains { $0.lowercased() == "bytes" }
        )
    }

    private func probeWithRange(_ url: String, timeout: Duration, tls: TLSConfiguration?) async throws(TransferError) -> RemoteResource {
        var get = HTTPClientRequest(url: url)
        get.headers.add(name: "Range", value: "bytes=0-0")
        get.headers.add(name: "Accept-Encoding", value: "identity")
        get.tlsConfiguration = tls
        do {
            let response = try await client.execute(get, timeout: .nanoseconds(Int64(timeout.nanoseconds)))
            let status = Int(response.status.code)
            let headers = response.headers
            let etag = headers.first(name: "etag")
            let lastModified = headers.first(name: "last-modified")
            switch status {
            case 206:
                let range = headers.first(name: "content-range").flatMap(ContentRange.init)
                _ = try await response.body.collect(upTo: 1 << 16)
                return RemoteResource(url: url, size: range?.total, etag: etag, lastModified: lastModified, acceptsRanges: true)
            case 200..<300:
                // The whole body would follow: stop reading it (dropping the response ends the request).
                return RemoteResource(
                    url: url, size: headers.first(name: "content-length").flatMap { Int64($0) }, etag: etag,
                    lastModified: lastModified,
                    acceptsRanges: headers[canonicalForm: "accept-ranges"].contains { $0.lowercased() == "bytes" }
                )
            default:
                throw TransferError(.httpStatus(status), url: url)
            }
        } catch let error as TransferError {
            throw error
        } catch {
            throw Self.classify(error, url: url).error
        }
    }

    // MARK: Download

    /// Downloads `request.url` into `request.destination`, resuming a partial download left by
    /// an earlier call or process. See the type's documentation for the on-disk protocol.
    ///
    /// - Parameter progress: called from the downloading task, at most about every 50 ms or
    ///   4 MiB, and once before each wait between attempts (with ``DownloadProgress/retryingAfter``).
    /// - Throws: ``TransferError``; `invalidURL` and `notWritable` before any network traffic.
    public func download(
        _ request: DownloadRequest, progress: @escaping @Sendable (DownloadProgress) -> Void = { _ in }
    ) async throws(TransferError) -> DownloadResult {
        let url = request.url
        try Self.validate(url)
        let paths = TransferPaths(destination: request.destination)
        try LocalFiles.checkWritable(paths, url: url)
        let tls = try Self.tlsConfiguration(caFile: request.caFile, url: url)
        let claimed = active.withLock { $0.insert(paths.destination).inserted }
        guard claimed else {
            throw TransferError(.io, url: url, path: paths.destination, detail: "another download into this path is running")
        }
        defer { _ = active.withLock { $0.remove(paths.destination) } }

        var run = Run(downloader: self, request: request, paths: paths, tls: tls, progress: progress)
        do {
            return try await run.execute()
        } catch {
            run.checkpoint()
            throw error
        }
    }

    /// One call of `download`: the attempt loop and its bookkeeping.
    private struct Run {
        let downloader: Downloader
        let request: DownloadRequest
        let paths: TransferPaths
        let tls: TLSConfiguration?
        let progress: @Sendable (DownloadProgress) -> Void
        var part: PartFile?
        var metadata: PartialDownload?
        var receivedThisRun: Int64 = 0
        var attempt = 0
        var restartsThisRun = 0

        init(
            downloader: Downloader, request: DownloadRequest, paths: TransferPaths, tls: TLSConfiguration?,
            progress: @escaping @Sendable (DownloadProgress) -> Void
        ) {
            self.downloader = downloader
            self.request = request
            self.paths = paths
            self.tls = tls
            self.progress = progress
        }

        var url: String { request.url }

        func ledger() -> Ledger {
            downloader.ledgers.withLock { $0[paths.destination] ?? Ledger() }
        }

        func updateLedger(_ change: (inout Ledger) -> Void) {
            downloader.ledgers.withLock { ledgers in
                var ledger = ledgers[paths.destination] ?? Ledger()
                change(&ledger)
                ledgers[paths.destination] = ledger
            }
        }

        mutating func execute() async throws(TransferError) -> DownloadResult {
            updateLedger { _ in }
            // Existing partial state, as an earlier run or a killed process left it.
            metadata = MetadataFile.read(paths.metadata)
            if LocalFiles.length(of: paths.part) != nil {
                do {
                    part = try PartFile(path: paths.part, truncate: false)
                } catch {
                    throw error.transferError(url: url)
                }
            }
            var failures = 0
            while true {
                if Task.isCancelled { throw TransferError(.cancelled, url: url, path: paths.destination) }
                attempt += 1
                let plan = ResumePlanner.plan(url: url, metadata: metadata, partLength: part?.length)
                if case .fresh(let discarding) = plan, discarding > 0 {
                    // An unusable partial file (no metadata, another URL, no validator): start over.
                    try discardPartial()
                    restartsThisRun += 1
                    updateLedger { $0.restarts += 1 }
                }
                let report = await downloader.runAttempt(
                    plan: plan, metadata: metadata, part: part, request: request, paths: paths, tls: tls,
                    progressBase: ProgressBase(
                        receivedThisRun: receivedThisRun, refetched: ledger().refetched, attempt: attempt
                    ),
                    progress: progress
                )
                if let newPart = report.part { part = newPart }
                if let newMetadata = report.metadata { metadata = newMetadata }
                receivedThisRun += report.received
                updateLedger { ledger in
                    ledger.received += report.received
                    ledger.refetched += report.refetched
                    if report.restarted { ledger.restarts += 1 }
                }
                if report.restarted { restartsThisRun += 1 }
                // Progress resets the failure budget; a trickle that times out after a few bytes
                // per attempt does not (it must bring 64 KiB or 1/16 of the file).
                let total = metadata?.size ?? 0
                let progressed =
                    report.outcome.isTimeout
                    ? report.received >= 64 << 10 || (total > 0 && report.received * 16 >= total)
                    : report.received > 0
                if progressed { failures = 0 }
                if Task.isCancelled, !report.outcome.isCompleted {
                    throw TransferError(.cancelled, url: url, path: paths.destination)
                }

                switch report.outcome {
                case .completed:
                    return try await finish()
                case .restart(let reason):
                    try discardPartial()
                    restartsThisRun += 1
                    updateLedger { $0.restarts += 1 }
                    if restartsThisRun > max(request.maxAttempts, 1) {
                        throw TransferError(.resourceChanged, url: url, detail: "last restart: \(reason)")
                    }
                case .incomplete where progressed:
                    checkpoint()
                case .incomplete:
                    failures += 1
                    try await waitBeforeRetry(
                        failures: failures, retryAfter: nil,
                        error: TransferError(.io, url: url, detail: "the body ended early without progress")
                    )
                case .transient(let error, let retryAfter):
                    checkpoint()
                    failures += 1
                    try await waitBeforeRetry(failures: failures, retryAfter: retryAfter, error: error)
                case .fatal(let error):
                    throw error
                case .cancelled:
                    throw TransferError(.cancelled, url: url, path: paths.destination)
                }
            }
        }

        private func waitBeforeRetry(failures: Int, retryAfter: Duration?, error: TransferError) async throws(TransferError) {
            guard failures < max(request.maxAttempts, 1) else { throw error }
            let delay = downloader.retryPolicy.delay(
                afterFailure: failures, retryAfter: retryAfter, jitter: Double.random(in: 0...1)
            )
            let length = part?.length ?? 0
            progress(
                DownloadProgress(
                    bytesOnDisk: length, totalBytes: metadata?.size, bytesReceivedThisRun: receivedThisRun,
                    bytesRefetched: ledger().refetched, attempt: attempt, retryingAfter: delay
                )
            )
            do {
                try await Task.sleep(for: delay)
            } catch {
                throw TransferError(.cancelled, url: url, path: paths.destination)
            }
        }

        /// Gives up the partial file and its metadata (a clean restart from byte 0).
        private mutating func discardPartial() throws(TransferError) {
            do {
                try part?.truncate()
            } catch {
                throw error.transferError(url: url)
            }
            LocalFiles.remove(paths.metadata)
            metadata = nil
        }

        /// Records the bytes on disk in the metadata (best effort: with a full disk the old
        /// metadata stays, and the file's length remains the truth).
        func checkpoint() {
            guard var metadata, let part, metadata.url == url else { return }
            metadata.bytesWritten = part.length
            try? MetadataFile.write(metadata, to: paths.metadata, directory: paths.directory)
        }

        private mutating func finish() async throws(TransferError) -> DownloadResult {
            guard let part else {
                throw TransferError(.io, url: url, path: paths.part, detail: "completed without a partial file")
            }
            let digest = await part.digestHex()
            if let expected = request.expectedSHA256, expected.lowercased() != digest {
                LocalFiles.remove(paths.part)
                LocalFiles.remove(paths.metadata)
                self.part = nil
                downloader.ledgers.withLock { _ = $0.removeValue(forKey: paths.destination) }
                throw TransferError(
                    .checksumMismatch, url: url, path: paths.destination,
                    detail: "expected \(expected.lowercased()), got \(digest)"
                )
            }
            do throws(FileError) {
                try part.sync()
                try LocalFiles.rename(paths.part, to: paths.destination)
            } catch {
                throw error.transferError(url: url)
            }
            LocalFiles.syncDirectory(paths.directory)
            LocalFiles.remove(paths.metadata)
            let bytes = part.length
            self.part = nil
            let ledger = downloader.ledgers.withLock { $0.removeValue(forKey: paths.destination) } ?? Ledger()
            let result = DownloadResult(
                path: paths.destination, bytes: bytes, sha256: digest, restarts: ledger.restarts,
                bytesDownloadedTotal: ledger.received, bytesRefetched: ledger.refetched, attempts: attempt
            )
            progress(
                DownloadProgress(
                    bytesOnDisk: bytes, totalBytes: bytes, bytesReceivedThisRun: receivedThisRun,
                    bytesRefetched: ledger.refetched, attempt: attempt
                )
            )
            return result
        }
    }

    // MARK: One attempt

    struct ProgressBase: Sendable {
        var receivedThisRun: Int64
        var refetched: Int64
        var attempt: Int
    }

    enum Outcome: Sendable {
        case completed
        /// Give up the partial file and ask again without `Range`.
        case restart(ResumePlanner.RestartReason)
        /// The body ended cleanly before the end of the resource: ask for the rest.
        case incomplete
        case transient(TransferError, retryAfter: Duration?)
        case fatal(TransferError)
        case cancelled

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
        var outcome: Outcome
        var received: Int64 = 0
        var refetched: Int64 = 0
        var restarted = false
        /// The partial file, when this attempt created it.
        var part: PartFile?
        /// The metadata, when this attempt wrote new metadata.
        var metadata: PartialDownload?
    }

    /// How much is written between two `sync_file_range` calls.
    static let writebackStep: Int64 = 16 << 20

    /// Runs one request in a child task next to a watchdog that ends it when nothing arrives
    /// for `readTimeout` (head or body).
    private func runAttempt(
        plan: ResumePlanner.Plan, metadata: PartialDownload?, part: PartFile?, request: DownloadRequest,
        paths: TransferPaths, tls: TLSConfiguration?, progressBase: ProgressBase,
        progress: @escaping @Sendable (DownloadProgress) -> Void
    ) async -> AttemptReport {
        let activity = ActivityClock()
        let timeout = request.readTimeout
        enum Child: Sendable {
            case attempt(AttemptReport)
            case watchdog(fired: Bool)
        }
        let (report, timedOut) = await withTaskGroup(of: Child.self) { group in
            group.addTask {
                .attempt(
                    await self.exchange(
                        plan: plan, metadata: metadata, part: part, request: request, paths: paths, tls: tls,
                        activity: activity, progressBase: progressBase, progress: progress
                    )
                )
            }
            group.addTask { .watchdog(fired: await activity.watch(timeout: timeout)) }
            var report = AttemptReport(outcome: .cancelled)
            var timedOut = false
            while let child = await group.next() {
                switch child {
                case .attempt(let finished):
                    report = finished
                    group.cancelAll()
                case .watchdog(let fired):
                    if fired {
                        timedOut = true
                        group.cancelAll()
                    }
                }
            }
            return (report, timedOut)
        }
        guard timedOut, !Task.isCancelled else { return report }
        var timed = report
        switch report.outcome {
        case .cancelled, .transient:
            timed.outcome = .transient(
                TransferError(.timedOut, url: request.url, detail: "nothing received for \(timeout)"), retryAfter: nil
            )
        default:
            break
        }
        return timed
    }

    /// Sends the request for `plan`, decides what the response means, and streams its body
    /// into the partial file.
    private func exchange(
        plan: ResumePlanner.Plan, metadata: PartialDownload?, part existingPart: PartFile?, request: DownloadRequest,
        paths: TransferPaths, tls: TLSConfiguration?, activity: ActivityClock, progressBase: ProgressBase,
        progress: @escaping @Sendable (DownloadProgress) -> Void
    ) async -> AttemptReport {
        let url = request.url
        var httpRequest = HTTPClientRequest(url: url)
        httpRequest.headers.add(name: "Accept-Encoding", value: "identity")
        httpRequest.headers.add(name: "User-Agent", value: "reach-transfers/1")
        httpRequest.tlsConfiguration = tls
        if case .resume(let offset, let validator) = plan {
            httpRequest.headers.add(name: "Range", value: "bytes=\(offset)-")
            httpRequest.headers.add(name: "If-Range", value: validator)
        }

        activity.touch()
        let response: HTTPClientResponse
        do {
            response = try await client.execute(httpRequest, timeout: .nanoseconds(Int64(request.readTimeout.nanoseconds)))
        } catch {
            return AttemptReport(outcome: Self.classify(error, url: url).outcome)
        }
        activity.touch()

        let headers = response.headers
        let summary = ResponseSummary(
            status: Int(response.status.code),
            contentLength: headers.first(name: "content-length").flatMap { Int64($0) },
            contentRange: headers.first(name: "content-range"),
            etag: headers.first(name: "etag"),
            lastModified: headers.first(name: "last-modified"),
            retryAfter: headers.first(name: "retry-after")
        )
        var report = AttemptReport(outcome: .completed)
        let validators: ResourceValidators
        var refetchLimit: Int64 = 0
        let part: PartFile

        switch ResumePlanner.decide(plan: plan, metadata: metadata, response: summary) {
        case .retry(let status):
            let retryAfter = summary.retryAfter.flatMap {
                RetryPolicy.parseRetryAfter($0, now: Int64(Date().timeIntervalSince1970))
            }
            return AttemptReport(outcome: .transient(TransferError(.httpStatus(status), url: url), retryAfter: retryAfter))
        case .fail(let status):
            return AttemptReport(outcome: .fatal(TransferError(.httpStatus(status), url: url)))
        case .restartWithoutRange(let reason):
            return AttemptReport(outcome: .restart(reason))
        case .alreadyComplete:
            return AttemptReport(outcome: .completed)
        case .writeFromStart(let fresh, let restart):
            do throws(FileError) {
                if let existingPart {
                    if restart == .rangeIgnored { refetchLimit = existingPart.length }
                    try existingPart.truncate()
                    part = existingPart
                } else {
                    part = try PartFile(path: paths.part, truncate: true)
                    report.part = part
                }
                // The validators are durable before the first body byte is.
                let newMetadata = PartialDownload(
                    url: url, size: fresh.size, etag: fresh.etag, lastModified: fresh.lastModified, bytesWritten: 0
                )
                try MetadataFile.write(newMetadata, to: paths.metadata, directory: paths.directory)
                report.metadata = newMetadata
            } catch {
                return AttemptReport(outcome: .fatal(error.transferError(url: url)), part: report.part)
            }
            report.restarted = restart != nil
            validators = fresh
        case .append(let offset, let known):
            guard let existingPart, existingPart.length == offset else {
                return AttemptReport(outcome: .restart(.unexpectedContentRange))
            }
            part = existingPart
            validators = known
            if metadata?.size != known.size || metadata?.etag != known.etag || metadata?.lastModified != known.lastModified {
                let updated = PartialDownload(
                    url: url, size: known.size, etag: known.etag, lastModified: known.lastModified, bytesWritten: offset
                )
                try? MetadataFile.write(updated, to: paths.metadata, directory: paths.directory)
                report.metadata = updated
            }
        }

        // Stream the body: pwrite at the end of the partial file, hash as it goes.
        var metadataNow = report.metadata ?? metadata
        let clock = ContinuousClock()
        var lastReport = clock.now
        var lastCheckpoint = lastReport
        var bytesAtLastReport = part.length
        var writebackFrom = part.length
        let report0 = DownloadProgress(
            bytesOnDisk: part.length, totalBytes: validators.size, bytesReceivedThisRun: progressBase.receivedThisRun,
            bytesRefetched: progressBase.refetched, attempt: progressBase.attempt
        )
        progress(report0)
        do {
            for try await chunk in response.body {
                let now = clock.now
                activity.touch(now)
                let before = part.length
                do {
                    try part.append(chunk)
                } catch {
                    report.received += part.length - before
                    report.outcome = .fatal(error.transferError(url: url))
                    return report
                }
                if part.hashingIsBehind { await part.drainHashing() }
                let count = Int64(chunk.readableBytes)
                report.received += count
                if before < refetchLimit { report.refetched += min(count, refetchLimit - before) }
                let length = before + count
                if length - writebackFrom >= Self.writebackStep {
                    // Overlap the disk writeback with the transfer (the finish fsyncs less).
                    part.startWriteback(offset: writebackFrom, length: length - writebackFrom)
                    writebackFrom = length
                }
                if now - lastReport >= .milliseconds(50) || length - bytesAtLastReport >= 4 << 20 {
                    lastReport = now
                    bytesAtLastReport = length
                    progress(
                        DownloadProgress(
                            bytesOnDisk: length, totalBytes: validators.size,
                            bytesReceivedThisRun: progressBase.receivedThisRun + report.received,
                            bytesRefetched: progressBase.refetched + report.refetched, attempt: progressBase.attempt
                        )
                    )
                }
                if now - lastCheckpoint >= .seconds(2), var checkpointed = metadataNow {
                    // Durable progress for a crash of the machine (a killed process loses nothing).
                    lastCheckpoint = now
                    try? part.sync()
                    checkpointed.bytesWritten = length
                    try? MetadataFile.write(checkpointed, to: paths.metadata, directory: paths.directory)
                    metadataNow = checkpointed
                }
            }
        } catch {
            if Task.isCancelled {
                report.outcome = .cancelled
            } else {
                report.outcome = Self.classify(error, url: url).outcome
            }
            return report
        }
        if Task.isCancelled {
            report.outcome = .cancelled
            return report
        }
        let length = part.length
        if let size = validators.size {
            if length < size {
                report.outcome = .incomplete
            } else if length > size {
                report.outcome = .restart(.unexpectedContentRange)
            }
        }
        return report
    }

    // MARK: Checks and errors

    static func validate(_ url: String) throws(TransferError) {
        guard let parsed = URL(string: url), let scheme = parsed.scheme?.lowercased(),
            scheme == "http" || scheme == "https", let host = parsed.host, !host.isEmpty
        else {
            throw TransferError(.invalidURL, url: url, detail: "only http and https URLs with a host are supported")
        }
    }

    static func tlsConfiguration(caFile: String?, url: String) throws(TransferError) -> TLSConfiguration? {
        guard let caFile else { return nil }
        guard access(caFile, R_OK) == 0 else {
            throw TransferError(.tlsFailure, url: url, path: caFile, detail: "CA file \(caFile) is not readable")
        }
        var configuration = TLSConfiguration.makeClientConfiguration()
        configuration.additionalTrustRoots = [.file(caFile)]
        return configuration
    }

    /// Maps an error from the HTTP stack to a download error, and whether retrying may help.
    static func classify(_ error: any Error, url: String) -> (error: TransferError, outcome: Outcome) {
        func transient(_ kind: TransferError.Kind) -> (TransferError, Outcome) {
            let failure = TransferError(kind, url: url, detail: "\(error)")
            return (failure, .transient(failure, retryAfter: nil))
        }
        func fatal(_ kind: TransferError.Kind) -> (TransferError, Outcome) {
            let failure = TransferError(kind, url: url, detail: "\(error)")
            return (failure, .fatal(failure))
        }
        if error is CancellationError {
            return (TransferError(.cancelled, url: url), .cancelled)
        }
        if let error = error as? HTTPClientError {
            if [.invalidURL, .emptyHost, .emptyScheme].contains(error) || error.shortDescription.contains("nsupported scheme") {
                return fatal(.invalidURL)
            }
            if error == .cancelled { return (TransferError(.cancelled, url: url), .cancelled) }
            if [.readTimeout, .deadlineExceeded, .connectTimeout, .tlsHandshakeTimeout, .getConnectionFromPoolTimeout]
                .contains(error)
            {
                return transient(.timedOut)
            }
            return transient(.io)
        }
        if error is NIOSSLError || error is BoringSSLError || error is NIOSSLExtraError {
            let failure = TransferError(.tlsFailure, url: url, detail: tlsReason(error))
            return (failure, .fatal(failure))
        }
        if let error = error as? IOError {
            switch error.errnoCode {
            case ECONNREFUSED, EHOSTUNREACH, ENETUNREACH, EHOSTDOWN: return transient(.unreachable)
            case ETIMEDOUT: return transient(.timedOut)
            default: return transient(.io)
            }
        }
        if let error = error as? ChannelError, case .connectTimeout = error {
            return transient(.timedOut)
        }
        let typeName = String(reflecting: type(of: error))
        if typeName.contains("NIOConnectionError") || error is SocketAddressError {
            return transient(.unreachable)
        }
        return transient(.io)
    }
}

/// A TLS error in words, without BoringSSL's source locations (`… at /path/to/handshake.cc:320`):
/// build paths mean nothing to a user and leak the build machine's layout.
package func tlsReason(_ error: any Error) -> String {
    let text = "\(error)"
    if text.contains("CERTIFICATE_VERIFY_FAILED") { return "the server's certificate did not verify (CERTIFICATE_VERIFY_FAILED)" }
    var out = ""
    var rest = Substring(text)
    while let at = rest.firstRange(of: " at /") {
        out += rest[..<at.lowerBound]
        rest = rest[at.upperBound...].drop { !($0 == " " || $0 == "]" || $0 == ")" || $0 == ",") }
    }
    return out + rest
}

/// When the current attempt last received anything; watched against the read timeout.
final class ActivityClock: Sendable {
    private let origin = ContinuousClock.now
    private let lastNanoseconds = Atomic<Int64>(0)

    func touch(_ now: ContinuousClock.Instant = .now) {
        lastNanoseconds.store(Int64((now - origin).nanoseconds), ordering: .relaxed)
    }

    /// Returns true when nothing arrived for `timeout`; false once cancelled.
    func watch(timeout: Duration) async -> Bool {
        let step = max(timeout / 8, .milliseconds(5))
        while true {
            do {
                try await Task.sleep(for: step)
            } catch {
                return false
            }
            let idle = (ContinuousClock.now - origin).nanoseconds - Double(lastNanoseconds.load(ordering: .relaxed))
            if idle >= timeout.nanoseconds { return true }
        }
    }
}
