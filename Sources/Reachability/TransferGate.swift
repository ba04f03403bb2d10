public import ReachabilityCore
import Synchronization

/// Gates any work by the network: it waits until the `TransferPolicy` allows the work, stops
/// it the moment the network stops allowing it, and starts it again once the network has
/// allowed it for the policy's settling time. The work resumes where it stopped if it can (the
/// `Downloader` of `ReachabilityTransfers` resumes with HTTP Range).
///
/// With a `destination`, the work is judged by the route traffic to that host takes
/// (``NetworkMonitor/networks(to:)``), re-judged when routes change: a LAN or loopback server
/// needs no default route, and a host routed over a cellular modem is judged as cellular even
/// while the default path is Wi-Fi. Without one, by the default path.
///
/// ```swift
/// let gate = TransferGate(monitor: monitor, policy: TransferPolicy(cellularSizeLimit: 50_000_000))
/// try await gate.run(Transfer(expectedBytes: size)) { try await upload(file) }
/// ```
///
/// ``run(_:onEvent:_:)`` runs a Swift body (cancelled to stop it); ``drive(_:_:onEvent:)``
/// runs any ``GatedExecutor``, such as a command stopped by signals.
public final class TransferGate: Sendable {
    /// What the gate did, for progress displays and logs.
    public enum Event: Sendable, Hashable {
        /// The work cannot start yet, for this reason.
        case waiting(TransferWaitReason)
        /// The network allows the work: it started for the first time.
        case started
        /// The network stopped allowing the work: it was stopped and will run again later.
        case paused(TransferWaitReason)
        /// The network allows the work again, after the settling time: it started again.
        case resumed
    }

    private let monitor: NetworkMonitor
    /// The rules the work is judged by.
    public let policy: TransferPolicy
    /// The host whose route judges the work; nil for the default path.
    public let destination: String?
    private let elapsed: @Sendable () -> Duration
    private let sleepUntil: @Sendable (Duration) async throws -> Void

    /// A gate judging by `monitor`'s default path or, with a `destination` host, by the route to
    /// it; the settling time runs on the continuous clock.
    public convenience init(monitor: NetworkMonitor, policy: TransferPolicy, destination: String? = nil) {
        self.init(monitor: monitor, policy: policy, destination: destination, clock: ContinuousClock())
    }

    /// A gate whose settling time runs on `clock` (inject a test clock to drive it).
    public init<C: Clock>(monitor: NetworkMonitor, policy: TransferPolicy, destination: String? = nil, clock: C)
    where C.Duration == Duration {
        self.monitor = monitor
        self.policy = policy
        self.destination = destination
        let origin = clock.now
        if let start = origin as? ContinuousClock.Instant {
            // The usual clock, read without generic dispatch: every waiting job's gate reads it
            // at each path change (10,000 reads through `C` cost 7% of such a change).
            elapsed = { start.duration(to: .now) }
        } else {
            elapsed = { origin.duration(to: clock.now) }
        }
        sleepUntil = { offset in try await clock.sleep(until: origin.advanced(by: offset), tolerance: nil) }
    }

    /// The networks the work is judged by: the route to ``destination``, or the default path's.
    func networks() -> AsyncThrowingStream<TransferNetwork, any Error> {
        DestinationJudge.stream { self.watchNetworks($0) }
    }

    /// ``networks()`` handed to `deliver` as they come: for a destination straight from the
    /// monitor's judge, so thousands of waiting drivers cost no stream or task each.
    func watchNetworks(_ deliver: @escaping DestinationJudge.Delivery) -> DestinationJudge.Subscription {
        if let destination { return monitor.watchNetworks(to: destination, deliver: deliver) }
        let paths = monitor.paths
        let task = Task { [monitor] in
            do {
                for try await path in paths { deliver(.success(monitor.withBudgets(TransferNetwork(path: path), path: path))) }
                deliver(.failure(CancellationError()))
            } catch {
                deliver(.failure(error))
            }
        }
        return DestinationJudge.Subscription { task.cancel() }
    }

