public import ReachabilityCore
import Synchronization

/// What data budgets say about each interface: the allowances transfers are judged by and the
/// budgets a path reports. The daemon's ledger computes it; the monitor applies it to every
/// network it judges and every path it publishes.
public struct InterfaceBudgets: Sendable, Hashable {
    /// By interface name: what each budget counting it leaves (snoozed ones left out).
    public var allowances: [String: [BudgetAllowance]]
    /// By interface name: the budgets counting it, with their state.
    public var pathBudgets: [String: [PathBudget]]

    /// A table given whole; empty by default (no budgets).
    public init(allowances: [String: [BudgetAllowance]] = [:], pathBudgets: [String: [PathBudget]] = [:]) {
        self.allowances = allowances
        self.pathBudgets = pathBudgets
    }
}

/// The byte counters of every interface at one moment, with the interfaces as classified then.
public struct CounterReading: Sendable, Hashable {
    /// Every interface's counters, and the last of each interface deleted since the previous reading.
    public var counters: [InterfaceCounters]
    /// The interfaces as classified when the counters were read (what budget selectors match).
    public var interfaces: [Interface]

    /// A reading given field by field.
    public init(counters: [InterfaceCounters], interfaces: [Interface]) {
        self.counters = counters
        self.interfaces = interfaces
    }
}

extension NetworkMonitor {
    /// Every interface's byte counters, after each change and every
    /// `MonitorConfiguration.counterInterval`, while the monitor runs (while a path iterator
    /// exists); nothing without a counter interval. The newest 64 readings are kept for a slow
    /// reader.
    public func interfaceCounters() -> AsyncStream<CounterReading> {
        let (stream, continuation) = AsyncStream.makeStream(of: CounterReading.self, bufferingPolicy: .bufferingNewest(64))
        let id = subscriberIDs.wrappingAdd(1, ordering: .relaxed).newValue
        counterObservers.withLock { $0[id] = continuation }
        continuation.onTermination = { [weak self] _ in _ = self?.counterObservers.withLock { $0.removeValue(forKey: id) } }
        return stream
    }

    /// Reads every interface's counters now and returns that reading (every
    /// ``interfaceCounters()`` stream is told it too): for a decision or an answer about a data
    /// budget, which must not rest on a count up to a counter interval old. Nil when the monitor
    /// is not running, counts nothing (no `MonitorConfiguration.counterInterval`), or no
    /// reading came within `timeout`.
    public func countersNow(timeout: Duration = .seconds(1)) async -> CounterReading? {
        guard case .running(_, let subscription, _) = lifecycle.withLock({ $0.phase }) else { return nil }
        // Subscribed before asking: any reading from here on was taken after the call began.
        let readings = interfaceCounters()
        subscription.requestCounters()
        return await withTaskGroup(of: CounterReading?.self) { group in
            group.addTask {
                for await reading in readings { return reading }
                return nil
            }
            group.addTask {
                try? await Task.sleep(for: timeout)
                return nil
            }
            defer { group.cancelAll() }
            return await group.next() ?? nil
        }
    }

    func deliverCounters(_ reading: CounterReading) {
        counterObservers.withLock { observers in for observer in observers.values { observer.yield(reading) } }
    }

    /// Applies what the budgets say now: a path whose budgets' states changed is published
    /// again, and transfers waiting on a destination are judged again when what is left changed.
    public func updateBudgets(_ budgets: InterfaceBudgets) {
        let old = budgetTable.withLock { table in
            defer { table = budgets }
            return table
        }
        if old.pathBudgets != budgets.pathBudgets { republish() }
        if old.allowances != budgets.allowances { judgeBox.withLock { $0 }?.budgetsChanged() }
    }

    /// The interfaces whose budgets count traffic leaving by `interface` on `path`: itself and,
    /// when it is the path's primary (a tunnel), the underlay.
    private static func carriers(_ interface: String?, on path: NetworkPath?) -> [String] {
        guard let interface else { return [] }
        guard let path, path.primary?.name == interface, let underlay = path.underlay?.name, underlay != interface else { return [interface] }
        return [interface, underlay]
    }

    /// `network` with the allowances of the budgets counting its traffic.
    func withBudgets(_ network: TransferNetwork, path: NetworkPath?) -> TransferNetwork {
        let names = Self.carriers(network.interface?.name, on: path)
        let table = budgetTable.withLock { $0.allowances }
        guard !table.isEmpty else {
            if network.budgets.isEmpty { return network }
            var bare = network
            bare.budgets = []
            return bare
        }
        var network = network
        var seen: Set<String> = []
        network.budgets = names.flatMap { table[$0] ?? [] }.filter { seen.insert($0.name).inserted }
        return network
    }

    /// The budgets a path reports: those counting its primary interface or its underlay.
    func pathBudgets(for path: NetworkPath) -> [PathBudget] {
        let table = budgetTable.withLock { $0.pathBudgets }
        guard !table.isEmpty else { return [] }
        var seen: Set<String> = []
        return Self.carriers(path.primary?.name, on: path).flatMap { table[$0] ?? [] }.filter { seen.insert($0.name).inserted }
    }
}
