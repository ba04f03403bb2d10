import ReachabilityCore
import Testing

private let mb: Int64 = 1_000_000

private func cellular(_ index: Int32 = 2, name: String = "wwan0") -> Interface {
    Interface(name: name, index: index, type: .cellular, isExpensive: true, isUp: true, isRunning: true)
}

private func wifi(_ index: Int32 = 3, ssid: String = "Home") -> Interface {
    Interface(
        name: "wlan0", index: index, type: .wifi, isExpensive: false, isUp: true, isRunning: true,
        wifi: WifiFacts(mode: .station, association: WifiAssociation(ssid: ssid, bssid: "02:00:00:00:00:01")))
}

private func sample(_ interface: Interface, _ bytes: Int64, removed: Bool = false) -> InterfaceCounters {
    InterfaceCounters(index: interface.index, name: interface.name, receivedBytes: UInt64(bytes), sentBytes: 0, isRemoved: removed)
}

private func split(_ interface: Interface, _ received: Int64, _ sent: Int64, removed: Bool = false) -> InterfaceCounters {
    InterfaceCounters(index: interface.index, name: interface.name, receivedBytes: UInt64(received), sentBytes: UInt64(sent), isRemoved: removed)
}

private func moved(_ interface: Interface, _ bytes: Int64, removed: Bool = false, index: Int32? = nil) -> InterfaceCounters {
    InterfaceCounters(
        index: index ?? interface.index, name: interface.name, receivedBytes: UInt64(bytes), sentBytes: 0, isRemoved: removed,
        hardwareAddress: "02:00:00:00:00:0a")
}

private func budget(_ name: String, _ selector: String, limit: Int64 = 100 * mb, warning: Int64? = 80 * mb, cycle: String = "monthly:1", reserve: Int64 = 0) throws -> DataBudget {
    try DataBudget(
        name: name, selector: BudgetSelector(parsing: selector), limitBytes: limit, warningBytes: warning, cycle: BudgetCycle(parsing: cycle),
        reserveBytes: reserve)
}

private let now = utc(2026, 11, 26, 12)

/// One step of a ledger's life, and what it must show after it.
struct LedgerStep: Sendable {
    enum Action: Sendable {
        case record([InterfaceCounters], [Interface], at: Int64)
        case tick(at: Int64)
        case reset(String, at: Int64)
        case snooze(String)
    }
    var action: Action
    var used: [String: Int64]
    var states: [String: BudgetState] = [:]
}

struct LedgerRow: Sendable, CustomTestStringConvertible {
    var name: String
    var budgets: [DataBudget]
    var definedAt: Int64 = now
    var steps: [LedgerStep]
    var testDescription: String { name }
}

