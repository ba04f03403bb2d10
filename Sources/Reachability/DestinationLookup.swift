public import ReachabilityCore
public import ReachabilityLinux
import Synchronization

/// The network traffic to a host takes now, judged once for a caller that asks once (the
/// daemon's `/v1/route`, a GLib program's `can_reach`), apart from the judge the jobs wait on:
/// its names are looked up in a pool of its own, at most ``perCallerLookups`` at a time for each
/// caller, each bounded by ``lookupTimeout``; answers are cached per caller (a minute, five
/// seconds for a name that does not resolve), and the routes towards each address until the
/// kernel's state next changes. One caller asking about a thousand slow names therefore delays
/// no job and no other caller, and an address literal is answered from memory.
public final class DestinationLookup: Sendable {
    /// A caller (a user id) already has ``perCallerLookups`` lookups in flight.
    public struct Busy: Error, Sendable, CustomStringConvertible {
        /// The lookups a caller may have under way.
        public var lookups: Int
        public var description: String { "\(lookups) name lookups of yours are still under way; ask again in a moment" }
    }

    /// Name lookups one caller may have under way; beyond, ``Busy``.
    public let perCallerLookups: Int
    /// How long an answer waits for a name; then the default path answers.
    public let lookupTimeout: Duration
    /// The most cached names (all callers together); the oldest go first.
    static let maxNames = 4096
    static let maxRoutes = 4096

    private struct CachedName {
        var addresses: [String]?
        var at: ContinuousClock.Instant
    }

    private struct CachedRoutes {
        var generation: UInt64
        var routes: [DestinationRoute]
    }

    private struct State {
        var names: [String: CachedName] = [:]
        var routes: [String: CachedRoutes] = [:]
        var inFlight: [UInt32: Int] = [:]
    }

    private weak let monitor: NetworkMonitor?
    private let lookups: HostLookups
    private let state = Mutex(State())

    /// One-off judgements with `monitor`'s state, names looked up in `lookups` (a pool of its
    /// own, not the jobs').
    public init(monitor: NetworkMonitor, lookups: HostLookups = HostLookups(maxConcurrent: 16), perCallerLookups: Int = 4, lookupTimeout: Duration = .seconds(5)) {
        self.monitor = monitor
        self.lookups = lookups
        self.perCallerLookups = max(1, perCallerLookups)
        self.lookupTimeout = lookupTimeout
    }

    /// The network to `host` (a name or an address literal, brackets allowed) as `caller` asks:
    /// while the name does not resolve (or its lookup outlasts ``lookupTimeout``), the default
    /// path's network. Throws ``Busy`` when the caller has too many lookups under way.
    public func network(to host: String, caller: UInt32) async throws -> TransferNetwork {
        guard let monitor else { throw CancellationError() }
        let bare = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        let addresses = IPPrefix.parse(bare) != nil ? [bare] : try await resolve(bare, caller: caller)
        let path = try await monitor.currentPath()
        guard let addresses else { return monitor.withBudgets(TransferNetwork(path: path), path: path) }
        let routes = try await routes(towards: addresses, monitor: monitor)
        let bareNetwork = NetworkMonitor.withConnectivity(TransferNetwork(routes: routes), routes: routes, path: path)
        return monitor.withBudgets(bareNetwork, path: path)
    }

    /// The name's addresses (nil: it does not resolve, or not in time), cached per caller.
    private func resolve(_ host: String, caller: UInt32) async throws -> [String]? {
        let key = "\(caller) \(host)"
        let now = ContinuousClock.now
        let cached = state.withLock { state -> CachedName? in
            guard let entry = state.names[key] else { return nil }
            let lifetime = entry.addresses == nil ? DestinationJudge.failureLifetime : DestinationJudge.nameLifetime
            return now - entry.at < lifetime ? entry : nil
        }
        if let cached { return cached.addresses }
        let admitted = state.withLock { state -> Bool in
            guard state.inFlight[caller, default: 0] < perCallerLookups else { return false }
            state.inFlight[caller, default: 0] += 1
            return true
        }
        guard admitted else { throw Busy(lookups: perCallerLookups) }
        let answer = Once<[String]?>()
        lookups.lookUp(host) { [weak self] result in
            let addresses = try? result.get()
            self?.remember(key, addresses, caller: caller)
            answer.resolve(addresses)
        }
        return await answer.value(within: lookupTimeout, otherwise: nil)
    }

    private func remember(_ key: String, _ addresses: [String]?, caller: UInt32) {
        state.withLock { state in
            state.inFlight[caller, default: 1] -= 1
            if state.inFlight[caller] == 0 { state.inFlight.removeValue(forKey: caller) }
            if state.names.count >= Self.maxNames, let oldest = state.names.min(by: { $0.value.at < $1.value.at })?.key {
                state.names.removeValue(forKey: oldest)
            }
            state.names[key] = CachedName(addresses: addresses, at: .now)
        }
    }

    /// The routes towards `addresses`, from memory when the kernel's state has not changed.
    private func routes(towards addresses: [String], monitor: NetworkMonitor) async throws -> [DestinationRoute] {
        let generation = monitor.snapshotGeneration.load(ordering: .acquiring)
        // Only while the monitor runs does the generation move with the kernel's state.
        let running = monitor.latestPath != nil
        let known = state.withLock { state -> [DestinationRoute]? in
            guard running else { return nil }
            var all: [DestinationRoute] = []
            for address in addresses {
                guard let entry = state.routes[address], entry.generation == generation else { return nil }
                all += entry.routes
            }
            return all
        }
        if let known { return known }
        let routes = try await NetworkMonitor.offThread { try monitor.routes(toAddresses: addresses) }
        state.withLock { state in
            if state.routes.count + addresses.count > Self.maxRoutes { state.routes.removeAll() }
            for address in addresses {
                state.routes[address] = CachedRoutes(generation: generation, routes: routes.filter { $0.destination == address })
            }
        }
        return routes
    }
}

/// A value set once from any thread, awaited with a deadline.
private final class Once<Value: Sendable>: Sendable {
    private struct State {
        var value: Value?
        var isSet = false
        var waiter: CheckedContinuation<Value, Never>?
    }

    private let state = Mutex(State())

    func resolve(_ value: Value) {
        let waiter = state.withLock { state -> CheckedContinuation<Value, Never>? in
            guard !state.isSet else { return nil }
            state.isSet = true
            state.value = .some(value)
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(returning: value)
    }

    /// The value, or `fallback` once `timeout` has passed without one.
    func value(within timeout: Duration, otherwise fallback: Value) async -> Value {
        let timer = Task { [weak self] in
            try? await Task.sleep(for: timeout)
            self?.resolve(fallback)
        }
        defer { timer.cancel() }
        return await withCheckedContinuation { continuation in
            let (isSet, value) = state.withLock { state -> (Bool, Value?) in
                if state.isSet { return (true, state.value) }
                state.waiter = continuation
                return (false, nil)
            }
            if isSet, let value { continuation.resume(returning: value) }
        }
    }
}
