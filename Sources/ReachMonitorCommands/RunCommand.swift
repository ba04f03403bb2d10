import ArgumentParser
import Glibc
import ReachCommands
import Reachability
import ReachabilityProcesses
import ReachabilityCore
import Synchronization

struct RunCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Run a command only while the network allows it.",
        discussion: """
            Starts the command, in a process group of its own, when the path satisfies --when. \
            When the path stops satisfying it, the whole group is suspended (SIGSTOP), or with \
            --on-disallow terminate ended (SIGTERM, then SIGKILL after --kill-after seconds). Once \
            the path has satisfied --when again for --settle seconds, the group is continued \
            (SIGCONT), or the command started again.

            On a terminal the command is the foreground job while it runs: it reads the terminal, \
            Ctrl-C reaches it, and Ctrl-Z stops it and reach together (fg continues both). \
            SIGINT, SIGTERM, SIGHUP and SIGQUIT sent to reach are forwarded to the command, which \
            then has --kill-after seconds before SIGKILL; SIGUSR1 and SIGUSR2 are forwarded.

            Exit codes: the command's status, or 128 + N if signal N ended it; 127 the command \
            could not be started; 128 + N signal N ended reach before the command started; 1 the \
            network could not be monitored (a running command is terminated); 64 bad usage.
            """)

    /// `stop`, the first name of `suspend`, is still accepted.
    enum OnDisallow: String, CaseIterable, ExpressibleByArgument {
        case suspend, terminate

        init?(argument: String) {
            self.init(rawValue: argument == "stop" ? "suspend" : argument)
        }

        var executorValue: CommandExecutor.Options.OnDisallow {
            switch self {
            case .suspend: .suspend
            case .terminate: .terminate
            }
        }
    }

    @OptionGroup var global: GlobalOptions

    @Option(help: "any, wifi, wired, unmetered (not expensive), or internet (validated: needs --probe).")
    var when: Condition = .unmetered

    @Option(
        name: .customLong("on-disallow"),
        help: "suspend (SIGSTOP, then SIGCONT; `stop` is the same) or terminate (SIGTERM, SIGKILL after --kill-after, then start again).")
    var onDisallow: OnDisallow = .suspend

    @Option(help: ArgumentHelp("Seconds (0 to 1000000000) the path must allow again before the command continues.", valueName: "SECONDS"))
    var settle: Double = 2

    @Option(
        name: .customLong("kill-after"),
        help: ArgumentHelp("Seconds (0 to 1000000000) the command has after SIGTERM (or a forwarded signal that ends reach) before SIGKILL.", valueName: "SECONDS"))
    var killAfter: Double = 10

    @Argument(parsing: .captureForPassthrough, help: ArgumentHelp("The command and its arguments, after --.", valueName: "COMMAND"))
    var command: [String] = []

    func validate() throws {
        // The command is captured as it is typed, options included: `reach run --help` asks
        // for help, `reach run -- --help` runs `--help`.
        if self.command.first == "--help" || self.command.first == "-h" { throw CleanExit.helpRequest(self) }
        let command = self.command.first == "--" ? Array(self.command.dropFirst()) : self.command
        guard !command.isEmpty else { throw ValidationError("missing the command to run: reach run --when unmetered -- COMMAND [ARGS…]") }
        _ = try OptionChecks.seconds(settle, option: "--settle")
        _ = try OptionChecks.seconds(killAfter, option: "--kill-after")
    }

    func run() async throws {
        let arguments = command.first == "--" ? Array(command.dropFirst()) : command
        let monitor: NetworkMonitor
        do { monitor = try global.monitor() } catch { throw failure(error) }
        if when == .internet && !monitor.isValidating {
            throw failure(UsageFailure(message: "--when internet needs a probe: --probe URL, or `probe = URL` in --config"))
        }
        var policy = when.policy
        policy.resumeAfter = try OptionChecks.seconds(settle, option: "--settle")
        let signals = RunSignals()
        let options = CommandExecutor.Options(
            onDisallow: onDisallow.executorValue, killAfter: try OptionChecks.seconds(killAfter, option: "--kill-after"),
            usesTerminal: true, inheritedSignals: signals.ignoredAtStart)
        let name = arguments[0]
        let executor = CommandExecutor(arguments, options: options) { RunLog.executor($0, name: name) }
        let gate = TransferGate(monitor: monitor, policy: policy)
        let drive = Task { try await gate.drive(executor, onEvent: RunLog.gate) }

        let endedBy = EndedBy()
        signals.start { number in
            switch number {
            case _ where RunSignals.ending.contains(number):
                Task {
                    endedBy.record(128 + number)
                    if let termination = await executor.end(forwarding: number) { endedBy.record(termination.shellStatus) }
                    drive.cancel()
                }
            case SIGCONT: executor.foregroundMayHaveChanged()
            default: executor.send(number)
            }
        }
        defer { signals.stop() }

        switch await drive.result {
        case .success(let termination):
            throw ExitCode(termination.shellStatus)
        case .failure(let error as CommandSpawnError):
            printError("reach: \(error)")
            throw ExitCode(127)
        case .failure(let error):
            if let status = endedBy.status { throw ExitCode(status) }
            throw failure(error)
        }
    }
}

/// The status reach exits with when a signal ended it: 128 + the signal, or, once the command
/// it forwarded the signal to has ended, the command's.
private final class EndedBy: Sendable {
    private let value = Mutex<Int32?>(nil)

    var status: Int32? { value.withLock { $0 } }

    func record(_ status: Int32) { value.withLock { $0 = status } }
}

/// What `reach run` says on stderr.
enum RunLog {
    static func gate(_ event: TransferGate.Event) {
        if case .waiting(let reason) = event { printError("reach: waiting: \(reason)") }
    }

    static func executor(_ event: CommandExecutor.Event, name: String) {
        switch event {
        case .started(let pid, let run):
            if run > 1 { printError("reach: started \(name) again (pid \(pid))") }
        case .suspended(let pid, let reason):
            printError("reach: stopped \(name) (pid \(pid))" + (reason.map { ": \($0)" } ?? ""))
        case .continued(let pid):
            printError("reach: continued \(name) (pid \(pid))")
        case .terminating(let pid, let reason):
            printError("reach: terminating \(name) (pid \(pid))" + (reason.map { ": \($0)" } ?? ""))
        case .killed(let pid, let signal, let after):
            printError("reach: killed \(name) (pid \(pid)): still running \(ByteCount.seconds(after)) after \(RunSignals.name(signal))")
        }
    }
}
