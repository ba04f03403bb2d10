import Foundation
import Glibc
import ReachabilityLinux
import ReachabilityTestKit
import Testing

/// `reach run` on a real pseudo-terminal: the command is the foreground job while it runs, and
/// job control (Ctrl-Z, `fg`, Ctrl-C) works through reach as it does in a shell.
@Suite("reach run on a terminal", .enabled(if: TestNamespace.isSupported), .serialized)
struct ReachRunTerminalTests {
    private static let environment = [
        "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", "TERM=dumb", "HOME=/", "LANG=C", "PS1=ready$ ",
    ]

    /// Before, the command ran in a background group and stopped for good on SIGTTIN.
    @Test func aCommandThatReadsTheTerminalRunsToCompletion() async throws {
        let ns = try TestNamespace()
        try await uplinks(ns)
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let pidFile = directory.path + "/pid"
        let run = [reachBinary, "run", "--when", "any"] + roles + ["--", "sh", "-c", "echo $$ > \(pidFile); read x; echo got:$x"]
        let terminal = try PseudoTerminal(["/usr/bin/nsenter", "--net=\(ns.namespace.path)"] + run, environment: Self.environment)
        var command: Int32?
        defer { terminal.close(killing: [command]) }

        command = try await lines(of: pidFile, count: 1).first
        terminal.type("hello\n")
        try await terminal.waitFor("got:hello")
        #expect(await terminal.waitForExit() == 0)
    }

    @Test func ctrlZStopsTheCommandAndReachAndFgContinuesBoth() async throws {
        let ns = try TestNamespace()
        try await uplinks(ns)
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let pidFile = directory.path + "/pid"
        let shell = ["/usr/bin/nsenter", "--net=\(ns.namespace.path)", "/bin/bash", "--norc", "--noprofile", "-i"]
        let terminal = try PseudoTerminal(shell, environment: Self.environment)
        var (command, reach): (Int32?, Int32?) = (nil, nil)
        defer { terminal.close(killing: [command, reach]) }

        var mark = try await terminal.waitFor("ready$ ")
        let run = [reachBinary, "run", "--when", "any"] + roles + ["--", "sh", "-c", "'echo $$ > \(pidFile); exec cat'"]
        terminal.type(run.joined(separator: " ") + "\n")
        command = try await lines(of: pidFile, count: 1).first
        let cat = try #require(command)
        reach = ProcessProbe(cat)?.parent
        let reachPID = try #require(reach)
        // The command is in a group of its own, and that group has the terminal.
        #expect(ProcessProbe(cat)?.group == cat && ProcessProbe(reachPID)?.group != cat)
        #expect(await ProcessProbe.wait(for: cat) { $0?.terminalForegroundGroup == cat })
        terminal.type("ping\n")
        mark = try await terminal.waitFor("ping\r\nping\r\n", after: mark)

        terminal.type("\u{1a}")
        #expect(await ProcessProbe.wait(for: cat) { $0?.isStopped == true })
        #expect(await ProcessProbe.wait(for: reachPID) { $0?.isStopped == true })
        mark = try await terminal.waitFor("Stopped", after: mark)
        mark = try await terminal.waitFor("ready$ ", after: mark)

        terminal.type("fg\n")
        #expect(await ProcessProbe.wait(for: reachPID) { $0?.isStopped == false })
        #expect(await ProcessProbe.wait(for: cat) { $0?.isStopped == false && $0?.terminalForegroundGroup == cat })
        terminal.type("pong\n")
        mark = try await terminal.waitFor("pong\r\npong\r\n", after: mark)

        terminal.type("\u{03}")
        #expect(await ProcessProbe.wait(for: cat) { $0 == nil })
        #expect(await ProcessProbe.wait(for: reachPID) { $0 == nil })
        mark = try await terminal.waitFor("ready$ ", after: mark)
        terminal.type("echo status:$?\n")
        try await terminal.waitFor("status:130", after: mark)
        terminal.type("exit\n")
        #expect(await terminal.waitForExit() != nil)
    }
}
