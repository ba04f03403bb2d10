import FoundationEssentials
import Glibc
import ReachabilityCore
import ReachabilityTransfers
import Synchronization

extension JobQueue {
    /// Takes an engine event into the job: its state and reason in the queue's words, its
    /// progress, the bytes it moved (for the metrics), its result.
    func apply(_ event: JobEvent) {
        // The engine stopping its jobs at shutdown is not a state of theirs: the database keeps
        // the last one, and the next start takes them up.
        if event.state == .paused(.shutdown) { return }
        let id = event.id.rawValue
        // Only what is needed is read under the lock: copying whole entries showed in profiles
        // of 10,000 waiting jobs re-judged at once.
        struct Seen { var policy: TransferPolicy, kind: QueueJobKind, engineTransferred: Int64, transferredBase: Int64, state: JobStatus, code: String? }
        guard let entry = state.withLock({ state -> Seen? in
            guard let index = state.entries.index(forKey: id) else { return nil }
            return inPlace(&state.entries.values[index].value) { entry -> Seen? in
                guard entry.inEngine, let policy = entry.runSpec?.policy, let kind = entry.runSpec?.kind else { return nil }
                return Seen(
                    policy: policy, kind: kind, engineTransferred: entry.engineTransferred, transferredBase: entry.transferredBase,
                    state: entry.job.state, code: entry.job.reason?.code)
            }
        }) else { return }
        let (queueState, reason) = event.state.status(under: entry.policy, now: Date())
        let moved = max(0, event.progress.transferredBytes - entry.engineTransferred)
        if moved > 0, let network = event.network {
            observer?.transferred(moved, direction: entry.kind == .upload ? "upload" : "download", networkType: network.status.rawValue)
        }
        let stateChanged = queueState != entry.state || reason?.code != entry.code
        let changed = change(id, history: stateChanged, finish: queueState.isFinal) { job in
            job.state = queueState
            job.reason = reason
            job.network = event.network.map { "\($0)" }
            job.progress.completedBytes = event.progress.completedBytes
            job.progress.totalBytes = event.progress.totalBytes ?? job.progress.totalBytes
            job.progress.transferredBytes = entry.transferredBase + event.progress.transferredBytes
            if let download = event.download {
                job.result = QueueResult(path: download.path, bytes: download.bytes, sha256: download.sha256)
            } else if let upload = event.upload {
                job.result = QueueResult(bytes: upload.bytes)
            } else if let command = event.command {
                job.result = QueueResult(exitStatus: command.exitStatus)
            }
        }
        if stateChanged, let changed { observer?.jobChanged(changed, from: entry.state, previousCode: entry.code) }
        if queueState.isFinal && entry.kind == .command { children.forget(job: id) }
        // The queue keeps the finished job (in its database): the engine need not.
        if queueState.isFinal { engine.forget(event.id) }
        state.withLock { state in
            guard let index = state.entries.index(forKey: id) else { return }
            var released: DestinationKey?
            inPlace(&state.entries.values[index].value) { entry in
                entry.engineTransferred = event.progress.transferredBytes
                if queueState.isFinal {
                    entry.inEngine = false
                    released = entry.destinationKey
                    entry.destinationKey = nil
                }
            }
            if let released, state.destinations[released] == id { state.destinations[released] = nil }
        }
    }

    /// Changes a job in memory, queues it for the store (with a history row when `history`;
    /// progress alone at most once a second) and tells subscribers. Returns the changed job; nil for an
    /// unknown or finished one.
    func change(_ id: Int64, history: Bool, finish: Bool = false, note: String? = nil, _ body: (inout QueueJob) -> Void) -> QueueJob? {
        let now = Date()
        let clock = ContinuousClock.now
        return state.withLock { state -> QueueJob? in
            // Changed in place through the index: copying a whole entry out and back (reading
            // one field through `values[index]` copies it too) showed in profiles of 10,000
            // waiting jobs re-judged at once.
            guard let index = state.entries.index(forKey: id) else { return nil }
            let subscribers = state.subscribers
            return changeEntry(
                &state.entries.values[index].value, subscribers: subscribers.values, now: now, clock: clock, history: history, finish: finish,
                note: note, body)
        }
    }

