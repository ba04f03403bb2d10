public import ReachabilityCore
import Synchronization

/// Gates any job by the network path: it waits until the ``TransferPolicy`` allows the job,
/// cancels the job the moment the path stops allowing it, and runs it again once the path has
/// allowed it for the policy's settling time. The job resumes where it stopped if it can (the
/// ``Downloader`` of `ReachabilityTransfers` resumes with HTTP Range).
///
/// ```swift
/// let gate = TransferGate(monitor: monitor, policy: TransferPolicy(cellularSizeLimit: 50_000_000))
/// try await gate.run(Transfer(expectedBytes: size)) { try await downloader.download(request) { _ in } }
/// ```
public final class TransferGate: Sendable {
    /// What the gate did, for progress displays and logs.
    public enum Event: Sendable, Hashable {
        /// The job cannot start yet, for this reason.
        case waiting(TransferWaitReason)
        case started
        /// The path stopped allowing the job: it was cancelled and will run again later.
        case paused(TransferWaitReason)
        case resumed
    }

    private let monitor: NetworkMonitor
    public let policy: TransferPolicy
    private let elapsed: @Sendable () -> Duration
    private let sleepUntil: @Sendable (Duration) async throws -> Void

    public convenience init(monitor: NetworkMonitor, policy: TransferPolicy) {
        self.init(monitor: monitor, policy: policy, clock: ContinuousClock())
    }

    /// A gate whose settling time runs on `clock` (inject a test clock to drive it).
    public init<C: Clock>(monitor: NetworkMonitor, policy: TransferPolicy, clock: C) where C.Duration == Duration {
        self.monitor = monitor
        self.policy = policy
        let origin = clock.now
        elapsed = { origin.duration(to: clock.now) }
        sleepUntil = { offset in try await clock.sleep(until: origin.advanced(by: offset), tolerance: nil) }
    }

    /// Suspends until the current path allows `transfer`; returns that path.
    public func waitUntilAllowed(_ transfer: Transfer = Transfer(), onEvent: @escaping @Sendable (Event) -> Void = { _ in }) async throws -> NetworkPath {
        try await waitUntilAllowed(transfer, onEvent: onEvent, onFirstRefusal: {})
    }

