/// Every budget's count, kept from the kernel's interface counters: a pure state machine fed
/// counter samples and the wall clock, answering which budgets changed state. The daemon
/// persists it and feeds it; it is tested with tables.
///
/// Counting: each interface's counters are compared with the last sample of the same interface
/// (by index), received and sent each on its own; the difference counts against every budget
/// whose selector matches the interface at the sample (the last matches for an interface that
/// is gone). A counter below the last sample was reset (a driver reload): what it shows counts,
/// from zero. (A veth being deleted reports its received bytes as 0 and its sent bytes intact:
/// taken together they would look like a reset of both.) An interface that
/// appears after the first sample counts from zero; one that existed before counts from its
/// first sample, unless a checkpoint of the same boot left its baseline. An interface that
/// leaves (deleted, or moved to another namespace) is remembered by its hardware address for a
/// while: when one with that address and counters at least as high comes back, only what it
/// moved meanwhile counts (a namespace move keeps the counters; counting them from zero again
/// counted its whole history twice). Last counters below the baseline are stale (the cache of
/// the last link message), not a reset: they add nothing.
///
/// The clock: a cycle ends when the wall clock passes its end, but only a clock past
/// ``clockFloor`` is believed. Before that (a gateway that booted in 1970 and has not synced),
/// bytes count in the current cycle and are marked untrusted; once the clock is set, they stay
/// in that cycle or, if the clock lands in a later one, move there. A clock that goes back
/// before the cycle's start leaves the window and the count alone (bytes count in the current
/// cycle until the clock is back). A cycle ended by a clock that then comes back into it (an
/// excursion: a wrong NTP answer, a test) is put back, with what was counted meanwhile. So no
/// jump resets a cycle twice, loses a cycle's count, or counts a byte twice.
public struct BudgetLedger: Sendable {
    /// One interface's last sample: its name, its counters, the budgets it matched.
    public struct Baseline: Sendable, Hashable {
        /// The interface's name at the sample (a rename keeps its index).
        public var name: String
        /// Received bytes, as the kernel reported them.
        public var receivedBytes: UInt64
        /// Sent bytes, likewise.
        public var sentBytes: UInt64
        /// The budgets its selector matched, by name: what its last bytes count against once it is gone.
        public var budgets: [String]

        /// A baseline given field by field.
        public init(name: String, receivedBytes: UInt64, sentBytes: UInt64, budgets: [String]) {
            self.name = name
            self.receivedBytes = receivedBytes
            self.sentBytes = sentBytes
            self.budgets = budgets
        }
    }

    /// A budget whose state changed: nil `from` for a new budget, nil `to` for a removed one.
    public struct Transition: Sendable, Hashable {
        /// The budget's name.
        public var name: String
        /// Its state before; nil for a budget just defined.
        public var from: BudgetState?
        /// Its state after; nil for a budget removed.
        public var to: BudgetState?

        /// A transition given field by field.
        public init(name: String, from: BudgetState?, to: BudgetState?) {
            self.name = name
            self.from = from
            self.to = to
        }
    }

    /// 2026-01-01T00:00:00Z: a wall clock before it has not been set (this code did not exist).
    public static let clockFloor: Int64 = 1_767_225_600

    public private(set) var accounts: [String: BudgetAccount] = [:]
    public private(set) var baselines: [Int32: Baseline] = [:]
    /// Interfaces that left, by hardware address (at most ``maxDeparted``, the oldest dropped).
    private var departed: [(address: String, baseline: Baseline)] = []
    static let maxDeparted = 64
    /// Each budget as it was just before the clock last ended its cycle: put back if the clock
    /// returns into that cycle.
    private var beforeRollover: [String: Rollover] = [:]

    private struct Rollover: Sendable {
        var account: BudgetAccount
        /// Bytes the new cycle started with (counted before the clock was set).
        var carried: Int64
    }
    /// The first sample has been taken: an interface unknown after it is new.
    public private(set) var hasSampled = false
    private let utcOffset: @Sendable (Int64) -> Int64

