import ReachabilityCore
import AsyncHTTPClient
import FoundationEssentials

/// One run of a ``Download``: the attempt loop, its retry budget and its bookkeeping.
struct DownloadRun {
    let download: Download
    /// The client of the run's uplink (``HTTPClients/lease(for:uplink:)``): every request of
    /// the run, segments included, goes through its pool.
    let client: HTTPClient
    var state: DownloadState
    let byteLimit: Int64?
    let admit: (@Sendable (Int64?) async -> Bool)?
    let progress: @Sendable (DownloadProgress) -> Void
    var receivedThisRun: Int64 = 0
    var restartsThisRun = 0
    /// The last attempt ran segments (its restart may be the segments disagreeing).
    var ranSegments = false
    /// The server serves ranges without telling the size: no more opening requests this run.
    var segmentsRefused = false

    init(
        download: Download, client: HTTPClient, state: DownloadState, byteLimit: Int64?, admit: (@Sendable (Int64?) async -> Bool)?,
        progress: @escaping @Sendable (DownloadProgress) -> Void
    ) {
        self.download = download
        self.client = client
        self.state = state
        self.byteLimit = byteLimit
        self.admit = admit
        self.progress = progress
    }

    var request: DownloadRequest { download.request }
    private var paths: TransferPaths { download.paths }
    private var directory: DirectoryHandle { download.directory }
    var shownURL: String { download.url.redacted }

    private func cancelled() -> TransferError { TransferError(.cancelled, url: shownURL, path: paths.destination) }

    /// Opens the partial file an earlier process left (hashing it when the download hashes,
    /// unless it was fetched in segments), once per download.
    private mutating func loadPartial() throws(TransferError) {
        guard !state.loaded else { return }
        state.metadata = MetadataFile.read(paths.metadataName, in: directory)
        if directory.status(of: paths.partName) != nil {
            do throws(FileError) {
                state.part = try PartFile(directory: directory, name: paths.partName, truncate: false, hashing: request.hashes, prefixComplete: state.metadata?.completed == nil)
            } catch {
                throw error.transferError(url: shownURL)
            }
        }
        state.highWater = bytesOnDisk
        state.loaded = true
    }

    /// Bytes of the resource on disk: the completed ranges of a segmented partial file, else
    /// the partial file's length.
    private var bytesOnDisk: Int64 {
        state.metadata?.completedBytes ?? state.part?.length ?? 0
    }

    /// With several connections, the first request asks for a bounded range, so that a server
    /// serving ranges tells the size and the rest can be split.
    private var openingLength: Int64? {
        request.connections > 1 && !segmentsRefused ? SegmentPlan.initialLength : nil
    }

    mutating func execute() async throws(TransferError) -> DownloadResult {
        try loadPartial()
        var failures = 0
        while true {
            if Task.isCancelled { throw cancelled() }
            state.attempts += 1
            let highWater = state.highWater
            let report = try await attempt()
            if let newPart = report.part { state.part = newPart }
            if let newMetadata = report.metadata { state.metadata = newMetadata }
            receivedThisRun += report.received
            state.received += report.received
            state.refetched += report.refetched
            if report.restarted { countRestart() }
            // Only bytes past the most the partial file ever held are progress: a server that
            // ignores Range and then drops sends old bytes again, which must not reset the
            // budget. A trickle that times out must bring 64 KiB or 1/16 of the file.
            let length = bytesOnDisk
            let fresh = max(0, length - highWater)
            state.highWater = max(highWater, length)
            let total = state.metadata?.size ?? 0
            let progressed = report.outcome.isTimeout ? fresh >= 64 << 10 || (total > 0 && fresh >= total / 16) : fresh > 0
            if progressed { failures = 0 }
            if Task.isCancelled, !report.outcome.isCompleted { throw cancelled() }
            if let result = try await settle(report.outcome, progressed: progressed, failures: &failures) { return result }
        }
    }

    /// Acts on how an attempt ended: the finished download, nil to go on, or the error.
    private mutating func settle(_ outcome: AttemptOutcome, progressed: Bool, failures: inout Int) async throws(TransferError) -> DownloadResult? {
        switch outcome {
        case .completed:
            return try await finish()
        case .restart(let reason):
            try discardPartial()
            countRestart()
            // Segments whose answers disagree (backends that tag one file differently, so every
            // If-Range misses): one connection from now on, which needs no validator to agree.
            if ranSegments, request.connections > 1, !segmentsRefused { segmentsRefused = true }
            if restartsThisRun > max(request.maxAttempts, 1) {
                throw TransferError(.resourceChanged, url: shownURL, detail: "last restart: \(reason)")
            }
        case .incomplete where progressed:
            checkpoint()
        case .incomplete:
            failures += 1
            try await waitBeforeRetry(failures: failures, retryAfter: nil, cause: TransferError(.io, url: shownURL, detail: "the body ended early without new bytes"))
        case .transient(let error, let retryAfter):
            checkpoint()
            failures += 1
            try await waitBeforeRetry(failures: failures, retryAfter: retryAfter, cause: error)
        case .fatal(let error):
            throw error
        case .limitReached:
            checkpoint()
            throw TransferError(.byteLimitReached, url: shownURL, path: paths.destination)
        case .cancelled:
            throw cancelled()
        case .openingRefused:
            // The server serves ranges without telling the size: one connection, no bounded range.
            segmentsRefused = true
        case .split:
            throw TransferError(.io, url: shownURL, detail: "a segmented run was not started")
        }
        return nil
    }

