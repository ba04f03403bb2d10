import Foundation
import Glibc
import Reachability
import ReachabilityCore
import ReachabilityTestKit
@testable import ReachabilityTransfers
import Synchronization
import Testing

/// Command jobs are engine jobs like transfers: gated, counted against `maxRunning`, retried,
/// and a user's pause suspends the command instead of killing it.
@Suite("TransferEngine command jobs", .serialized)
struct EngineCommandTests {
    private static func engine(network: String = "wifi0", maxRunning: Int = 8) throws -> (TransferEngine, FakeNetworkSource) {
        let source = FakeNetworkSource(initial: NetworkSnapshot(
            interfaces: [InterfaceFacts(name: network, index: 2, flags: [.up, .lowerUp, .running], hardwareType: 1, kind: "veth")],
            addresses: [InterfaceAddress(interfaceIndex: 2, family: .ipv4, address: "192.0.2.2", prefixLength: 24)],
            defaultRoutes: [DefaultRoute(family: .ipv4, interfaceIndex: 2)]))
        let monitor = NetworkMonitor(
            source: source,
            configuration: MonitorConfiguration(overrides: [try OverrideRule(parsing: "wifi0=wifi"), try OverrideRule(parsing: "cell0=cellular")]),
            clock: ContinuousClock())
        let engine = TransferEngine(
            monitor: monitor, downloader: Downloader(proxies: ProxySettings()), configuration: .init(perHost: 1, maxRunning: maxRunning),
            clock: ContinuousClock())
        return (engine, source)
    }

    private static func waitUntil(_ engine: TransferEngine, _ id: JobID, _ predicate: (JobState) -> Bool) async throws -> JobState {
        for _ in 0..<3000 {
            if let state = engine.status(of: id)?.state, predicate(state) { return state }
            try await Task.sleep(for: .milliseconds(10))
        }
        throw TestFailure("job \(id) stayed \(engine.status(of: id)?.state.description ?? "unknown")")
    }