    /// An empty ledger; `utcOffset(t)` is local time's offset from UTC at `t` (cycles start at
    /// local midnight).
    public init(utcOffset: @escaping @Sendable (Int64) -> Int64 = { _ in 0 }) {
        self.utcOffset = utcOffset
    }

    /// Puts back what a checkpoint kept: the accounts, and the interfaces' baselines when the
    /// checkpoint was taken in this boot (counters start over at boot).
    public mutating func restore(accounts: [BudgetAccount], baselines: [Int32: Baseline]) {
        self.accounts = Dictionary(accounts.map { ($0.budget.name, $0) }, uniquingKeysWith: { _, last in last })
        self.baselines = baselines
    }

    private var states: [String: BudgetState] { accounts.mapValues(\.state) }

    private func transitions(from before: [String: BudgetState]) -> [Transition] {
        let after = states
        return Set(before.keys).union(after.keys).sorted().compactMap { name in
            before[name] == after[name] ? nil : Transition(name: name, from: before[name], to: after[name])
        }
    }

    private func window(_ cycle: BudgetCycle, now: Int64) -> (start: Int64, end: Int64?) {
        guard let window = cycle.window(containing: now, utcOffset: utcOffset) else { return (now, nil) }
        return (window.start, window.end)
    }

    /// Defines a budget, or redefines one keeping its count (its window follows a new cycle).
    public mutating func define(_ budget: DataBudget, origin: String? = nil, now: Int64) -> [Transition] {
        let before = states
        if var account = accounts[budget.name] {
            let cycleChanged = account.budget.cycle != budget.cycle
            account.budget = budget
            account.origin = origin
            if cycleChanged {
                (account.cycleStart, account.cycleEnd) = window(budget.cycle, now: now)
            }
            accounts[budget.name] = account
        } else {
            let (start, end) = window(budget.cycle, now: now)
            accounts[budget.name] = BudgetAccount(budget: budget, cycleStart: start, cycleEnd: end, origin: origin)
        }
        return transitions(from: before)
    }

    /// Removes a budget; nil when there is none of that name.
    public mutating func remove(_ name: String) -> BudgetAccount? {
        for index in baselines.keys { baselines[index]?.budgets.removeAll { $0 == name } }
        return accounts.removeValue(forKey: name)
    }

    /// Starts the count over (a budget without cycles starts a new one now) and ends a snooze;
    /// nil when there is no such budget.
    public mutating func reset(_ name: String, now: Int64) -> [Transition]? {
        guard var account = accounts[name] else { return nil }
        let before = states
        account.usedBytes = 0
        account.untrustedBytes = 0
        account.isSnoozed = false
        if account.cycleEnd == nil { account.cycleStart = now }
        accounts[name] = account
        return transitions(from: before)
    }

    /// Lets traffic go on until the cycle ends; nil when there is no such budget.
    public mutating func snooze(_ name: String) -> [Transition]? {
        guard accounts[name] != nil else { return nil }
        let before = states
        accounts[name]?.isSnoozed = true
        return transitions(from: before)
    }

