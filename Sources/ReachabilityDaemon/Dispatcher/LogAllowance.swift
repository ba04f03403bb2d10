import Synchronization

/// A token bucket for the lines hooks may put in the daemon's log: ``burst`` at once, then
/// ``perSecond``. Besides each run's own cap (`HookProcess.maxLines`), it keeps hooks run for a
/// storm of changes from filling the journal. Time is given by the caller (a pure state).
struct LogAllowance: Sendable {
    static let burst = 400.0
    static let perSecond = 20.0

    private var tokens = Self.burst
    private var at: ContinuousClock.Instant?

    /// Whether one more line may be logged at `now`.
    mutating func take(at now: ContinuousClock.Instant) -> Bool {
        if let at {
            let elapsed = now - at
            let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
            tokens = min(Self.burst, tokens + seconds * Self.perSecond)
        }
        at = now
        guard tokens >= 1 else { return false }
        tokens -= 1
        return true
    }
}
