import ReachabilityCore
import Synchronization

/// A ``GateDriver``'s inputs and the decision state it shares with the network callback.
///
/// The driver's task takes inputs one at a time. While it is parked — nothing running, no
/// timer, nothing queued — a network that still says "wait" is decided here, where it arrives,
/// and its event told under the lock (so none is told after ``finish()``); anything else is
/// queued for the task, with the decision already made.
final class GateInbox<Output: Sendable>: Sendable {
    enum Input: Sendable {
        case network(TransferNetwork)
        /// A network decided on arrival whose action needs the task.
        case decided(TransferNetwork, TransferGateState.Action)
        case tick
        case rejudge(Transfer, reply: @Sendable (Bool) -> Void)
        case finished(generation: Int, Result<Output, any Error>)
        case networksEnded(any Error)
    }

    private struct State: Sendable {
        var gate: TransferGateState
        var latest: TransferNetwork?
        var lastReason: TransferWaitReason?
        /// Inputs sent and not yet taken by the task.
        var queued = 0
        var isParked = false
        var isFinished = false
    }

    private let feed: AsyncStream<Input>.Continuation
    private let state: Mutex<State>

    /// An inbox deciding by `gate`; `lastReason` is the wait already told (by a ``TransferGateWait``).
    init(feed: AsyncStream<Input>.Continuation, state gate: TransferGateState, lastReason: TransferWaitReason? = nil) {
        self.feed = feed
        state = Mutex(State(gate: gate, lastReason: lastReason))
    }

    /// Queues `input` for the task; false once the inbox is finished.
    @discardableResult
    func send(_ input: Input) -> Bool {
        state.withLock { $0.queued += 1 }
        if case .terminated = feed.yield(input) { return false }
        return true
    }

    /// A new network: decided here while the task is parked and the answer is still to wait
    /// (its event, if the reason changed, told through `onEvent`); otherwise queued.
    func arrive(_ network: TransferNetwork, now: Duration, onEvent: (TransferGate.Event) -> Void) {
        let forward = state.withLock { state -> Input? in
            guard !state.isFinished else { return nil }
            guard state.isParked, state.queued == 0 else {
                state.queued += 1
                return .network(network)
            }
            state.latest = network
            let action = state.gate.update(network: network, now: now)
            guard case .pause(let reason) = action else {
                state.isParked = false
                state.queued += 1
                return .decided(network, action)
            }
            if reason != state.lastReason { onEvent(.waiting(reason)) }
            state.lastReason = reason
            return nil
        }
        if let forward { feed.yield(forward) }
    }

    /// The task took an input: it is busy until it parks again.
    func take() {
        state.withLock { state in
            state.queued -= 1
            state.isParked = false
        }
    }

    /// The task is about to wait for input: parked when it only waits (`idle`).
    func park(if idle: Bool) {
        state.withLock { state in state.isParked = idle && state.latest != nil && !state.isFinished }
    }

    /// No more inputs, and no more decisions on arrival.
    func finish() {
        state.withLock { state in
            state.isFinished = true
            state.isParked = false
        }
        feed.finish()
    }

    /// Decides `network` (nil: the latest again) for the transfer as `update` brings it up to
    /// date; nil when no network has arrived yet.
    func decide(
        _ network: TransferNetwork? = nil, transfer update: (Transfer) -> Transfer, now: Duration
    ) -> TransferGateState.Action? {
        let transfer = update(self.transfer)
        return state.withLock { state in
            state.gate.transfer = transfer
            if let network { state.latest = network }
            guard let latest = state.latest else { return nil }
            return state.gate.update(network: latest, now: now)
        }
    }

    /// The transfer as last judged.
    var transfer: Transfer { state.withLock { $0.gate.transfer } }

    /// Brings the transfer up to date without deciding.
    func updateTransfer(_ update: (Transfer) -> Transfer) {
        let transfer = update(self.transfer)
        state.withLock { $0.gate.transfer = transfer }
    }

    /// The work runs: no reason holds it. Returns the network it runs on.
    func noteRunning() -> TransferNetwork? {
        state.withLock { state in
            state.lastReason = nil
            return state.latest
        }
    }

    /// The work waits for `reason`; true when that is news (`sameIf` says what is not).
    func noteWaiting(_ reason: TransferWaitReason, sameIf isSame: (TransferWaitReason) -> Bool) -> Bool {
        state.withLock { state in
            defer { state.lastReason = reason }
            guard let last = state.lastReason else { return true }
            return !isSame(last)
        }
    }
}