    /// Counts a sample of counters. `interfaces` are the classified interfaces now (what the
    /// selectors match); `now` is the wall clock, seconds since 1970.
    public mutating func record(_ samples: [InterfaceCounters], interfaces: [Interface], now: Int64) -> [Transition] {
        let before = states
        let trusted = now >= Self.clockFloor
        let byIndex = Dictionary(interfaces.map { ($0.index, $0) }, uniquingKeysWith: { first, _ in first })
        if !hasSampled {
            // The first reading lists every interface: a restored baseline of one that is gone
            // (deleted while no daemon ran) will never be sampled again.
            let present = Set(samples.map(\.index))
            baselines = baselines.filter { present.contains($0.key) }
        }
        for sample in samples {
            let matching = byIndex[sample.index].map(budgetNames(matching:)) ?? baselines[sample.index]?.budgets ?? []
            // Since the last sample, or from zero after a reset (or for an interface new since
            // the first reading); nothing for one first seen in the first reading.
            func moved(_ now: UInt64, since before: UInt64?) -> UInt64 {
                guard let before else { return hasSampled ? now : 0 }
                return now >= before ? now - before : now
            }
            let baseline = baselines[sample.index] ?? (hasSampled ? returning(sample) : nil)
            var (received, sent) = (
                moved(sample.receivedBytes, since: baseline?.receivedBytes), moved(sample.sentBytes, since: baseline?.sentBytes)
            )
            if sample.isRemoved, let baseline {
                // Last counters from the cache: below the baseline they are stale, not a reset.
                if sample.receivedBytes < baseline.receivedBytes { received = 0 }
                if sample.sentBytes < baseline.sentBytes { sent = 0 }
            }
            let (delta, overflow) = received.addingReportingOverflow(sent)
            if delta > 0 || overflow {
                for name in matching { accounts[name]?.count(overflow ? .max : Int64(clamping: delta), trusted: trusted) }
            }
            let last = Baseline(
                name: sample.name, receivedBytes: max(sample.receivedBytes, baseline?.receivedBytes ?? 0),
                sentBytes: max(sample.sentBytes, baseline?.sentBytes ?? 0), budgets: matching)
            if sample.isRemoved {
                baselines[sample.index] = nil
                if let address = sample.hardwareAddress, address != "00:00:00:00:00:00" {
                    departed.removeAll { $0.address == address }
                    departed.append((address, last))
                    if departed.count > Self.maxDeparted { departed.removeFirst() }
                }
            } else {
                baselines[sample.index] = Baseline(
                    name: sample.name, receivedBytes: sample.receivedBytes, sentBytes: sample.sentBytes, budgets: matching)
            }
        }
        hasSampled = true
        return transitions(from: before)
    }

    /// The baseline of an interface that left and is back (same hardware address, counters
    /// not below what it had), taken out of ``departed``; nil for a new interface.
    private mutating func returning(_ sample: InterfaceCounters) -> Baseline? {
        guard let address = sample.hardwareAddress, let at = departed.firstIndex(where: { $0.address == address }) else { return nil }
        let baseline = departed.remove(at: at).baseline
        guard sample.receivedBytes >= baseline.receivedBytes, sample.sentBytes >= baseline.sentBytes else { return nil }
        return baseline
    }

    /// Ends the cycles the clock has passed (a new cycle carries only the bytes counted before
    /// the clock was set), and moves a window back when the clock went back before it.
    public mutating func tick(now: Int64) -> [Transition] {
        guard now >= Self.clockFloor else { return [] }
        let before = states
        for name in accounts.keys {
            guard var account = accounts[name] else { continue }
            if let end = account.cycleEnd, now >= end {
                beforeRollover[name] = Rollover(account: account, carried: account.untrustedBytes)
                (account.cycleStart, account.cycleEnd) = window(account.budget.cycle, now: now)
                account.usedBytes = account.untrustedBytes
                account.isSnoozed = false
            } else if account.cycleEnd != nil, now < account.cycleStart, let rollover = beforeRollover[name],
                now >= rollover.account.cycleStart, now < (rollover.account.cycleEnd ?? .max)
            {
                // The clock came back into the cycle it had ended: that cycle goes on, with what
                // was counted meanwhile.
                var previous = rollover.account
                previous.usedBytes = previous.usedBytes.addingSaturated(max(0, account.usedBytes - rollover.carried))
                previous.budget = account.budget
                previous.origin = account.origin
                beforeRollover[name] = nil
                account = previous
            }
            account.untrustedBytes = 0
            accounts[name] = account
        }
        return transitions(from: before)
    }

    /// The names of the budgets whose selector matches `interface`, sorted.
    public func budgetNames(matching interface: Interface) -> [String] {
        accounts.values.filter { $0.budget.selector.matches(interface) }.map(\.budget.name).sorted()
    }

    /// What transfers over `interface` may still move under each budget counting it (a snoozed
    /// budget holds nothing back).
    public func allowances(for interface: Interface) -> [BudgetAllowance] {
        budgetNames(matching: interface).compactMap { name in
            guard let account = accounts[name], !account.isSnoozed else { return nil }
            return account.allowance
        }
    }
}
