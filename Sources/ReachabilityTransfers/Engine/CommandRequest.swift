import ReachabilityCore
import Reachability

/// A command for a ``TransferEngine`` to run as a job (the daemon's `run` jobs): gated by the
/// job's policy like a transfer, in one of the engine's ``TransferEngine/Configuration/maxRunning``
/// slots, retried with a doubling delay while it fails, suspended (SIGSTOP) when the network or
/// its user stops it and continued (SIGCONT) after, or terminated and run afresh with
/// ``CommandExecutor/Options/OnDisallow/terminate``.
public struct CommandRequest: Sendable {
    /// The command and its arguments; the first is looked up on `PATH`.
    public var arguments: [String]
    /// How it is stopped, where it starts, where its output goes.
    public var options: CommandExecutor.Options
    /// Runs at most, counting the first; a zero exit status ends the job at once.
    public var maxAttempts: Int
    /// The wait after the first failed run; doubled after each further one, at most an hour.
    public var retryDelay: Duration
    /// Told what the executor does to the command (started, suspended, …): a daemon records
    /// the process it started here.
    public var onEvent: @Sendable (CommandExecutor.Event) -> Void

    /// A command request; by default 3 runs at most, 30 s before the second.
    public init(
        arguments: [String], options: CommandExecutor.Options = CommandExecutor.Options(usesTerminal: false), maxAttempts: Int = 3,
        retryDelay: Duration = .seconds(30), onEvent: @escaping @Sendable (CommandExecutor.Event) -> Void = { _ in }
    ) {
        self.arguments = arguments
        self.options = options
        self.maxAttempts = max(1, maxAttempts)
        self.retryDelay = retryDelay
        self.onEvent = onEvent
    }

    /// `base` doubled per failure after the first, at most an hour.
    static func backoff(_ base: Duration, failures: Int) -> Duration {
        let factor = 1 << min(max(failures - 1, 0), 20)
        return min(base * factor, .seconds(3600))
    }
}
