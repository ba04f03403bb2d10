/// A date in the proleptic Gregorian calendar, converted to and from days since 1970-01-01 by
/// arithmetic (Howard Hinnant's algorithms): what time stamps and budget cycles are built on.
public struct CivilDate: Sendable, Hashable {
    /// The year (proleptic Gregorian; 0 is 1 BC).
    public var year: Int64
    /// 1-12.
    public var month: Int64
    /// 1-31.
    public var day: Int64

    /// A date given field by field (not checked: see ``RFC3339Time/daysIn(_:of:)``).
    public init(year: Int64, month: Int64, day: Int64) {
        self.year = year
        self.month = month
        self.day = day
    }

    /// The date `days` days after 1970-01-01 (before it, when negative).
    public init(days count: Int64) {
        let z = count + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        day = dayOfYear - (153 * mp + 2) / 5 + 1
        month = mp + (mp < 10 ? 3 : -9)
        year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
    }

    /// Days since 1970-01-01.
    public var days: Int64 { HTTPDate.daysFromCivil(year: year, month: month, day: day) }

    /// The day of the week, 1 (Monday) to 7 (Sunday), as ISO 8601 numbers them.
    public var weekday: Int64 {
        // 1970-01-01 was a Thursday (4).
        let offset = (days + 3) % 7
        return (offset < 0 ? offset + 7 : offset) + 1
    }

    /// Whole days before `seconds` since 1970 (rounded towards the past).
    public static func days(containing seconds: Int64) -> Int64 {
        seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
    }
}
