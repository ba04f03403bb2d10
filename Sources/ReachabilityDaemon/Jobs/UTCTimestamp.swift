import FoundationEssentials
import ReachabilityCore

/// `YYYY-MM-DDTHH:MM:SSZ`, the form the queue writes, formatted by arithmetic: Foundation's
/// ISO 8601 formatter costs tens of microseconds a date on Linux, and a list of 1,000 jobs
/// carries 3,000 of them. Parsing is `RFC3339Time`'s (also arithmetic).
enum UTCTimestamp {
    /// The text of `date`, to the second (fractions dropped, as the formatter does).
    static func text(_ date: Date) -> String? {
        RFC3339Time.utcText(Int64(date.timeIntervalSince1970.rounded(.down)))
    }
}
