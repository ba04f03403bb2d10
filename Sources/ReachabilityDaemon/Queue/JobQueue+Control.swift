import FoundationEssentials
import ReachabilityCore
import ReachabilityTransfers
import Synchronization

extension JobQueue {
    /// Pauses the job (a download keeps its partial file; a command is suspended, or with
    /// `onDisallow: terminate` terminated and run afresh on resume); state `paused`, reason
    /// `pausedByUser`. Recorded before it is done:
    /// throws ``QueueError`` (nothing done) when the store cannot record it.
    @discardableResult
    public func pause(_ id: Int64) async throws(QueueError) -> QueueJob {
        let entry = try unfinishedEntry(id, doing: "pause")
        if entry.isUserPaused { return entry.job }
        try await recordFirst(entry.job) { job in
            job.state = .paused
            job.reason = .pausedByUser
        }
        entry.task?.cancel()
        await entry.task?.value
        if entry.inEngine { await engine.pause(JobID(id)) }
        // The engine's own event may have made the change already: answer with the job as it is.
        let changed = change(id, history: false) { job in
            job.state = .paused
            job.reason = .pausedByUser
            job.network = nil
        }
        if let changed { return changed }
        return try job(id)
    }

    /// Resumes a job paused by ``pause(_:)``.
    @discardableResult
    public func resume(_ id: Int64) async throws(QueueError) -> QueueJob {
        let entry = try unfinishedEntry(id, doing: "resume")
        guard entry.isUserPaused else { throw .conflict("job \(id) is not paused by the user (\(entry.job.state))") }
        try await recordFirst(entry.job) { job in
            job.state = .pending
            job.reason = nil
        }
        _ = change(id, history: false) { job in
            job.state = .pending
            job.reason = nil
        }
        // In the engine the job waits there (a command suspended, a transfer stopped).
        if entry.inEngine {
            _ = await engine.resume(JobID(id))
            return try job(id)
        }
        schedule(id)
        return try job(id)
    }

    /// Cancels the job for good: a download's partial file is removed, a command terminated.
    @discardableResult
    public func cancel(_ id: Int64) async throws(QueueError) -> QueueJob {
        let entry = try unfinishedEntry(id, doing: "cancel")
        try await recordFirst(entry.job, finishing: true) { job in
            job.state = .cancelled
            job.reason = nil
        }
        entry.task?.cancel()
        await entry.task?.value
        if entry.inEngine {
            await engine.cancel(JobID(id))
        } else if entry.job.spec.kind == .download, let download = entry.runSpec?.download, let destination = download.destination {
            // Never started in this process: its partial file (from before a restart) goes too.
            (try? engine.downloader.prepare(DownloadRequest(url: download.url, destination: destination)))?.discardPartial()
        }
        let changed = change(id, history: false, finish: true) { job in
            job.state = .cancelled
            job.reason = nil
            job.network = nil
        }
        if let changed { return changed }
        return try job(id)
    }

    /// Commits the job as `body` leaves it, with its history row, before the action touches
    /// anything: an action the store cannot record is refused (507 when the file system is
    /// full) rather than done and forgotten at the next start.
    private func recordFirst(_ job: QueueJob, finishing: Bool = false, _ body: (inout QueueJob) -> Void) async throws(QueueError) {
        var target = job
        body(&target)
        target.network = nil
        target.updatedAt = Date()
        if finishing { target.finishedAt = target.updatedAt }
        let line = QueueStore.HistoryEntry(at: target.updatedAt, state: target.state.rawValue, reason: target.reason?.message)
        _ = try await writer.commit(.save(target, history: line))
    }

    private func unfinishedEntry(_ id: Int64, doing: String) throws(QueueError) -> QueueEntry {
        guard let entry = state.withLock({ $0.entries[id]?.value }) else {
            // Not held: finished (read from the database), or unknown.
            throw .conflict("cannot \(doing) job \(id): it \(try job(id).state) already")
        }
        guard !entry.job.state.isFinal else { throw .conflict("cannot \(doing) job \(id): it \(entry.job.state) already") }
        return entry
    }

    var uploadStateDirectory: String { configuration.stateDirectory + "/uploads" }
    var commandLogDirectory: String { configuration.stateDirectory + "/logs" }

    /// The file a command job's output goes to.
    public func logPath(of id: Int64) -> String { commandLogDirectory + "/job-\(id).log" }
}
