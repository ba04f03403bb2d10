import ReachabilityCore
/// How the ``Downloader`` waits between attempts after a transient failure (connection
/// refused or reset, `408`, `429`, `5xx`, a truncated body, a read timeout).
///
/// Without `Retry-After` the wait is exponential with "equal jitter": failure `n` (1-based)
/// waits a random time in `[d/2, d]` where `d = min(baseDelay · 2^(n-1), maxDelay)`. A
/// `Retry-After` (seconds or an HTTP-date) is honoured, capped at `maxRetryAfter`.
public struct RetryPolicy: Sendable, Hashable {
    /// The ceiling of the first wait (later ones double it).
    public var baseDelay: Duration
    /// The largest wait without `Retry-After`.
    public var maxDelay: Duration
    /// The largest wait a server's `Retry-After` can ask for.
    public var maxRetryAfter: Duration

    /// A policy; by default the first wait is at most 0.5 s, later ones double up to 30 s, and a
    /// server's `Retry-After` is honoured up to 2 minutes.
    public init(
        baseDelay: Duration = .milliseconds(500), maxDelay: Duration = .seconds(30),
        maxRetryAfter: Duration = .seconds(120)
    ) {
        self.baseDelay = baseDelay
        self.maxDelay = maxDelay
        self.maxRetryAfter = maxRetryAfter
    }

    /// The wait before the next attempt after the `failure`-th consecutive failure.
    /// - Parameters:
    ///   - failure: how many attempts in a row have failed (1 for the first failure).
    ///   - retryAfter: the server's `Retry-After`, already parsed (see ``parseRetryAfter(_:now:)``).
    ///   - jitter: a number in `[0, 1]` (random in production, fixed in tests).
    public func delay(afterFailure failure: Int, retryAfter: Duration?, jitter: Double) -> Duration {
        if let retryAfter { return min(max(retryAfter, .zero), maxRetryAfter) }
        let exponent = min(max(failure - 1, 0), 30)
        var ceiling = baseDelay * (1 << exponent)
        if ceiling > maxDelay || ceiling < .zero { ceiling = maxDelay }
        let fraction = 0.5 + 0.5 * min(max(jitter, 0), 1)
        return .nanoseconds(Int64((ceiling.nanoseconds * fraction).rounded()))
    }

    /// Parses a `Retry-After` value: delay-seconds or an HTTP-date (relative to `now`, seconds
    /// since the epoch). A date in the past means no wait; garbage means nil.
    public static func parseRetryAfter(_ value: String, now: Int64) -> Duration? {
        RetryAfter.parse(value, now: now)
    }
}

extension Duration {
    /// The duration in nanoseconds, as a Double.
    var nanoseconds: Double {
        Double(components.seconds) * 1e9 + Double(components.attoseconds) / 1e9
    }
}
