import ReachabilitySQLite
import Synchronization

/// Puts the queue's changes into its database in the order they were made, as many to a
/// transaction as are waiting (group commit), on the store's writer queue: no caller and no thread
/// of the cooperative pool waits for the disk. The batches are taken and written there and the
/// waiting callers resumed from there, so a commit costs one hop there and one back.
///
/// A change someone waits for (``commit(_:)``: a new job, a user's pause or cancel) fails with
/// the store's error, so the daemon can refuse it (507) instead of acknowledging what it could
/// not record. A change nobody waits for (the engine's transitions, progress) is never dropped:
/// after a failure (a full file system) it is retried, in order and ahead of newer changes,
/// with every later batch and on a timer (0.5 s doubling to 30 s) until it is written. A batch
/// of such changes alone starts 2 ms late (``companyDelay``), so the next add commits with it in
/// one fsync instead of behind it (2.7 times fewer flushes while adding one job after another);
/// so do those queued while a batch is being written, and a delay an add has overtaken waits
/// again for what came after (2,261 syncs for 2,000 adds instead of 2,883).
final class QueueWriter: Sendable {
    private struct Pending: Sendable {
        var write: QueueStore.Write
        var done: CheckedContinuation<Int64?, any Error>?
        var afterCommit: (@Sendable () -> Void)?
    }

    private struct State: Sendable {
        var pending: [Pending] = []
        /// Unawaited changes a failed batch left (no `done`), to be written before anything newer.
        var retrying: [Pending] = []
        var isFlushing = false
        var isDelayArmed = false
        /// Batches taken so far: a delay that sees a batch taken since it was armed waits again
        /// for what is left, which is younger than the delay.
        var batchesTaken = 0
        var failures = 0

        /// Arms the wait for company unless it is armed already; returns the batch count the
        /// wait starts from, for ``QueueWriter/waitForCompany(since:)``.
        mutating func armDelay() -> Int? {
            guard !isDelayArmed else { return nil }
            isDelayArmed = true
            return batchesTaken
        }
    }

    private let store: QueueStore
    private let state = Mutex(State())

    init(store: QueueStore) { self.store = store }

    /// Queues `write`; it reaches the database with the next batch. `afterCommit` runs on the
    /// writer's queue once it is committed (after a retry, if the first batch failed).
    func enqueue(_ write: QueueStore.Write, afterCommit: (@Sendable () -> Void)? = nil) {
        add(Pending(write: write, done: nil, afterCommit: afterCommit))
    }

    /// Writes `write` with the next batch and returns once it is committed: an insert's id, or
    /// nil. Throws the store's error (nothing of it was recorded).
    func commit(_ write: QueueStore.Write) async throws(QueueError) -> Int64? {
        do {
            return try await withCheckedThrowingContinuation { continuation in add(Pending(write: write, done: continuation, afterCommit: nil)) }
        } catch let error as QueueError {
            throw error
        } catch {
            throw .storage("cannot record the change: \(error)")
        }
    }

    /// Changes not yet in the database (waiting, being written, or to be retried).
    var backlog: Int { state.withLock { $0.pending.count + $0.retrying.count + ($0.isFlushing ? 1 : 0) } }

