import Foundation
import ReachabilityLinux
import ReachabilityTestKit

/// A `reach daemon` with its own state directory and socket, and `reach queue` against it.
final class DaemonUnderTest: @unchecked Sendable {
    let files: TemporaryDirectory
    let namespace: TestNamespace?
    let extraArguments: [String]
    let environment: [String]
    /// A program that runs the daemon (`prlimit …`), before its binary.
    let launcher: [String]
    private(set) var stream: ReachStream?

    var stateDirectory: String { files.path + "/state" }
    var socket: String { files.path + "/run/reach.sock" }

    init(in namespace: TestNamespace?, arguments: [String] = [], environment: [String] = [], launcher: [String] = []) throws {
        files = try TemporaryDirectory()
        self.namespace = namespace
        extraArguments = arguments
        self.environment = environment
        self.launcher = launcher
    }

    /// Starts it and waits until its socket answers.
    func start() async throws {
        let command = ["daemon", "--state-dir", stateDirectory, "--socket", socket] + extraArguments
        stream = try ReachStream(environment + launcher + [reachBinary] + command, in: namespace, binary: "/usr/bin/env")
        for _ in 0..<500 {
            if (try? queue(["list"]).status) == 0 { return }
            try await Task.sleep(for: .milliseconds(20))
        }
        throw TestNamespaceError(message: "reach daemon did not answer on \(socket)")
    }

    func queue(_ arguments: [String]) throws -> ReachResult {
        try reach(["queue", "--socket", socket] + arguments, in: namespace)
    }

    /// The job's JSON (`show --json`).
    func job(_ id: String) throws -> [String: Any] {
        let shown = try queue(["show", id, "--json"])
        let object = try JSONSerialization.jsonObject(with: Data(shown.stdout.utf8)) as? [String: Any]
        return object?["job"] as? [String: Any] ?? [:]
    }

    /// Polls the job until `predicate` holds (bounded).
    func waitForJob(_ id: String, bound: Duration = .seconds(60), _ predicate: ([String: Any]) -> Bool) async throws -> [String: Any] {
        let deadline = ContinuousClock.now + bound
        var last: [String: Any] = [:]
        while ContinuousClock.now < deadline {
            last = try job(id)
            if predicate(last) { return last }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw TestNamespaceError(message: "job \(id) never matched; last: \(last)")
    }

    func kill() { stream?.kill() }

    /// The daemon's pid (`env`, `reach` and `reach-daemon` each exec the next).
    var pid: Int32? { stream?.pid }

    func stop() -> Int32? {
        guard let stream else { return nil }
        stream.stop()
        return stream.waitForExit()
    }

    deinit {
        stream?.kill()
        files.remove()
    }
}

/// A job's reason code (`reason.code`).
func reason(_ job: [String: Any]) -> String? { (job["reason"] as? [String: Any])?["code"] as? String }
