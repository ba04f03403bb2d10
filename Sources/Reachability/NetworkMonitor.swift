import AsyncAlgorithms
import Dispatch
public import ReachabilityCore
package import ReachabilityLinux
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
/// ``paths`` yields the current path first, then one path per change (equal paths are never
/// repeated); ``paths(distinctBy:debounce:)`` yields only changes of a part of the path, such as
/// its `NetworkPath.summary`. Any number of tasks may iterate at once, each with its own
/// iterator; a cancelled one does not disturb the others. The netlink thread starts with the
/// first iterator (off the cooperative thread pool) and is stopped, its sockets closed, when the
/// last one ends. Each iterator buffers only the newest path: a slow consumer skips intermediate
/// states, never sees stale ones. The lifecycle is `MonitorLifecycle`.
public final class NetworkMonitor: Sendable {
    private let source: any NetworkStateSource
    private let evaluator: PathEvaluator
    private let defaultDebounce: Duration
    private let runDebounced: PathSubscriber.DebounceRunner
    /// Paths handed to subscribers' debouncers and not yet taken in by them: a test on a test
    /// clock waits for 0 before it moves time, so a burst is wholly inside the quiet period.
    package let debounceBacklog: DebounceBacklog
    let lifecycle = Mutex(MonitorLifecycle<PathSubscriber, any NetworkStateSubscription>())
    let subscriberIDs = Atomic<UInt64>(0)
    /// Told about every snapshot the source delivers (route and rule changes included, which
    /// may leave the default path unchanged); see ``networks(to:)``.
    let snapshotObservers = Mutex<[UInt64: AsyncStream<Void>.Continuation]>([:])
    /// Counts the snapshots the source delivered: a route looked up in one generation stays
    /// true until the next (``DestinationLookup`` caches by it).
    let snapshotGeneration = Atomic<UInt64>(0)
    /// The kernel source's counters, kept across runs (see ``statistics``).
    let sourceStatistics = SourceStatisticsLedger()
    /// Validation settings and the prober, when both are given and the settings name a URL.
    let validation: (settings: ConnectivityValidation, prober: any ConnectivityProber)?
    /// Probes go out of interfaces of this namespace.
    let namespacePath: String?
    let judgeBox = Mutex<DestinationJudge?>(nil)
    /// Where the judge resolves names (``resolveNames(with:)``).
    let judgeLookups = Mutex(HostLookups())
    /// What data budgets say about each interface (``updateBudgets(_:)``).
    let budgetTable = Mutex(InterfaceBudgets())
    /// Told each counter reading (``interfaceCounters()``).
    let counterObservers = Mutex<[UInt64: AsyncStream<CounterReading>.Continuation]>([:])
    /// The run whose paths were last published: a budget change republishes its latest path.
    let publishedRun = Atomic<UInt64>(0)

    /// The judge every ``networks(to:)`` stream shares, made on first use.
    var destinationJudge: DestinationJudge {
        judgeBox.withLock { box in
            if let judge = box { return judge }
            let judge = DestinationJudge(monitor: self, lookups: judgeLookups.withLock { $0 })
            box = judge
            return judge
        }
    }

    /// Resolves the names ``networks(to:)`` judges with `lookups` (a test's slow resolver); only
    /// before the first such stream.
    package func resolveNames(with lookups: HostLookups) {
        judgeLookups.withLock { $0 = lookups }
    }

    /// A monitor of the kernel's network state. With `prober` (`HTTPConnectivityProber` from
    /// `ReachabilityValidation`) and `configuration.validation` naming probe URLs, every uplink
    /// is validated and paths carry their ``NetworkPath/connectivity``; otherwise nothing is sent.
    public convenience init(configuration: MonitorConfiguration = MonitorConfiguration(), prober: (any ConnectivityProber)? = nil) {
        self.init(
            source: KernelNetworkSource(configuration: configuration), configuration: configuration, clock: ContinuousClock(),
            prober: prober)
    }

    /// A monitor over any source, debouncing on `clock` (inject a test clock to drive time).
    public init<C: Clock>(
        source: any NetworkStateSource, configuration: MonitorConfiguration = MonitorConfiguration(), clock: C,
        prober: (any ConnectivityProber)? = nil
    ) where C.Duration == Duration {
        self.source = source
        if let settings = configuration.validation, settings.isEnabled, let prober {
            validation = (settings, prober)
        } else {
            validation = nil
        }
        namespacePath = configuration.namespacePath
        self.evaluator = PathEvaluator(classifier: Classifier(overrides: configuration.overrides))
        self.defaultDebounce = configuration.debounce
        let backlog = DebounceBacklog()
        self.debounceBacklog = backlog
        self.runDebounced = { changes, interval, deliver in
            let taken = changes.map { path in
                backlog.count.wrappingSubtract(1, ordering: .relaxed)
                return path
            }
            for await path in taken.debounce(for: interval, clock: clock) { deliver(path) }
        }
    }

