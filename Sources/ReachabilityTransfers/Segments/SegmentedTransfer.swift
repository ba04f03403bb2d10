import ReachabilityCore
/// What a segmented run reports back to its ``DownloadRun``.
struct SegmentedReport: Sendable {
    var report: AttemptReport
    /// The waits between attempts over the whole download, this run's included.
    var retryWaited: Duration
}

/// The segmented part of a download's run (``DownloadRequest/connections`` above 1, a server
/// that serves ranges of a resource of known size): up to `connections` ``SegmentWorker``s
/// fetch the missing ranges at once, while a reporter sends the summed progress and checkpoints
/// the completed ranges, and a hasher follows the completed prefix.
///
/// The SHA-256 is of the contiguous prefix: the hasher reads back from the partial file (the
/// page cache, normally) the bytes from the hashed length up to where the completed ranges
/// stop being contiguous from byte 0, as they complete. Segments are handed out front first,
/// so that prefix trails the download by about one segment per connection, and little is left
/// to hash when the last byte arrives. A new process starts hashing from byte 0.
struct SegmentedTransfer: Sendable {
    let context: SegmentContext
    let handoff: SegmentHandoff?
    /// Asked before the first byte is written (nil: already asked, by the opening request).
    let admit: (@Sendable (Int64?) async -> Bool)?
    let base: ProgressBase
    let progress: @Sendable (DownloadProgress) -> Void

    /// How often the completed ranges are made durable and recorded in the metadata: what a
    /// `kill -9` can lose (fetched again by the next run).
    static let checkpointInterval: Duration = .seconds(1)
    /// How far reading back may run ahead of hashing.
    static let readBackBacklog = 8 << 20

    private enum Child: Sendable {
        case worker(AttemptOutcome)
        case hasher(TransferError?)
        case reporter
    }

    func run() async -> SegmentedReport {
        let board = context.board
        let start = board.snapshot
        if let admit, !(await admit(context.size - start.completedBytes)) {
            return report(.limitReached)
        }
        if let handoff { board.claim(handoff.segment) }
        let workers = max(1, context.download.request.connections)
        let ending = await withTaskGroup(of: Child.self) { group -> AttemptOutcome in
            for index in 0..<workers {
                let worker = SegmentWorker(context: context, handoff: index == 0 ? handoff : nil)
                group.addTask { .worker(await worker.run()) }
            }
            // Without a hash nothing is read back: the prefix jumps to the end once done.
            if context.part.hashes { group.addTask { .hasher(await self.followPrefix()) } }
            group.addTask {
                await self.reportAndCheckpoint()
                return .reporter
            }
            var ending: AttemptOutcome?
            var running = workers
            while let child = await group.next() {
                var failure: AttemptOutcome?
                switch child {
                case .worker(let outcome):
                    running -= 1
                    if running == 0 { board.finishWorkers() }
                    if !outcome.isCompleted { failure = outcome }
                case .hasher(let error):
                    failure = error.map { .fatal($0) }
                case .reporter:
                    break
                }
                if let failure, ending == nil {
                    ending = failure
                    board.stop()
                    group.cancelAll()
                }
            }
            return ending ?? .completed
        }
        if ending.isCompleted, !context.part.hashes { _ = try? context.part.hashThrough(board.contiguousPrefix) }
        if ending.isCompleted, context.part.length != context.size {
            // Not expected: every connection found nothing left to fetch, yet bytes are missing.
            let detail = "segments ended with \(context.size - board.snapshot.completedBytes) bytes missing"
            return report(.fatal(TransferError(.io, url: context.download.url.redacted, path: context.download.paths.part, detail: detail)))
        }
        if !ending.isCompleted { checkpoint() }
        return report(ending)
    }

    private func report(_ outcome: AttemptOutcome) -> SegmentedReport {
        let snapshot = context.board.snapshot
        var metadata = context.metadata
        metadata.completed = snapshot.completed
        metadata.bytesWritten = snapshot.completedBytes
        let report = AttemptReport(outcome: outcome, received: snapshot.received, metadata: metadata)
        return SegmentedReport(report: report, retryWaited: context.board.retryWaited)
    }

    /// Makes the completed bytes durable, then records them (so the record never claims a byte
    /// a crash of the machine could lose). Best effort, as on one connection.
    func checkpoint() {
        let snapshot = context.board.snapshot
        var metadata = context.metadata
        metadata.completed = snapshot.completed
        metadata.bytesWritten = snapshot.completedBytes
        try? context.part.sync()
        try? MetadataFile.write(metadata, name: context.download.paths.metadataName, in: context.download.directory)
    }
}

extension SegmentedTransfer {
    /// Hashes the completed prefix as it grows, until the whole file is hashed or the run stops.
    func followPrefix() async -> TransferError? {
        let board = context.board
        let part = context.part
        while part.length < context.size {
            if Task.isCancelled || board.stopped { return nil }
            let prefix = board.contiguousPrefix
            if board.workersDone && prefix <= part.length { return nil }
            if prefix > part.length {
                do throws(FileError) {
                    try part.hashThrough(prefix)
                } catch {
                    return error.transferError(url: context.download.url.redacted)
                }
                // Read-back buffers are held until hashed: a short backlog keeps memory flat.
                if part.hashBacklog > Self.readBackBacklog { await part.drainHashing() }
            } else {
                try? await Task.sleep(for: .milliseconds(10))
            }
        }
        return nil
    }

    /// Sends the summed progress every 50 ms when it changed (or a wait, when every connection
    /// is waiting to retry), and checkpoints every ``checkpointInterval``, until the workers end.
    func reportAndCheckpoint() async {
        let board = context.board
        let clock = ContinuousClock()
        var lastCheckpoint = clock.now
        var lastReported: Int64 = -1
        while !board.workersDone && !board.stopped && !Task.isCancelled {
            let snapshot = board.snapshot
            if let (delay, cause) = board.takeRetryToReport() {
                progress(progressReport(snapshot, retry: (delay, cause)))
            } else if snapshot.completedBytes != lastReported {
                lastReported = snapshot.completedBytes
                progress(progressReport(snapshot, retry: nil))
            }
            if clock.now - lastCheckpoint >= Self.checkpointInterval {
                lastCheckpoint = clock.now
                checkpoint()
            }
            try? await Task.sleep(for: .milliseconds(50))
        }
        let final = board.snapshot
        if final.completedBytes != lastReported { progress(progressReport(final, retry: nil)) }
    }

    private func progressReport(_ snapshot: SegmentBoard.Snapshot, retry: (Duration, TransferError)?) -> DownloadProgress {
        DownloadProgress(
            bytesOnDisk: snapshot.completedBytes, totalBytes: context.size, bytesReceivedThisRun: base.receivedThisRun + snapshot.received,
            bytesRefetched: base.refetched, attempt: base.attempt, retryingAfter: retry?.0, retryCause: retry?.1
        )
    }
}
