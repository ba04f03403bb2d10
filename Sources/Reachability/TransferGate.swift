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
        elapsed = { origin.duration(to: clock.now) }
        sleepUntil = { offset in try await clock.sleep(until: origin.advanced(by: offset), tolerance: nil) }
    }

    /// The networks the work is judged by: the route to ``destination``, or the default path's.
    func networks() -> AsyncThrowingStream<TransferNetwork, any Error> {
        if let destination { return monitor.networks(to: destination) }
        let paths = monitor.paths
        return AsyncThrowingStream { continuation in
            let task = Task {
                do {
                    for try await path in paths { continuation.yield(TransferNetwork(path: path)) }
                    continuation.finish()
                } catch {
                    continuation.finish(throwing: error)
                }
            }
            continuation.onTermination = { _ in task.cancel() }
        }
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
        let driver = GateDriver(gate: self, executor: executor, transfer: transfer, onEvent: onEvent)
        do {
            let result = try await driver.drive()
            await driver.shutDown()
            return result
        } catch {
            await driver.shutDown()
            throw error
        }
    }

    fileprivate func now() -> Duration { elapsed() }
    fileprivate func sleep(until offset: Duration) async throws { try await sleepUntil(offset) }
}

/// One ``TransferGate/drive(_:_:onEvent:)``: feeds networks, timer ticks and re-judgements
/// through ``TransferGateState`` and starts and stops the executor as it says. Used from the
/// calling task only; the tasks it starts talk back through `inputs`.
private final class GateDriver<E: GatedExecutor> {
    private enum Input: Sendable {
        case network(TransferNetwork)
        case tick
        case rejudge(Transfer, reply: @Sendable (Bool) -> Void)
        case finished(generation: Int, Result<E.Output, any Error>)
        case networksEnded((any Error)?)
    }

    private let gate: TransferGate
    private let executor: E
    private let onEvent: @Sendable (TransferGate.Event) -> Void
    private let inputs: AsyncStream<Input>
    private let feed: AsyncStream<Input>.Continuation
    private var state: TransferGateState
    private var watcher: Task<Void, Never>?
    private var timer: Task<Void, Never>?
    private var latest: TransferNetwork?
    /// The run the executor is on; a report from any other is stale.
    private var generation = 0
    /// The network the current run was started on.
    private var runNetwork: TransferNetwork?
    private var isRunning = false
    private var everStarted = false
    private var lastReason: TransferWaitReason?

    init(gate: TransferGate, executor: E, transfer: Transfer, onEvent: @escaping @Sendable (TransferGate.Event) -> Void) {
        self.gate = gate
        self.executor = executor
        self.onEvent = onEvent
        (inputs, feed) = AsyncStream.makeStream(of: Input.self)
        state = TransferGateState(policy: gate.policy, transfer: transfer)
    }

    func drive() async throws -> E.Output {
        let networks = gate.networks()
        let feed = self.feed
        watcher = Task {
            do {
                for try await network in networks { feed.yield(.network(network)) }
                feed.yield(.networksEnded(nil))
            } catch {
                feed.yield(.networksEnded(error))
            }
        }
        for await input in inputs {
            switch input {
            case .network(let network):
                latest = network
                state.transfer = executor.transfer(updating: state.transfer)
                let action = state.update(network: network, now: gate.now())
                if action == .run, isRunning, executor.restartsWhenNetworkMoves, let running = runNetwork, !network.carriesTrafficLike(running) {
                    await move(to: network)
                } else {
                    await apply(action)
                }
            case .tick:
                state.transfer = executor.transfer(updating: state.transfer)
                if let latest { await apply(state.update(network: latest, now: gate.now())) }
            case .rejudge(let transfer, let reply):
                state.transfer = transfer
                guard let latest else {
                    reply(true)
                    continue
                }
                let action = state.update(network: latest, now: gate.now())
                if case .pause(let reason) = action, isRunning {
                    // Marked stopped before the reply, so the body's exit is not taken as its result.
                    markStopped()
                    reply(false)
                    await finishStop(reason)
                } else {
                    reply(action == .run)
                    await apply(action)
                }
            case .finished(let finishedGeneration, let result):
                // A run the gate stopped may report late; only the current run counts.
                guard finishedGeneration == generation, isRunning else { continue }
                isRunning = false
                return try result.get()
            case .networksEnded(let error):
                throw error ?? CancellationError()
            }
        }
        throw CancellationError()
    }

    /// Shuts the executor down and waits for it and the network watcher to end.
    func shutDown() async {
        feed.finish()
        timer?.cancel()
        watcher?.cancel()
        await executor.shutDown()
        await watcher?.value
    }

    private func apply(_ action: TransferGateState.Action) async {
        switch action {
        case .run:
            cancelTimer()
            lastReason = nil
            guard !isRunning, let latest else { return }
            await start(on: latest)
        case .pause(let reason):
            if isRunning {
                markStopped()
                await finishStop(reason)
            } else {
                cancelTimer()
                if reason != lastReason { onEvent(.waiting(reason)) }
                lastReason = reason
            }
        case .waitUntil(let deadline, let reason):
            if reason.code != lastReason?.code { onEvent(.waiting(reason)) }
            lastReason = reason
            cancelTimer()
            let (gate, feed) = (self.gate, self.feed)
            timer = Task {
                do { try await gate.sleep(until: deadline) } catch { return }
                feed.yield(.tick)
            }
        }
    }

    /// The run's traffic moved to `network`, which allows it too: the run stops and starts
    /// again there at once, judged with what it still has to move, so the new network's
    /// limits hold and its bytes are counted against it (a download resumes with `Range`).
    private func move(to network: TransferNetwork) async {
        markStopped()
        cancelTimer()
        await executor.stop(.noNetwork)
        state.transfer = executor.transfer(updating: state.transfer)
        await start(on: network)
    }

    private func start(on network: TransferNetwork) async {
        generation += 1
        isRunning = true
        runNetwork = network
        let current = generation
        onEvent(everStarted ? .resumed : .started)
        everStarted = true
        let feed = self.feed
        let transfer = state.transfer
        let run = GateRun(
            network: network, transfer: transfer, byteBudget: gate.policy.byteBudget(on: network, for: transfer),
            rejudgement: { transfer in
                await withCheckedContinuation { continuation in
                    let sent = feed.yield(.rejudge(transfer, reply: { continuation.resume(returning: $0) }))
                    if case .terminated = sent { continuation.resume(returning: false) }
                }
            }
        )
        await executor.start(run) { result in feed.yield(.finished(generation: current, result)) }
    }

    /// Makes any later report of the current run stale.
    private func markStopped() {
        isRunning = false
        generation += 1
    }

    private func finishStop(_ reason: TransferWaitReason) async {
        cancelTimer()
        await executor.stop(reason)
        onEvent(.paused(reason))
        lastReason = reason
    }

    private func cancelTimer() {
        timer?.cancel()
        timer = nil
    }
}
