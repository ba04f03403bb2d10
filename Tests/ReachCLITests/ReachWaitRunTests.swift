import Foundation
import Glibc
import ReachabilityLinux
import ReachabilityTestKit
import Testing

/// `va` (overridden Wi-Fi) and `wa` (overridden cellular) uplinks; `wa` carries a metric-100
/// default route from the start.
func uplinks(_ ns: TestNamespace) async throws {
    try ns.ipBatch([
        "link add va type veth peer name va-peer", "link add wa type veth peer name wa-peer",
        "link set va-peer up", "link set wa-peer up", "link set va up", "link set wa up",
        "addr add 10.1.0.2/24 dev va", "addr add 10.2.0.2/24 dev wa",
    ])
    for _ in 0..<300 where !(try ns.ip("link", "show", "va").contains("LOWER_UP") && ns.ip("link", "show", "wa").contains("LOWER_UP")) {
        try await Task.sleep(for: .milliseconds(10))
    }
    try ns.ip("route", "add", "default", "via", "10.2.0.1", "dev", "wa", "metric", "100")
}

let roles = ["--override", "va=wifi", "--override", "wa=cellular", "--sysfs-root", "/nonexistent"]

/// The state letter of a process (`R`, `S`, `T` for stopped, …), from /proc.
private func processState(_ pid: Int32) -> String? {
    guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return nil }
    return status.split(separator: "\n").first { $0.hasPrefix("State:") }?.split(separator: "\t").last.map { String($0.prefix(1)) }
}

/// The pids a command wrote to `path`, one a line, once there are `count` (waited for at most
/// about 30 s).
func lines(of path: String, count: Int) async throws -> [Int32] {
    for _ in 0..<3000 {
        let text = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
        let pids = text.split(separator: "\n").compactMap { Int32($0) }
        if pids.count >= count && text.hasSuffix("\n") { return pids }
        try await Task.sleep(for: .milliseconds(10))
    }
    throw TestNamespaceError(message: "fewer than \(count) pids in \(path)")
}

/// Waits for `process` to exit, at most `bound`; false if it has not.
func exited(_ process: Process, bound: Duration = .seconds(30)) async -> Bool {
    let deadline = ContinuousClock.now + bound
    while process.isRunning && ContinuousClock.now < deadline { try? await Task.sleep(for: .milliseconds(10)) }
    guard !process.isRunning else { return false }
    process.waitUntilExit()
    return true
}

@Suite("reach wait and reach run", .enabled(if: TestNamespace.isSupported), .serialized)
struct ReachWaitRunTests {
    @Test func waitTimesOutWithOneThenSucceedsWhenThePathSatisfies() async throws {
        let ns = try TestNamespace()
        try await uplinks(ns)
        let timedOut = try reach(["wait", "--for", "unmetered", "--timeout", "0.2"] + roles, in: ns)
        #expect(timedOut.status == 1)
        #expect(timedOut.stderr == "reach: timed out after 0.2 s waiting for unmetered\n")

        let any = try reach(["wait", "--for", "any", "--timeout", "5"] + roles, in: ns)
        #expect(any.status == 0)
        #expect(any.stdout == "cellular via wa (IPv4) expensive\n")

        try ns.ip("route", "add", "default", "via", "10.1.0.1", "dev", "va", "metric", "10")
        let wifi = try reach(["wait", "--for", "wifi", "--timeout", "5"] + roles, in: ns)
        #expect(wifi.status == 0)
        #expect(wifi.stdout == "wifi via va (IPv4)\n")
    }

    /// A zero timeout asks "is it so now?": the current path is judged before the clock runs.
    @Test func aZeroTimeoutAnswersFromTheCurrentPath() async throws {
        let ns = try TestNamespace()
        try await uplinks(ns)
        let cellular = try reach(["wait", "--for", "any", "--timeout", "0"] + roles, in: ns)
        #expect(cellular.status == 0)
        #expect(cellular.stdout == "cellular via wa (IPv4) expensive\n")
        let notWiFi = try reach(["wait", "--for", "wifi", "--timeout", "0"] + roles, in: ns)
        #expect(notWiFi.status == 1)
        #expect(notWiFi.stderr == "reach: timed out after 0.0 s waiting for wifi\n")
    }

