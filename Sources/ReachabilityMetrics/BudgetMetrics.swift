import CoreMetrics

/// `reach_budget_used_bytes{budget}`, `reach_budget_limit_bytes{budget}`,
/// `reach_budget_state{budget,state}` (a state set: 1 for the current state) and
/// `reach_budget_cycle_end_seconds{budget}`. A removed budget's series are removed.
struct BudgetMetrics {
    /// One budget as the metrics show it.
    struct Budget: Sendable, Hashable {
        var name: String
        var usedBytes: Int64
        var limitBytes: Int64
        var state: String
        /// Seconds since 1970; nil for a budget without cycles (no series).
        var cycleEnd: Int64?
    }

    /// The states every budget has a series for.
    static let states = ["ok", "warning", "exhausted", "snoozed"]

    private struct Series {
        var used: Gauge
        var limit: Gauge
        var states: [String: Gauge]
        var cycleEnd: Gauge?

        func destroy() {
            used.destroy()
            limit.destroy()
            cycleEnd?.destroy()
            for gauge in states.values { gauge.destroy() }
        }
    }

    private let factory: any MetricsFactory
    private var series: [String: Series] = [:]

    init(factory: any MetricsFactory) { self.factory = factory }

    mutating func set(_ budgets: [Budget]) {
        let names = Set(budgets.map(\.name))
        for (name, old) in series where !names.contains(name) {
            old.destroy()
            series[name] = nil
        }
        for budget in budgets {
            var entry = series[budget.name] ?? make(budget.name)
            entry.used.record(budget.usedBytes)
            entry.limit.record(budget.limitBytes)
            for state in Set(Self.states).union([budget.state]) {
                if entry.states[state] == nil { entry.states[state] = gauge(MetricDescription.budgetState, budget.name, state: state) }
            }
            for (state, gauge) in entry.states { gauge.record(state == budget.state ? 1 : 0) }
            if let end = budget.cycleEnd {
                if entry.cycleEnd == nil { entry.cycleEnd = gauge(MetricDescription.budgetCycleEnd, budget.name) }
                entry.cycleEnd?.record(end)
            } else {
                entry.cycleEnd?.destroy()
                entry.cycleEnd = nil
            }
            series[budget.name] = entry
        }
    }

    private func make(_ name: String) -> Series {
        Series(used: gauge(MetricDescription.budgetUsed, name), limit: gauge(MetricDescription.budgetLimit, name), states: [:], cycleEnd: nil)
    }

    private func gauge(_ description: MetricDescription, _ name: String, state: String? = nil) -> Gauge {
        var dimensions = [("budget", name)]
        if let state { dimensions.append(("state", state)) }
        return Gauge(label: description.name, dimensions: dimensions, factory: factory)
    }
}