private func rows() throws -> [LedgerRow] {
    let cell = try budget("cell", "cellular")
    let home = try budget("home", "ssid:Home")
    let c = cellular()
    return [
        LedgerRow(
            name: "the first sample is a baseline; what follows counts", budgets: [cell],
            steps: [
                LedgerStep(action: .record([sample(c, 5_000)], [c], at: now), used: ["cell": 0]),
                LedgerStep(action: .record([sample(c, 5_000 + 10 * mb)], [c], at: now + 60), used: ["cell": 10 * mb], states: ["cell": .ok]),
                LedgerStep(action: .record([sample(c, 5_000 + 85 * mb)], [c], at: now + 120), used: ["cell": 85 * mb], states: ["cell": .warning]),
                LedgerStep(action: .record([sample(c, 5_000 + 100 * mb)], [c], at: now + 180), used: ["cell": 100 * mb], states: ["cell": .exhausted]),
            ]),
        LedgerRow(
            name: "only the budgets whose selector matches count", budgets: [cell, home],
            steps: [
                LedgerStep(action: .record([sample(c, 0), sample(wifi(), 0)], [c, wifi()], at: now), used: ["cell": 0, "home": 0]),
                LedgerStep(action: .record([sample(c, 3 * mb), sample(wifi(), 7 * mb)], [c, wifi()], at: now + 60), used: ["cell": 3 * mb, "home": 7 * mb]),
                // Another network on the same radio: no longer "Home".
                LedgerStep(
                    action: .record([sample(c, 3 * mb), sample(wifi(ssid: "Cafe"), 9 * mb)], [c, wifi(ssid: "Cafe")], at: now + 120),
                    used: ["cell": 3 * mb, "home": 7 * mb]),
            ]),
        LedgerRow(
            name: "counters that go back (a driver reload) start a new baseline from zero", budgets: [cell],
            steps: [
                LedgerStep(action: .record([sample(c, 50 * mb)], [c], at: now), used: ["cell": 0]),
                LedgerStep(action: .record([sample(c, 60 * mb)], [c], at: now + 60), used: ["cell": 10 * mb]),
                LedgerStep(action: .record([sample(c, 2 * mb)], [c], at: now + 120), used: ["cell": 12 * mb]),
                LedgerStep(action: .record([sample(c, 3 * mb)], [c], at: now + 180), used: ["cell": 13 * mb]),
            ]),
        LedgerRow(
            name: "a deleted interface counts its last counters; re-created, it counts from zero", budgets: [cell],
            steps: [
                LedgerStep(action: .record([sample(c, 1 * mb)], [c], at: now), used: ["cell": 0]),
                LedgerStep(action: .record([sample(c, 4 * mb, removed: true)], [], at: now + 10), used: ["cell": 3 * mb]),
                LedgerStep(action: .record([sample(cellular(9), 2 * mb)], [cellular(9)], at: now + 20), used: ["cell": 5 * mb]),
                LedgerStep(action: .record([sample(cellular(9), 6 * mb)], [cellular(9)], at: now + 30), used: ["cell": 9 * mb]),
            ]),
        // A veth being deleted sends its last link message with received bytes 0 (its peer is
        // gone) and sent bytes intact: neither a reset of both nor a loss of what was sent.
        LedgerRow(
            name: "each direction is its own counter (a deleted veth reports received 0)", budgets: [cell],
            steps: [
                LedgerStep(action: .record([split(c, 0, 0)], [c], at: now), used: ["cell": 0]),
                LedgerStep(action: .record([split(c, 8 * mb, 2 * mb)], [c], at: now + 10), used: ["cell": 10 * mb]),
                LedgerStep(action: .record([split(c, 8 * mb, 5 * mb)], [c], at: now + 20), used: ["cell": 13 * mb]),
                LedgerStep(action: .record([split(c, 0, 6 * mb, removed: true)], [], at: now + 30), used: ["cell": 14 * mb]),
            ]),
        LedgerRow(
            name: "a new cycle starts the count over and ends a snooze", budgets: [cell],
            steps: [
                LedgerStep(action: .record([sample(c, 0)], [c], at: now), used: ["cell": 0]),
                LedgerStep(action: .record([sample(c, 120 * mb)], [c], at: now + 60), used: ["cell": 120 * mb], states: ["cell": .exhausted]),
                LedgerStep(action: .snooze("cell"), used: ["cell": 120 * mb], states: ["cell": .snoozed]),
                LedgerStep(action: .tick(at: utc(2026, 11, 30, 23, 59)), used: ["cell": 120 * mb], states: ["cell": .snoozed]),
                LedgerStep(action: .tick(at: utc(2026, 12, 1, 0, 0)), used: ["cell": 0], states: ["cell": .ok]),
                LedgerStep(action: .tick(at: utc(2026, 12, 1, 0, 1)), used: ["cell": 0], states: ["cell": .ok]),
            ]),
        LedgerRow(
            name: "reset starts the count over", budgets: [cell],
            steps: [
                LedgerStep(action: .record([sample(c, 0)], [c], at: now), used: ["cell": 0]),
                LedgerStep(action: .record([sample(c, 90 * mb)], [c], at: now + 60), used: ["cell": 90 * mb], states: ["cell": .warning]),
                LedgerStep(action: .reset("cell", at: now + 70), used: ["cell": 0], states: ["cell": .ok]),
                LedgerStep(action: .record([sample(c, 91 * mb)], [c], at: now + 80), used: ["cell": 1 * mb]),
            ]),
        // A gateway that booted in 1970 with November's count on disk, then NTP set the clock.
        LedgerRow(
            name: "an unset clock neither ends a cycle nor loses what it counted (set into the same cycle)", budgets: [cell],
            steps: [
                LedgerStep(action: .record([sample(c, 0)], [c], at: now), used: ["cell": 0]),
                LedgerStep(action: .record([sample(c, 30 * mb)], [c], at: now + 60), used: ["cell": 30 * mb]),
                LedgerStep(action: .tick(at: 1_000), used: ["cell": 30 * mb]),
                LedgerStep(action: .record([sample(c, 40 * mb)], [c], at: 1_060), used: ["cell": 40 * mb]),
                LedgerStep(action: .tick(at: 1_120), used: ["cell": 40 * mb]),
                LedgerStep(action: .tick(at: now + 600), used: ["cell": 40 * mb]),
                LedgerStep(action: .tick(at: now + 660), used: ["cell": 40 * mb]),
            ]),
        LedgerRow(
            name: "bytes counted before the clock was set move to the cycle it lands in, once", budgets: [cell],
            steps: [
                LedgerStep(action: .record([sample(c, 0)], [c], at: now), used: ["cell": 0]),
                LedgerStep(action: .record([sample(c, 30 * mb)], [c], at: now + 60), used: ["cell": 30 * mb]),
                LedgerStep(action: .record([sample(c, 35 * mb)], [c], at: 1_060), used: ["cell": 35 * mb]),
                LedgerStep(action: .tick(at: utc(2026, 12, 2)), used: ["cell": 5 * mb]),
                LedgerStep(action: .tick(at: utc(2026, 12, 2) + 60), used: ["cell": 5 * mb]),
                LedgerStep(action: .record([sample(c, 36 * mb)], [c], at: utc(2026, 12, 2) + 120), used: ["cell": 6 * mb]),
            ]),
        LedgerRow(
            name: "a clock set back before the cycle leaves the window and the count alone", budgets: [cell],
            steps: [
                LedgerStep(action: .record([sample(c, 0)], [c], at: now), used: ["cell": 0]),
                LedgerStep(action: .record([sample(c, 30 * mb)], [c], at: now + 60), used: ["cell": 30 * mb]),
                LedgerStep(action: .tick(at: utc(2026, 10, 20)), used: ["cell": 30 * mb]),
                LedgerStep(action: .record([sample(c, 31 * mb)], [c], at: utc(2026, 10, 20) + 5), used: ["cell": 31 * mb]),
                LedgerStep(action: .tick(at: utc(2026, 11, 1, 0, 0)), used: ["cell": 31 * mb]),
                LedgerStep(action: .tick(at: now + 120), used: ["cell": 31 * mb]),
            ]),
        // The excursion: +40 days for a few seconds set the real cycle's count to 0.
        LedgerRow(
            name: "a clock 40 days ahead for a moment ends the cycle only until it is back", budgets: [cell],
            steps: [
                LedgerStep(action: .record([sample(c, 0)], [c], at: now), used: ["cell": 0]),
                LedgerStep(action: .record([sample(c, 30 * mb)], [c], at: now + 60), used: ["cell": 30 * mb]),
                LedgerStep(action: .tick(at: now + 40 * 86_400), used: ["cell": 0]),
                LedgerStep(action: .record([sample(c, 32 * mb)], [c], at: now + 40 * 86_400 + 5), used: ["cell": 2 * mb]),
                LedgerStep(action: .tick(at: now + 70), used: ["cell": 32 * mb]),
                LedgerStep(action: .record([sample(c, 33 * mb)], [c], at: now + 80), used: ["cell": 33 * mb]),
            ]),
        LedgerRow(
            name: "a clock 40 days behind for a moment changes nothing", budgets: [cell],
            steps: [
                LedgerStep(action: .record([sample(c, 0)], [c], at: now), used: ["cell": 0]),
                LedgerStep(action: .record([sample(c, 30 * mb)], [c], at: now + 60), used: ["cell": 30 * mb]),
                LedgerStep(action: .tick(at: now - 40 * 86_400), used: ["cell": 30 * mb]),
                LedgerStep(action: .tick(at: now + 70), used: ["cell": 30 * mb]),
            ]),
        // Moved to another namespace and back: the kernel keeps its counters (and address).
        LedgerRow(
            name: "an interface that leaves and comes back counts only what it moved meanwhile", budgets: [cell],
            steps: [
                LedgerStep(action: .record([moved(c, 0)], [c], at: now), used: ["cell": 0]),
                LedgerStep(action: .record([moved(c, 32 * mb)], [c], at: now + 10), used: ["cell": 32 * mb]),
                LedgerStep(action: .record([moved(c, 32 * mb, removed: true)], [], at: now + 20), used: ["cell": 32 * mb]),
                LedgerStep(action: .record([moved(c, 32 * mb + 2000, index: 9)], [cellular(9)], at: now + 30), used: ["cell": 32 * mb + 2000]),
            ]),
        LedgerRow(
            name: "a new interface with a departed one's address but lower counters counts from zero", budgets: [cell],
            steps: [
                LedgerStep(action: .record([moved(c, 0)], [c], at: now), used: ["cell": 0]),
                LedgerStep(action: .record([moved(c, 10 * mb)], [c], at: now + 10), used: ["cell": 10 * mb]),
                LedgerStep(action: .record([moved(c, 10 * mb, removed: true)], [], at: now + 20), used: ["cell": 10 * mb]),
                LedgerStep(action: .record([moved(c, 1 * mb, index: 9)], [cellular(9)], at: now + 30), used: ["cell": 11 * mb]),
            ]),
        // libnl's cached link object: its counters are those of the last link message.
        LedgerRow(
            name: "last counters below the baseline (stale) add nothing", budgets: [cell],
            steps: [
                LedgerStep(action: .record([sample(c, 0)], [c], at: now), used: ["cell": 0]),
                LedgerStep(action: .record([sample(c, 10 * mb)], [c], at: now + 10), used: ["cell": 10 * mb]),
                LedgerStep(action: .record([sample(c, 14_000, removed: true)], [], at: now + 20), used: ["cell": 10 * mb]),
            ]),
    ]
}

