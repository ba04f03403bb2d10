import ReachabilityCore

/// Why a probe got no usable answer, in the words of a ``ProbeRecord``'s detail:
/// `connection refused`, `TLS: certificate verify failed`, `answer is not HTTP`.
struct ProbeFailure: Error, Sendable {
    var detail: String
}

extension ProbeVerdict {
    /// No usable answer, for the reason given.
    init(failure detail: String) {
        self.init(outcome: .failure, detail: detail)
    }
}
