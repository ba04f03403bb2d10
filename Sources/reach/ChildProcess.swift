import Dispatch
import Glibc

/// A command started in its own process group, so that stopping it stops everything it
/// started (a shell script's children included).
final class ChildProcess: @unchecked Sendable {
    // `@unchecked`: `pid` is set once in init; the exit status arrives through `onExit`.
    let pid: pid_t

    /// Starts `arguments` (looked up on PATH); `onExit` gets the wait status, once.
    init(_ arguments: [String], onExit: @escaping @Sendable (Int32) -> Void) throws(SpawnError) {
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        posix_spawnattr_setpgroup(&attributes, 0)
        var empty = sigset_t()
        sigemptyset(&empty)
        posix_spawnattr_setsigmask(&attributes, &empty)
        // The child starts with default dispositions for the signals reach handles itself.
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signal in ForwardedSignals.all { sigaddset(&defaults, signal) }
        posix_spawnattr_setsigdefault(&attributes, &defaults)

        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var child = pid_t()
        let result = posix_spawnp(&child, arguments[0], nil, &attributes, &argv, environ)
        guard result == 0 else { throw SpawnError(command: arguments[0], errno: result) }
        pid = child
        let started = child
        DispatchQueue.global().async {
            var status: Int32 = 0
            while waitpid(started, &status, 0) < 0 && errno == EINTR {}
            onExit(status)
        }
    }

    /// Sends `signal` to the whole process group.
    func signal(_ signal: Int32) {
        _ = kill(-pid, signal)
    }

    /// The exit code a shell would report for a wait status: the code, or 128 + the signal.
    static func exitCode(_ status: Int32) -> Int32 {
        let signal = status & 0x7f
        return signal == 0 ? (status >> 8) & 0xff : 128 + signal
    }
}

enum ForwardedSignals {
    static let all: [Int32] = [SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2]
}

struct SpawnError: Error, CustomStringConvertible {
    var command: String
    var errno: Int32
    var description: String { "cannot run '\(command)': \(String(cString: strerror(errno)))" }
}
