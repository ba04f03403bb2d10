import ReachabilityCore
import Synchronization

extension JobRunner {
    /// Uploads under the run's budget. A tus upload stopped at the budget resumes from the
    /// server's offset once the gate allows it again; the budget is checked as progress is
    /// reported (every 50 ms), so it can be exceeded by what is sent in that time.
    func runUpload(_ request: UploadRequest, _ run: GateRun) async throws -> UploadResult {
        var budget = run.byteBudget
        while true {
            counters.withLock { $0.receivedThisRun = 0 }
            if let result = try await uploadAttempt(request, run, budget: budget) { return result }
            let now = transfer(updating: run.transfer)
            guard await run.rejudge(now) else { throw CancellationError() }
            budget = job.policy.byteBudget(on: run.network, for: now)
        }
    }

    /// The upload's result, or nil when it was stopped for going over `budget`.
    private func uploadAttempt(_ request: UploadRequest, _ run: GateRun, budget: Int64?) async throws -> UploadResult? {
        let (overBudget, signal) = AsyncStream.makeStream(of: Void.self)
        let uploader = engine.uploader
        return try await withThrowingTaskGroup(of: UploadResult??.self) { group in
            group.addTask { [self] in
                defer { signal.finish() }
                return .some(try await uploader.upload(request, uplink: run.network.interface?.name) { progress in
                    self.account(progress, on: run.network)
                    if let budget, progress.bytesSentThisRun >= budget { signal.yield() }
                })
            }
            group.addTask {
                for await _ in overBudget { return .some(nil) }
                return nil
            }
            while let child = try await group.next() {
                guard let outcome = child else { continue }
                group.cancelAll()
                return outcome
            }
            throw CancellationError()
        }
    }

    /// Counts an upload's progress.
    func account(_ progress: UploadProgress, on network: TransferNetwork) {
        let job = counters.withLock { counters -> JobProgress in
            let moved = counters.count(movedThisRun: progress.bytesSentThisRun, on: network)
            counters.remaining = max(0, progress.totalBytes - progress.position)
            counters.progress.completedBytes = progress.position
            counters.progress.totalBytes = progress.totalBytes
            counters.progress.transferredBytes += moved
            return counters.progress
        }
        if let delay = progress.retryingAfter {
            engine.update(id, state: .paused(.retrying(after: delay, cause: "a failed attempt")), progress: job)
        } else {
            engine.update(id, state: .running, progress: job, network: network)
        }
    }
}
