public import ReachabilityCore

extension CommandExecutor {
    /// How a ``CommandExecutor`` stops its command and shares the terminal.
    public struct Options: Sendable, Hashable {
        /// What happens to a running command when the network stops allowing it.
        public enum OnDisallow: String, Sendable, Hashable, CaseIterable {
            /// SIGSTOP to its process group, SIGCONT when allowed again: it carries on where it was.
            case suspend
            /// SIGTERM to its process group (SIGKILL after ``Options/killAfter``), and a fresh run
            /// when allowed again: for commands that cannot stand being stopped (network timeouts).
            case terminate
        }

        /// Suspend (the default) or terminate a command the network stops allowing.
        public var onDisallow: OnDisallow
        /// How long a command has to end after SIGTERM (or the signal ``CommandExecutor/end(forwarding:)``
        /// forwards) before its group gets SIGKILL.
        public var killAfter: Duration
        /// Lend the command this process's controlling terminal while it runs, when this process
        /// is in the terminal's foreground (as a shell does for a foreground job): it can read the
        /// terminal, Ctrl-C and Ctrl-Z reach it, and its stops are relayed to the shell.
        public var usesTerminal: Bool
        /// Signals the command gets with the disposition they have in this process (an ignored
        /// one stays ignored, as `nohup` means); every other signal starts with its default action.
        public var inheritedSignals: Set<Int32>
        /// The directory the command starts in; nil: this process's.
        public var workingDirectory: String?
        /// A file the command's standard output and error are appended to, created with mode 0600
        /// and never through a symlink, with standard input from `/dev/null` and no descriptor
        /// beyond 0-2 (a daemon's jobs); nil: the command inherits this process's standard input,
        /// output and error.
        public var outputPath: String?
        /// The most the file at ``outputPath`` may hold: past it, the file becomes `PATH.1`
        /// (replacing an older one) and a new one starts. The command writes into a pipe that this
        /// process copies to the file.
        public var outputLimit: Int64

        /// Options with the defaults: suspend, 10 s before SIGKILL, the terminal lent when ours,
        /// a log of at most 10 MiB (and one older file).
        public init(
            onDisallow: OnDisallow = .suspend, killAfter: Duration = .seconds(10), usesTerminal: Bool = true,
            inheritedSignals: Set<Int32> = [], workingDirectory: String? = nil, outputPath: String? = nil, outputLimit: Int64 = 10 << 20
        ) {
            self.onDisallow = onDisallow
            self.killAfter = killAfter
            self.usesTerminal = usesTerminal
            self.inheritedSignals = inheritedSignals
            self.workingDirectory = workingDirectory
            self.outputPath = outputPath
            self.outputLimit = outputLimit
        }

        func spawnSetup(output: CappedLog?) -> ProcessSpawn.Setup {
            ProcessSpawn.Setup(inheritedSignals: inheritedSignals, workingDirectory: workingDirectory, outputDescriptor: output?.writeEnd)
        }
    }

    /// What the executor did to its command, for logs (the gate's own events say why).
    public enum Event: Sendable, Hashable {
        /// The command started; `run` counts from 1 (a terminated command runs again).
        case started(pid: Int32, run: Int)
        /// Its group was stopped (SIGSTOP) because the network no longer allows it (`reason`), or
        /// because its user paused it (nil).
        case suspended(pid: Int32, reason: TransferWaitReason?)
        /// Its group was continued (SIGCONT).
        case continued(pid: Int32)
        /// Its group is being terminated: because of `reason`, or, when nil, because the
        /// executor is shutting down.
        case terminating(pid: Int32, reason: TransferWaitReason?)
        /// It was still running `after` the first signal (`signal`), so its group got SIGKILL.
        case killed(pid: Int32, signal: Int32, after: Duration)
    }
}
