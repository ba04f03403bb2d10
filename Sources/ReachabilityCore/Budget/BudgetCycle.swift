/// When a budget's count starts over: `monthly:DAY` (1-31; a day past the month's end is its
/// last day, as Android's cycle day is), `weekly:DAY` (`mon`…`sun`, or 1-7 from Monday),
/// `daily`, or `none` (only `reset` starts over). Cycles begin at local midnight; the caller
/// says what local time is (``window(containing:utcOffset:)``), so this stays pure.
public struct BudgetCycle: Sendable, Hashable, CustomStringConvertible {
    enum Rule: Sendable, Hashable {
        case monthly(day: Int64)
        case weekly(weekday: Int64)
        case daily
        case none
    }

    let rule: Rule

    /// Monthly from the 1st: the default.
    public static let monthly = BudgetCycle(rule: .monthly(day: 1))
    /// No cycle: the count grows until `reset`.
    public static let none = BudgetCycle(rule: .none)

    init(rule: Rule) { self.rule = rule }

    private static let weekdays = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"]

    /// Parses `monthly:DAY`, `weekly:DAY`, `daily` or `none`.
    public init(parsing text: String) throws(BudgetError) {
        let parts = text.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
        // One spelling per cycle (no leading zero, weekday names in lower case): what is stored
        // and printed parses back to itself, and the contract's pattern says the same.
        func number(_ range: ClosedRange<Int64>) -> Int64? {
            guard parts.count == 2, parts[1].count <= 2, parts[1].first != "0", let value = DecimalDigits.int64(parts[1].utf8), range.contains(value)
            else { return nil }
            return value
        }
        switch parts[0] {
        case "daily" where parts.count == 1: rule = .daily
        case "none" where parts.count == 1: rule = .none
        case "monthly":
            guard let day = number(1...31) else {
                throw BudgetError(field: "cycle", reason: "'\(text.prefix(40))': the day of a monthly cycle is 1-31 (monthly:14)")
            }
            rule = .monthly(day: day)
        case "weekly":
            let name = parts.count == 2 ? String(parts[1]) : ""
            guard let day = number(1...7) ?? Self.weekdays.firstIndex(of: name).map({ Int64($0) + 1 }) else {
                throw BudgetError(field: "cycle", reason: "'\(text.prefix(40))': the day of a weekly cycle is mon-sun or 1-7 (weekly:mon)")
            }
            rule = .weekly(weekday: day)
        default:
            throw BudgetError(field: "cycle", reason: "'\(text.prefix(40))' is not monthly:DAY, weekly:DAY, daily or none")
        }
    }

    public var description: String {
        switch rule {
        case .monthly(let day): "monthly:\(day)"
        case .weekly(let weekday): "weekly:\(Self.weekdays[Int(weekday) - 1])"
        case .daily: "daily"
        case .none: "none"
        }
    }

    /// The cycle containing `now` (seconds since 1970): its start and end, or nil for `none`.
    /// `utcOffset(t)` is local time's offset from UTC at `t`, in seconds (east positive).
    public func window(containing now: Int64, utcOffset: (Int64) -> Int64) -> BudgetWindow? {
        let offset = utcOffset(now)
        let today = CivilDate.days(containing: now + offset)
        let (startDay, endDay): (Int64, Int64)
        switch rule {
        case .none:
            return nil
        case .daily:
            (startDay, endDay) = (today, today + 1)
        case .weekly(let weekday):
            let back = (CivilDate(days: today).weekday - weekday + 7) % 7
            (startDay, endDay) = (today - back, today - back + 7)
        case .monthly(let day):
            let date = CivilDate(days: today)
            func start(year: Int64, month: Int64) -> Int64 {
                CivilDate(year: year, month: month, day: min(day, RFC3339Time.daysIn(month, of: year))).days
            }
            func next(_ year: Int64, _ month: Int64) -> (Int64, Int64) { month == 12 ? (year + 1, 1) : (year, month + 1) }
            func previous(_ year: Int64, _ month: Int64) -> (Int64, Int64) { month == 1 ? (year - 1, 12) : (year, month - 1) }
            let thisMonth = start(year: date.year, month: date.month)
            if today >= thisMonth {
                let (year, month) = next(date.year, date.month)
                (startDay, endDay) = (thisMonth, start(year: year, month: month))
            } else {
                let (year, month) = previous(date.year, date.month)
                (startDay, endDay) = (start(year: year, month: month), thisMonth)
            }
        }
        // Local midnight to UTC, with the offset in force then (a DST change shifts it).
        func instant(_ day: Int64) -> Int64 {
            let local = day * 86_400
            return local - utcOffset(local - offset)
        }
        return BudgetWindow(start: instant(startDay), end: instant(endDay))
    }
}

/// One cycle of a budget: `[start, end)` in seconds since 1970.
public struct BudgetWindow: Sendable, Hashable {
    /// The first second of the cycle.
    public var start: Int64
    /// The first second after it: the next cycle's start.
    public var end: Int64

    /// A window given by its bounds.
    public init(start: Int64, end: Int64) {
        self.start = start
        self.end = end
    }
}
