/// One budget's count in its current cycle.
public struct BudgetAccount: Sendable, Hashable {
    /// The budget counted.
    public var budget: DataBudget
    /// Bytes counted in this cycle.
    public var usedBytes: Int64
    /// The cycle's start (seconds since 1970); for a budget without cycles, its last reset.
    public var cycleStart: Int64
    /// The cycle's end; nil for a budget without cycles.
    public var cycleEnd: Int64?
    /// The user let traffic go on until the cycle ends.
    public var isSnoozed: Bool
    /// Bytes counted while the wall clock could not be trusted (before ``BudgetLedger/clockFloor``:
    /// a gateway that booted in 1970): once the clock is set they belong to the cycle it lands in.
    public var untrustedBytes: Int64
    /// Where the budget was defined: `FILE:LINE` of the configuration file; nil through the API.
    public var origin: String?

    /// An account given field by field (the ledger makes them; a checkpoint brings them back).
    public init(
        budget: DataBudget, usedBytes: Int64 = 0, cycleStart: Int64, cycleEnd: Int64?, isSnoozed: Bool = false, untrustedBytes: Int64 = 0,
        origin: String? = nil
    ) {
        self.budget = budget
        self.usedBytes = usedBytes
        self.cycleStart = cycleStart
        self.cycleEnd = cycleEnd
        self.isSnoozed = isSnoozed
        self.untrustedBytes = untrustedBytes
        self.origin = origin
    }

    /// Snoozed, exhausted (at the limit), warning (at the warning level) or ok.
    public var state: BudgetState {
        if isSnoozed { return .snoozed }
        if usedBytes >= budget.limitBytes { return .exhausted }
        if let warning = budget.warningBytes, usedBytes >= warning { return .warning }
        return .ok
    }

    /// What transfers may still move under it.
    public var allowance: BudgetAllowance {
        BudgetAllowance(
            name: budget.name, limitBytes: budget.limitBytes, usedBytes: usedBytes, reserveBytes: budget.reserveBytes, cycleEnd: cycleEnd)
    }

    /// How a path reports it.
    public var pathBudget: PathBudget {
        PathBudget(name: budget.name, state: state, limitBytes: budget.limitBytes, cycleEnd: cycleEnd.flatMap(RFC3339Time.utcText))
    }

    mutating func count(_ bytes: Int64, trusted: Bool) {
        usedBytes = usedBytes.addingSaturated(bytes)
        if !trusted { untrustedBytes = untrustedBytes.addingSaturated(bytes) }
    }
}

extension Int64 {
    /// The sum, held at `Int64.max` rather than trapping.
    func addingSaturated(_ other: Int64) -> Int64 {
        let (sum, overflow) = addingReportingOverflow(other)
        return overflow ? (other > 0 ? .max : .min) : sum
    }
}