    /// Every change of the path, debounced by the configuration's `debounce`.
    public var paths: NetworkPathUpdates {
        NetworkPathUpdates(monitor: self, isSame: { $0 == $1 }, debounce: defaultDebounce)
    }

    /// The current path, then each path whose `key` differs from the last one delivered:
    /// `paths(distinctBy: \.summary)` ignores interfaces coming and going that do not change how
    /// the host is connected. Paths that are no change by `key` are dropped before the
    /// debounce, so they never delay a real change. `debounce` defaults to the configuration's.
    public func paths<Key: Equatable & SendableMetatype>(
        distinctBy key: @escaping @Sendable (NetworkPath) -> Key, debounce: Duration? = nil
    ) -> NetworkPathUpdates {
        NetworkPathUpdates(monitor: self, isSame: { key($0) == key($1) }, debounce: debounce ?? defaultDebounce)
    }

    /// The path now: the latest published one while the monitor runs, else a fresh reading
    /// (which, with validation on, has not been probed: ``validatedPath()`` probes). The reading
    /// is taken on a dispatch thread: the caller's thread never blocks on the kernel.
    public func currentPath() async throws -> NetworkPath {
        if let latest = lifecycle.withLock({ $0.latest }) { return latest }
        let (source, evaluator) = (self.source, self.evaluator)
        return try await Self.offThread { evaluator.evaluate(try source.snapshot()) }
    }