@Test func ledgerRowsHold() throws {
    for row in try rows() {
        var ledger = BudgetLedger()
        for budget in row.budgets { _ = ledger.define(budget, now: row.definedAt) }
        for (offset, step) in row.steps.enumerated() {
            switch step.action {
            case .record(let samples, let interfaces, let at): _ = ledger.record(samples, interfaces: interfaces, now: at)
            case .tick(let at): _ = ledger.tick(now: at)
            case .reset(let name, let at): _ = ledger.reset(name, now: at)
            case .snooze(let name): _ = ledger.snooze(name)
            }
            for (name, used) in step.used {
                #expect(ledger.accounts[name]?.usedBytes == used, "\(row.name), step \(offset + 1): \(name)")
            }
            for (name, state) in step.states {
                #expect(ledger.accounts[name]?.state == state, "\(row.name), step \(offset + 1): \(name)")
            }
        }
    }
}

@Test func transitionsNameEachChangeOfStateOnce() throws {
    var ledger = BudgetLedger()
    let c = cellular()
    #expect(ledger.define(try budget("cell", "cellular"), now: now) == [.init(name: "cell", from: nil, to: .ok)])
    _ = ledger.record([sample(c, 0)], interfaces: [c], now: now)
    #expect(ledger.record([sample(c, 81 * mb)], interfaces: [c], now: now + 60) == [.init(name: "cell", from: .ok, to: .warning)])
    #expect(ledger.record([sample(c, 82 * mb)], interfaces: [c], now: now + 120).isEmpty)
    #expect(ledger.record([sample(c, 181 * mb)], interfaces: [c], now: now + 180) == [.init(name: "cell", from: .warning, to: .exhausted)])
    #expect(ledger.snooze("cell") == [.init(name: "cell", from: .exhausted, to: .snoozed)])
    #expect(ledger.snooze("nothing") == nil)
    #expect(ledger.tick(now: utc(2026, 12, 1)) == [.init(name: "cell", from: .snoozed, to: .ok)])
    #expect(ledger.remove("cell") != nil)
    #expect(ledger.accounts.isEmpty)
}