    /// The process state letter of `pid` (`T` stopped, `S` sleeping, …).
    private static func processState(_ pid: Int32) -> Character? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8), let close = stat.lastIndex(of: ")") else { return nil }
        return stat[stat.index(after: close)...].dropFirst().first
    }

    private static func pid(in path: String) async throws -> Int32 {
        for _ in 0..<3000 {
            if let text = try? String(contentsOfFile: path, encoding: .utf8), text.hasSuffix("\n"), let pid = Int32(text.dropLast()) { return pid }
            try await Task.sleep(for: .milliseconds(10))
        }
        throw TestFailure("no pid in \(path)")
    }

    @Test func aPauseSuspendsTheCommandAndAResumeContinuesTheSameProcess() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let (engine, _) = try Self.engine()
        let pidFile = directory.path + "/pid"
        let gate = directory.path + "/go"
        let id = try engine.submit(.command(CommandRequest(
            arguments: ["sh", "-c", "echo $$ > \(pidFile); while [ ! -e \(gate) ]; do sleep 0.02; done"])))
        let pid = try await Self.pid(in: pidFile)
        _ = try await Self.waitUntil(engine, id) { $0 == .running }
        #expect(await engine.pause(id))
        #expect(engine.status(of: id)?.state == .paused(.byUser))
        #expect(Self.processState(pid) == "T", "a paused command is stopped, not killed")
        #expect(await engine.resume(id))
        _ = try await Self.waitUntil(engine, id) { $0 == .running }
        #expect(Self.processState(pid) != "T" && Self.processState(pid) != nil, "the same process goes on")
        #expect(FileManager.default.createFile(atPath: gate, contents: nil))
        let final = await engine.result(of: id)
        #expect(final?.state == .succeeded)
        #expect(final?.command?.exitStatus == 0)
        #expect(try String(contentsOfFile: pidFile, encoding: .utf8) == "\(pid)\n", "it never ran again")
        await engine.shutdown()
    }

    @Test func maxRunningBoundsCommandsAndAFreedSlotGoesByPriority() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let (engine, _) = try Self.engine(maxRunning: 1)
        let order = directory.path + "/order"
        let first = directory.path + "/first"
        let job = { (name: String, priority: Transfer.Priority) in
            try engine.submit(.command(CommandRequest(
                arguments: ["sh", "-c", "echo \(name) >> \(order); while [ ! -e \(first) ]; do sleep 0.02; done"]), priority: priority))
        }
        let a = try job("a", .normal)
        _ = try await Self.waitUntil(engine, a) { $0 == .running }
        let background = try job("background", .background)
        try await Task.sleep(for: .milliseconds(100))
        let urgent = try job("urgent", .userInitiated)
        try await Task.sleep(for: .milliseconds(200))
        #expect(engine.status(of: background)?.state == .queued)
        #expect(engine.status(of: urgent)?.state == .queued)
        #expect(try String(contentsOfFile: order, encoding: .utf8) == "a\n", "one slot: one command at a time")
        #expect(FileManager.default.createFile(atPath: first, contents: nil))
        for id in [a, background, urgent] { #expect(await engine.result(of: id)?.state == .succeeded) }
        #expect(try String(contentsOfFile: order, encoding: .utf8) == "a\nurgent\nbackground\n")
        await engine.shutdown()
    }

    @Test func aFailingCommandIsRetriedThenFailsNamingItsStatus() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let (engine, _) = try Self.engine()
        let runs = directory.path + "/runs"
        let id = try engine.submit(.command(CommandRequest(
            arguments: ["sh", "-c", "echo run >> \(runs); exit 3"], maxAttempts: 3, retryDelay: .milliseconds(20))))
        let final = await engine.result(of: id)
        guard case .failed(let error) = final?.state else {
            Issue.record("not failed: \(String(describing: final?.state))")
            return
        }
        #expect(error.kind == .exitStatus)
        #expect(error.description == "sh: exited with status 3 (3 of 3 attempts)")
        #expect(try String(contentsOfFile: runs, encoding: .utf8) == "run\nrun\nrun\n")
        let missing = try engine.submit(.command(CommandRequest(arguments: ["/nonexistent/reach-command"])))
        guard case .failed(let refused) = await engine.result(of: missing)?.state else {
            Issue.record("a missing command did not fail")
            return
        }
        #expect(refused.kind == .cannotRun)
        await engine.shutdown()
    }

    @Test func aCommandForWiFiWaitsOnCellularSuspendedAndGoesOnWhenWiFiComes() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let (engine, source) = try Self.engine(network: "wifi0")
        let pidFile = directory.path + "/pid"
        let gate = directory.path + "/go"
        let id = try engine.submit(.command(
            CommandRequest(arguments: ["sh", "-c", "echo $$ > \(pidFile); while [ ! -e \(gate) ]; do sleep 0.02; done"]),
            policy: TransferPolicy(allowedStatuses: [.wifi], resumeAfter: .zero)))
        let pid = try await Self.pid(in: pidFile)
        source.send(NetworkSnapshot(
            interfaces: [InterfaceFacts(name: "cell0", index: 3, flags: [.up, .lowerUp, .running], hardwareType: 1, kind: "veth")],
            addresses: [InterfaceAddress(interfaceIndex: 3, family: .ipv4, address: "198.51.100.2", prefixLength: 24)],
            defaultRoutes: [DefaultRoute(family: .ipv4, interfaceIndex: 3)]))
        let waiting = try await Self.waitUntil(engine, id) { if case .waiting = $0 { true } else { false } }
        #expect(waiting == .waiting(.typeNotAllowed(.cellular)))
        for _ in 0..<300 where Self.processState(pid) != "T" { try await Task.sleep(for: .milliseconds(10)) }
        #expect(Self.processState(pid) == "T")
        // A user's pause and resume while the network holds it back do not continue it.
        #expect(await engine.pause(id))
        #expect(engine.status(of: id)?.state == .paused(.byUser))
        try await Task.sleep(for: .milliseconds(100))
        #expect(engine.status(of: id)?.state == .paused(.byUser), "the gate's verdict hid the user's pause")
        #expect(await engine.resume(id))
        try await Task.sleep(for: .milliseconds(100))
        #expect(Self.processState(pid) == "T", "a resume must not continue what the network holds back")
        #expect(engine.status(of: id)?.state == .waiting(.typeNotAllowed(.cellular)))
        #expect(FileManager.default.createFile(atPath: gate, contents: nil))
        source.send(NetworkSnapshot(
            interfaces: [InterfaceFacts(name: "wifi0", index: 2, flags: [.up, .lowerUp, .running], hardwareType: 1, kind: "veth")],
            addresses: [InterfaceAddress(interfaceIndex: 2, family: .ipv4, address: "192.0.2.2", prefixLength: 24)],
            defaultRoutes: [DefaultRoute(family: .ipv4, interfaceIndex: 2)]))
        #expect(await engine.result(of: id)?.state == .succeeded)
        await engine.shutdown()
    }

    @Test func backoffDoublesUpToAnHour() {
        #expect(CommandRequest.backoff(.seconds(30), failures: 1) == .seconds(30))
        #expect(CommandRequest.backoff(.seconds(30), failures: 3) == .seconds(120))
        #expect(CommandRequest.backoff(.seconds(30), failures: 40) == .seconds(3600))
    }
}
