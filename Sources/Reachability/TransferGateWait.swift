public import ReachabilityCore
import Synchronization

/// A transfer's wait for its first start, kept without a task: each network is decided where it
/// arrives (``TransferGateState``, a pure decision), and only a network that lets the transfer
/// start (or settle) wakes anyone. Ten thousand downloads queued for Wi-Fi cost a subscription and
/// this object each, not a suspended task each (a task keeps the slabs its deepest frames took:
/// about 7 KiB measured).
///
/// ```swift
/// let wait = gate.prepareWait(Transfer(expectedBytes: size)) { event in print(event) }
/// wait.begin { wait in Task { try await gate.drive(executor, after: wait) } }
/// ```
public final class TransferGateWait: Sendable {
    private struct State: Sendable {
        var gate: TransferGateState
        var lastReason: TransferWaitReason?
        var subscription: DestinationJudge.Subscription?
        var isOver = false
    }

    /// The gate state a driver takes over: the hysteresis so far, and the reason last told.
    struct Handover: Sendable {
        var gate: TransferGateState
        var lastReason: TransferWaitReason?
    }

    private let gate: TransferGate
    private let onEvent: @Sendable (TransferGate.Event) -> Void
    private let state: Mutex<State>

    init(gate: TransferGate, transfer: Transfer, onEvent: @escaping @Sendable (TransferGate.Event) -> Void) {
        self.gate = gate
        self.onEvent = onEvent
        state = Mutex(State(gate: TransferGateState(policy: gate.policy, transfer: transfer)))
    }

    /// Starts following the networks; calls `startable` once, on the first network that does not
    /// only say "wait" (or when the networks end), possibly before this returns. Until then each
    /// new reason to wait is told as ``TransferGate/Event/waiting(_:)``.
    public func begin(_ startable: @escaping @Sendable (TransferGateWait) -> Void) {
        let subscription = gate.watchNetworks { [self] result in
            let fires = state.withLock { state -> Bool in
                guard !state.isOver else { return false }
                if case .success(let network) = result, case .pause(let reason) = state.gate.update(network: network, now: gate.now()) {
                    // Told under the lock: no event after ``cancel()``.
                    if reason != state.lastReason { onEvent(.waiting(reason)) }
                    state.lastReason = reason
                    return false
                }
                state.isOver = true
                return true
            }
            if fires { startable(self) }
        }
        let cancelNow = state.withLock { state -> Bool in
            state.subscription = subscription
            return state.isOver
        }
        if cancelNow { subscription.cancel() }
    }

    /// Stops waiting: no more events, and `startable` is not called. Safe to call more than once.
    public func cancel() { _ = handOver() }

    /// Ends the wait (and its subscription) and hands over what it judged so far.
    func handOver() -> Handover {
        let (handover, subscription) = state.withLock { state -> (Handover, DestinationJudge.Subscription?) in
            state.isOver = true
            defer { state.subscription = nil }
            return (Handover(gate: state.gate, lastReason: state.lastReason), state.subscription)
        }
        subscription?.cancel()
        return handover
    }
}

extension TransferGate {
    /// A wait for `transfer`'s first start that holds no task (``TransferGateWait``); call
    /// ``TransferGateWait/begin(_:)`` to start it, and hand it to ``drive(_:_:after:onEvent:)``.
    public func prepareWait(_ transfer: Transfer, onEvent: @escaping @Sendable (Event) -> Void) -> TransferGateWait {
        TransferGateWait(gate: self, transfer: transfer, onEvent: onEvent)
    }

    /// ``drive(_:_:onEvent:)`` taking over from `wait`: its hysteresis (a settling time begun
    /// while waiting goes on) and its last reason (not told again).
    public func drive<E: GatedExecutor>(
        _ executor: E, _ transfer: Transfer = Transfer(), after wait: TransferGateWait, onEvent: @escaping @Sendable (Event) -> Void = { _ in }
    ) async throws -> E.Output {
        try await drive(executor, transfer, handover: wait.handOver(), onEvent: onEvent)
    }
}
