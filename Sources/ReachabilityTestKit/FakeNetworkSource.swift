import Dispatch
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
        var routeReads = 0
        var destinationsAsked: Set<String> = []
        var startError: (any Error)?
        var holdNextStart = false
        var holdingStart = false
    }

    private let state: Mutex<State>
    private let delivery = Mutex(())
    /// Signalled by ``releaseStart()``: a held start returns.
    private let startRelease = DispatchSemaphore(value: 0)

    public init(initial: NetworkSnapshot = NetworkSnapshot()) {
        state = Mutex(State(current: initial))
    }

    /// How often the source was started and stopped.
    public var starts: Int { state.withLock { $0.starts } }
    /// Readings towards destinations (``snapshot(towards:)``): what per-destination judging costs.
    public var routeReads: Int { state.withLock { $0.routeReads } }
    /// Every address a reading was taken towards.
    public var destinationsAsked: Set<String> { state.withLock { $0.destinationsAsked } }
    public var cancellations: Int { state.withLock { $0.cancellations } }
    public var isRunning: Bool { state.withLock { $0.handler != nil } }

    /// Makes the next `start` fail with `error`.
    public func failNextStart(with error: any Error) {
        state.withLock { $0.startError = error }
    }

    /// Makes the next `start` deliver the current snapshot and then block, as a kernel source
    /// does while it finishes setting up, until ``releaseStart()``: for tests of what happens
    /// while a monitor is starting.
    public func holdNextStart() {
        state.withLock { $0.holdNextStart = true }
    }

    /// A `start` is blocked by ``holdNextStart()`` now.
    public var isHoldingStart: Bool { state.withLock { $0.holdingStart } }

    /// Lets a held `start` return.
    public func releaseStart() {
        startRelease.signal()
    }

    /// Suspends until the source was cancelled `count` times (bounded, for a broken test).
    public func waitForCancellations(_ count: Int, timeout: Duration = .seconds(10)) async throws {
        try await poll(timeout: timeout, "cancellations: \(cancellations)") { self.cancellations >= count }
    }

    /// Suspends until a start is held (bounded, for a broken test).
    public func waitUntilHoldingStart(timeout: Duration = .seconds(10)) async throws {
        try await poll(timeout: timeout, "start not held") { self.isHoldingStart }
    }

    private func poll(timeout: Duration, _ failure: @autoclosure () -> String, until done: () -> Bool) async throws {
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: timeout)
        while !done() {
            guard clock.now < deadline else { throw RecorderError.timedOut(lastPaths: [failure()]) }
            try await Task.sleep(for: .milliseconds(1))
        }
    }

    /// Replaces the current state and delivers it to the running monitor, if any.
    public func send(_ snapshot: NetworkSnapshot) {
        // Held while the handler runs: a cancel waits for a delivery in flight, as the kernel
        // source's stop joins its thread ("after cancel returns, the handler is not called").
        delivery.withLock { _ in
            let handler = state.withLock { state in
                state.current = snapshot
                return state.handler
            }
            handler?(snapshot)
        }
    }

    public func snapshot() throws -> NetworkSnapshot { state.withLock { $0.current } }

    /// The current state with one lookup per destination through the first default route of
    /// its family (a gateway route; none when the family has no default route).
    public func snapshot(towards destinations: [String]) throws -> NetworkSnapshot {
        var snapshot = state.withLock { state in
            state.routeReads += 1
            state.destinationsAsked.formUnion(destinations)
            return state.current
        }
        snapshot.lookups = destinations.compactMap { destination in
            let family: AddressFamily = destination.contains(":") ? .ipv6 : .ipv4
            guard let route = snapshot.defaultRoutes.first(where: { $0.family == family }) else { return nil }
            return RouteLookup(family: family, interfaceIndex: route.interfaceIndex, gateway: route.gateway ?? "192.0.2.1", destination: destination)
        }
        snapshot.markedLookups = []
        return snapshot
    }

    public func start(_ handler: @escaping @Sendable (NetworkSnapshot) -> Void) throws -> any NetworkStateSubscription {
        let (current, hold) = try state.withLock { state throws -> (NetworkSnapshot, Bool) in
            if let error = state.startError {
                state.startError = nil
                throw error
            }
            state.starts += 1
            state.handler = handler
            defer { state.holdNextStart = false }
            state.holdingStart = state.holdNextStart
            return (state.current, state.holdNextStart)
        }
        handler(current)
        if hold {
            startRelease.wait()
            state.withLock { $0.holdingStart = false }
        }
        return Subscription(source: self)
    }

    private func cancel() {
        delivery.withLock { _ in }
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
