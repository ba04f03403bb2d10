/// The hysteresis of gating, as a pure state machine: feed it paths and the time, it answers
/// what the transfer should do. Pausing is immediate; resuming after a pause waits until the
/// path has allowed the transfer for ``TransferPolicy/resumeAfter``. The first start is not
/// delayed.
public struct TransferGateState: Sendable, Hashable {
    /// What the transfer should do now, as ``update(network:now:)`` answers.
    public enum Action: Sendable, Hashable {
        /// Start or keep running.
        case run
        /// Stop now (or stay stopped) for this reason.
        case pause(TransferWaitReason)
        /// Stay stopped; ask again at `deadline` (the end of the settling time) or at the next path.
        case waitUntil(deadline: Duration, reason: TransferWaitReason)
    }

    /// The rules the transfer is gated by.
    public var policy: TransferPolicy
    /// The transfer being gated: update its byte counts as it moves, then ask again, so the size
    /// limits see what it has already spent.
    public var transfer: Transfer
    /// When the path last started allowing the transfer; nil while it does not.
    private var allowedSince: Duration?
    /// The transfer has been paused at least once (so resuming must settle first).
    private var hasPaused = false

    /// A gate that has not seen a path yet: the first allowing path starts the transfer at once.
    public init(policy: TransferPolicy, transfer: Transfer) {
        self.policy = policy
        self.transfer = transfer
    }

    /// The action for `path` at time `now` (any monotonic origin).
    public mutating func update(path: NetworkPath, now: Duration) -> Action {
        update(network: TransferNetwork(path: path), now: now)
    }

    /// The action for the network the transfer's traffic takes at time `now`. Called again
    /// after ``transfer`` changed (bytes moved, the size learned) to re-judge it.
    public mutating func update(network: TransferNetwork, now: Duration) -> Action {
        switch policy.decide(network, for: transfer) {
        case .wait(let reason):
            allowedSince = nil
            hasPaused = true
            return .pause(reason)
        case .allow:
            let since = allowedSince ?? now
            allowedSince = since
            guard hasPaused else { return .run }
            let ready = since + policy.resumeAfter
            if now >= ready { return .run }
            return .waitUntil(deadline: ready, reason: .settling(remaining: ready - now))
        }
    }

    /// Marks the transfer as not running for a reason outside the policy (a failed attempt),
    /// so that the next start settles like a resume.
    public mutating func noteStopped() { hasPaused = true }
}