    /// Suspends until the path allows `transfer` or `timeout` has passed since the current path
    /// was judged; nil on timeout. The current path is always judged first, so a zero timeout
    /// answers "is it allowed now?" rather than racing the monitor's start.
    public func waitUntilAllowed(
        _ transfer: Transfer = Transfer(), timeout: Duration, onEvent: @escaping @Sendable (Event) -> Void = { _ in }
    ) async throws -> NetworkPath? {
        let (refused, refusal) = AsyncStream.makeStream(of: Void.self)
        return try await withThrowingTaskGroup(of: NetworkPath?.self) { group in
            group.addTask {
                try await self.waitUntilAllowed(transfer, onEvent: onEvent) { refusal.finish() }
            }
            group.addTask { [sleepUntil, elapsed] in
                // The clock starts only once the current path said no.
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
    ) async throws -> NetworkPath {
        var lastReason: TransferWaitReason?
        for try await path in monitor.paths {
            switch policy.decide(path, for: transfer) {
            case .allow: return path
            case .wait(let reason):
                if lastReason == nil { onFirstRefusal() }
                if reason != lastReason { onEvent(.waiting(reason)) }
                lastReason = reason
            }
        }
        throw CancellationError()
    }

    private enum Input<T: Sendable>: Sendable {
        case path(NetworkPath)
        case tick
        case finished(generation: Int, Result<T, any Error>)
        case pathsEnded((any Error)?)
    }

    /// Runs `body` while the path allows `transfer`: cancels it when the path stops allowing
    /// it and calls it again when allowed (after the settling time). Returns the first result
    /// of a run that was not cancelled by the gate; rethrows its error. Whatever ends the
    /// gate (a result, an error, the caller's cancellation), a running body is cancelled and
    /// awaited before this returns, so nothing it does outlives the call.
    public func run<T: Sendable>(
        _ transfer: Transfer = Transfer(), onEvent: @escaping @Sendable (Event) -> Void = { _ in },
        _ body: @escaping @Sendable () async throws -> T
    ) async throws -> T {
        let driver = GateDriver<T>(gate: self, transfer: transfer, onEvent: onEvent, body: body)
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
    fileprivate var paths: NetworkPathUpdates { monitor.paths }
}

/// One ``TransferGate/run(_:onEvent:_:)``: feeds paths and timer ticks through
/// ``TransferGateState`` and starts, cancels and restarts the body as it says. Used from the
/// calling task only; the tasks it starts talk back through `inputs`.
private final class GateDriver<T: Sendable> {
    private enum Input: Sendable {
        case path(NetworkPath)
        case tick
        case finished(generation: Int, Result<T, any Error>)
        case pathsEnded((any Error)?)
    }

    private let gate: TransferGate
    private let onEvent: @Sendable (TransferGate.Event) -> Void
    private let body: @Sendable () async throws -> T
    private let inputs: AsyncStream<Input>
    private let feed: AsyncStream<Input>.Continuation
    private var state: TransferGateState
    private var watcher: Task<Void, Never>?
    private var job: Task<Void, Never>?
    private var timer: Task<Void, Never>?
    private var generation = 0
    private var everStarted = false
    private var lastReason: TransferWaitReason?

    init(gate: TransferGate, transfer: Transfer, onEvent: @escaping @Sendable (TransferGate.Event) -> Void, body: @escaping @Sendable () async throws -> T) {
        self.gate = gate
        self.onEvent = onEvent
        self.body = body
        (inputs, feed) = AsyncStream.makeStream(of: Input.self)
        state = TransferGateState(policy: gate.policy, transfer: transfer)
    }

    func drive() async throws -> T {
        let paths = gate.paths
        let feed = self.feed
        watcher = Task {
            do {
                for try await path in paths { feed.yield(.path(path)) }
                feed.yield(.pathsEnded(nil))
            } catch {
                feed.yield(.pathsEnded(error))
            }
        }
        var latest: NetworkPath?
        for await input in inputs {
            switch input {
            case .path(let path):
                latest = path
                await apply(state.update(path: path, now: gate.now()))
            case .tick:
                if let latest { await apply(state.update(path: latest, now: gate.now())) }
            case .finished(let finishedGeneration, let result):
                // A run the gate cancelled reports late; only the current run counts.
                guard finishedGeneration == generation, job != nil else { continue }
                job = nil
                return try result.get()
            case .pathsEnded(let error):
                throw error ?? CancellationError()
            }
        }
        throw CancellationError()
    }

    /// Cancels everything still running and waits for the body and the path watcher to end.
    func shutDown() async {
        feed.finish()
        timer?.cancel()
        watcher?.cancel()
        job?.cancel()
        await job?.value
        await watcher?.value
    }

    private func apply(_ action: TransferGateState.Action) async {
        switch action {
        case .run:
            timer?.cancel()
            timer = nil
            lastReason = nil
            guard job == nil else { return }
            generation += 1
            let current = generation
            onEvent(everStarted ? .resumed : .started)
            everStarted = true
            let (body, feed) = (self.body, self.feed)
            job = Task {
                let result: Result<T, any Error>
                do { result = .success(try await body()) } catch { result = .failure(error) }
                feed.yield(.finished(generation: current, result))
            }
        case .pause(let reason):
            timer?.cancel()
            timer = nil
            if let running = job {
                running.cancel()
                await running.value
                job = nil
                onEvent(.paused(reason))
            } else if reason != lastReason {
                onEvent(.waiting(reason))
            }
            lastReason = reason
        case .waitUntil(let deadline, let reason):
            if reason.code != lastReason?.code { onEvent(.waiting(reason)) }
            lastReason = reason
            timer?.cancel()
            let (gate, feed) = (self.gate, self.feed)
            timer = Task {
                do { try await gate.sleep(until: deadline) } catch { return }
                feed.yield(.tick)
            }
        }
    }
}