    /// Runs blocking work (netlink dumps, name resolution) on a dispatch thread.
    static func offThread<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global(qos: .utility).async { continuation.resume(with: Result { try work() }) }
        }
    }

    /// The path now with its connectivity: the latest published one while the monitor runs and
    /// its primary has been judged, else a fresh reading whose uplinks are all probed once, in
    /// parallel, within the validation's timeout. Without validation, ``currentPath()``.
    public func validatedPath() async throws -> NetworkPath {
        if let latest = lifecycle.withLock({ $0.latest }), validation == nil || latest.connectivity != .unknown { return latest }
        let source = self.source
        let snapshot = try await Self.offThread { try source.snapshot() }
        let path = evaluator.evaluate(snapshot)
        guard let validation else { return path }
        return await ConnectivityValidator.validateOnce(
            snapshot, path: path, validation: validation.settings, prober: validation.prober, namespacePath: namespacePath)
    }

    /// Whether this monitor validates connectivity (a prober and at least one probe URL).
    public var isValidating: Bool { validation != nil }

    /// The latest published path of the running monitor, if any.
    var latestPath: NetworkPath? { lifecycle.withLock { $0.latest } }

    /// Which interface, transport and cost traffic to `host` (a name or an address) would use
    /// now, one answer per address family it resolves to. Asks the kernel (policy routing
    /// included); a tunnel egress comes with its underlay; an address of this host is `local`.
    /// Resolution and the lookup run on a dispatch thread, never the caller's.
    public func routes(to host: String) async throws -> [DestinationRoute] {
        try await Self.offThread { [self] in try self.routesNow(to: host) }
    }

    private func routesNow(to host: String) throws -> [DestinationRoute] {
        let destinations: [String]
        do throws(ResolutionError) {
            destinations = try HostResolver.addresses(of: host)
        } catch {
            throw HostResolutionError(host: host, reason: error.reason)
        }
        return try routes(toAddresses: destinations)
    }

    /// ``routes(to:)`` for addresses already resolved.
    func routes(toAddresses destinations: [String]) throws -> [DestinationRoute] {
        let snapshot = try source.snapshot(towards: destinations)
        return evaluator.routes(for: snapshot.lookups, marked: snapshot.markedLookups, in: snapshot)
    }

    /// Classifies a snapshot with this monitor's rules (what ``paths`` publishes for it).
    public func evaluate(_ snapshot: NetworkSnapshot) -> NetworkPath { evaluator.evaluate(snapshot) }

    // MARK: Subscribers

    func subscribe(isSame: @escaping @Sendable (NetworkPath, NetworkPath) -> Bool, debounce: Duration) -> AsyncThrowingStream<NetworkPath, any Error> {
        let (stream, continuation) = AsyncThrowingStream.makeStream(of: NetworkPath.self, bufferingPolicy: .bufferingNewest(1))
        let subscriber = PathSubscriber(
            output: continuation, isSame: isSame, quietTime: debounce, backlog: debounceBacklog, debounce: runDebounced)
        let id = subscriberIDs.wrappingAdd(1, ordering: .relaxed).newValue
        continuation.onTermination = { [weak self, subscriber] _ in
            subscriber.close()
            self?.unsubscribe(id)
        }
        let startRun = lifecycle.withLock { lifecycle -> UInt64? in
            switch lifecycle.subscribe(id, subscriber) {
            case .startSource(let run): return run
            // Under the lock, so a path published concurrently cannot overtake the replay.
            case .replay(let latest): subscriber.receive(latest)
            case .wait: break
            }
            return nil
        }
        if let startRun { start(run: startRun) }
        return stream
    }

    /// Called from an iterator's termination handler, which Swift runs while it holds the
    /// cancelled task's status lock: stopping the source there would join the netlink thread
    /// while that thread may be blocked resuming the same task (a deadlock seen in testing).
    /// The stop therefore runs on a dispatch thread; the lifecycle is already idle, so a new
    /// subscriber starts a new run at once and the old run's late paths are ignored.
    private func unsubscribe(_ id: UInt64) {
        guard let subscription = lifecycle.withLock({ $0.unsubscribe(id) }) else { return }
        DispatchQueue.global(qos: .utility).async { subscription.cancel() }
    }

    /// Starts the source on a dispatch thread: its start blocks while the kernel is dumped, sysfs
    /// and leases are read, which must not hold a thread of the cooperative pool.
    private func start(run: UInt64) {
        let source = self.source
        let evaluator = self.evaluator
        let validator = validation.map { validation in
            ConnectivityValidator(validation: validation.settings, prober: validation.prober, namespacePath: namespacePath) {
                [weak self] path in self?.publish(path, run: run)
            }
        }
        DispatchQueue.global(qos: .userInitiated).async { [weak self] in
            let cache = CacheBox()
            // The interfaces as last classified, for the counters that follow each snapshot
            // (both come from the source's one thread, in that order).
            let classified = ClassifiedBox()
            do {
                let started = try source.start({ [weak self] snapshot in
                    let path = cache.value.withLock { evaluator.evaluate(snapshot, cache: &$0) }
                    classified.value.withLock { $0 = path.interfaces }
                    if let validator {
                        validator.observe(snapshot, path: path)
                    } else {
                        self?.publish(path, run: run)
                    }
                    self?.snapshotGeneration.wrappingAdd(1, ordering: .releasing)
                    self?.snapshotObservers.withLock { observers in for observer in observers.values { observer.yield() } }
                }, counters: { [weak self] samples in
                    self?.deliverCounters(CounterReading(counters: samples, interfaces: classified.value.withLock { $0 }))
                })
                guard let self else {
                    validator?.cancel()
                    return started.cancel()
                }
                let counted = self.sourceStatistics.track(started, run: run)
                let subscription: any NetworkStateSubscription =
                    validator.map { ValidatedSubscription(base: counted, validator: $0) } ?? counted
                self.lifecycle.withLock { $0.started(run: run, subscription) }?.cancel()
            } catch {
                validator?.cancel()
                let waiting = self?.lifecycle.withLock { $0.startFailed(run: run) } ?? []
                for subscriber in waiting { subscriber.fail(error) }
            }
        }
    }

    private func publish(_ path: NetworkPath, run: UInt64) {
        var path = path
        path.budgets = pathBudgets(for: path)
        publishedRun.store(run, ordering: .relaxed)
        for subscriber in lifecycle.withLock({ $0.received(path, run: run) }) { subscriber.receive(path) }
    }

    /// Publishes the latest path again (with the budgets now): subscribers hear it only if it
    /// changed.
    func republish() {
        guard let latest = latestPath else { return }
        publish(latest, run: publishedRun.load(ordering: .relaxed))
    }
}

/// The interfaces as last classified in one run, for the counters that follow each snapshot. A
/// class: the source's closures outlive the scope that makes it, which a local `Mutex` would not.
private final class ClassifiedBox: Sendable {
    let value = Mutex<[Interface]>([])
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
    let isSame: @Sendable (NetworkPath, NetworkPath) -> Bool
    let debounce: Duration

    public func makeAsyncIterator() -> Iterator {
        Iterator(base: monitor.subscribe(isSame: isSame, debounce: debounce).makeAsyncIterator())
    }

    /// One subscription to the monitor, with its own one-path buffer: the first iterator starts
    /// the netlink thread and the end of the last one stops it. `next()` throws the source's
    /// error (a namespace that cannot be opened, a failed netlink dump).
    public struct Iterator: AsyncIteratorProtocol {
        var base: AsyncThrowingStream<NetworkPath, any Error>.Iterator

        public mutating func next() async throws -> NetworkPath? {
            try await base.next()
        }
    }
}
