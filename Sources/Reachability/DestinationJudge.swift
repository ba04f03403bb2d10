import Dispatch
import ReachabilityCore
import ReachabilityLinux
import Synchronization

/// Judges the network traffic to each destination host takes, once per change of the kernel's
/// state however many jobs wait on that host: every watched host is judged in one round, from
/// one reading towards all their addresses (one route lookup per address), on a serial dispatch
/// queue. Changes that arrive during a round are coalesced into one more round.
///
/// Names are never resolved in a round: a round judges the addresses each host last resolved
/// to, and starts lookups (``HostLookups``, concurrent, each on a thread of its own) for names
/// that have none or whose answer is older than ``nameLifetime`` or from before the default path
/// moved to another interface (another network may answer differently). Each answer schedules a
/// round of its own. A slow or silent name therefore delays only its own subscribers, and those
/// by at most ``lookupDeadline``: then they are told the default path's network, as for a name
/// that does not resolve. Literals, resolved names and route changes are judged at once.
final class DestinationJudge: Sendable {
    /// Where a subscriber's networks go: each new one, then the source's end (an error, or
    /// `CancellationError` when the monitor stops). Called off the caller's task, in order.
    typealias Delivery = @Sendable (Result<TransferNetwork, any Error>) -> Void

    static let nameLifetime: Duration = .seconds(60)
    /// How long a name that did not resolve is judged by the default path before it is asked
    /// about again (at the next round after that).
    static let failureLifetime: Duration = .seconds(5)
    /// How long subscribers of a name never resolved wait for its first answer before they hear
    /// the default path's network.
    static let lookupDeadline: Duration = .seconds(5)

    private struct Host {
        var subscribers: [UInt64: Delivery] = [:]
        /// The last network delivered, budgets applied.
        var last: TransferNetwork?
        /// The last network judged, before budgets: what a budget change applies to anew.
        var judged: TransferNetwork?
        /// The addresses of the last answer (kept while a newer one is looked up); nil: none yet,
        /// or the last lookup failed.
        var addresses: [String]?
        /// When the last answer came (nil: it is to be asked again).
        var resolvedAt: ContinuousClock.Instant?
        /// When the lookup in flight started; nil: none in flight.
        var lookupStarted: ContinuousClock.Instant?
        /// The first lookup started: until it answers or ``lookupDeadline`` passes, nothing is told.
        var firstLookupStarted: ContinuousClock.Instant?
    }

    /// One host's new network for its subscribers, told outside the lock. The subscribers are
    /// the host's own dictionary (shared, not copied): 10,000 waiting jobs on one host cost no
    /// array of 10,000 pairs per change.
    private struct Deliveries {
        var subscribers: [UInt64: Delivery]
        var network: TransferNetwork

        func deliver() {
            for subscriber in subscribers.values { subscriber(.success(network)) }
        }
    }

    private struct State {
        var hosts: [String: Host] = [:]
        var isJudging = false
        var isDirty = false
        var nextID: UInt64 = 0
        var feeder: Task<Void, Never>?
        /// The default path's primary interface at the last round: a change forgets the names.
        var primary: String?
    }

    private weak let monitor: NetworkMonitor?
    private let state = Mutex(State())
    private let queue = DispatchQueue(label: "reach.destinations", qos: .utility)
    private let lookups: HostLookups
    /// Rounds run, for tests and benchmarks: one per coalesced change, whatever the subscribers.
    let rounds = Atomic<Int>(0)

    init(monitor: NetworkMonitor, lookups: HostLookups) {
        self.monitor = monitor
        self.lookups = lookups
    }

    /// The network to `host` now, then after each change that changes it.
    func subscribe(_ host: String) -> AsyncThrowingStream<TransferNetwork, any Error> {
        Self.stream { self.subscribe(host, deliver: $0) }
    }

    /// What `watch` delivers as a stream (networks are states: the newest is kept), ending with
    /// its failure; the subscription ends with the stream.
    static func stream(of watch: (@escaping Delivery) -> Subscription) -> AsyncThrowingStream<TransferNetwork, any Error> {
        let (stream, continuation) = AsyncThrowingStream.makeStream(of: TransferNetwork.self, bufferingPolicy: .bufferingNewest(1))
        let subscription = watch { result in
            switch result {
            case .success(let network): continuation.yield(network)
            case .failure(let error): continuation.finish(throwing: error)
            }
        }
        continuation.onTermination = { _ in subscription.cancel() }
        return stream
    }

