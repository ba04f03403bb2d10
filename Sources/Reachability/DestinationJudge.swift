import Dispatch
import ReachabilityCore
import ReachabilityLinux
import Synchronization

/// Judges the network traffic to each destination host takes, once per change of the kernel's
/// state however many jobs wait on that host: every watched host is judged in one round, from
/// one snapshot towards all their addresses (one dump, one route lookup per address), on a
/// serial dispatch queue (name resolution and netlink block). Changes that arrive during a round
/// are coalesced into one more round.
///
/// Names are resolved at most once per ``nameLifetime`` per host (`getaddrinfo` reports no
/// record lifetime; a caching resolver below it applies the real one), and again as soon as the
/// default path moves to another interface (another network may answer differently).
final class DestinationJudge: Sendable {
    /// Where a subscriber's networks go: each new one, then the source's end (an error, or
    /// `CancellationError` when the monitor stops). Called off the caller's task, in order.
    typealias Delivery = @Sendable (Result<TransferNetwork, any Error>) -> Void

    static let nameLifetime: Duration = .seconds(60)

    private struct Host {
        var subscribers: [UInt64: Delivery] = [:]
        /// The last network delivered, budgets applied.
        var last: TransferNetwork?
        /// The last network judged, before budgets: what a budget change applies to anew.
        var judged: TransferNetwork?
        var addresses: [String]?
        var resolvedAt: ContinuousClock.Instant?
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
    /// Rounds run, for tests and benchmarks: one per coalesced change, whatever the subscribers.
    let rounds = Atomic<Int>(0)

    init(monitor: NetworkMonitor) { self.monitor = monitor }

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

    private func judgeOnce() {
        // Not before the monitor has published its first path: with validation on, that path
        // carries what the probes found, which a destination behind a gateway inherits. The
        // first path wakes the feeder, which asks for a round then.
        guard let monitor, let path = monitor.latestPath else { return }
        rounds.wrappingAdd(1, ordering: .relaxed)
        let now = ContinuousClock.now
        let primary = path.primary?.name
        let wanted = state.withLock { state -> [(String, [String]?)] in
            if primary != state.primary {
                state.primary = primary
                for host in state.hosts.keys { state.hosts[host]?.addresses = nil }
            }
            return state.hosts.map { host, entry in
                let fresh = entry.resolvedAt.map { now - $0 < Self.nameLifetime } ?? false
                return (host, fresh ? entry.addresses : nil)
            }
        }
        var addresses: [String: [String]] = [:]
        var resolvedNow: Set<String> = []
        for (host, known) in wanted {
            if let known {
                addresses[host] = known
            } else if let resolved = try? HostResolver.addresses(of: host) {
                addresses[host] = resolved
                resolvedNow.insert(host)
            }
        }
        let all = Array(Set(addresses.values.joined())).sorted()
        let routes = all.isEmpty ? [] : ((try? monitor.routes(toAddresses: all)) ?? [])
        let fallback = TransferNetwork(path: path)
        var judged: [String: TransferNetwork] = [:]
        for (host, _) in wanted {
            guard let mine = addresses[host] else {
                judged[host] = fallback  // unresolved (no DNS without a network): the default path
                continue
            }
            let hostRoutes = routes.filter { mine.contains($0.destination) }
            judged[host] = NetworkMonitor.withConnectivity(TransferNetwork(routes: hostRoutes), routes: hostRoutes, path: path)
        }
        let deliveries = state.withLock { state -> [Deliveries] in
            var deliveries: [Deliveries] = []
            for (host, bare) in judged {
                guard var entry = state.hosts[host] else { continue }
                if resolvedNow.contains(host) {
                    entry.addresses = addresses[host]
                    entry.resolvedAt = now
                }
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
