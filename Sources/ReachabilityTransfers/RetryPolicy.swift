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
        let text = value.trimmingWhitespace()
        if !text.isEmpty, text.allSatisfy(\.isASCIIDigit) {
            return Int64(text).map { .seconds($0) } ?? .seconds(Int64.max / 1_000_000_000_000)
        }
        guard let date = HTTPDate.parse(text) else { return nil }
        return .seconds(max(0, date - now))
    }
}

extension Duration {
    /// The duration in nanoseconds, as a Double.
    var nanoseconds: Double {
        Double(components.seconds) * 1e9 + Double(components.attoseconds) / 1e9
    }
}

extension Character {
    var isASCIIDigit: Bool { ("0"..."9").contains(self) }
}

/// HTTP-date parsing (RFC 9110 §5.6.7): IMF-fixdate, the obsolete RFC 850 form and asctime.
public enum HTTPDate {
    private static let months = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]

    /// Seconds since the epoch, or nil when `text` is not an HTTP-date.
    public static func parse(_ text: String) -> Int64? {
        // Tokens split on spaces and commas; RFC 850 dates have DD-Mon-YY in one token.
        let tokens = text.split(whereSeparator: { $0 == " " || $0 == "," }).map(String.init)
        var day: Int64?
        var month: Int64?
        var year: Int64?
        var clock: (Int64, Int64, Int64)?
        for token in tokens {
            if token.contains(":") {
                let parts = token.split(separator: ":").compactMap { Int64($0) }
                guard parts.count == 3 else { return nil }
                clock = (parts[0], parts[1], parts[2])
            } else if token.contains("-") {
                let parts = token.split(separator: "-").map(String.init)
                guard parts.count == 3, let d = Int64(parts[0]), let m = monthNumber(parts[1]), let y = Int64(parts[2])
                else { return nil }
                day = d
                month = m
                year = y < 100 ? (y < 70 ? 2000 + y : 1900 + y) : y
            } else if let m = monthNumber(token) {
                month = m
            } else if let number = Int64(token) {
                if number > 31 || token.count == 4 { year = number } else { day = number }
            } else if token.uppercased() == "GMT" || token.uppercased() == "UTC" {
                continue
            } else if token.count >= 3, token.allSatisfy(\.isLetter) {
                continue  // day name
            } else {
                return nil
            }
        }
        guard let day, let month, let year, let (hour, minute, second) = clock,
            (1...31).contains(day), (0...23).contains(hour), (0...59).contains(minute), (0...60).contains(second)
        else { return nil }
        return daysFromCivil(year: year, month: month, day: day) * 86_400 + hour * 3600 + minute * 60 + second
    }

    private static func monthNumber(_ token: String) -> Int64? {
        months.firstIndex(of: token.lowercased()).map { Int64($0 + 1) }
    }

    /// Days since 1970-01-01 in the proleptic Gregorian calendar.
    static func daysFromCivil(year: Int64, month: Int64, day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}
