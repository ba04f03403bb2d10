public import ReachabilityCore

/// Where a ``NetworkMonitor`` gets the kernel's state from.
///
/// ``KernelNetworkSource`` is the real one; tests and adopters can supply their own (see
/// `ReachabilityTestKit.FakeNetworkSource`).
public protocol NetworkStateSource: Sendable {
    /// Reads the current state once.
    func snapshot() throws -> NetworkSnapshot

    /// Reads the current state once, with its lookups (plain and marked) towards `destinations`
    /// (addresses) instead of the probe addresses.
    func snapshot(towards destinations: [String]) throws -> NetworkSnapshot

    /// Starts delivering snapshots to `handler`: the current state before this returns, then one
    /// snapshot per batch of changes, all from one thread, until the returned subscription is
    /// cancelled.
    func start(_ handler: @escaping @Sendable (NetworkSnapshot) -> Void) throws -> any NetworkStateSubscription

    /// ``start(_:)``, also telling `counters` every interface's byte counters after each
    /// snapshot (from the same thread) and at the source's counter interval. Sources without
    /// counters never call it.
    func start(
        _ handler: @escaping @Sendable (NetworkSnapshot) -> Void, counters: @escaping @Sendable ([InterfaceCounters]) -> Void
    ) throws -> any NetworkStateSubscription
}

extension NetworkStateSource {
    /// Sources without counters start as ``start(_:)`` and never call `counters`.
    public func start(
        _ handler: @escaping @Sendable (NetworkSnapshot) -> Void, counters: @escaping @Sendable ([InterfaceCounters]) -> Void
    ) throws -> any NetworkStateSubscription {
        try start(handler)
    }

    /// Sources that cannot look routes up answer with the probes' lookups, relabelled.
    public func snapshot(towards destinations: [String]) throws -> NetworkSnapshot {
        var snapshot = try snapshot()
        snapshot.lookups = destinations.compactMap { destination in
            let family: AddressFamily = destination.contains(":") ? .ipv6 : .ipv4
            guard var lookup = snapshot.lookups.first(where: { $0.family == family }) else { return nil }
            lookup.destination = destination
            return lookup
        }
        snapshot.markedLookups = []
        return snapshot
    }
}

/// A running ``NetworkStateSource``; cancelling releases its thread and sockets.
public protocol NetworkStateSubscription: Sendable {
    /// Stops delivery. After it returns, the handler is not called again.
    func cancel()

    /// Asks for every interface's counters now, delivered like the interval's (soon after, from
    /// the source's thread), for a decision that must not wait for the next interval.
    func requestCounters()
}

extension NetworkStateSubscription {
    /// Sources without counters have none to read.
    public func requestCounters() {}
}
