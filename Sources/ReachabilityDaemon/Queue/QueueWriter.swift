import Foundation
import GRDB
import Synchronization

/// Puts the queue's changes into its database in the order they were made, as many to a
/// transaction as are waiting (group commit), on GRDB's writer queue: no caller and no thread
/// of the cooperative pool waits for the disk. The batches are taken and written there and the
/// waiting callers resumed from there, so a commit costs one hop there and one back.
///
/// A change someone waits for (``commit(_:)``: a new job, a user's pause or cancel) fails with
/// the store's error, so the daemon can refuse it (507) instead of acknowledging what it could
/// not record. A change nobody waits for (the engine's transitions, progress) is never dropped:
/// after a failure (a full file system) it is retried, in order and ahead of newer changes,
/// with every later batch and on a timer (0.5 s doubling to 30 s) until it is written. A batch
/// of such changes alone starts 2 ms late (``companyDelay``), so the next add commits with it in
/// one fsync instead of behind it (2.7 times fewer flushes while adding one job after another).
final class QueueWriter: Sendable {
    private struct Pending: Sendable {
        var write: QueueStore.Write
        var done: CheckedContinuation<Int64?, any Error>?
    }

    private struct State: Sendable {
        var pending: [Pending] = []
        /// Unawaited changes a failed batch left, to be written before anything newer.
        var retrying: [QueueStore.Write] = []
        var isFlushing = false
        var isDelayArmed = false
        var failures = 0
    }

    private let store: QueueStore
    private let state = Mutex(State())

    init(store: QueueStore) { self.store = store }

    /// Queues `write`; it reaches the database with the next batch.
    func enqueue(_ write: QueueStore.Write) { add(Pending(write: write, done: nil)) }

    /// Writes `write` with the next batch and returns once it is committed: an insert's id, or
    /// nil. Throws the store's error (nothing of it was recorded).
    func commit(_ write: QueueStore.Write) async throws(QueueError) -> Int64? {
        do {
            return try await withCheckedThrowingContinuation { continuation in add(Pending(write: write, done: continuation)) }
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
        let starts = state.withLock { state -> Bool in
            state.pending.append(pending)
            guard !state.isFlushing else { return false }
            // Nobody waits for an engine's transition: it waits a moment for company, so that a
            // commit someone waits for (the next add) does not queue behind its own fsync.
            guard pending.done != nil else {
                if !state.isDelayArmed {
                    state.isDelayArmed = true
                    Task.detached { [self] in
                        try? await Task.sleep(for: Self.companyDelay)
                        self.state.withLock { $0.isDelayArmed = false }
                        kick()
                    }
                }
                return false
            }
            state.isFlushing = true
            return true
        }
        if starts { startFlushing() }
    }

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
    private func flushBatch(_ db: Database) {
        let (retrying, batch) = state.withLock { state -> ([QueueStore.Write], [Pending]) in
            defer {
                state.retrying = []
                state.pending = []
            }
            return (state.retrying, state.pending)
        }
        var retryDelay: Duration?
        if !retrying.isEmpty || !batch.isEmpty {
            do {
                let ids = try QueueStore.write(retrying + batch.map(\.write), in: db)
                state.withLock { $0.failures = 0 }
                for (pending, id) in zip(batch, ids.dropFirst(retrying.count)) { pending.done?.resume(returning: id) }
            } catch {
                QueueLog.storageFailure(error)
                for pending in batch { pending.done?.resume(throwing: error) }
                retryDelay = state.withLock { state -> Duration in
                    state.retrying = retrying + batch.filter { $0.done == nil }.map(\.write)
                    state.failures += 1
                    return min(.milliseconds(500) * (1 << min(state.failures - 1, 6)), .seconds(30))
                }
            }
        }
        // Under the lock: a change added after the take either sees isFlushing and waits for the
        // next batch queued here, or sees it cleared and starts one itself.
        let more = state.withLock { state -> Bool in
            guard state.pending.isEmpty else { return true }
            state.isFlushing = false
            return false
        }
        if more {
            startFlushing()
        } else if let retryDelay {
            Task.detached { [self] in
                try? await Task.sleep(for: retryDelay)
                kick()
            }
        }
    }
}
