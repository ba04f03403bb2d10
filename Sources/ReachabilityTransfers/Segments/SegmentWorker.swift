import ReachabilityCore
/// One connection of a segmented run: takes segments from the board until none is left,
/// retrying its own failures with the download's retry policy and budgets (`maxAttempts`
/// failures in a row without new bytes; the waits of the whole download within
/// `maxRetryTime`, shared by all connections).
struct SegmentWorker: Sendable {
    let context: SegmentContext
    /// The opening request's segment and body, for the first connection.
    let handoff: SegmentHandoff?

    private var request: DownloadRequest { context.download.request }

    /// `completed` once there is nothing left to take; otherwise why the run must end.
    func run() async -> AttemptOutcome {
        var failures = 0
        var rate: Double?
        var pending = handoff
        while !Task.isCancelled {
            let segment: Range<Int64>
            if let pending {
                segment = pending.segment
            } else {
                guard let next = context.board.claim(rate: rate) else { return .completed }
                segment = next
            }
            let started = ContinuousClock.now
            let result = await SegmentFetch(context: context, segment: segment, handedOver: pending?.body).run()
            pending = nil
            context.board.release(segment)
            let elapsed = (ContinuousClock.now - started).nanoseconds / 1e9
            if result.written > 0, elapsed > 0 { rate = Double(result.written) / elapsed }
            let progressed = madeProgress(result)
            if progressed { failures = 0 }
            switch result.outcome {
            case .completed:
                continue
            case .incomplete where progressed:
                continue
            case .incomplete:
                failures += 1
                let cause = TransferError(.io, url: context.download.url.redacted, detail: "the body ended early without new bytes")
                if let end = await waitBeforeRetry(failures: failures, retryAfter: nil, cause: cause) { return end }
            case .transient(let error, let retryAfter):
                failures += 1
                if let end = await waitBeforeRetry(failures: failures, retryAfter: retryAfter, cause: error) { return end }
            default:
                return result.outcome
            }
        }
        return .cancelled
    }

    /// Whether a request brought new bytes (every byte a segment writes is new). A trickle that
    /// times out must bring 64 KiB or 1/16 of the file, as on one connection.
    private func madeProgress(_ result: SegmentFetchResult) -> Bool {
        guard result.outcome.isTimeout else { return result.written > 0 }
        return result.written >= 64 << 10 || result.written >= context.size / 16
    }

    /// Waits before this connection's next attempt; nil to go on, or how the run ends (the
    /// cause, once the attempts or the download's wait budget are spent; `cancelled`).
    private func waitBeforeRetry(failures: Int, retryAfter: Duration?, cause: TransferError) async -> AttemptOutcome? {
        guard failures < max(request.maxAttempts, 1) else { return .fatal(cause) }
        let delay = context.download.downloader.retryPolicy.delay(afterFailure: failures, retryAfter: retryAfter, jitter: Double.random(in: 0...1))
        guard context.board.reserveRetry(delay, cause: cause, limit: request.maxRetryTime) else {
            var exhausted = cause
            exhausted.detail += (exhausted.detail.isEmpty ? "" : "; ") + "gave up: retrying would pass \(ByteCount.seconds(request.maxRetryTime)) of waits"
            return .fatal(exhausted)
        }
        do {
            try await Task.sleep(for: delay)
        } catch {
            return .cancelled
        }
        return nil
    }
}