    @Test func runStopsTheCommandOnCellularContinuesItOnWiFiAndExitsWithItsStatus() async throws {
        let ns = try TestNamespace()
        try await uplinks(ns)
        try ns.ip("route", "add", "default", "via", "10.1.0.1", "dev", "va", "metric", "10")
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let pidFile = directory.path + "/pid"
        let goFile = directory.path + "/go"
        // The command records its pid, then waits for the test's go-ahead and exits 7.
        let script = "echo $$ > \(pidFile); while [ ! -e \(goFile) ]; do sleep 0.02; done; exit 7"
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["nsenter", "--net=\(ns.namespace.path)", reachBinary, "run", "--when", "unmetered", "--settle", "0.2"] + roles
            + ["--", "sh", "-c", script]
        let errors = Pipe()
        process.standardError = errors
        try process.run()

        var pid: Int32?
        for _ in 0..<500 where pid == nil {
            pid = (try? String(contentsOfFile: pidFile, encoding: .utf8)).flatMap { Int32($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
            if pid == nil { try await Task.sleep(for: .milliseconds(10)) }
        }
        let child = try #require(pid)
        #expect(processState(child) != "T")

        try ns.ip("route", "del", "default", "via", "10.1.0.1", "dev", "va", "metric", "10")
        for _ in 0..<500 where processState(child) != "T" { try await Task.sleep(for: .milliseconds(10)) }
        #expect(processState(child) == "T")

        try ns.ip("route", "add", "default", "via", "10.1.0.1", "dev", "va", "metric", "10")
        for _ in 0..<500 where processState(child) == "T" { try await Task.sleep(for: .milliseconds(10)) }
        #expect(processState(child) != "T")

        FileManager.default.createFile(atPath: goFile, contents: nil)
        process.waitUntilExit()
        #expect(process.terminationStatus == 7)
        let log = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(log.contains("reach: stopped sh (pid \(child)): expensive (metered) network not allowed"))
        #expect(log.contains("reach: continued sh (pid \(child))"))
    }

    @Test func runWaitsBeforeStartingAndForwardsSignals() async throws {
        let ns = try TestNamespace()
        try await uplinks(ns)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["nsenter", "--net=\(ns.namespace.path)", reachBinary, "run", "--when", "wifi", "--settle", "0"] + roles
            + ["--", "sleep", "30"]
        let errors = Pipe()
        process.standardError = errors
        try process.run()
        // nsenter execs reach (no fork): the process started is reach itself.
        let reachPID = String(process.processIdentifier)
        let children = { try TestNamespace.execute(["sh", "-c", "pgrep -x sleep -P \(reachPID) || true"]).trimmingCharacters(in: .whitespacesAndNewlines) }
        try await Task.sleep(for: .milliseconds(300))
        #expect(try children().isEmpty)
        try ns.ip("route", "add", "default", "via", "10.1.0.1", "dev", "va", "metric", "10")
        var sleeper = ""
        for _ in 0..<500 where sleeper.isEmpty {
            sleeper = try children()
            if sleeper.isEmpty { try await Task.sleep(for: .milliseconds(10)) }
        }
        #expect(!sleeper.isEmpty)
        _ = try TestNamespace.execute(["kill", "-TERM", reachPID])
        process.waitUntilExit()
        #expect(process.terminationStatus == 128 + 15)
        let log = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(log.contains("reach: waiting: wired not allowed") || log.contains("reach: waiting: cellular not allowed"))
    }

    /// `--on-disallow terminate` with a command that ignores SIGTERM: SIGKILL after
    /// `--kill-after`, a fresh run once allowed, and the same escalation when reach itself is
    /// told to end.
    @Test func terminateEscalatesToSIGKILLAndRunsTheCommandAgainWhenAllowed() async throws {
        let ns = try TestNamespace()
        try await uplinks(ns)
        try ns.ip("route", "add", "default", "via", "10.1.0.1", "dev", "va", "metric", "10")
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let pidFile = directory.path + "/pids"
        let script = "trap '' TERM; echo $$ >> \(pidFile); while :; do sleep 0.1; done"
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["nsenter", "--net=\(ns.namespace.path)", reachBinary, "run", "--when", "unmetered", "--settle", "0.2"]
            + ["--on-disallow", "terminate", "--kill-after", "1"] + roles + ["--", "sh", "-c", script]
        let errors = Pipe()
        process.standardError = errors
        process.standardInput = FileHandle.nullDevice
        try process.run()
        var pids: [Int32] = []
        defer {
            for pid in pids where !ProcessProbe.isGone(pid) { kill(pid, SIGKILL) }
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        }

        pids = try await lines(of: pidFile, count: 1)
        let first = pids[0]
        try ns.ip("route", "del", "default", "via", "10.1.0.1", "dev", "va", "metric", "10")
        #expect(await ProcessProbe.wait(for: first) { $0 == nil })

        try ns.ip("route", "add", "default", "via", "10.1.0.1", "dev", "va", "metric", "10")
        pids = try await lines(of: pidFile, count: 2)
        let second = pids[1]
        #expect(second != first && !ProcessProbe.isGone(second))

        kill(process.processIdentifier, SIGTERM)
        #expect(await exited(process))
        #expect(process.terminationStatus == 128 + SIGKILL)
        #expect(ProcessProbe.isGone(second))
        let log = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(log.contains("reach: terminating sh (pid \(first)): expensive (metered) network not allowed\n"))
        #expect(log.contains("reach: killed sh (pid \(first)): still running 1.0 s after SIGTERM\n"))
        #expect(log.contains("reach: started sh again (pid \(second))\n"))
        #expect(log.contains("reach: killed sh (pid \(second)): still running 1.0 s after SIGTERM\n"))
    }

    @Test func runRefusesAMissingCommand() throws {
        let result = try reach(["run", "--when", "any"])
        #expect(result.status == 64)
        #expect(result.stderr.contains("missing the command to run"))
    }
}
