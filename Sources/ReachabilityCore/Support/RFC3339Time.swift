/// RFC 3339 date-times, parsed strictly (section 5.6): `YYYY-MM-DDTHH:MM:SS[.frac](Z|±HH:MM)`,
/// ASCII digits only, `T`/`Z` in either case, each field in its range (the day within its month,
/// a leap second as `:60`), an offset within ±23:59. Anything else, ISO 8601's other forms
/// included (`+0000`, `2026-1-01`, week dates), is refused. Pure, so it is tested with a table.
public enum RFC3339Time {
    /// Seconds since 1970-01-01T00:00:00Z (fractions kept), or nil for text that is not
    /// RFC 3339. A leap second counts as the second before the next minute.
    public static func secondsSince1970(_ text: String) -> Double? {
        let bytes = Array(text.utf8)
        guard bytes.count >= 20, bytes.count <= 64 else { return nil }
        func digits(_ start: Int, _ count: Int) -> Int64? {
            guard start + count <= bytes.count else { return nil }
            var value: Int64 = 0
            for byte in bytes[start..<start + count] {
                guard (0x30...0x39).contains(byte) else { return nil }
                value = value * 10 + Int64(byte - 0x30)
            }
            return value
        }
        guard bytes[4] == 0x2D, bytes[7] == 0x2D, bytes[10] == 0x54 || bytes[10] == 0x74, bytes[13] == 0x3A, bytes[16] == 0x3A,
            let year = digits(0, 4), let month = digits(5, 2), let day = digits(8, 2), let hour = digits(11, 2), let minute = digits(14, 2),
            let second = digits(17, 2), (1...12).contains(month), day >= 1, day <= daysIn(month, of: year), hour < 24, minute < 60, second <= 60
        else { return nil }
        var index = 19
        var fraction = 0.0
        if bytes[index] == 0x2E {
            index += 1
            var scale = 0.1
            let start = index
            while index < bytes.count, (0x30...0x39).contains(bytes[index]) {
                fraction += Double(bytes[index] - 0x30) * scale
                scale /= 10
                index += 1
            }
            guard index > start else { return nil }
        }
        guard index < bytes.count else { return nil }
        var offset: Int64 = 0
        switch bytes[index] {
        case 0x5A, 0x7A:  // Z, z
            guard index + 1 == bytes.count else { return nil }
        case 0x2B, 0x2D:  // +, -
            guard index + 6 == bytes.count, bytes[index + 3] == 0x3A, let hours = digits(index + 1, 2), let minutes = digits(index + 4, 2),
                hours < 24, minutes < 60
            else { return nil }
            offset = (hours * 3600 + minutes * 60) * (bytes[index] == 0x2B ? 1 : -1)
        default:
            return nil
        }
        let days = HTTPDate.daysFromCivil(year: year, month: month, day: day)
        let seconds = days * 86_400 + hour * 3600 + minute * 60 + min(second, 59) - offset
        return Double(seconds) + fraction
    }

    /// `YYYY-MM-DDTHH:MM:SSZ` for whole seconds since 1970, by arithmetic (Foundation's ISO 8601
    /// formatter costs tens of microseconds a date on Linux); nil outside years 1-9999.
    public static func utcText(_ seconds: Int64) -> String? {
        let days = CivilDate.days(containing: seconds)
        let timeOfDay = seconds - days * 86_400
        let date = CivilDate(days: days)
        guard (1...9999).contains(date.year) else { return nil }
        func two(_ value: Int64) -> String { value < 10 ? "0\(value)" : "\(value)" }
        let year = String(date.year)
        let yearText = String(repeating: "0", count: max(0, 4 - year.count)) + year
        return "\(yearText)-\(two(date.month))-\(two(date.day))T\(two(timeOfDay / 3600)):\(two(timeOfDay / 60 % 60)):\(two(timeOfDay % 60))Z"
    }

    /// Days in `month` (1-12) of `year`, leap years counted.
    public static func daysIn(_ month: Int64, of year: Int64) -> Int64 {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }
}
