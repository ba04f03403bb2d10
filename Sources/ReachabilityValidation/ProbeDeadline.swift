import NIOCore

/// The end of one round on one target: DNS, connect, TLS and the answer all share it, so the
/// round returns when the validation's timeout is up, however the time was spent.
struct ProbeDeadline: Sendable {
    /// The round's whole budget, for the detail text.
    let timeout: Duration
    let end: ContinuousClock.Instant

    init(timeout: Duration) {
        // Bounded: a nonsense timeout neither overflows the clock nor leaves a probe hanging for days.
        let bounded = min(max(timeout, .zero), .seconds(3600))
        self.timeout = bounded
        end = .now + bounded
    }

    /// The time left, never negative.
    var remaining: Duration {
        let left = end - .now
        return left > .zero ? left : .zero
    }

    var hasPassed: Bool { remaining == .zero }

    /// The same instant on NIO's clock, for the channel's timer.
    var nioDeadline: NIODeadline {
        let (seconds, attoseconds) = remaining.components
        return .now() + .nanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
    }

    /// `timed out after 3.0 s`, and the step that was under way.
    func timedOut(_ step: String) -> String { "timed out after \(Self.seconds(timeout)) s (\(step))" }

    /// Seconds with one decimal: `3.0`, `0.5`.
    static func seconds(_ duration: Duration) -> String {
        let (seconds, attoseconds) = duration.components
        let tenths = seconds * 10 + (attoseconds + 50_000_000_000_000_000) / 100_000_000_000_000_000
        return "\(tenths / 10).\(tenths % 10)"
    }
}
