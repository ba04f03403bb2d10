import Foundation
import Logging
import Reachability
import ReachabilityCore
@testable import ReachabilityDaemon
import ReachabilityMetrics
import ReachabilityTestKit
import ReachabilityTransfers
import Synchronization
import Testing

/// A queue and a budget keeper on one fake cellular uplink, `cell0`, in a state directory of their own.
private struct BudgetFixture {
    let directory: TemporaryDirectory
    let monitor: NetworkMonitor
    let metrics = ReachMetrics()

    init() throws {
        directory = try TemporaryDirectory()
        monitor = NetworkMonitor(
            source: FakeNetworkSource(initial: snapshot("cell0")),
            configuration: MonitorConfiguration(overrides: [try OverrideRule(parsing: "cell0=cellular")]), clock: ContinuousClock())
    }

    func keeper(
        _ queue: JobQueue, configured: [ConfiguredBudget] = [], now: Int64 = 1_795_000_000, environment: [String: String] = [:]
    ) async throws -> BudgetKeeper {
        let interfaces = try await monitor.currentPath().interfaces
        return try BudgetKeeper(
            store: queue.store, monitor: monitor, metrics: metrics, logger: Logger(label: "test"), configured: configured, interfaces: interfaces,
            now: { now }, environment: environment)
    }

    func queue() throws -> JobQueue {
        try JobQueue(configuration: .init(stateDirectory: directory.path, commandRetryDelay: .milliseconds(10)), monitor: monitor)
    }

    /// `cell0`'s counters at `bytes`, with the interfaces as the monitor classifies them.
    func reading(_ bytes: UInt64) async throws -> CounterReading {
        CounterReading(
            counters: [InterfaceCounters(index: 2, name: "cell0", receivedBytes: bytes, sentBytes: 0)],
            interfaces: try await monitor.currentPath().interfaces)
    }
}

private func budget(_ name: String, limit: Int64, selector: String = "cellular") throws -> DataBudget {
    try DataBudget(name: name, selector: BudgetSelector(parsing: selector), limitBytes: limit, warningBytes: nil)
}

@Suite("Budget keeper", .serialized)
struct BudgetKeeperTests {
    @Test func changesAreRecordedAndComeBackAfterARestart() async throws {
        let fixture = try BudgetFixture()
        defer { fixture.directory.remove() }
        var queue = try fixture.queue()
        var keeper = try await fixture.keeper(queue)
        _ = try await keeper.apply(.define(try budget("sim", limit: 1_000)))
        await keeper.count(try await fixture.reading(10))
        await keeper.count(try await fixture.reading(410))
        #expect(keeper.account("sim")?.usedBytes == 400)
        _ = try await keeper.apply(.snooze("sim"))
        await keeper.shutdown()
        await queue.shutdown()

        queue = try fixture.queue()
        keeper = try await fixture.keeper(queue)
        let sim = try #require(keeper.account("sim"))
        #expect(sim.usedBytes == 400)
        #expect(sim.state == .snoozed)
        // This boot's baseline came back: what moved while no daemon ran counts.
        await keeper.count(try await fixture.reading(510))
        #expect(keeper.account("sim")?.usedBytes == 500)
        #expect(try await keeper.apply(.reset("sim")).usedBytes == 0)
        #expect(try await keeper.apply(.remove("sim")).budget.name == "sim")
        #expect(keeper.accounts().isEmpty)
        await #expect(throws: QueueError.notFound("no budget 'sim'")) { try await keeper.apply(.snooze("sim")) }
        await queue.shutdown()
    }

    @Test func aCycleIsRefusedWhenTZNamesAZoneTheSystemLacksNeverCountedInUTC() async throws {
        let fixture = try BudgetFixture()
        defer { fixture.directory.remove() }
        let missingZone = ["TZ": "Europe/Berln"]
        var queue = try fixture.queue()
        var keeper = try await fixture.keeper(queue, environment: missingZone)
        await #expect(throws: QueueError.self) { try await keeper.apply(.define(try budget("monthly", limit: 1_000))) }
        #expect(keeper.account("monthly") == nil)
        // Without a cycle nothing depends on local time.
        let flat = try DataBudget(name: "flat", selector: BudgetSelector(parsing: "cellular"), limitBytes: 1_000, warningBytes: nil, cycle: .none)
        #expect(try await keeper.apply(.define(flat)).budget.name == "flat")
        await keeper.shutdown()
        await queue.shutdown()

        // A cycled budget stored while the zone was there: a start without it is refused.
        queue = try fixture.queue()
        keeper = try await fixture.keeper(queue, environment: ["TZ": "Europe/Berlin"])
        _ = try await keeper.apply(.define(try budget("monthly", limit: 1_000)))
        await keeper.shutdown()
        await queue.shutdown()
        queue = try fixture.queue()
        do {
            _ = try await fixture.keeper(queue, environment: missingZone)
            Issue.record("a keeper started with a cycled budget and TZ=Europe/Berln")
        } catch {
            #expect("\(error)".contains("budget 'monthly' has a "), "\(error)")
            #expect("\(error)".contains("names no time zone this system has"), "\(error)")
        }
        await queue.shutdown()
    }

