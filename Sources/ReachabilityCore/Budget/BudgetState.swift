/// Where a budget stands in its cycle: `ok`, `warning` (at or past the warning level),
/// `exhausted` (at or past the limit), `snoozed` (the user let traffic go on until the cycle
/// ends). A struct over its token, so states can be added without breaking adopters.
public struct BudgetState: RawRepresentable, Codable, Sendable, Hashable, CustomStringConvertible {
    /// The JSON, metric-label and hook token.
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }

    /// Below the warning level (or without one, below the limit).
    public static let ok = BudgetState(rawValue: "ok")
    /// At or past the warning level, below the limit.
    public static let warning = BudgetState(rawValue: "warning")
    /// At or past the limit: every transfer over the budget's networks waits.
    public static let exhausted = BudgetState(rawValue: "exhausted")
    /// The user let transfers go on until the cycle ends; counting goes on.
    public static let snoozed = BudgetState(rawValue: "snoozed")

    /// Every state, in order of severity (snoozed last: the user chose it).
    public static let all: [BudgetState] = [.ok, .warning, .exhausted, .snoozed]

    public var description: String { rawValue }
}

/// What jobs may still move under one budget, as the transfer policy sees it on a network the
/// budget counts: ``TransferNetwork/budgets``.
public struct BudgetAllowance: Sendable, Hashable {
    /// The budget's name.
    public var name: String
    /// Its limit per cycle.
    public var limitBytes: Int64
    /// Bytes counted in this cycle.
    public var usedBytes: Int64
    /// The part of the limit kept for user-initiated transfers.
    public var reserveBytes: Int64
    /// When the cycle ends (seconds since 1970); nil for a budget without cycles.
    public var cycleEnd: Int64?

    /// An allowance given field by field.
    public init(name: String, limitBytes: Int64, usedBytes: Int64, reserveBytes: Int64 = 0, cycleEnd: Int64? = nil) {
        self.name = name
        self.limitBytes = limitBytes
        self.usedBytes = usedBytes
        self.reserveBytes = reserveBytes
        self.cycleEnd = cycleEnd
    }

    /// Bytes a transfer of `priority` may still move: user-initiated ones may use the reserve.
    public func left(for priority: Transfer.Priority) -> Int64 {
        // Clamped, so no count (however absurd) can overflow the subtraction.
        let left = limitBytes - min(max(0, usedBytes), limitBytes)
        return priority == .userInitiated ? left : left - max(0, reserveBytes)
    }
}

/// A budget as a path reports it (`budgets` in `/v1/path`): one that counts the path's traffic.
/// Its usage is left out on purpose: it changes with every byte, and a path is published only
/// when something about it changes.
public struct PathBudget: Sendable, Hashable, Decodable {
    /// The budget's name.
    public var name: String
    /// Where it stands in its cycle.
    public var state: BudgetState
    /// Its limit per cycle.
    public var limitBytes: Int64
    /// When the cycle ends, RFC 3339 UTC; nil for a budget without cycles.
    public var cycleEnd: String?

    /// A path's budget given field by field.
    public init(name: String, state: BudgetState, limitBytes: Int64, cycleEnd: String?) {
        self.name = name
        self.state = state
        self.limitBytes = limitBytes
        self.cycleEnd = cycleEnd
    }
}
