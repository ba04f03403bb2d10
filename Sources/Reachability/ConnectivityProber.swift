public import ReachabilityCore

/// Sends the probes of one round on one uplink. The monitor decides when and where to probe;
/// a prober only asks and reports, so the monitor's module needs no HTTP stack: the real one,
/// `HTTPConnectivityProber`, lives in `ReachabilityValidation`.
public protocol ConnectivityProber: Sendable {
    /// One round on `target`: every endpoint of `validation` (HTTP and HTTPS in parallel) and the
    /// target's RFC 8908 API, each out of `target.interface`, DNS through that interface's
    /// servers. Never throws and never outlives `validation.timeout` by more than a moment: a
    /// failure is a record with outcome `failure`. Records come back in endpoint order, the
    /// API's last.
    func probe(_ target: ProbeTarget, validation: ConnectivityValidation) async -> [ProbeRecord]
}
