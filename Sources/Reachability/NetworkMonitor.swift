import AsyncAlgorithms
public import ReachabilityCore
import ReachabilityLinux
import Synchronization

/// Tells, live, whether and how this host is online.
///
/// ```swift
/// let monitor = NetworkMonitor()
/// for try await path in monitor.paths {
///     print(path.status, path.primary?.name ?? "-", path.isExpensive)
/// }
/// ```
///
/// ``paths`` yields the current path first, then one path per real change (equal paths are
/// never repeated). Any number of tasks may iterate it at once, each with its own iterator; a
/// cancelled one does not disturb the others. The netlink thread starts with the first
/// iterator and is stopped, its sockets closed, when the last one ends. Each iterator buffers
/// only the newest path: a slow consumer skips intermediate states, never sees stale ones.
public final class NetworkMonitor: Sendable {
    private let source: any NetworkStateSource
    private let evaluator: PathEvaluator
    private let debounce: Duration
    private let runDebounced: @Sendable (AsyncStream<NetworkPath>, @escaping @Sendable (NetworkPath) -> Void) async -> Void
    private let state = Mutex(State())

    private struct State {
        var subscribers: [UInt64: AsyncThrowingStream<NetworkPath, any Error>.Continuation] = [:]
        var nextID: UInt64 = 0
        var latest: NetworkPath?
        var run: Run?
        var starting = false
    }

    private struct Run {
        var subscription: (any NetworkStateSubscription)?
        var changes: AsyncStream<NetworkPath>.Continuation?
        var pump: Task<Void, Never>?
    }

    /// A monitor of the kernel's network state.
    public convenience init(configuration: MonitorConfiguration = MonitorConfiguration()) {
        self.init(source: KernelNetworkSource(configuration: configuration.netlink), configuration: configuration, clock: ContinuousClock())
    }

    /// A monitor over any source, debouncing on `clock` (inject a test clock to drive time).
    public init<C: Clock>(source: any NetworkStateSource, configuration: MonitorConfiguration = MonitorConfiguration(), clock: C)
    where C.Duration == Duration {
        self.source = source
        self.evaluator = PathEvaluator(classifier: Classifier(overrides: configuration.overrides))
        self.debounce = configuration.debounce
        let interval = configuration.debounce
        self.runDebounced = { changes, deliver in
            for await path in changes.debounce(for: interval, clock: clock) { deliver(path) }
        }
    }

    /// The live sequence of paths.
    public var paths: NetworkPathUpdates { NetworkPathUpdates(monitor: self) }

    /// The path now: the latest published one while the monitor runs, else a fresh reading.
    public func currentPath() throws -> NetworkPath {
        if let latest = state.withLock({ $0.run != nil ? $0.latest : nil }) { return latest }
        return evaluator.evaluate(try source.snapshot())
    }

    /// Which interface, transport and cost traffic to `host` (a name or an address) would use
    /// now, one answer per address family it resolves to. Asks the kernel (policy routing
    /// included); a tunnel egress comes with its underlay.
    public func routes(to host: String) throws -> [DestinationRoute] {
        let destinations = try HostResolver.addresses(of: host)
        let snapshot = try source.snapshot(towards: destinations)
        return evaluator.routes(for: snapshot.lookups, marked: snapshot.markedLookups, in: snapshot)
    }

    /// Classifies a snapshot with this monitor's rules (what ``paths`` publishes for it).
    public func evaluate(_ snapshot: NetworkSnapshot) -> NetworkPath { evaluator.evaluate(snapshot) }

    // MARK: Subscribers

    func subscribe() -> AsyncThrowingStream<NetworkPath, any Error> {
        let (stream, continuation) = AsyncThrowingStream.makeStream(of: NetworkPath.self, bufferingPolicy: .bufferingNewest(1))
        let (id, mustStart) = state.withLock { state -> (UInt64, Bool) in
            let id = state.nextID
            state.nextID += 1
            state.subscribers[id] = continuation
            if state.run != nil, let latest = state.latest { continuation.yield(latest) }
            let mustStart = state.run == nil && !state.starting
            if mustStart { state.starting = true }
            return (id, mustStart)
        }
        continuation.onTermination = { [weak self] _ in self?.unsubscribe(id) }
        if mustStart { start() }
        return stream
    }

    private func unsubscribe(_ id: UInt64) {
        let run = state.withLock { state -> Run? in
            state.subscribers[id] = nil
            guard state.subscribers.isEmpty, !state.starting, let run = state.run else { return nil }
            state.run = nil
            state.latest = nil
            return run
        }
        if let run { stop(run) }
    }

    private func start() {
        var run = Run()
        if debounce > .zero {
            let (changes, continuation) = AsyncStream.makeStream(of: NetworkPath.self, bufferingPolicy: .bufferingNewest(16))
            run.changes = continuation
            let debounced = runDebounced
            run.pump = Task { [weak self] in
                await debounced(changes) { [weak self] path in self?.deliver(path) }
            }
        }
        let changes = run.changes
        let initialDelivered = Mutex(false)
        do {
            let evaluator = self.evaluator
            let cache = CacheBox()
            run.subscription = try source.start { [weak self] snapshot in
                let path = cache.value.withLock { evaluator.evaluate(snapshot, cache: &$0) }
                // The first path is the current state: never delayed.
                let isFirst = initialDelivered.withLock { delivered in
                    defer { delivered = true }
                    return !delivered
                }
                if let changes, !isFirst { changes.yield(path) } else { self?.deliver(path) }
            }
        } catch {
            run.changes?.finish()
            run.pump?.cancel()
            let waiting = state.withLock { state in
                defer {
                    state.subscribers.removeAll()
                    state.starting = false
                }
                return Array(state.subscribers.values)
            }
            for continuation in waiting { continuation.finish(throwing: error) }
            return
        }
        let orphaned = state.withLock { state -> Bool in
            state.starting = false
            if state.subscribers.isEmpty { return true }
            state.run = run
            return false
        }
        if orphaned { stop(run) }
    }

    private func stop(_ run: Run) {
        run.subscription?.cancel()
        run.changes?.finish()
        run.pump?.cancel()
    }

    /// Publishes a path to every subscriber unless it equals the last one.
    private func deliver(_ path: NetworkPath) {
        let targets = state.withLock { state -> [AsyncThrowingStream<NetworkPath, any Error>.Continuation] in
            guard state.latest != path else { return [] }
            state.latest = path
            return Array(state.subscribers.values)
        }
        for continuation in targets { continuation.yield(path) }
    }
}

/// Classifications kept between snapshots of one run (the source calls from one thread; the
/// lock only satisfies `Sendable`).
private final class CacheBox: Sendable {
    let value = Mutex(ClassificationCache())
}

/// The paths a ``NetworkMonitor`` publishes: the current one, then each change.
public struct NetworkPathUpdates: AsyncSequence, Sendable {
    public typealias Element = NetworkPath
    let monitor: NetworkMonitor

    public func makeAsyncIterator() -> Iterator {
        Iterator(base: monitor.subscribe().makeAsyncIterator())
    }

    public struct Iterator: AsyncIteratorProtocol {
        var base: AsyncThrowingStream<NetworkPath, any Error>.Iterator

        public mutating func next() async throws -> NetworkPath? {
            try await base.next()
        }
    }
}
