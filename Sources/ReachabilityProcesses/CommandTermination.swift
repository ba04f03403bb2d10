import Glibc

/// How a command run by ``CommandExecutor`` ended: its exit status, or the signal that killed it.
public struct CommandTermination: Sendable, Hashable, CustomStringConvertible {
    /// The process ID it ran as (the leader of its process group).
    public let pid: Int32
    /// Its exit status (0 to 255) when it exited; nil when a signal killed it.
    public let exitStatus: Int32?
    /// The signal that killed it; nil when it exited.
    public let signal: Int32?

    /// A command that exited with `status`.
    public init(pid: Int32, exitStatus: Int32) {
        self.pid = pid
        self.exitStatus = exitStatus
        self.signal = nil
    }

    /// A command that `signal` killed.
    public init(pid: Int32, signal: Int32) {
        self.pid = pid
        self.exitStatus = nil
        self.signal = signal
    }

    /// The status a shell reports for it: the exit status, or 128 + the signal.
    public var shellStatus: Int32 {
        if let signal { return 128 + signal }
        return exitStatus ?? 0
    }

    /// `exited with status 3`, `killed by signal 9 (Killed)`.
    public var description: String {
        if let signal {
            guard let name = strsignal(signal) else { return "killed by signal \(signal)" }
            return "killed by signal \(signal) (\(String(cString: name)))"
        }
        return "exited with status \(exitStatus ?? 0)"
    }
}

/// A command that could not be started: not found, not executable, or no resources.
public struct CommandSpawnError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The program it tried to run.
    public let command: String
    /// The `errno` that `posix_spawnp` returned.
    public let errno: Int32

    /// An error for `command`, which failed with `errno`.
    public init(command: String, errno: Int32) {
        self.command = command
        self.errno = errno
    }

    /// `cannot run 'nosuch': No such file or directory`.
    public var description: String { "cannot run '\(command)': \(String(cString: strerror(errno)))" }
}
