public import ReachabilityCore

/// Where a ``NetworkMonitor`` gets the kernel's state from.
///
/// ``KernelNetworkSource`` is the real one; tests and adopters can supply their own (see
/// `ReachabilityTestKit.FakeNetworkSource`).
public protocol NetworkStateSource: Sendable {
    /// Reads the current state once.
    func snapshot() throws -> NetworkSnapshot

    /// Starts delivering snapshots to `handler`: the current state before this returns, then one
    /// snapshot per batch of changes, all from one thread, until the returned subscription is
    /// cancelled.
    func start(_ handler: @escaping @Sendable (NetworkSnapshot) -> Void) throws -> any NetworkStateSubscription
}

/// A running ``NetworkStateSource``; cancelling releases its thread and sockets.
public protocol NetworkStateSubscription: Sendable {
    /// Stops delivery. After it returns, the handler is not called again.
    func cancel()
}
