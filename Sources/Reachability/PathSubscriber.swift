import ReachabilityCore
import Synchronization

/// Paths handed to debouncers and not yet taken in by them (see `NetworkMonitor.debounceBacklog`).
package final class DebounceBacklog: Sendable {
    let count = Atomic<Int>(0)

    /// Paths not yet taken in.
    package var pending: Int { count.load(ordering: .relaxed) }
}

/// One iterator of ``NetworkPathUpdates``: decides which of the monitor's paths are changes for
/// it, then debounces them.
///
/// Order matters: a path that is no change by the subscriber's measure (its `isSame`) is dropped
/// *before* the debouncer, so churn the subscriber does not care about (a docker veth appearing)
/// never restarts the quiet period of a real change. The first path is never delayed.
final class PathSubscriber: Sendable {
    typealias Output = AsyncThrowingStream<NetworkPath, any Error>.Continuation

    private struct State {
        /// The last path let through the filter (delivered or handed to the debouncer).
        var lastAccepted: NetworkPath?
        /// The last path delivered: what the debouncer's output is compared with.
        var lastDelivered: NetworkPath?
    }

    private let output: Output
    private let isSame: @Sendable (NetworkPath, NetworkPath) -> Bool
    /// Shared with the debouncer's task, hence a box rather than a stored `Mutex`.
    private final class StateBox: Sendable { let value = Mutex(State()) }
    private let state = StateBox()
    /// Feeds the debouncer; nil when changes are delivered at once.
    private let debounced: AsyncStream<NetworkPath>.Continuation?
    private let pump: Task<Void, Never>?
    private let backlog: DebounceBacklog

    init(
        output: Output, isSame: @escaping @Sendable (NetworkPath, NetworkPath) -> Bool, quietTime: Duration,
        backlog: DebounceBacklog, debounce: @escaping DebounceRunner
    ) {
        self.output = output
        self.isSame = isSame
        self.backlog = backlog
        guard quietTime > .zero else {
            debounced = nil
            pump = nil
            return
        }
        let (changes, feed) = AsyncStream.makeStream(of: NetworkPath.self, bufferingPolicy: .bufferingNewest(16))
        debounced = feed
        let state = self.state
        pump = Task {
            await debounce(changes, quietTime) { path in
                // A change that was undone within the quiet time (A → B → A) is no change.
                let deliver = state.value.withLock { state -> Bool in
                    if let last = state.lastDelivered, isSame(last, path) { return false }
                    state.lastDelivered = path
                    return true
                }
                if deliver { output.yield(path) }
            }
        }
    }

    /// Runs `changes` through a debouncer with `quietTime`, calling `deliver` with what it lets
    /// through (the clock is the monitor's).
    typealias DebounceRunner =
        @Sendable (AsyncStream<NetworkPath>, Duration, @escaping @Sendable (NetworkPath) -> Void) async -> Void

    /// A path the monitor published (never two equal ones in a row).
    func receive(_ path: NetworkPath) {
        enum Route { case drop, deliver, debounce }
        let route = state.value.withLock { state -> Route in
            if let last = state.lastAccepted, isSame(last, path) { return .drop }
            let isFirst = state.lastAccepted == nil
            state.lastAccepted = path
            guard isFirst || debounced == nil else { return .debounce }
            state.lastDelivered = path
            return .deliver
        }
        switch route {
        case .drop: break
        case .deliver: output.yield(path)
        case .debounce:
            backlog.count.wrappingAdd(1, ordering: .relaxed)
            switch debounced?.yield(path) {
            // The buffer keeps the newest 16: an older path left it untaken; a finished stream
            // takes nothing.
            case .dropped, .terminated, nil: backlog.count.wrappingSubtract(1, ordering: .relaxed)
            default: break
            }
        }
    }

    /// The source failed: the iterator throws `error`.
    func fail(_ error: any Error) {
        close()
        output.finish(throwing: error)
    }

    /// The iterator ended: stop the debouncer.
    func close() {
        debounced?.finish()
        pump?.cancel()
    }
}
