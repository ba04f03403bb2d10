import ArgumentParser
import Dispatch
import Glibc
import ReachCommands
import Reachability
import ReachabilityCore

struct RunCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Run a command only while the network allows it.",
        discussion: """
            Starts the command when the path satisfies --when. When the path stops satisfying it, \
            the command's process group is stopped (SIGSTOP; --on-disallow terminate sends SIGTERM \
            instead), and continued (SIGCONT; or started again) once the path has satisfied it for \
            --settle seconds. SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1 and SIGUSR2 are forwarded \
            to the command. Exits with the command's status (128 + N if signal N ended it).
            """)

    enum OnDisallow: String, CaseIterable, ExpressibleByArgument { case stop, terminate }

    @OptionGroup var global: GlobalOptions

    @Option(help: "any, wifi, wired or unmetered (not expensive).")
    var when: Condition = .unmetered

    @Option(name: .customLong("on-disallow"), help: "stop (SIGSTOP, then SIGCONT) or terminate (SIGTERM, then start again).")
    var onDisallow: OnDisallow = .stop

    @Option(help: ArgumentHelp("Seconds (0 to 1000000000) the path must allow again before the command continues.", valueName: "SECONDS"))
    var settle: Double = 2

    @Argument(parsing: .captureForPassthrough, help: ArgumentHelp("The command and its arguments, after --.", valueName: "COMMAND"))
    var command: [String] = []

    func validate() throws {
        let command = self.command.first == "--" ? Array(self.command.dropFirst()) : self.command
        guard !command.isEmpty else { throw ValidationError("missing the command to run: reach run --when unmetered -- COMMAND [ARGS…]") }
        _ = try OptionChecks.seconds(settle, option: "--settle")
    }

    private enum Input: Sendable {
        case path(NetworkPath)
        case tick
        case exited(Int32)
        case signal(Int32)
        case pathsFailed(String)
    }

    func run() async throws {
        let arguments = command.first == "--" ? Array(command.dropFirst()) : command
        let monitor: NetworkMonitor
        do { monitor = NetworkMonitor(configuration: try global.monitorConfiguration()) } catch { throw failure(error) }
        var policy = when.policy
        policy.resumeAfter = try OptionChecks.seconds(settle, option: "--settle")

        let (inputs, feed) = AsyncStream.makeStream(of: Input.self)
        let paths = monitor.paths
        let watcher = Task {
            do {
                for try await path in paths { feed.yield(.path(path)) }
            } catch {
                feed.yield(.pathsFailed("\(error)"))
            }
        }
        defer { watcher.cancel() }
        var signalSources: [any DispatchSourceSignal] = []
        for number in ForwardedSignals.all {
            Glibc.signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { feed.yield(.signal(number)) }
            source.resume()
            signalSources.append(source)
        }
        defer { for source in signalSources { source.cancel() } }

        let clock = ContinuousClock()
        let origin = clock.now
        var state = TransferGateState(policy: policy, transfer: Transfer())
        var child: ChildProcess?
        var stopped = false
        var terminating = false
        var latest: NetworkPath?
        var timer: Task<Void, Never>?
        var lastReason: TransferWaitReason?
        let name = arguments[0]

        func apply(_ action: TransferGateState.Action) throws {
            switch action {
            case .run:
                timer?.cancel()
                lastReason = nil
                if let running = child, stopped {
                    running.signal(SIGCONT)
                    stopped = false
                    printError("reach: continued \(name) (pid \(running.pid))")
                } else if child == nil {
                    do {
                        child = try ChildProcess(arguments) { status in feed.yield(.exited(status)) }
                    } catch {
                        printError("reach: \(error)")
                        throw ExitCode(127)
                    }
                }
            case .pause(let reason):
                timer?.cancel()
                if let running = child, !stopped, !terminating {
                    switch onDisallow {
                    case .stop:
                        running.signal(SIGSTOP)
                        stopped = true
                        printError("reach: stopped \(name) (pid \(running.pid)): \(reason)")
                    case .terminate:
                        terminating = true
                        running.signal(SIGTERM)
                        printError("reach: terminating \(name) (pid \(running.pid)): \(reason)")
                    }
                } else if child == nil && reason != lastReason {
                    printError("reach: waiting: \(reason)")
                }
                lastReason = reason
            case .waitUntil(let deadline, _):
                timer?.cancel()
                timer = Task {
                    try? await clock.sleep(until: origin.advanced(by: deadline), tolerance: nil)
                    if !Task.isCancelled { feed.yield(.tick) }
                }
            }
        }

        for await input in inputs {
            switch input {
            case .path(let path):
                latest = path
                try apply(state.update(path: path, now: origin.duration(to: clock.now)))
            case .tick:
                if let latest { try apply(state.update(path: latest, now: origin.duration(to: clock.now))) }
            case .signal(let number):
                guard let running = child else { throw ExitCode(128 + number) }
                running.signal(number)
                // A stopped command must run to handle the signal.
                if stopped {
                    running.signal(SIGCONT)
                    stopped = false
                }
            case .exited(let status):
                if terminating {
                    // We ended it because the path stopped allowing: start again when allowed.
                    terminating = false
                    child = nil
                    if let latest { try apply(state.update(path: latest, now: origin.duration(to: clock.now))) }
                    continue
                }
                throw ExitCode(ChildProcess.exitCode(status))
            case .pathsFailed(let message):
                printError("reach: \(message)")
                child?.signal(SIGCONT)
                throw ExitCode(1)
            }
        }
    }
}
