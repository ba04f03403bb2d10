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
        var lastReason: TransferWaitReason?
        for try await path in monitor.paths {
            switch policy.decide(path, for: transfer) {
            case .allow: return path
            case .wait(let reason):
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
    /// of a run that was not cancelled by the gate; rethrows its error.
    public func run<T: Sendable>(
        _ transfer: Transfer = Transfer(), onEvent: @escaping @Sendable (Event) -> Void = { _ in },
        _ body: @escaping @Sendable () async throws -> T
    ) async throws -> T {
        let (inputs, feed) = AsyncStream.makeStream(of: Input<T>.self)
        let paths = monitor.paths
        let watcher = Task {
            do {
                for try await path in paths { feed.yield(.path(path)) }
                feed.yield(.pathsEnded(nil))
            } catch {
                feed.yield(.pathsEnded(error))
            }
        }
        var job: Task<Void, Never>?
        var timer: Task<Void, Never>?
        defer {
            watcher.cancel()
            timer?.cancel()
            job?.cancel()
            feed.finish()
        }

        var state = TransferGateState(policy: policy, transfer: transfer)
        var latest: NetworkPath?
        var generation = 0
        var everStarted = false
        var lastReason: TransferWaitReason?

        func apply(_ action: TransferGateState.Action) async {
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
                let sleep = sleepUntil
                timer = Task {
                    do { try await sleep(deadline) } catch { return }
                    feed.yield(.tick)
                }
            }
        }

        for await input in inputs {
            switch input {
            case .path(let path):
                latest = path
                await apply(state.update(path: path, now: elapsed()))
            case .tick:
                if let latest { await apply(state.update(path: latest, now: elapsed())) }
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
}
