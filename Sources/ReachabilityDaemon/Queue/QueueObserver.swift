public import ReachabilityTransfers

/// What the queue tells its observers (the daemon's metrics) as jobs move. Called from the
/// queue's tasks; implementations must be cheap and must not block.
public protocol QueueObserver: Sendable {
    /// `bytes` moved by a job, in `direction` (`download`, `upload`) over a network of type
    /// `networkType` (`wifi`, `cellular`, `wired`, …).
    func transferred(_ bytes: Int64, direction: String, networkType: String)
    /// A job spent `seconds` paused for the reason with code `reason`.
    func pausedTime(_ seconds: Double, reason: String)
    /// The engine moved a job to another state or reason: `job` as it is now, `previous` its
    /// state and reason code before.
    func jobChanged(_ job: QueueJob, from previous: JobStatus, previousCode: String?)
}

extension QueueObserver {
    /// By default a state change is not observed (the metrics count bytes and paused time).
    public func jobChanged(_ job: QueueJob, from previous: JobStatus, previousCode: String?) {}
}