    /// ``change(_:history:finish:note:_:)`` on the entry itself, under the queue's lock.
    private func changeEntry(
        _ entry: inout QueueEntry, subscribers: some Sequence<AsyncStream<QueueJob>.Continuation>, now: Date,
        clock: ContinuousClock.Instant, history: Bool, finish: Bool, note: String?, _ body: (inout QueueJob) -> Void
    ) -> QueueJob? {
        guard !entry.job.state.isFinal else { return nil }
        let before = ChangeableFields(entry.job)
        body(&entry.job)
        guard ChangeableFields(entry.job) != before else { return nil }
        entry.job.updatedAt = now
        if finish { entry.job.finishedAt = now }
        entry.version += 1
        entry.encoded = nil
        entry.encodedSummary = nil
        // Only progress is throttled: a new state or reason is always written. A reason whose
        // words alone changed (a waiting job's path moved from cellular to Wi-Fi: still
        // `queuedForWired`) is not written at all: 10,000 waiting jobs must not cost 10,000
        // rows per path change, and the next start judges them afresh anyway.
        let sameCode = entry.job.state == before.state && entry.job.reason?.code == before.reason?.code
            && entry.job.reason?.until == before.reason?.until
        let wordsOnly = sameCode && !history && !finish && entry.job.progress == before.progress && entry.job.result == before.result
            && entry.job.attempts == before.attempts
        let progressOnly = !history && !finish && sameCode
        let due = entry.checkpointed.map { clock - $0 >= .seconds(1) } ?? true
        let complete = entry.job.progress.totalBytes.map { $0 == entry.job.progress.completedBytes } ?? false
        let write = !wordsOnly && (!progressOnly || due || complete)
        if write { entry.checkpointed = clock }
        if before.state == .paused && (entry.job.state != .paused || entry.job.reason?.code != before.reason?.code) {
            if let since = entry.pausedSince { observer?.pausedTime(Double((clock - since) / .milliseconds(1)) / 1000, reason: before.reason?.code ?? "unknown") }
            entry.pausedSince = nil
        }
        if entry.job.state == .paused && entry.pausedSince == nil { entry.pausedSince = clock }
        if finish { entry.task = nil }
        // Queued under the lock, so the store receives one job's changes in the order made.
        if write {
            let line = history ? QueueStore.HistoryEntry(at: now, state: entry.job.state.rawValue, reason: note ?? entry.job.reason?.message) : nil
            // A finished job leaves memory once its final state is committed: from then on the
            // database answers for it (``job(_:)``, lists), and 10,000 finished jobs cost no RAM.
            let (id, version) = (entry.job.id, entry.version)
            let leaves: (@Sendable () -> Void)? = entry.job.state.isFinal ? { @Sendable [weak self] in self?.forgetFinished(id, version: version) ?? () } : nil
            writer.enqueue(.save(entry.job, history: line), afterCommit: leaves)
        }
        // Told under the lock too, so subscribers see one job's changes in order. Not a reason
        // whose words alone changed, for the reason it is not written: the path line that moved
        // them says what changed, and a watcher of 10,000 waiting jobs got 10,000 lines (and the
        // daemon 245-640 ms of CPU encoding them) per path change.
        if !wordsOnly || entry.job.network != before.network {
            for subscriber in subscribers { subscriber.yield(entry.job) }
        }
        return entry.job
    }

    /// Lets go of a finished job whose final state (its `version`) is committed; what the engine
    /// held for it (its destination file) is released with it.
    func forgetFinished(_ id: Int64, version: Int) {
        state.withLock { state in
            guard let entry = state.entries[id]?.value, entry.version == version, entry.job.state.isFinal else { return }
            state.entries[id] = nil
            state.finishedCounts[entry.job.state, default: 0] += 1
            if let key = entry.destinationKey, state.destinations[key] == id { state.destinations[key] = nil }
        }
    }

    /// What a change may change of a job (never its id, spec or creation), compared before and
    /// after it: copying and comparing whole jobs, spec and all, showed in profiles of 10,000
    /// waiting jobs re-judged at once.
    private struct ChangeableFields: Equatable {
        var state: JobStatus
        var reason: JobReason?
        var progress: QueueProgress
        var network: String?
        var attempts: Int
        var result: QueueResult?

        init(_ job: QueueJob) {
            (state, reason, progress, network, attempts, result) = (job.state, job.reason, job.progress, job.network, job.attempts, job.result)
        }
    }

    /// One line for `systemctl status` (`STATUS=`): jobs per state, and the most common reason
    /// paused jobs wait for.
    public func summary() -> String {
        let jobs = state.withLock { state in state.entries.values.map(\.value.job).filter { !$0.state.isFinal } }
        guard !jobs.isEmpty else { return "no jobs queued" }
        let running = jobs.filter { $0.state == .running }.count
        let paused = jobs.filter { $0.state == .paused }
        let pending = jobs.filter { $0.state == .pending }.count
        var parts = ["\(running) running"]
        if pending > 0 { parts.append("\(pending) pending") }
        if !paused.isEmpty {
            let reasons = Dictionary(grouping: paused, by: { $0.reason?.code ?? "paused" })
            let top = reasons.max { $0.value.count < $1.value.count }?.key ?? "paused"
            parts.append("\(paused.count) paused (\(paused.count == reasons[top]?.count ? "" : "mostly ")\(top))")
        }
        return parts.joined(separator: ", ")
    }
}

/// The queue's complaints, on standard error (the journal under systemd). Rate-limited, so a
/// full disk does not flood the log.
enum QueueLog {
    private static let lastFailure = Mutex<ContinuousClock.Instant?>(nil)

    static func notice(_ message: String) {
        let line = Array("reach daemon: \(message)\n".utf8)
        _ = line.withUnsafeBytes { write(STDERR_FILENO, $0.baseAddress, $0.count) }
    }

    static func storageFailure(_ error: QueueError) {
        let now = ContinuousClock.now
        let due = lastFailure.withLock { last -> Bool in
            if let last, now - last < .seconds(10) { return false }
            last = now
            return true
        }
        if due { notice(error.message) }
    }
}
