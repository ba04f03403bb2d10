import Foundation
import ReachabilityLinux
import ReachabilityTestKit
import Synchronization

/// dnsmasq inside a test's namespace, in the foreground; killed by ``stop()`` (call it in a
/// `defer`).
///
/// Started with `posix_spawn`, not Foundation's `Process`: dnsmasq closes every inherited
/// descriptor at start, `Process` takes that for the child's exit and blocks its one monitor
/// thread in `waitpid` on the still-running dnsmasq, and every other `Process` in the test
/// run then waits forever.
final class Dnsmasq: Sendable {
    static let executable = "/usr/sbin/dnsmasq"
    /// Whether the tests run: always under `CI=true` (a missing dnsmasq then fails them),
    /// elsewhere only where it is installed (`scripts/setup.sh dnsmasq-base`).
    static let isAvailable = ProcessInfo.processInfo.environment["CI"] == "true" || FileManager.default.isExecutableFile(atPath: executable)

    private let pid: pid_t
    private let directory: TemporaryDirectory
    private let reaped = Mutex(false)

    /// Starts dnsmasq answering on `listen` (addresses in `namespace`) with `options`, and waits
    /// until it listens on each.
    init(in namespace: TestNamespace, listen: [String] = ["10.53.0.1"], options: [String]) async throws {
        directory = try TemporaryDirectory()
        let log = directory.path + "/dnsmasq.log"
        let arguments = ["/usr/bin/nsenter", "--net=\(namespace.namespace.path)", Self.executable, "--no-daemon", "--conf-file=/dev/null",
            "--no-resolv", "--no-hosts", "--bind-interfaces", "--port=53", "--pid-file=\(directory.path)/dnsmasq.pid"]
            + listen.map { "--listen-address=\($0)" } + options
        pid = try Self.spawn(arguments, output: log)
        for _ in 0..<500 {
            let sockets = (try? namespace.run(["ss", "-Hlun"])) ?? ""
            if listen.allSatisfy({ sockets.contains($0.contains(":") ? "[\($0)]:53 " : "\($0):53 ") }) { return }
            guard kill(pid, 0) == 0, !isZombie else { break }
            try await Task.sleep(for: .milliseconds(10))
        }
        stop()
        let output = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
        throw TestNamespaceError(message: "dnsmasq did not start listening on \(listen): \(output)")
    }

    /// SIGKILL (the test runner blocks SIGTERM, and its children inherit the mask), then reaps.
    func stop() {
        reaped.withLock { reaped in
            guard !reaped else { return }
            kill(pid, SIGKILL)
            var status: Int32 = 0
            while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
            reaped = true
        }
        directory.remove()
    }

    deinit { stop() }

    private var isZombie: Bool {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8), let close = stat.lastIndex(of: ")") else {
            return true
        }
        return stat[stat.index(after: close)...].trimmingPrefix(" ").first == "Z"
    }

    /// `arguments[0]` with stdin from /dev/null, stdout and stderr to `output`, default signal
    /// handling and nothing blocked.
    private static func spawn(_ arguments: [String], output: String) throws -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_APPEND, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t()
        sigemptyset(&none)
        var all = sigset_t()
        sigfillset(&all)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var child: pid_t = 0
        let status = posix_spawn(&child, arguments[0], &actions, &attributes, &argv, environ)
        guard status == 0 else { throw TestNamespaceError(message: "cannot start \(arguments[0]): \(String(cString: strerror(status)))") }
        return child
    }
}
