import Foundation
import Glibc
import Reachability
import ReachabilityProcesses
import ReachabilityCore
import ReachabilityTestKit
import Synchronization
import Testing

/// What an executor reported: its events and the end of each run.
private final class Recorder: Sendable {
    let events = Mutex<[CommandExecutor.Event]>([])
    let results = Mutex<[Result<CommandTermination, any Error>]>([])

    func record(_ event: CommandExecutor.Event) { events.withLock { $0.append(event) } }
    func finished(_ result: Result<CommandTermination, any Error>) { results.withLock { $0.append(result) } }

    /// Waits for `event`, at most about 20 s.
    func wait(for event: CommandExecutor.Event) async {
        for _ in 0..<2000 where !events.withLock({ $0.contains(event) }) { try? await Task.sleep(for: .milliseconds(10)) }
    }

    /// The first result, waited for at most about 20 s (a broken test must not hang).
    func firstResult() async throws -> Result<CommandTermination, any Error> {
        for _ in 0..<2000 {
            if let result = results.withLock({ $0.first }) { return result }
            try await Task.sleep(for: .milliseconds(10))
        }
        throw TestNamespaceError(message: "the command never ended")
    }
}

private let wifi = GateRun(network: TransferNetwork(status: .wifi))

/// Reads a pid a script wrote to `path`, waiting for it at most about 20 s.
private func pid(in path: String) async throws -> Int32 {
    for _ in 0..<2000 {
        if let text = try? String(contentsOfFile: path, encoding: .utf8), text.hasSuffix("\n"), let pid = Int32(text.dropLast()) {
            return pid
        }
        try await Task.sleep(for: .milliseconds(10))
    }
    throw TestNamespaceError(message: "no pid in \(path)")
}

/// The leader is reaped: no zombie is left for it.
private func isReaped(_ pid: Int32) -> Bool {
    var status: Int32 = 0
    return waitpid(pid, &status, WNOHANG) == -1 && errno == ECHILD && ProcessProbe(pid) == nil
}

/// Kills whatever a failed test left running.
private func killIfRunning(_ pids: [Int32?]) {
    for case let pid? in pids where !ProcessProbe.isGone(pid) { kill(pid, SIGKILL) }
}

@Suite("CommandExecutor")
struct CommandExecutorTests {
    private let noTerminal = CommandExecutor.Options(usesTerminal: false)

    @Test func suspendStopsTheWholeGroupAndStartContinuesIt() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let memberFile = directory.path + "/member"
        // The leader (`exec sleep`) and a member of its group (the background sleep).
        let recorder = Recorder()
        let executor = CommandExecutor(["sh", "-c", "sleep 30 & echo $! > \(memberFile); exec sleep 30"], options: noTerminal, onEvent: recorder.record)
        await executor.start(wifi, finished: recorder.finished)
        let leader = try #require(executor.pid)
        let member = try await pid(in: memberFile)
        defer { killIfRunning([leader, member]) }

        await executor.stop(.cellularNotAllowed)
        #expect(ProcessProbe(leader)?.isStopped == true)
        #expect(await ProcessProbe.wait(for: member) { $0?.isStopped == true })

        await executor.start(wifi, finished: recorder.finished)
        #expect(await ProcessProbe.wait(for: leader) { $0?.isStopped == false })
        #expect(await ProcessProbe.wait(for: member) { $0?.isStopped == false })

