import Foundation

/// `YYYY-MM-DDTHH:MM:SSZ`, the form the queue writes, formatted by arithmetic: Foundation's
/// ISO 8601 formatter costs tens of microseconds a date on Linux, and a list of 1,000 jobs
/// carries 3,000 of them. Parsing is `RFC3339Time`'s (also arithmetic).
enum UTCTimestamp {
    /// The text of `date`, to the second (fractions dropped, as the formatter does).
    static func text(_ date: Date) -> String? {
        let seconds = Int64(date.timeIntervalSince1970.rounded(.down))
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let timeOfDay = seconds - days * 86_400
        let (year, month, day) = civil(fromDays: days)
        guard (1...9999).contains(year) else { return nil }
        func two(_ value: Int64) -> String { value < 10 ? "0\(value)" : "\(value)" }
        let yearText = String(repeating: "0", count: max(0, 4 - String(year).count)) + String(year)
        return "\(yearText)-\(two(month))-\(two(day))T\(two(timeOfDay / 3600)):\(two(timeOfDay / 60 % 60)):\(two(timeOfDay % 60))Z"
    }

    /// The date of a day count since 1970-01-01.
    static func civil(fromDays count: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let z = count + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp + (mp < 10 ? 3 : -9)
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}