    /// The network to `host` now, then after each change that changes it, handed to `deliver`
    /// directly: a gate with thousands of waiting jobs needs no stream and no task per job to
    /// hear of a change. Ends with ``Subscription/cancel()``.
    func subscribe(_ host: String, deliver: @escaping Delivery) -> Subscription {
        let (id, needsFeeder, last) = state.withLock { state -> (UInt64, Bool, TransferNetwork?) in
            state.nextID += 1
            state.hosts[host, default: Host()].subscribers[state.nextID] = deliver
            // Told under the lock: a round that judges anew either finished its deliveries
            // before (and `last` is its answer) or includes this subscriber after, so the
            // subscriber never hears an older network after a newer one.
            if let last = state.hosts[host]?.last { deliver(.success(last)) }
            return (state.nextID, state.feeder == nil, state.hosts[host]?.last)
        }
        if needsFeeder { startFeeder() } else if last == nil { changed() }
        return Subscription { [weak self] in self?.unsubscribe(host, id) }
    }

    /// Ends one subscription; later calls do nothing.
    struct Subscription: Sendable {
        let cancel: @Sendable () -> Void
    }

    /// The kernel's state changed (a snapshot, or a new path): schedules a round.
    func changed() {
        let starts = state.withLock { state -> Bool in
            guard !state.hosts.isEmpty else { return false }
            if state.isJudging {
                state.isDirty = true
                return false
            }
            state.isJudging = true
            return true
        }
        if starts { queue.async { self.judgeUntilClean() } }
    }

    private func unsubscribe(_ host: String, _ id: UInt64) {
        let feeder = state.withLock { state -> Task<Void, Never>? in
            state.hosts[host]?.subscribers.removeValue(forKey: id)
            if state.hosts[host]?.subscribers.isEmpty == true { state.hosts.removeValue(forKey: host) }
            guard state.hosts.isEmpty else { return nil }
            defer { state.feeder = nil }
            return state.feeder
        }
        feeder?.cancel()
    }

    /// One task for all hosts: it keeps the monitor's source running (as a path subscriber),
    /// turns every snapshot into a round, and ends every stream with the source's error.
    private func startFeeder() {
        guard let monitor else { return }
        let (changes, changed) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        let observer = monitor.subscriberIDs.wrappingAdd(1, ordering: .relaxed).newValue
        monitor.snapshotObservers.withLock { $0[observer] = changed }
        let paths = monitor.paths
        let feeder = Task { [weak self, weak monitor] in
            await withTaskGroup(of: Void.self) { group in
                group.addTask {
                    do {
                        for try await _ in paths { changed.yield() }
                        changed.finish()
                    } catch {
                        changed.finish()
                        self?.fail(error)
                    }
                }
                for await _ in changes { self?.changed() }
                group.cancelAll()
            }
            _ = monitor?.snapshotObservers.withLock { $0.removeValue(forKey: observer) }
        }
        let stale = state.withLock { state -> Bool in
            guard state.feeder == nil, !state.hosts.isEmpty else { return true }
            state.feeder = feeder
            return false
        }
        if stale { feeder.cancel() }
        self.changed()
    }

    private func fail(_ error: any Error) {
        let subscribers = state.withLock { state -> [Delivery] in
            defer { state.hosts = [:] }
            return state.hosts.values.flatMap { $0.subscribers.values }
        }
        for subscriber in subscribers { subscriber(.failure(error)) }
    }

    /// What the data budgets leave changed: every host's last judgement is delivered again with
    /// the budgets now, without a new round (no lookup: the routes did not change).
    func budgetsChanged() {
        queue.async { [weak self] in
            guard let self, let monitor = self.monitor else { return }
            let path = monitor.latestPath
            let deliveries = self.state.withLock { state -> [Deliveries] in
                var deliveries: [Deliveries] = []
                for (host, entry) in state.hosts {
                    guard let bare = entry.judged else { continue }
                    let network = monitor.withBudgets(bare, path: path)
                    guard network != entry.last else { continue }
                    state.hosts[host]?.last = network
                    deliveries.append(Deliveries(subscribers: entry.subscribers, network: network))
                }
                return deliveries
            }
            for delivery in deliveries { delivery.deliver() }
        }
    }

    // MARK: Rounds (on the queue)

    private func judgeUntilClean() {
        while true {
            judgeOnce()
            let again = state.withLock { state -> Bool in
                if state.isDirty && !state.hosts.isEmpty {
                    state.isDirty = false
                    return true
                }
                state.isJudging = false
                state.isDirty = false
                return false
            }
            if !again { return }
        }
    }

