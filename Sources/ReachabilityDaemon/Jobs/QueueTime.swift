public import Foundation
import ReachabilityCore
import Synchronization

/// Times as the queue shows them: ISO 8601 in UTC, to the second.
public enum QueueTime {
    // Formatters are costly to make (a list of 1,000 jobs decodes 3,000 dates) and not
    // thread-safe: one of each kind, behind a lock.
    private static let formatters = Mutex(Formatters())

    private struct Formatters: ~Copyable {
        let plain = ISO8601DateFormatter()
    }

    /// `2026-11-24T10:00:00Z`.
    public static func text(_ date: Date) -> String {
        UTCTimestamp.text(date) ?? formatters.withLock { $0.plain.string(from: date) }
    }

    /// Parses an RFC 3339 date-time (`2026-11-24T10:00:00Z`, `2026-11-24T12:00:00+02:00`,
    /// fractional seconds, `t`/`z` in lower case), strictly: a day past its month's end, an
    /// hour 24, an offset `+0000` or `+99:99`, digits other than ASCII are refused (nil).
    public static func parse(_ text: String) -> Date? {
        RFC3339Time.secondsSince1970(text).map(Date.init(timeIntervalSince1970:))
    }
}
