public import ReachabilityCore
import Synchronization

/// Work a ``TransferGate`` starts, stops and starts again as the network allows: a Swift body
/// (``BodyExecutor``, stopped by task cancellation) or a command (stopped by signals). The gate
/// calls these from one task, never concurrently.
public protocol GatedExecutor<Output>: Sendable {
    /// What the work produces when it finishes by itself; ``TransferGate/drive(_:_:onEvent:)`` returns it.
    associatedtype Output: Sendable

    /// Starts the work, or continues it after ``stop(_:)``. `finished` is called once when the
    /// work ends by itself (a result or an error); a report for a run the gate has since stopped
    /// is ignored, so an executor may report late.
    func start(_ run: GateRun, finished: @escaping @Sendable (Result<Output, any Error>) -> Void) async

    /// Stops the work because the network no longer allows it; returns once it has stopped
    /// (a body cancelled and ended, a process suspended or terminated).
    func stop(_ reason: TransferWaitReason) async

    /// Ends the work for good: the gate is returning (the caller was cancelled, or the work
    /// finished). Returns once nothing of it runs.
    func shutDown() async

    /// The transfer as the work knows it now (bytes still to move, bytes moved on limited
    /// networks), given the gate's last view; the gate asks before each judgement.
    func transfer(updating transfer: Transfer) -> Transfer

    /// Whether a run must start over on the new network when its traffic moves to another one
    /// that still allows it (another interface, transport or cost): a transfer's byte budget and
    /// byte counts belong to the network that carries the bytes. A command, which moves no
    /// counted bytes, goes on (false).
    var restartsWhenNetworkMoves: Bool { get }
}

extension GatedExecutor {
    /// The gate's view is the work's: nothing learned while running.
    public func transfer(updating transfer: Transfer) -> Transfer { transfer }

    /// By default a run goes on when its traffic moves.
    public var restartsWhenNetworkMoves: Bool { false }
}

/// What a started run is allowed: the network it was judged on, the transfer as judged, and
/// the bytes it may move there before a size limit is reached. Ask the gate to judge again
/// with ``rejudge(_:)`` when the transfer changes (the size learned, bytes moved on a limited
/// network): that is how a transfer whose size is unknown, or understated, stops at the limit.
public struct GateRun: Sendable {
    /// The network the run was allowed on.
    public let network: TransferNetwork
    /// The transfer as the gate judged it.
    public let transfer: Transfer
    /// Bytes the run may move before a size limit applies; nil when none applies.
    public let byteBudget: Int64?
    let rejudgement: @Sendable (Transfer) async -> Bool

    /// A run outside a gate (tests, a job run directly): no budget; every re-judgement allows.
    public init(network: TransferNetwork, transfer: Transfer = Transfer(), byteBudget: Int64? = nil) {
        self.init(network: network, transfer: transfer, byteBudget: byteBudget, rejudgement: { _ in true })
    }

    init(network: TransferNetwork, transfer: Transfer, byteBudget: Int64?, rejudgement: @escaping @Sendable (Transfer) async -> Bool) {
        self.network = network
        self.transfer = transfer
        self.byteBudget = byteBudget
        self.rejudgement = rejudgement
    }

    /// Tells the gate the transfer changed and returns whether the run may go on. When it
    /// returns false the gate is stopping the run: end it (for a body, throw; it is being
    /// cancelled).
    public func rejudge(_ transfer: Transfer) async -> Bool {
        await rejudgement(transfer)
    }
}

/// Runs an async Swift body under a gate: started as a child task, stopped by cancelling it
/// and waiting for it to end, started afresh on resume (the body resumes its own work, as the
/// downloader does with HTTP Range).
public final class BodyExecutor<Output: Sendable>: GatedExecutor {
    private let body: @Sendable (GateRun) async throws -> Output
    private let current = Mutex<Task<Void, Never>?>(nil)

    /// An executor that calls `body` for each run. The body is called afresh after every stop,
    /// with that run's ``GateRun`` (network and byte budget), so it must resume its own work.
    public init(_ body: @escaping @Sendable (GateRun) async throws -> Output) {
        self.body = body
    }

    /// Calls the body for `run` in a new task and returns at once; `finished` gets the body's
    /// result or error.
    public func start(_ run: GateRun, finished: @escaping @Sendable (Result<Output, any Error>) -> Void) async {
        let body = self.body
        let task = Task {
            do { finished(.success(try await body(run))) } catch { finished(.failure(error)) }
        }
        current.withLock { $0 = task }
    }

    /// Cancels the running body and waits for it to end. The body sees only the cancellation,
    /// not `reason`.
    public func stop(_ reason: TransferWaitReason) async {
        await endCurrent()
    }

    /// Cancels the running body, if any, and waits for it to end.
    public func shutDown() async {
        await endCurrent()
    }

    private func endCurrent() async {
        guard let task = current.withLock({ running -> Task<Void, Never>? in
            defer { running = nil }
            return running
        }) else { return }
        task.cancel()
        await task.value
    }
}
