import ReachabilityCore

/// What dispatcher hooks are told when a data budget changes state: `budget-warning`,
/// `budget-exhausted`, `budget-snoozed` or `budget-ok` (a new cycle, a reset, a raised limit),
/// with the budget in `REACH_BUDGET*` variables. Pure, so it is tested with a table.
struct BudgetHookEvent: Sendable, Hashable {
    let event: String
    let name: String
    let state: String
    let previous: String
    let usedBytes: Int64
    let limitBytes: Int64
    let cycleEnd: String

    init(account: BudgetAccount, previous: BudgetState?) {
        state = account.state.rawValue
        event = "budget-" + state
        name = account.budget.name
        self.previous = previous?.rawValue ?? ""
        usedBytes = account.usedBytes
        limitBytes = account.budget.limitBytes
        cycleEnd = account.cycleEnd.flatMap(RFC3339Time.utcText) ?? ""
    }

    /// The hook's whole environment.
    func environment(socketPath: String) -> [String: String] {
        [
            "PATH": DispatcherChange.hookPath,
            "REACH_SOCKET": socketPath,
            "REACH_EVENT": event,
            "REACH_BUDGET": name,
            "REACH_BUDGET_STATE": state,
            "REACH_BUDGET_PREVIOUS_STATE": previous,
            "REACH_BUDGET_USED": String(usedBytes),
            "REACH_BUDGET_LIMIT": String(limitBytes),
            "REACH_BUDGET_CYCLE_END": cycleEnd,
        ]
    }
}