@Test func redefiningKeepsTheCountAndANewCycleMovesTheWindow() throws {
    var ledger = BudgetLedger()
    let c = cellular()
    _ = ledger.define(try budget("cell", "cellular"), now: now)
    _ = ledger.record([sample(c, 0)], interfaces: [c], now: now)
    _ = ledger.record([sample(c, 50 * mb)], interfaces: [c], now: now + 1)
    #expect(ledger.define(try budget("cell", "cellular", limit: 40 * mb, warning: nil), now: now + 2) == [.init(name: "cell", from: .ok, to: .exhausted)])
    _ = ledger.define(try budget("cell", "cellular", limit: 40 * mb, warning: nil, cycle: "daily"), now: now + 3)
    #expect(ledger.accounts["cell"]?.usedBytes == 50 * mb)
    #expect(ledger.accounts["cell"]?.cycleStart == utc(2026, 11, 26))
    #expect(ledger.accounts["cell"]?.cycleEnd == utc(2026, 11, 27))
}

@Test func restoredBaselinesCountWhatHappenedWhileTheDaemonWasDown() throws {
    var ledger = BudgetLedger()
    let c = cellular()
    _ = ledger.define(try budget("cell", "cellular"), now: now)
    _ = ledger.record([sample(c, 10 * mb)], interfaces: [c], now: now)
    _ = ledger.record([sample(c, 20 * mb)], interfaces: [c], now: now + 60)
    var restarted = BudgetLedger()
    restarted.restore(accounts: Array(ledger.accounts.values), baselines: ledger.baselines)
    _ = restarted.record([sample(c, 27 * mb)], interfaces: [c], now: now + 300)
    #expect(restarted.accounts["cell"]?.usedBytes == 17 * mb)
    // An interface deleted while no daemon ran: its baseline is dropped at the first reading.
    var pruned = BudgetLedger()
    pruned.restore(accounts: Array(ledger.accounts.values), baselines: ledger.baselines)
    _ = pruned.record([sample(cellular(7, name: "wwan1"), 1)], interfaces: [cellular(7, name: "wwan1")], now: now + 300)
    #expect(pruned.baselines.keys.sorted() == [7])
    // Another boot: no baselines, the first sample is one.
    var rebooted = BudgetLedger()
    rebooted.restore(accounts: Array(ledger.accounts.values), baselines: [:])
    _ = rebooted.record([sample(c, 3 * mb)], interfaces: [c], now: now + 400)
    #expect(rebooted.accounts["cell"]?.usedBytes == 10 * mb)
}

