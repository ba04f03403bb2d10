public import FoundationEssentials
import ReachabilityCore

/// Times as the queue shows them: ISO 8601 in UTC, to the second.
public enum QueueTime {
    /// `2026-11-24T10:00:00Z`. A date outside years 1-9999 (which RFC 3339 cannot write) goes
    /// through FoundationEssentials' ISO 8601 style, which needs no ICU (fixed format, UTC).
    public static func text(_ date: Date) -> String {
        UTCTimestamp.text(date) ?? date.formatted(Date.ISO8601FormatStyle())
    }

    /// Parses an RFC 3339 date-time (`2026-11-24T10:00:00Z`, `2026-11-24T12:00:00+02:00`,
    /// fractional seconds, `t`/`z` in lower case), strictly: a day past its month's end, an
    /// hour 24, an offset `+0000` or `+99:99`, digits other than ASCII are refused (nil).
    public static func parse(_ text: String) -> Date? {
        RFC3339Time.secondsSince1970(text).map(Date.init(timeIntervalSince1970:))
    }
}