        await executor.shutDown()
        #expect(isReaped(leader))
        #expect(await ProcessProbe.wait(for: member) { $0 == nil })
        #expect(
            recorder.events.withLock { $0 } == [
                .started(pid: leader, run: 1), .suspended(pid: leader, reason: .cellularNotAllowed), .continued(pid: leader),
                .terminating(pid: leader, reason: nil),
            ])
    }

    /// A command that ignores SIGTERM is killed once `killAfter` has passed on the executor's
    /// clock, and not before: the test clock only moves when the test says so.
    @Test func terminateEscalatesToSIGKILLAfterKillAfter() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let readyFile = directory.path + "/ready"
        let clock = TestClock()
        let recorder = Recorder()
        let options = CommandExecutor.Options(onDisallow: .terminate, killAfter: .seconds(5), usesTerminal: false)
        let script = "trap '' TERM; echo $$ > \(readyFile); while :; do sleep 0.1; done"
        let executor = CommandExecutor(["sh", "-c", script], options: options, clock: clock, onEvent: recorder.record)
        await executor.start(wifi, finished: recorder.finished)
        let leader = try await pid(in: readyFile)
        defer { killIfRunning([leader]) }

        let stopping = Task { await executor.stop(.expensiveNotAllowed) }
        await clock.waitForSleepers()
        // SIGTERM was sent and ignored; the deadline has not passed on the clock.
        #expect(!ProcessProbe.isGone(leader))
        clock.advance(by: .seconds(5))
        await stopping.value

        #expect(isReaped(leader))
        let termination = try await recorder.firstResult().get()
        #expect(termination == CommandTermination(pid: leader, signal: SIGKILL))
        #expect(termination.shellStatus == 137)
        #expect(
            recorder.events.withLock { $0 } == [
                .started(pid: leader, run: 1), .terminating(pid: leader, reason: .expensiveNotAllowed),
                .killed(pid: leader, signal: SIGTERM, after: .seconds(5)),
            ])
        #expect(executor.pid == nil)
    }

    @Test func terminateThenStartRunsTheCommandAgain() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let recorder = Recorder()
        let options = CommandExecutor.Options(onDisallow: .terminate, usesTerminal: false)
        let executor = CommandExecutor(["sleep", "30"], options: options, onEvent: recorder.record)
        await executor.start(wifi, finished: recorder.finished)
        let first = try #require(executor.pid)
        await executor.stop(.cellularNotAllowed)
        #expect(isReaped(first))
        await executor.start(wifi, finished: recorder.finished)
        let second = try #require(executor.pid)
        defer { killIfRunning([first, second]) }
        #expect(second != first)
        #expect(ProcessProbe(second) != nil)
        await executor.shutDown()
        #expect(isReaped(second))
        #expect(recorder.events.withLock { $0 }.contains(.started(pid: second, run: 2)))
    }

    @Test func reportsTheExitStatusOrTheSignal() async throws {
        let exits = Recorder()
        let exiting = CommandExecutor(["sh", "-c", "exit 3"], options: noTerminal)
        await exiting.start(wifi, finished: exits.finished)
        let exited = try await exits.firstResult().get()
        #expect(exited.exitStatus == 3 && exited.signal == nil && exited.shellStatus == 3)
        #expect(exited.description == "exited with status 3")
        await exiting.shutDown()

        let kills = Recorder()
        let killed = CommandExecutor(["sh", "-c", "kill -USR1 $$"], options: noTerminal)
        await killed.start(wifi, finished: kills.finished)
        let signalled = try await kills.firstResult().get()
        #expect(signalled.signal == SIGUSR1 && signalled.exitStatus == nil && signalled.shellStatus == 128 + SIGUSR1)
        await killed.shutDown()
    }

    /// A log gets the command's output and descriptors 0-2 only; past its limit it rotates to
    /// `.1`, so a chatty command never holds more than twice the limit on disk.
    @Test func aLoggedCommandHasThreeDescriptorsAndItsLogIsCapped() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let log = directory.path + "/job.log"
        // A descriptor of this process that is not close-on-exec: the command must not get it.
        let leaked = open("/dev/null", O_RDONLY)
        defer { close(leaked) }
        let options = CommandExecutor.Options(usesTerminal: false, outputPath: log, outputLimit: 100_000)
        let script = "head -c 350000 /dev/zero | tr '\\0' x; echo; echo last line"
        let recorder = Recorder()
        let executor = CommandExecutor(["sh", "-c", script], options: options)
        await executor.start(wifi, finished: recorder.finished)
        #expect(try await recorder.firstResult().get().exitStatus == 0)
        await executor.shutDown()
        // The copy ends when the pipe does: wait for the last line.
        var current = ""
        for _ in 0..<500 {
            current = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
            if current.hasSuffix("last line\n") { break }
            try await Task.sleep(for: .milliseconds(10))
        }
        #expect(current.hasSuffix("last line\n"))
        let older = try String(contentsOfFile: log + ".1", encoding: .utf8)
        #expect(current.utf8.count <= 100_000 && older.utf8.count <= 100_000, "\(current.utf8.count) \(older.utf8.count)")
        #expect(current.utf8.count + older.utf8.count >= 100_000)
        var info = stat()
        #expect(stat(log, &info) == 0 && info.st_mode & 0o777 == 0o600)
        // The shell's own descriptors, listed by a child (no pipe of the shell's in between).
        let listing = CommandExecutor(["sh", "-c", "ls /proc/$$/fd"], options: CommandExecutor.Options(usesTerminal: false, outputPath: log + ".fds"))
        let listed = Recorder()
        await listing.start(wifi, finished: listed.finished)
        _ = try await listed.firstResult()
        await listing.shutDown()
        var fds = ""
        for _ in 0..<500 where !fds.hasSuffix("2\n") {
            fds = (try? String(contentsOfFile: log + ".fds", encoding: .utf8)) ?? ""
            try await Task.sleep(for: .milliseconds(10))
        }
        #expect(fds == "0\n1\n2\n", "the command got descriptors beyond 0-2: \(fds)")
    }

    @Test func aCommandThatCannotStartReportsWhy() async throws {
        let recorder = Recorder()
        let executor = CommandExecutor(["/nonexistent/reach-test-command"], options: noTerminal)
        await executor.start(wifi, finished: recorder.finished)
        let result = try await recorder.firstResult()
        #expect(throws: CommandSpawnError(command: "/nonexistent/reach-test-command", errno: ENOENT)) { try result.get() }
        #expect(executor.pid == nil)
    }

    /// shutDown returns only when every process of the group has ended: the leader reaped, and
    /// the rest at most zombies that init has yet to reap.
    @Test func shutDownTerminatesAndReapsTheWholeGroup() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let memberFile = directory.path + "/member"
        let recorder = Recorder()
        let executor = CommandExecutor(["sh", "-c", "sleep 30 & echo $! > \(memberFile); wait"], options: noTerminal, onEvent: recorder.record)
        await executor.start(wifi, finished: recorder.finished)
        let leader = try #require(executor.pid)
        let member = try await pid(in: memberFile)
        defer { killIfRunning([leader, member]) }

        await executor.shutDown()
        #expect(isReaped(leader))
        #expect(ProcessProbe.isGone(member))
        #expect(await ProcessProbe.wait(for: member) { $0 == nil })
        #expect(recorder.events.withLock { $0 }.last == .terminating(pid: leader, reason: nil))
    }

    @Test func endForwardsTheSignalAndRefusesLaterStarts() async throws {
        let recorder = Recorder()
        let executor = CommandExecutor(["sleep", "30"], options: noTerminal)
        await executor.start(wifi, finished: recorder.finished)
        let leader = try #require(executor.pid)
        defer { killIfRunning([leader]) }

        let termination = await executor.end(forwarding: SIGINT)
        #expect(termination == CommandTermination(pid: leader, signal: SIGINT))
        #expect(isReaped(leader))

        let refused = Recorder()
        await executor.start(wifi, finished: refused.finished)
        #expect(throws: CancellationError.self) { try refused.results.withLock { $0 }.first?.get() }
    }
}

