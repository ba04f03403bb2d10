import ReachabilityCore
import Synchronization

/// A run's byte limit, shared by its connections: each chunk takes at most what is left, so
/// together they never write more than the limit.
final class ByteBudget: Sendable {
    private let left: Atomic<Int64>

    init(_ limit: Int64) {
        left = Atomic(max(0, limit))
    }

    /// Takes up to `wanted` bytes; returns how many were granted (0 once the budget is spent).
    func take(_ wanted: Int64) -> Int64 {
        var current = left.load(ordering: .relaxed)
        while true {
            let granted = min(wanted, current)
            guard granted > 0 else { return 0 }
            let (exchanged, original) = left.compareExchange(expected: current, desired: current - granted, ordering: .relaxed)
            if exchanged { return granted }
            current = original
        }
    }
}

/// What the connections of a segmented run share: the plan, the bytes written, the byte budget,
/// the waits between attempts, and whether the run is over.
final class SegmentBoard: Sendable {
    private struct State {
        var plan: SegmentPlan
        var received: Int64 = 0
        var fetching = 0
        var retryWaited: Duration
        var pendingRetry: (delay: Duration, cause: TransferError)?
        var workersDone = false
        var stopped = false
    }

    /// What the progress reports and checkpoints are made of.
    struct Snapshot: Sendable {
        var completed: [Range<Int64>]
        var completedBytes: Int64
        var contiguousPrefix: Int64
        var received: Int64
        var isComplete: Bool
    }

    let size: Int64
    let budget: ByteBudget?
    private let state: Mutex<State>

    init(plan: SegmentPlan, budget: ByteBudget?, retryWaited: Duration) {
        size = plan.size
        self.budget = budget
        state = Mutex(State(plan: plan, retryWaited: retryWaited))
    }

    /// The next segment for a connection that reached `rate` bytes per second (nil: unknown).
    func claim(rate: Double?) -> Range<Int64>? { state.withLock { $0.plan.claim(rate: rate) } }

    /// Marks the opening request's segment as taken.
    func claim(_ segment: Range<Int64>) { state.withLock { $0.plan.claim(segment) } }

    /// Gives back what is left of a segment.
    func release(_ segment: Range<Int64>) { state.withLock { $0.plan.release(segment) } }

    /// Records bytes written at their place in the file.
    func wrote(_ range: Range<Int64>) {
        state.withLock { state in
            state.plan.complete(range)
            state.received += Int64(range.count)
        }
    }

    var snapshot: Snapshot {
        state.withLock { state in
            Snapshot(
                completed: state.plan.storedRanges, completedBytes: state.plan.completedBytes, contiguousPrefix: state.plan.contiguousPrefix,
                received: state.received, isComplete: state.plan.isComplete
            )
        }
    }

    var contiguousPrefix: Int64 { state.withLock { $0.plan.contiguousPrefix } }

    /// A request of a connection starts or ends.
    func fetching(_ started: Bool) { state.withLock { $0.fetching += started ? 1 : -1 } }

    /// Books a wait before a connection's next attempt, unless the waits of the whole download
    /// would pass `limit`. Returns whether it may wait.
    func reserveRetry(_ delay: Duration, cause: TransferError, limit: Duration) -> Bool {
        state.withLock { state in
            guard state.retryWaited + delay <= limit else { return false }
            state.retryWaited += delay
            state.pendingRetry = (delay, cause)
            return true
        }
    }

    /// A wait to report, once, when no connection is receiving (every one is waiting).
    func takeRetryToReport() -> (delay: Duration, cause: TransferError)? {
        state.withLock { state in
            guard state.fetching == 0, let pending = state.pendingRetry else { return nil }
            state.pendingRetry = nil
            return pending
        }
    }

    var retryWaited: Duration { state.withLock { $0.retryWaited } }

    /// Every connection has returned (nothing left to fetch, or the run is over).
    func finishWorkers() { state.withLock { $0.workersDone = true } }
    var workersDone: Bool { state.withLock { $0.workersDone } }

    /// The run ended early (failure, pause, restart): the helpers stop.
    func stop() { state.withLock { $0.stopped = true } }
    var stopped: Bool { state.withLock { $0.stopped } }
}
