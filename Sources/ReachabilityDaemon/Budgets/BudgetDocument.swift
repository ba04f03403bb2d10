public import ReachabilityCore

/// A budget as the API and `reach budget list --json` show it.
public struct BudgetDocument: Codable, Sendable, Hashable {
    /// The budget's name.
    public var name: String
    /// The selector: `cellular`, `wifi`, `wired`, `expensive`, `iface:GLOB`, `ssid:GLOB`.
    public var selector: String
    /// Bytes per cycle.
    public var limitBytes: Int64
    /// The warning level; nil: none.
    public var warningBytes: Int64?
    /// The part of the limit kept for user-initiated jobs.
    public var reserveBytes: Int64
    /// `monthly:DAY`, `weekly:DAY`, `daily` or `none`.
    public var cycle: String
    /// Bytes counted in this cycle.
    public var usedBytes: Int64
    /// RFC 3339, UTC.
    public var cycleStart: String
    /// RFC 3339, UTC; nil for a budget without cycles.
    public var cycleEnd: String?
    /// `ok`, `warning`, `exhausted` or `snoozed`.
    public var state: BudgetState
    /// `api` or `config` (defined in the configuration file: change it there).
    public var source: String
    /// The interfaces it counts now.
    public var interfaces: [String]

    enum CodingKeys: String, CodingKey {
        case name, selector = "for", limitBytes, warningBytes, reserveBytes, cycle, usedBytes, cycleStart, cycleEnd, state, source, interfaces
    }

    init(_ account: BudgetAccount, interfaces: [String]) {
        let budget = account.budget
        name = budget.name
        selector = budget.selector.description
        limitBytes = budget.limitBytes
        warningBytes = budget.warningBytes
        reserveBytes = budget.reserveBytes
        cycle = budget.cycle.description
        usedBytes = account.usedBytes
        cycleStart = RFC3339Time.utcText(account.cycleStart) ?? "1970-01-01T00:00:00Z"
        cycleEnd = account.cycleEnd.flatMap(RFC3339Time.utcText)
        state = account.state
        source = account.origin == nil ? "api" : "config"
        self.interfaces = interfaces
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        name = try container.decode(String.self, forKey: .name)
        selector = try container.decode(String.self, forKey: .selector)
        limitBytes = try container.decode(Int64.self, forKey: .limitBytes)
        warningBytes = try container.decodeIfPresent(Int64.self, forKey: .warningBytes)
        reserveBytes = try container.decode(Int64.self, forKey: .reserveBytes)
        cycle = try container.decode(String.self, forKey: .cycle)
        usedBytes = try container.decode(Int64.self, forKey: .usedBytes)
        cycleStart = try container.decode(String.self, forKey: .cycleStart)
        cycleEnd = try container.decodeIfPresent(String.self, forKey: .cycleEnd)
        state = try container.decode(BudgetState.self, forKey: .state)
        source = try container.decode(String.self, forKey: .source)
        interfaces = try container.decode([String].self, forKey: .interfaces)
    }

    /// Every key, `null` for what is absent (the contract lists them all as required).
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(name, forKey: .name)
        try container.encode(selector, forKey: .selector)
        try container.encode(limitBytes, forKey: .limitBytes)
        try container.encode(warningBytes, forKey: .warningBytes)
        try container.encode(reserveBytes, forKey: .reserveBytes)
        try container.encode(cycle, forKey: .cycle)
        try container.encode(usedBytes, forKey: .usedBytes)
        try container.encode(cycleStart, forKey: .cycleStart)
        try container.encode(cycleEnd, forKey: .cycleEnd)
        try container.encode(state, forKey: .state)
        try container.encode(source, forKey: .source)
        try container.encode(interfaces, forKey: .interfaces)
    }
}

/// `PUT /v1/budgets/{name}`'s body: the budget's definition. Unknown keys and `null` are refused.
public struct BudgetSpec: Codable, Sendable, Hashable {
    /// Which interfaces count (`for`): `cellular`, `wifi`, `wired`, `expensive`, `iface:GLOB`, `ssid:GLOB`.
    public var selector: String
    /// Bytes per cycle, at least 1.
    public var limitBytes: Int64
    /// Absent: 80 % of the limit (or none with ``noWarning``).
    public var warningBytes: Int64?
    /// True: no warning at all (`--warning none`).
    public var noWarning: Bool?
    /// When the count starts over; absent: `monthly:1`.
    public var cycle: String?
    /// The part of the limit kept for user-initiated jobs; absent: 0.
    public var reserveBytes: Int64?

    enum CodingKeys: String, CodingKey, CaseIterable {
        case selector = "for", limitBytes, warningBytes, noWarning, cycle, reserveBytes
    }

    /// A definition given field by field.
    public init(selector: String, limitBytes: Int64, warningBytes: Int64? = nil, noWarning: Bool? = nil, cycle: String? = nil, reserveBytes: Int64? = nil) {
        self.selector = selector
        self.limitBytes = limitBytes
        self.warningBytes = warningBytes
        self.noWarning = noWarning
        self.cycle = cycle
        self.reserveBytes = reserveBytes
    }

    public init(from decoder: any Decoder) throws {
        try QueueJSON.rejectUnknownKeys(CodingKeys.self, in: decoder)
        let container = try decoder.container(keyedBy: CodingKeys.self)
        for key in CodingKeys.allCases where container.contains(key) {
            if try container.decodeNil(forKey: key) {
                throw DecodingError.valueNotFound(Int64.self, .init(codingPath: [key], debugDescription: "null"))
            }
        }
        selector = try container.decode(String.self, forKey: .selector)
        limitBytes = try container.decode(Int64.self, forKey: .limitBytes)
        warningBytes = try container.decodeIfPresent(Int64.self, forKey: .warningBytes)
        noWarning = try container.decodeIfPresent(Bool.self, forKey: .noWarning)
        cycle = try container.decodeIfPresent(String.self, forKey: .cycle)
        reserveBytes = try container.decodeIfPresent(Int64.self, forKey: .reserveBytes)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(selector, forKey: .selector)
        try container.encode(limitBytes, forKey: .limitBytes)
        try container.encodeIfPresent(warningBytes, forKey: .warningBytes)
        try container.encodeIfPresent(noWarning, forKey: .noWarning)
        try container.encodeIfPresent(cycle, forKey: .cycle)
        try container.encodeIfPresent(reserveBytes, forKey: .reserveBytes)
    }

    /// The budget this defines under `name`, checked.
    public func budget(named name: String) throws(BudgetError) -> DataBudget {
        if noWarning == true, warningBytes != nil {
            throw BudgetError(field: "warning", reason: "give warningBytes or noWarning, not both")
        }
        var warning: Int64? = warningBytes ?? DataBudget.defaultWarning(for: max(1, limitBytes))
        if noWarning == true { warning = nil }
        return try DataBudget(
            name: name, selector: try BudgetSelector(parsing: selector), limitBytes: limitBytes, warningBytes: warning,
            cycle: try cycle.map { text throws(BudgetError) in try BudgetCycle(parsing: text) } ?? .monthly, reserveBytes: reserveBytes ?? 0)
    }
}
