/// HTTP-date parsing (RFC 9110 §5.6.7): IMF-fixdate, the obsolete RFC 850 form and asctime.
///
/// Every number is range-checked before the date arithmetic (years have 2 or 4 digits, days
/// and clock fields at most 2), so no input can overflow it.
public enum HTTPDate {
    private static let months = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]

    /// The fields found so far; tokens may come in any order (asctime puts the year last).
    private struct Fields {
        var day: Int64?
        var month: Int64?
        var year: Int64?
        var clock: (hour: Int64, minute: Int64, second: Int64)?
    }

    /// Seconds since the epoch, or nil when `text` is not an HTTP-date.
    public static func parse(_ text: String) -> Int64? {
        // Tokens split on spaces and commas; RFC 850 dates have DD-Mon-YY in one token.
        var fields = Fields()
        for token in text.split(whereSeparator: { $0 == " " || $0 == "," }) {
            guard read(token, into: &fields) else { return nil }
        }
        guard let day = fields.day, let month = fields.month, let year = fields.year, let clock = fields.clock,
            (1...31).contains(day), (0...23).contains(clock.hour), (0...59).contains(clock.minute),
            (0...60).contains(clock.second)
        else { return nil }
        return daysFromCivil(year: year, month: month, day: day) * 86_400 + clock.hour * 3600 + clock.minute * 60
            + clock.second
    }

    /// Adds what one token tells to `fields`; false when the token has no place in a date.
    private static func read(_ token: Substring, into fields: inout Fields) -> Bool {
        if token.contains(":") {
            let parts = token.split(separator: ":", omittingEmptySubsequences: false).map { number($0, digits: 1...2) }
            guard parts.count == 3, let hour = parts[0], let minute = parts[1], let second = parts[2] else { return false }
            fields.clock = (hour, minute, second)
        } else if token.contains("-") {
            let parts = token.split(separator: "-", omittingEmptySubsequences: false)
            guard parts.count == 3, let day = number(parts[0], digits: 1...2), let month = monthNumber(parts[1]),
                let year = number(parts[2], digits: 2...4), parts[2].utf8.count != 3
            else { return false }
            fields.day = day
            fields.month = month
            // RFC 850's two-digit years: 70–99 are the 1900s, the rest the 2000s.
            fields.year = parts[2].utf8.count == 2 ? (year < 70 ? 2000 + year : 1900 + year) : year
        } else if let month = monthNumber(token) {
            fields.month = month
        } else if let year = number(token, digits: 4...4) {
            fields.year = year
        } else if let day = number(token, digits: 1...2) {
            fields.day = day
        } else if token.uppercased() == "GMT" || token.uppercased() == "UTC" {
            return true
        } else if token.count >= 3, token.allSatisfy({ $0.isASCII && $0.isLetter }) {
            return true  // day name
        } else {
            return false
        }
        return true
    }

    /// A field of `digits` ASCII digits, or nil.
    private static func number(_ text: Substring, digits: ClosedRange<Int>) -> Int64? {
        guard digits.contains(text.utf8.count) else { return nil }
        return DecimalDigits.int64(text)
    }

    private static func monthNumber(_ token: Substring) -> Int64? {
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

/// `Retry-After` values (RFC 9110 §10.2.3).
public enum RetryAfter {
    /// What a delay-seconds value too large for `Int64` stands for (about 106 days): "very
    /// long", without overflowing `Duration` arithmetic later.
    private static let overflowDelay = Duration.seconds(Int64.max / 1_000_000_000_000)

    /// Parses delay-seconds or an HTTP-date (relative to `now`, seconds since the epoch). A
    /// date in the past means no wait; garbage (signs, fractions, other text) means nil.
    public static func parse(_ value: String, now: Int64) -> Duration? {
        let text = value.trimmingBlanks()
        if !text.isEmpty, text.allSatisfy(\.isASCIIDigit) {
            return DecimalDigits.int64(text).map { .seconds($0) } ?? overflowDelay
        }
        guard let date = HTTPDate.parse(String(text)) else { return nil }
        let (difference, overflow) = date.subtractingReportingOverflow(now)
        // Overflow only with an absurd `now`: far in the past means a long wait, far ahead none.
        if overflow { return now < 0 ? overflowDelay : .zero }
        return .seconds(max(0, difference))
    }
}
