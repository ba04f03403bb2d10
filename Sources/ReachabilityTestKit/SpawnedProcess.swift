import CGNULibc
import FoundationEssentials
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// A server process for a test, in a process group of its own, reaped with `waitpid`.
///
/// Not Foundation's `Process`: it never noticed apache's exit while apache's workers lived on
/// (they inherit descriptors it watches), so `waitUntilExit()` spun on a zombie forever; and a
/// server that closes its inherited descriptors at start (dnsmasq) looks exited to it. Here the
/// test owns the pid and the group, so ``stop(grace:)`` ends every process the server started.
///
/// Stopped (and reaped) at the latest when the last reference goes away, with a grace of 1 s.
public final class SpawnedProcess: Sendable {
    /// The process's id (a `pid_t`), which is also its process group's. It stays the
    /// process's until ``stop(grace:)`` reaps it.
    public let pid: Int32
    /// Whether the pid has been reaped (only once: afterwards the number may be reused).
    private let reaped = Mutex(false)

    /// Starts `arguments[0]` (looked up in `PATH`) with stdin from /dev/null and stdout and
    /// stderr appended to `output` (created if missing), in a new process group, with default
    /// signal handling, no signal blocked and no other descriptor of the test process.
    ///
    /// - Throws: ``TestNamespaceError`` when `posix_spawnp` fails (no such program, for one).
    public init(_ arguments: [String], output: String) throws {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_APPEND, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        // Nothing else of the test process: a pipe another test reads to its end must not stay
        // open in a server that outlives that test's command.
        _ = reach_spawn_add_closefrom(&actions, 3)
        pid = try ChildSpawn.spawn(arguments, actions: &actions, newProcessGroup: true)
    }

    /// Whether the process is still running. An exited one stays a zombie (unreaped) until
    /// ``stop(grace:)``, so its pid and process group cannot be reused meanwhile.
    public var isRunning: Bool {
        reaped.withLock { reaped in
            guard !reaped, let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8) else { return false }
            // "PID (COMM) STATE …": the state follows the last ')'.
            guard let close = stat.lastIndex(of: ")") else { return false }
            return stat[stat.index(after: close)...].trimmingPrefix(" ").first != "Z"
        }
    }

    /// SIGTERM to the group, SIGKILL after `grace`; then whatever is left in the group
    /// (orphaned workers) gets SIGKILL while the exited leader still holds the group's number;
    /// then the leader is reaped. With a `grace` of zero SIGKILL follows SIGTERM at once. Calls
    /// after the first do nothing.
    public func stop(grace: Duration = .seconds(5)) {
        reaped.withLock { reaped in
            guard !reaped else { return }
            kill(-pid, SIGTERM)
            let deadline = ContinuousClock.now + grace
            while !isZombie && ContinuousClock.now < deadline { usleep(10_000) }
            kill(-pid, SIGKILL)
            var status: Int32 = 0
            while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
            reaped = true
        }
    }

    private var isZombie: Bool {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8), let close = stat.lastIndex(of: ")") else {
            return true
        }
        return stat[stat.index(after: close)...].trimmingPrefix(" ").first == "Z"
    }

    deinit {
        stop(grace: .seconds(1))
    }
}