    /// Suspends until the network allows `transfer`; returns that network.
    public func waitUntilAllowed(_ transfer: Transfer = Transfer(), onEvent: @escaping @Sendable (Event) -> Void = { _ in }) async throws -> TransferNetwork {
        try await waitUntilAllowed(transfer, onEvent: onEvent, onFirstRefusal: {})
    }

    /// Suspends until the network allows `transfer` or `timeout` has passed since the current
    /// network was judged; nil on timeout. The current network is always judged first, so a
    /// zero timeout answers "is it allowed now?" rather than racing the monitor's start.
    public func waitUntilAllowed(
        _ transfer: Transfer = Transfer(), timeout: Duration, onEvent: @escaping @Sendable (Event) -> Void = { _ in }
    ) async throws -> TransferNetwork? {
        let (refused, refusal) = AsyncStream.makeStream(of: Void.self)
        return try await withThrowingTaskGroup(of: TransferNetwork?.self) { group in
            group.addTask {
                try await self.waitUntilAllowed(transfer, onEvent: onEvent) { refusal.finish() }
            }
            group.addTask { [sleepUntil, elapsed] in
                // The clock starts only once the current network said no.
                for await _ in refused {}
                try await sleepUntil(elapsed() + timeout)
                return nil
            }
            defer { group.cancelAll() }
            return try await group.next() ?? nil
        }
    }

    private func waitUntilAllowed(
        _ transfer: Transfer, onEvent: @escaping @Sendable (Event) -> Void, onFirstRefusal: () -> Void
    ) async throws -> TransferNetwork {
        var lastReason: TransferWaitReason?
        for try await network in networks() {
            switch policy.decide(network, for: transfer) {
            case .allow: return network
            case .wait(let reason):
                if lastReason == nil { onFirstRefusal() }
                if reason != lastReason { onEvent(.waiting(reason)) }
                lastReason = reason
            }
        }
        throw CancellationError()
    }

    /// Runs `body` while the network allows `transfer`: cancels it when the network stops
    /// allowing it and calls it again when allowed (after the settling time). Returns the first
    /// result of a run that was not cancelled by the gate; rethrows its error. Whatever ends the
    /// gate (a result, an error, the caller's cancellation), a running body is cancelled and
    /// awaited before this returns, so nothing it does outlives the call.
    public func run<T: Sendable>(
        _ transfer: Transfer = Transfer(), onEvent: @escaping @Sendable (Event) -> Void = { _ in },
        _ body: @escaping @Sendable () async throws -> T
    ) async throws -> T {
        try await drive(BodyExecutor { _ in try await body() }, transfer, onEvent: onEvent)
    }

    /// Drives `executor` while the network allows `transfer`: starts it when allowed, stops it
    /// when not, starts it again after the settling time, and returns what it finishes with.
    /// Whatever ends the gate, the executor is shut down before this returns.
    public func drive<E: GatedExecutor>(
        _ executor: E, _ transfer: Transfer = Transfer(), onEvent: @escaping @Sendable (Event) -> Void = { _ in }
    ) async throws -> E.Output {
        try await drive(executor, transfer, handover: nil, onEvent: onEvent)
    }

    /// ``drive(_:_:onEvent:)`` from what a ``TransferGateWait`` judged, when one came first.
    func drive<E: GatedExecutor>(
        _ executor: E, _ transfer: Transfer, handover: TransferGateWait.Handover?, onEvent: @escaping @Sendable (Event) -> Void
    ) async throws -> E.Output {
        let driver = GateDriver(gate: self, executor: executor, transfer: transfer, handover: handover, onEvent: onEvent)
        do {
            let result = try await driver.drive()
            await driver.shutDown()
            return result
        } catch {
            await driver.shutDown()
            throw error
        }
    }

    /// The gate clock's time since the gate was made.
    func now() -> Duration { elapsed() }
    /// Sleeps until the gate clock reads `offset`.
    func sleep(until offset: Duration) async throws { try await sleepUntil(offset) }
}