    @Test func configuredBudgetsAreKeptInStepWithTheFileAndCannotBeChangedThroughTheAPI() async throws {
        let fixture = try BudgetFixture()
        defer { fixture.directory.remove() }
        var queue = try fixture.queue()
        let configured = ConfiguredBudget(budget: try budget("plan", limit: 5_000), origin: "reach.conf:3")
        var keeper = try await fixture.keeper(queue, configured: [configured])
        _ = try await keeper.apply(.define(try budget("mine", limit: 9_000)))
        #expect(keeper.account("plan")?.origin == "reach.conf:3")
        await #expect(throws: QueueError.self) { try await keeper.apply(.define(try budget("plan", limit: 1))) }
        await #expect(throws: QueueError.self) { try await keeper.apply(.remove("plan")) }
        #expect(try await keeper.apply(.snooze("plan")).state == .snoozed)
        await keeper.shutdown()
        await queue.shutdown()

        // The file lost the budget: it goes; the API's stays.
        queue = try fixture.queue()
        keeper = try await fixture.keeper(queue, configured: [])
        #expect(keeper.accounts().map(\.budget.name) == ["mine"])
        await queue.shutdown()
    }

    @Test func aJobWaitsOverBudgetAndASnoozeReleasesIt() async throws {
        let fixture = try BudgetFixture()
        defer { fixture.directory.remove() }
        let queue = try fixture.queue()
        let keeper = try await fixture.keeper(queue)
        let paths = Task { for try await _ in fixture.monitor.paths {} }
        defer { paths.cancel() }
        _ = try await keeper.apply(.define(try budget("sim", limit: 1_000)))
        await keeper.count(try await fixture.reading(0))
        await keeper.count(try await fixture.reading(5_000))
        #expect(keeper.account("sim")?.state == .exhausted)
        try queue.start()
        let marker = fixture.directory.path + "/ran"
        let job = try await queue.add(
            QueueJobSpec(kind: .command, command: CommandSpec(arguments: ["sh", "-c", "touch \(marker)"])), workingDirectory: "/")
        let held = try await waitFor(queue, job.id) { $0.reason?.code == "overBudget" }
        #expect(held.reason?.message.contains("'sim'") == true)
        #expect(!FileManager.default.fileExists(atPath: marker))
        let path = try await fixture.monitor.currentPath()
        #expect(path.budgets.map(\.name) == ["sim"])
        #expect(path.budgets.first?.state == .exhausted)
        _ = try await keeper.apply(.snooze("sim"))
        _ = try await waitFor(queue, job.id) { $0.state == .succeeded }
        #expect(FileManager.default.fileExists(atPath: marker))
        let metrics = fixture.metrics.render()
        #expect(metrics.contains("reach_budget_state{budget=\"sim\",state=\"snoozed\"} 1"))
        #expect(metrics.contains("reach_budget_used_bytes{budget=\"sim\"} 5000"))
        await queue.shutdown()
    }

    @Test func theHookIsToldOfAWarning() async throws {
        let fixture = try BudgetFixture()
        defer { fixture.directory.remove() }
        let queue = try fixture.queue()
        let keeper = try await fixture.keeper(queue)
        let events = Mutex<[BudgetHookEvent]>([])
        keeper.onTransition.withLock { $0 = { event in events.withLock { $0.append(event) } } }
        _ = try await keeper.apply(
            .define(try DataBudget(name: "sim", selector: BudgetSelector(parsing: "cellular"), limitBytes: 1_000, warningBytes: 800)))
        await keeper.count(try await fixture.reading(0))
        await keeper.count(try await fixture.reading(850))
        await keeper.count(try await fixture.reading(900))
        let told = events.withLock { $0 }
        #expect(told.map(\.event) == ["budget-warning"])
        let environment = try #require(told.first).environment(socketPath: "/run/reach/reach.sock")
        #expect(environment["REACH_BUDGET"] == "sim")
        #expect(environment["REACH_BUDGET_USED"] == "850")
        #expect(environment["REACH_BUDGET_LIMIT"] == "1000")
        #expect(environment["REACH_BUDGET_PREVIOUS_STATE"] == "ok")
        await queue.shutdown()
    }
}

struct BudgetSpecTests {
    private func decode(_ text: String) throws -> BudgetSpec {
        try QueueJSON.decode(BudgetSpec.self, from: Data(text.utf8), rejectingUnknownFields: true)
    }

    @Test func aSpecDecodesAndDefinesABudget() throws {
        let spec = try decode(#"{"for":"iface:wwan*","limitBytes":2000,"cycle":"weekly:mon","reserveBytes":100}"#)
        let budget = try spec.budget(named: "sim")
        #expect(budget.warningBytes == 1600)
        #expect(budget.cycle.description == "weekly:mon")
        #expect(try decode(#"{"for":"wifi","limitBytes":5,"noWarning":true}"#).budget(named: "x").warningBytes == nil)
    }

    @Test(arguments: [
        #"{"for":"wifi","limitBytes":5,"limitbytes":6}"#, #"{"for":"wifi","limitBytes":null}"#, #"{"for":"wifi","limitBytes":5,"cycle":null}"#,
        #"{"for":"wifi","limitBytes":"5"}"#, #"{"for":"wifi","limitBytes":5.5}"#, #"{"for":"wifi","limitBytes":true}"#, #"{"for":"wifi"}"#,
        #"[]"#, #"{"for":"wifi","limitBytes":99999999999999999999}"#,
    ])
    func badBodiesAreRefused(_ text: String) {
        #expect(throws: (any Error).self) { try decode(text) }
    }

    @Test(arguments: [
        #"{"for":"phone","limitBytes":5}"#, #"{"for":"wifi","limitBytes":0}"#, #"{"for":"wifi","limitBytes":5,"warningBytes":6}"#,
        #"{"for":"wifi","limitBytes":5,"warningBytes":4,"noWarning":true}"#, #"{"for":"wifi","limitBytes":5,"reserveBytes":5}"#,
        #"{"for":"wifi","limitBytes":5,"cycle":"yearly"}"#, #"{"for":"wifi","limitBytes":9007199254740992}"#,
    ])
    func invalidBudgetsNameTheField(_ text: String) throws {
        let spec = try decode(text)
        #expect(throws: BudgetError.self) { try spec.budget(named: "sim") }
    }
}
