import Dispatch
import FoundationEssentials
import Logging
import Reachability
import ReachabilityCore
import ReachabilityMetrics
import Synchronization

/// The daemon's data budgets: a ``BudgetLedger`` fed the kernel's interface counters (from the
/// monitor, after each change and every count interval) and the wall clock, checkpointed to
/// `queue.sqlite` every interval and on shutdown, and applied to the monitor so transfers are
/// judged by what is left (``NetworkMonitor/updateBudgets(_:)``).
///
/// Every change to the ledger and every write runs on one serial dispatch queue, off the
/// cooperative pool: a change asked for through the API is answered only once it is on disk
/// (or refused), and no count is lost between a copy and its commit.
final class BudgetKeeper: Sendable {
    /// A change the API asks for.
    enum Change: Sendable {
        case define(DataBudget)
        case remove(String)
        case reset(String)
        case snooze(String)
    }

    private struct State: Sendable {
        var ledger: BudgetLedger
        /// The interfaces as classified at the last counter reading (what selectors match).
        var interfaces: [Interface]
    }

    private let state: Mutex<State>
    private let store: QueueStore
    private let monitor: NetworkMonitor
    private let metrics: ReachMetrics
    private let logger: Logger
    private let bootID: String
    /// Why local time cannot be honoured (``LocalTimeZone/problem(environment:zoneDirectory:)``):
    /// a budget with a cycle is then refused rather than counted in UTC.
    private let timeZoneProblem: String?
    private let now: @Sendable () -> Int64
    /// Whether a job is moving bytes now: the counters are then read every ``liveInterval``.
    private let isTransferring: @Sendable () -> Bool
    private let queue = DispatchQueue(label: "reach.budgets", qos: .utility)
    /// The checkpoint last written.
    private let lastSaved = Mutex<QueueStore.BudgetCheckpoint?>(nil)
    /// Told each state change (the dispatcher's budget hooks); set before ``run(every:)``.
    let onTransition = Mutex<(@Sendable (BudgetHookEvent) -> Void)?>(nil)

