import Foundation
import ReachabilityLinux
import ReachabilityTestKit

/// dnsmasq inside a test's namespace, in the foreground; killed by ``stop()`` (call it in a
/// `defer`).
///
/// Started as a ``SpawnedProcess`` (`posix_spawn`), not with Foundation's `Process`: dnsmasq
/// closes every inherited descriptor at start, `Process` takes that for the child's exit and
/// blocks its one monitor thread in `waitpid` on the still-running dnsmasq, and every other
/// `Process` in the test run then waits forever.
final class Dnsmasq: Sendable {
    static let executable = "/usr/sbin/dnsmasq"
    /// Whether the tests run: always under `CI=true` (a missing dnsmasq then fails them),
    /// elsewhere only where it is installed (`scripts/setup.sh dnsmasq-base`).
    static let isAvailable = ProcessInfo.processInfo.environment["CI"] == "true" || FileManager.default.isExecutableFile(atPath: executable)

    private let process: SpawnedProcess
    private let directory: TemporaryDirectory

    /// Starts dnsmasq answering on `listen` (addresses in `namespace`) with `options`, and waits
    /// until it listens on each.
    init(in namespace: TestNamespace, listen: [String] = ["10.53.0.1"], options: [String]) async throws {
        directory = try TemporaryDirectory()
        let log = directory.path + "/dnsmasq.log"
        let arguments = ["/usr/bin/nsenter", "--net=\(namespace.namespace.path)", Self.executable, "--no-daemon", "--conf-file=/dev/null",
            "--no-resolv", "--no-hosts", "--bind-interfaces", "--port=53", "--pid-file=\(directory.path)/dnsmasq.pid"]
            + listen.map { "--listen-address=\($0)" } + options
        process = try SpawnedProcess(arguments, output: log)
        for _ in 0..<500 {
            let sockets = (try? namespace.run(["ss", "-Hlun"])) ?? ""
            if listen.allSatisfy({ sockets.contains($0.contains(":") ? "[\($0)]:53 " : "\($0):53 ") }) { return }
            guard process.isRunning else { break }
            try await Task.sleep(for: .milliseconds(10))
        }
        stop()
        let output = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
        throw TestNamespaceError(message: "dnsmasq did not start listening on \(listen): \(output)")
    }

    /// SIGKILL to dnsmasq's process group at once (no grace: nothing of it needs a clean exit),
    /// then reaps it and removes its directory.
    func stop() {
        process.stop(grace: .zero)
        directory.remove()
    }

    deinit { stop() }
}
