/// What the queue tells its observers (the daemon's metrics) as jobs move. Called from the
/// queue's tasks; implementations must be cheap and must not block.
public protocol QueueObserver: Sendable {
    /// `bytes` moved by a job, in `direction` (`download`, `upload`) over a network of type
    /// `networkType` (`wifi`, `cellular`, `wired`, …).
    func transferred(_ bytes: Int64, direction: String, networkType: String)
    /// A job spent `seconds` paused for the reason with code `reason`.
    func pausedTime(_ seconds: Double, reason: String)
}