    /// Loads the stored budgets (and this boot's interface baselines), then applies the
    /// configuration file's: defined or redefined with their count kept, and those the file no
    /// longer has removed. Throws when the database cannot be read or written, and when a budget
    /// has a cycle but `environment`'s `TZ` names a zone the system lacks.
    init(
        store: QueueStore, monitor: NetworkMonitor, metrics: ReachMetrics, logger: Logger, configured: [ConfiguredBudget],
        interfaces: [Interface], now: @escaping @Sendable () -> Int64 = { Int64(Date().timeIntervalSince1970.rounded(.down)) },
        isTransferring: @escaping @Sendable () -> Bool = { false },
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws(QueueError) {
        self.isTransferring = isTransferring
        self.store = store
        self.monitor = monitor
        self.metrics = metrics
        self.logger = logger
        self.now = now
        bootID = Self.currentBootID()
        let checkpoint = try store.loadBudgets(bootID: bootID)
        var ledger = BudgetLedger(utcOffset: LocalTimeZone.utcOffset(at:))
        ledger.restore(accounts: checkpoint.accounts, baselines: checkpoint.baselines)
        let timeZoneProblem = LocalTimeZone.problem(environment: environment)
        self.timeZoneProblem = timeZoneProblem
        let time = now()
        let names = Set(configured.map(\.budget.name))
        for account in ledger.accounts.values where account.origin != nil && !names.contains(account.budget.name) {
            _ = ledger.remove(account.budget.name)
        }
        for entry in configured { _ = ledger.define(entry.budget, origin: entry.origin, now: time) }
        if let refusal = ledger.accounts.values.lazy.compactMap({ Self.cycleRefusal($0.budget, timeZoneProblem) }).first {
            throw .invalidJob(refusal)
        }
        _ = ledger.tick(now: time)
        state = Mutex(State(ledger: ledger, interfaces: interfaces))
        try saveNow(ledger)
        publish([])
    }

    /// Why `budget` cannot be kept here, when its cycle starts at a local midnight that
    /// `timeZoneProblem` says the C library cannot tell; nil when it can be.
    private static func cycleRefusal(_ budget: DataBudget, _ timeZoneProblem: String?) -> String? {
        guard let timeZoneProblem, budget.cycle != .none else { return nil }
        return "the budget '\(budget.name)' has a \(budget.cycle) cycle, which starts at local midnight, but \(timeZoneProblem)"
    }

    /// `/proc/sys/kernel/random/boot_id`: baselines from another boot are worthless.
    private static func currentBootID() -> String {
        (try? String(contentsOfFile: "/proc/sys/kernel/random/boot_id", encoding: .utf8)).map { String($0.trimmingBlanks()) } ?? ""
    }

    // MARK: Reading

    /// Every budget, by name.
    func accounts() -> [BudgetAccount] {
        state.withLock { $0.ledger.accounts.values.sorted { $0.budget.name < $1.budget.name } }
    }

    /// One budget; nil when there is none of that name.
    func account(_ name: String) -> BudgetAccount? { state.withLock { $0.ledger.accounts[name] } }

    /// The interfaces each budget counts now, by budget name.
    func matchingInterfaces() -> [String: [String]] {
        state.withLock { state in
            var result: [String: [String]] = [:]
            for interface in state.interfaces {
                for name in state.ledger.budgetNames(matching: interface) { result[name, default: []].append(interface.name) }
            }
            return result
        }
    }

    // MARK: Changing

    /// Applies `change`, records it, then answers: the budget after it (the removed one for a
    /// removal). A change that cannot be recorded is not applied.
    func apply(_ change: Change) async throws(QueueError) -> BudgetAccount {
        let result: Result<BudgetAccount, QueueError> = await withCheckedContinuation { continuation in
            queue.async { continuation.resume(returning: self.applyNow(change)) }
        }
        return try result.get()
    }

    private func applyNow(_ change: Change) -> Result<BudgetAccount, QueueError> {
        var ledger = state.withLock { $0.ledger }
        let time = now()
        let transitions: [BudgetLedger.Transition]
        let answer: BudgetAccount?
        switch change {
        case .define(let budget):
            if let origin = ledger.accounts[budget.name]?.origin {
                return .failure(.conflict("the budget '\(budget.name)' is defined in the configuration file (\(origin)): change it there"))
            }
            if let refusal = Self.cycleRefusal(budget, timeZoneProblem) { return .failure(.invalidJob(refusal)) }
            if ledger.accounts[budget.name] == nil, ledger.accounts.count >= Self.maxBudgets {
                return .failure(.conflict("there are already \(Self.maxBudgets) budgets, the most a daemon keeps: remove one first"))
            }
            transitions = ledger.define(budget, now: time)
            answer = ledger.accounts[budget.name]
        case .remove(let name):
            if let origin = ledger.accounts[name]?.origin {
                return .failure(.conflict("the budget '\(name)' is defined in the configuration file (\(origin)): remove it there"))
            }
            answer = ledger.remove(name)
            transitions = answer.map { [BudgetLedger.Transition(name: name, from: $0.state, to: nil)] } ?? []
        case .reset(let name):
            transitions = ledger.reset(name, now: time) ?? []
            answer = ledger.accounts[name]
        case .snooze(let name):
            transitions = ledger.snooze(name) ?? []
            answer = ledger.accounts[name]
        }
        guard let answer else { return .failure(.notFound("no budget '\(Self.printable(change))'")) }
        do throws(QueueError) {
            // One row, not the whole table: 6,000 PUTs rewrote 6,000 budgets each (530 s of CPU).
            if case .remove(let name) = change {
                try store.saveBudget(nil, removing: name)
            } else {
                try store.saveBudget(answer, removing: nil)
            }
            lastSaved.withLock { $0 = nil }
        } catch {
            return .failure(error)
        }
        state.withLock { $0.ledger = ledger }
        publish(transitions)
        return .success(answer)
    }

    private static func printable(_ change: Change) -> String {
        switch change {
        case .define(let budget): budget.name
        case .remove(let name), .reset(let name), .snooze(let name): name
        }
    }

    // MARK: Counting

    /// Counts every counter reading and, every `interval`, ends the cycles the clock passed and
    /// checkpoints; until cancelled, then checkpoints once more.
    func run(every interval: Duration) async {
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                for await reading in self.monitor.interfaceCounters() { await self.count(reading) }
            }
            group.addTask {
                while !Task.isCancelled {
                    try? await Task.sleep(for: interval)
                    await self.onQueue { self.tickAndCheckpoint() }
                }
            }
            // While jobs move bytes, a budget they count against is read live: a running
            // transfer is paused within about a second of the limit, not an interval past it.
            // And once more when the last transfer ends: an interface deleted right after a
            // download (a modem unplugged) then leaves no bytes uncounted.
            group.addTask {
                var wasTransferring = false
                while !Task.isCancelled {
                    try? await Task.sleep(for: Self.liveInterval)
                    let transferring = self.isTransferring()
                    if self.hasBudgets, transferring || wasTransferring { await self.refresh() }
                    wasTransferring = transferring
                }
            }
            await group.next()
            group.cancelAll()
        }
    }

    /// The last checkpoint, at shutdown: a `kill -9` instead loses at most one interval.
    func shutdown() async {
        await onQueue { self.tickAndCheckpoint() }
    }

    /// Whether any budget is defined (without one, no count matters).
    var hasBudgets: Bool { state.withLock { !$0.ledger.accounts.isEmpty } }

    /// When the counters were last counted: a reading this recent is fresh enough for any
    /// answer, so a burst of requests (every user may ask for the path) costs one link dump.
    private let lastCounted = Mutex<ContinuousClock.Instant?>(nil)
    static let freshEnough: Duration = .milliseconds(100)

    /// The most budgets a daemon keeps (a plan per SIM and uplink is a handful).
    static let maxBudgets = 256

    /// How often the counters are read while a job moves bytes (and some budget exists).
    static let liveInterval: Duration = .seconds(1)

    /// Reads the interfaces' counters now and counts them, so what follows (an answer about a
    /// budget, a job judged) rests on the bytes moved until now. Nothing is read while there
    /// are no budgets.
    func refresh() async {
        guard hasBudgets else { return }
        if let last = lastCounted.withLock({ $0 }), ContinuousClock.now - last < Self.freshEnough { return }
        guard let reading = await monitor.countersNow() else { return }
        // Only a dump asked for now makes the counts fresh: the readings that follow a link
        // message carry that message's counters, which may be older (a refresh skipped for one
        // of them showed 0 bytes of 45 MiB just moved).
        await count(reading)
        lastCounted.withLock { $0 = ContinuousClock.now }
    }

    /// Counts one reading of the interfaces' counters.
    func count(_ reading: CounterReading) async {
        await onQueue { self.record(reading) }
    }

    private func onQueue(_ work: @escaping @Sendable () -> Void) async {
        await withCheckedContinuation { continuation in
            queue.async {
                work()
                continuation.resume()
            }
        }
    }

    private func record(_ reading: CounterReading) {
        let time = now()
        let transitions = state.withLock { state in
            state.interfaces = reading.interfaces
            return state.ledger.record(reading.counters, interfaces: reading.interfaces, now: time)
        }
        publish(transitions)
    }

    private func tickAndCheckpoint() {
        let time = now()
        let (transitions, ledger) = state.withLock { state in (state.ledger.tick(now: time), state.ledger) }
        publish(transitions)
        do throws(QueueError) {
            try saveNow(ledger)
        } catch {
            logger.warning("budgets: cannot checkpoint the counts (\(error.message)); trying again in one interval")
        }
    }

    /// Writes what a restart needs (the accounts, and the baselines of interfaces some budget
    /// counts), unless it is what was written last: an idle gateway's flash is not written
    /// every minute.
    private func saveNow(_ ledger: BudgetLedger) throws(QueueError) {
        let checkpoint = QueueStore.BudgetCheckpoint(
            accounts: ledger.accounts.values.sorted { $0.budget.name < $1.budget.name },
            baselines: ledger.baselines.filter { !$0.value.budgets.isEmpty }, bootID: bootID)
        if lastSaved.withLock({ $0 == checkpoint }) { return }
        try store.saveBudgetsNow(checkpoint)
        lastSaved.withLock { $0 = checkpoint }
    }

    // MARK: Telling

    /// Tells the monitor what is left per interface, the metrics every budget, and the log and
    /// the hooks each state change.
    private func publish(_ transitions: [BudgetLedger.Transition]) {
        let (table, accounts) = state.withLock { state -> (InterfaceBudgets, [BudgetAccount]) in
            var table = InterfaceBudgets()
            for interface in state.interfaces {
                let names = state.ledger.budgetNames(matching: interface)
                guard !names.isEmpty else { continue }
                table.allowances[interface.name] = state.ledger.allowances(for: interface)
                table.pathBudgets[interface.name] = names.compactMap { state.ledger.accounts[$0]?.pathBudget }
            }
            return (table, Array(state.ledger.accounts.values))
        }
        monitor.updateBudgets(table)
        metrics.setBudgets(accounts.map { ($0.budget.name, $0.usedBytes, $0.budget.limitBytes, $0.state.rawValue, $0.cycleEnd) })
        let hook = onTransition.withLock { $0 }
        for transition in transitions {
            guard let to = transition.to else {
                logger.notice("budget '\(transition.name)' removed")
                continue
            }
            guard let account = accounts.first(where: { $0.budget.name == transition.name }) else { continue }
            let used = ByteCount.text(account.usedBytes)
            let limit = ByteCount.text(account.budget.limitBytes)
            logger.notice("budget '\(transition.name)': \(transition.from?.rawValue ?? "new") -> \(to.rawValue) (\(used) of \(limit))")
            // A new budget that starts out ok is no event for hooks.
            if transition.from == nil && to == .ok { continue }
            hook?(BudgetHookEvent(account: account, previous: transition.from))
        }
    }
}