    /// Waits until every change queued so far is written, for at most `timeout`; false when
    /// some are still not (the file system stayed full).
    func drain(timeout: Duration) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        kick()
        while backlog > 0 {
            guard ContinuousClock.now < deadline else { return false }
            try? await Task.sleep(for: .milliseconds(10))
            kick()
        }
        return true
    }

    private func add(_ pending: Pending) {
        var armsDelay: Int?
        let starts = state.withLock { state -> Bool in
            state.pending.append(pending)
            guard !state.isFlushing else { return false }
            // Nobody waits for an engine's transition: it waits a moment for company, so that a
            // commit someone waits for (the next add) does not queue behind its own fsync.
            guard pending.done != nil else {
                armsDelay = state.armDelay()
                return false
            }
            state.isFlushing = true
            return true
        }
        if starts { startFlushing() }
        if let armsDelay { waitForCompany(since: armsDelay) }
    }

    /// Flushes what waits after ``companyDelay``, unless a batch was taken meanwhile (an add
    /// took the changes along): then what is left waits once more. The caller has armed it
    /// (`State.armDelay()`).
    private func waitForCompany(since taken: Int) {
        Task.detached { [self] in
            try? await Task.sleep(for: Self.companyDelay)
            let again = state.withLock { state -> Int? in
                if state.batchesTaken != taken && !state.pending.isEmpty { return state.batchesTaken }
                state.isDelayArmed = false
                return nil
            }
            if let again { waitForCompany(since: again) } else { kick() }
        }
    }

    private enum Next { case flush, waitForCompany(Int), rest }

    static let companyDelay = Duration.milliseconds(2)

    /// Starts a flush for changes left to retry, unless one runs.
    private func kick() {
        let starts = state.withLock { state -> Bool in
            guard !state.isFlushing, !state.retrying.isEmpty || !state.pending.isEmpty else { return false }
            state.isFlushing = true
            return true
        }
        if starts { startFlushing() }
    }

    private func startFlushing() { store.onWriterQueue { db in self.flushBatch(db) } }

    /// Writes one batch of what is waiting, then queues the next batch behind whatever else
    /// waits for the writer (the budgets' checkpoints), or stops when nothing is waiting. After a
    /// failure it stops and arms the retry timer, unless newer changes are already waiting.
    private func flushBatch(_ db: SQLiteConnection) {
        let (retrying, batch) = state.withLock { state -> ([Pending], [Pending]) in
            defer {
                state.retrying = []
                state.pending = []
                state.batchesTaken &+= 1
            }
            return (state.retrying, state.pending)
        }
        var retryDelay: Duration?
        if !retrying.isEmpty || !batch.isEmpty {
            do {
                let ids = try QueueStore.write(retrying.map(\.write) + batch.map(\.write), in: db)
                state.withLock { $0.failures = 0 }
                for (pending, id) in zip(batch, ids.dropFirst(retrying.count)) { pending.done?.resume(returning: id) }
                for retry in retrying { retry.afterCommit?() }
                for pending in batch { pending.afterCommit?() }
                // After the callers are resumed: the checkpoint runs on a connection of its own.
                store.checkpointer.committed()
            } catch {
                let count = retrying.count + batch.count
                QueueLog.storageFailure(QueueStore.queueError(error, doing: count == 1 ? "record the change" : "record \(count) changes"))
                // Each waiting caller hears what it could not record (an add: the job), whatever
                // else shared the batch.
                for pending in batch { pending.done?.resume(throwing: QueueStore.queueError(error, doing: pending.write.doing)) }
                retryDelay = state.withLock { state -> Duration in
                    state.retrying = retrying + batch.filter { $0.done == nil }
                    state.failures += 1
                    return min(.milliseconds(500) * (1 << min(state.failures - 1, 6)), .seconds(30))
                }
            }
        }
        // Under the lock: a change added after the take either sees isFlushing and waits for the
        // next batch queued here, or sees it cleared and starts one itself.
        let next = state.withLock { state -> Next in
            state.isFlushing = false
            if state.pending.contains(where: { $0.done != nil }) {
                state.isFlushing = true
                return .flush
            }
            // Changes nobody waits for, queued while this batch was written, wait for company
            // too: written now, their fsync is one more that the next add would queue behind.
            if !state.pending.isEmpty, let taken = state.armDelay() { return .waitForCompany(taken) }
            return .rest
        }
        switch next {
        case .flush: startFlushing()
        case .waitForCompany(let taken): waitForCompany(since: taken)
        case .rest: break
        }
        if case .rest = next, let retryDelay {
            Task.detached { [self] in
                try? await Task.sleep(for: retryDelay)
                kick()
            }
        }
    }
}