@Test func allowancesLeaveTheReserveToUserInitiatedTransfers() throws {
    var ledger = BudgetLedger()
    let c = cellular()
    _ = ledger.define(try budget("cell", "cellular", reserve: 10 * mb), now: now)
    _ = ledger.record([sample(c, 0)], interfaces: [c], now: now)
    _ = ledger.record([sample(c, 85 * mb)], interfaces: [c], now: now + 1)
    let allowance = try #require(ledger.allowances(for: c).first)
    #expect(allowance.left(for: .background) == 5 * mb)
    #expect(allowance.left(for: .userInitiated) == 15 * mb)
    #expect(ledger.allowances(for: wifi()).isEmpty)
    _ = ledger.snooze("cell")
    #expect(ledger.allowances(for: c).isEmpty)
}

struct BudgetPolicyRow: Sendable, CustomTestStringConvertible {
    var name: String
    var left: Int64
    var reserve: Int64
    var transfer: Transfer
    var allowed: Bool
    var testDescription: String { name }
}

private let policyRows: [BudgetPolicyRow] = [
    BudgetPolicyRow(name: "fits what is left", left: 50 * mb, reserve: 0, transfer: Transfer(expectedBytes: 50 * mb), allowed: true),
    BudgetPolicyRow(name: "larger than what is left waits", left: 50 * mb, reserve: 0, transfer: Transfer(expectedBytes: 51 * mb), allowed: false),
    BudgetPolicyRow(name: "the reserve is not for background", left: 50 * mb, reserve: 10 * mb, transfer: Transfer(expectedBytes: 45 * mb), allowed: false),
    BudgetPolicyRow(
        name: "the reserve is for user-initiated", left: 50 * mb, reserve: 10 * mb, transfer: Transfer(expectedBytes: 45 * mb, priority: .userInitiated),
        allowed: true),
    BudgetPolicyRow(name: "unknown size runs while something is left", left: 1, reserve: 0, transfer: Transfer(), allowed: true),
    BudgetPolicyRow(name: "nothing left holds even an unknown size", left: 0, reserve: 0, transfer: Transfer(), allowed: false),
    BudgetPolicyRow(
        name: "an exhausted budget holds user-initiated transfers too", left: 0, reserve: 0, transfer: Transfer(priority: .userInitiated),
        allowed: false),
]

@Test(arguments: policyRows)
func thePolicyHoldsTransfersOverABudget(_ row: BudgetPolicyRow) {
    var network = TransferNetwork(status: .cellular, isExpensive: true, interface: InterfaceReference(name: "wwan0", type: .cellular))
    let end = utc(2026, 12, 1)
    network.budgets = [BudgetAllowance(name: "sim", limitBytes: 100 * mb, usedBytes: 100 * mb - row.left, reserveBytes: row.reserve, cycleEnd: end)]
    let decision = TransferPolicy.any.decide(network, for: row.transfer)
    #expect(decision == (row.allowed ? .allow : .wait(.overBudget(name: "sim", cycleEnd: end))))
    if row.allowed {
        #expect(TransferPolicy.any.byteBudget(on: network, for: row.transfer) == row.left - (row.transfer.priority == .userInitiated ? 0 : row.reserve))
    }
    #expect(TransferWaitReason.overBudget(name: "sim", cycleEnd: end).description == "over the data budget 'sim'; it starts over at 2026-12-01T00:00:00Z")
}

@Test func aLocalDestinationIsNeverHeldByABudget() {
    var network = TransferNetwork(status: .wired, isLocal: true)
    network.budgets = [BudgetAllowance(name: "sim", limitBytes: 1, usedBytes: 5)]
    #expect(TransferPolicy.any.decide(network, for: Transfer()) == .allow)
    #expect(TransferPolicy.any.byteBudget(on: network, for: Transfer()) == nil)
}