    /// One attempt: a segmented run over a segmented partial file, or one request (which, as an
    /// opening request, may hand its body over to a segmented run for the rest).
    private mutating func attempt() async throws(TransferError) -> AttemptReport {
        ranSegments = false
        if let completed = try segmentedPartial(), let part = state.part, let metadata = state.metadata {
            ranSegments = true
            return await segmented(part: part, metadata: metadata, completed: completed, handoff: nil, admit: admit)
        }
        let plan = ResumePlanner.plan(url: download.url.storageKey, metadata: state.metadata, partLength: state.part?.length)
        if case .fresh(let discarding) = plan, discarding > 0 {
            // An unusable partial file (no metadata, another URL, no validator): start over.
            try discardPartial()
            countRestart()
        }
        var report = await DownloadAttempt(
            download: download, client: client, plan: plan, opening: openingLength, metadata: state.metadata, part: state.part,
            byteLimit: byteLimit.map { max(0, $0 - receivedThisRun) }, admit: admit,
            base: ProgressBase(receivedThisRun: receivedThisRun, refetched: state.refetched, attempt: state.attempts),
            progress: progress
        ).run()
        guard case .split(let handoff) = report.outcome, let part = report.part ?? state.part, let metadata = report.metadata,
            let stored = metadata.completed
        else { return report }
        ranSegments = true
        let rest = await segmented(part: part, metadata: metadata, completed: RangeSet(stored), handoff: handoff, admit: nil)
        report.outcome = rest.outcome
        report.received += rest.received
        report.metadata = rest.metadata
        return report
    }

    mutating func countRestart() {
        restartsThisRun += 1
        state.restarts += 1
    }

    /// Waits before the next attempt, or gives up: after `maxAttempts` failures in a row
    /// without new bytes, or once the waits of the whole download would pass `maxRetryTime`.
    private mutating func waitBeforeRetry(failures: Int, retryAfter: Duration?, cause: TransferError) async throws(TransferError) {
        guard failures < max(request.maxAttempts, 1) else { throw cause }
        let delay = download.downloader.retryPolicy.delay(afterFailure: failures, retryAfter: retryAfter, jitter: Double.random(in: 0...1))
        guard state.retryWaited + delay <= request.maxRetryTime else {
            var exhausted = cause
            exhausted.detail += (exhausted.detail.isEmpty ? "" : "; ") + "gave up: retrying would pass \(ByteCount.seconds(request.maxRetryTime)) of waits"
            throw exhausted
        }
        state.retryWaited += delay
        progress(
            DownloadProgress(
                bytesOnDisk: bytesOnDisk, totalBytes: state.metadata?.size, bytesReceivedThisRun: receivedThisRun,
                bytesRefetched: state.refetched, attempt: state.attempts, retryingAfter: delay, retryCause: cause
            )
        )
        do {
            try await Task.sleep(for: delay)
        } catch {
            throw cancelled()
        }
    }

    /// Gives up the partial file and its metadata (a clean restart from byte 0).
    mutating func discardPartial() throws(TransferError) {
        do {
            try state.part?.truncate()
        } catch {
            throw error.transferError(url: shownURL)
        }
        directory.remove(paths.metadataName)
        state.metadata = nil
        state.highWater = 0
    }

    /// Records the bytes on disk in the metadata (best effort: with a full disk the old
    /// metadata stays, and the file's length remains the truth). A segmented partial file's
    /// completed ranges are made durable first: they are the truth.
    func checkpoint() {
        guard var metadata = state.metadata, let part = state.part, metadata.url == download.url.storageKey else { return }
        if metadata.completed != nil { try? part.sync() }
        metadata.bytesWritten = bytesOnDisk
        try? MetadataFile.write(metadata, name: paths.metadataName, in: directory)
    }

    private mutating func finish() async throws(TransferError) -> DownloadResult {
        guard let part = state.part else {
            throw TransferError(.io, url: shownURL, path: paths.part, detail: "completed without a partial file")
        }
        let digest = await part.digestHex()
        if let expected = request.expectedSHA256, expected.lowercased() != digest ?? "" {
            directory.remove(paths.partName)
            directory.remove(paths.metadataName)
            state.part = nil
            state.metadata = nil
            state.highWater = 0
            throw TransferError(.checksumMismatch, url: shownURL, path: paths.destination, detail: "expected \(expected.lowercased()), got \(digest ?? "none")")
        }
        do throws(FileError) {
            let (mode, owner) = try DestinationCheck.modeForFinishedFile(paths, in: directory)
            try part.adopt(mode: mode, owner: owner)
            try part.sync()
            try directory.rename(paths.partName, to: paths.name)
        } catch {
            throw error.transferError(url: shownURL)
        }
        directory.sync()
        directory.remove(paths.metadataName)
        directory.sync()
        let bytes = part.length
        state.part = nil
        state.metadata = nil
        progress(
            DownloadProgress(
                bytesOnDisk: bytes, totalBytes: bytes, bytesReceivedThisRun: receivedThisRun, bytesRefetched: state.refetched,
                attempt: state.attempts
            )
        )
        return DownloadResult(
            path: paths.destination, bytes: bytes, sha256: digest, restarts: state.restarts, bytesDownloadedTotal: state.received,
            bytesRefetched: state.refetched, attempts: state.attempts
        )
    }
}

struct ProgressBase: Sendable {
    var receivedThisRun: Int64
    var refetched: Int64
    var attempt: Int
}