private func snapshot(_ name: String) -> NetworkSnapshot {
    NetworkSnapshot(
        interfaces: [InterfaceFacts(name: name, index: 2, flags: [.up, .lowerUp, .running], hardwareType: 1, kind: "veth")],
        addresses: [InterfaceAddress(interfaceIndex: 2, family: .ipv4, address: "192.0.2.2", prefixLength: 24)],
        defaultRoutes: [DefaultRoute(family: .ipv4, interfaceIndex: 2)])
}

@Suite("TransferGate drives a command")
struct GatedCommandTests {
    @Test func theGateSuspendsTheCommandOnCellularAndReturnsItsStatus() async throws {
        let source = FakeNetworkSource(initial: snapshot("wifi0"))
        let monitor = NetworkMonitor(
            source: source,
            configuration: MonitorConfiguration(overrides: [try OverrideRule(parsing: "wifi0=wifi"), try OverrideRule(parsing: "cell0=cellular")]),
            clock: ContinuousClock())
        let clock = TestClock()
        let gate = TransferGate(monitor: monitor, policy: TransferPolicy(allowsCellular: false, resumeAfter: .seconds(3)), clock: clock)
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let (readyFile, goFile) = (directory.path + "/ready", directory.path + "/go")
        let script = "echo $$ > \(readyFile); while [ ! -e \(goFile) ]; do sleep 0.02; done; exit 7"
        let recorder = Recorder()
        let executor = CommandExecutor(["sh", "-c", script], options: CommandExecutor.Options(usesTerminal: false), onEvent: recorder.record)
        let outcome = Task { try await gate.drive(executor) }
        let leader = try await pid(in: readyFile)
        defer { killIfRunning([leader]) }

        source.send(snapshot("cell0"))
        await recorder.wait(for: .suspended(pid: leader, reason: .cellularNotAllowed))
        #expect(ProcessProbe(leader)?.isStopped == true)
        source.send(snapshot("wifi0"))
        await clock.waitForSleepers()
        clock.advance(by: .seconds(3))
        await recorder.wait(for: .continued(pid: leader))
        #expect(await ProcessProbe.wait(for: leader) { $0?.isStopped == false })

        #expect(FileManager.default.createFile(atPath: goFile, contents: nil))
        let termination = try await outcome.value
        #expect(termination == CommandTermination(pid: leader, exitStatus: 7))
        #expect(isReaped(leader))
    }
}
