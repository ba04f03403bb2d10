public import Reachability
public import ReachabilityCore
import Synchronization

/// A ``NetworkStateSource`` driven by the test: ``send(_:)`` delivers a snapshot as the kernel
/// would. Counts starts and cancellations so tests can check the monitor's lifecycle.
public final class FakeNetworkSource: NetworkStateSource {
    private struct State {
        var current: NetworkSnapshot
        var handler: (@Sendable (NetworkSnapshot) -> Void)?
        var starts = 0
        var cancellations = 0
        var startError: (any Error)?
    }

    private let state: Mutex<State>

    public init(initial: NetworkSnapshot = NetworkSnapshot()) {
        state = Mutex(State(current: initial))
    }

    /// How often the source was started and stopped.
    public var starts: Int { state.withLock { $0.starts } }
    public var cancellations: Int { state.withLock { $0.cancellations } }
    public var isRunning: Bool { state.withLock { $0.handler != nil } }

    /// Makes the next `start` fail with `error`.
    public func failNextStart(with error: any Error) {
        state.withLock { $0.startError = error }
    }

    /// Replaces the current state and delivers it to the running monitor, if any.
    public func send(_ snapshot: NetworkSnapshot) {
        let handler = state.withLock { state in
            state.current = snapshot
            return state.handler
        }
        handler?(snapshot)
    }

    public func snapshot() throws -> NetworkSnapshot { state.withLock { $0.current } }

    public func start(_ handler: @escaping @Sendable (NetworkSnapshot) -> Void) throws -> any NetworkStateSubscription {
        let current = try state.withLock { state throws -> NetworkSnapshot in
            if let error = state.startError {
                state.startError = nil
                throw error
            }
            state.starts += 1
            state.handler = handler
            return state.current
        }
        handler(current)
        return Subscription(source: self)
    }

    private func cancel() {
        state.withLock { state in
            state.handler = nil
            state.cancellations += 1
        }
    }

    private struct Subscription: NetworkStateSubscription {
        let source: FakeNetworkSource
        func cancel() { source.cancel() }
    }
}