    /// What a round judges a host by.
    private enum Basis {
        case addresses([String])
        /// No address (yet): the default path's network.
        case defaultPath
        /// The first lookup is under way: tell nothing yet.
        case wait
    }

    private func judgeOnce() {
        // Not before the monitor has published its first path: with validation on, that path
        // carries what the probes found, which a destination behind a gateway inherits. The
        // first path wakes the feeder, which asks for a round then.
        guard let monitor, let path = monitor.latestPath else { return }
        rounds.wrappingAdd(1, ordering: .relaxed)
        let (bases, toLookUp) = plan(primary: path.primary?.name, now: .now)
        for host in toLookUp { startLookup(host) }
        let all = Array(Set(bases.values.flatMap { basis -> [String] in
            if case .addresses(let addresses) = basis { return addresses }
            return []
        })).sorted()
        let routes = all.isEmpty ? [] : ((try? monitor.routes(toAddresses: all)) ?? [])
        let fallback = TransferNetwork(path: path)
        var judged: [String: TransferNetwork] = [:]
        for (host, basis) in bases {
            switch basis {
            case .wait: continue
            case .defaultPath: judged[host] = fallback
            case .addresses(let mine):
                let hostRoutes = routes.filter { mine.contains($0.destination) }
                judged[host] = NetworkMonitor.withConnectivity(TransferNetwork(routes: hostRoutes), routes: hostRoutes, path: path)
            }
        }
        deliver(judged, monitor: monitor, path: path)
    }

    /// What each host is judged by in this round, and which names to look up (marked as in
    /// flight here, so no other round starts them again).
    private func plan(primary: String?, now: ContinuousClock.Instant) -> ([String: Basis], [String]) {
        state.withLock { state in
            if primary != state.primary {
                state.primary = primary
                for host in state.hosts.keys { state.hosts[host]?.resolvedAt = nil }
            }
            var bases: [String: Basis] = [:]
            var toLookUp: [String] = []
            for (host, entry) in state.hosts {
                if IPPrefix.parse(host) != nil {
                    bases[host] = .addresses([host])
                    continue
                }
                var entry = entry
                let lifetime = entry.addresses == nil ? Self.failureLifetime : Self.nameLifetime
                let fresh = entry.resolvedAt.map { now - $0 < lifetime } ?? false
                if !fresh && entry.lookupStarted == nil {
                    entry.lookupStarted = now
                    if entry.resolvedAt == nil && entry.addresses == nil { entry.firstLookupStarted = entry.firstLookupStarted ?? now }
                    toLookUp.append(host)
                }
                if let addresses = entry.addresses {
                    bases[host] = .addresses(addresses)
                } else if let first = entry.firstLookupStarted, entry.lookupStarted != nil, now - first < Self.lookupDeadline {
                    bases[host] = .wait
                } else {
                    bases[host] = .defaultPath
                }
                state.hosts[host] = entry
            }
            return (bases, toLookUp)
        }
    }

    /// Looks `host` up off the round; its answer (or its deadline) brings another round.
    private func startLookup(_ host: String) {
        lookups.lookUp(host) { [weak self] answer in
            guard let self else { return }
            let now = ContinuousClock.now
            self.state.withLock { state in
                guard var entry = state.hosts[host] else { return }
                entry.lookupStarted = nil
                entry.firstLookupStarted = nil
                entry.resolvedAt = now
                switch answer {
                case .success(let addresses): entry.addresses = addresses
                // A name that stopped resolving keeps its last addresses until it answers again.
                case .failure: break
                }
                state.hosts[host] = entry
            }
            self.changed()
        }
        queue.asyncAfter(deadline: .now() + .milliseconds(Int(Self.lookupDeadline.components.seconds * 1000) + 1)) { [weak self] in
            self?.changed()
        }
    }

    /// Stores each host's judgement and tells its subscribers of a new one.
    private func deliver(_ judged: [String: TransferNetwork], monitor: NetworkMonitor, path: NetworkPath) {
        let deliveries = state.withLock { state -> [Deliveries] in
            var deliveries: [Deliveries] = []
            for (host, bare) in judged {
                guard var entry = state.hosts[host] else { continue }
                entry.judged = bare
                let network = monitor.withBudgets(bare, path: path)
                if entry.last != network {
                    entry.last = network
                    deliveries.append(Deliveries(subscribers: entry.subscribers, network: network))
                }
                state.hosts[host] = entry
            }
            return deliveries
        }
        for delivery in deliveries { delivery.deliver() }
    }
}
