import ArgumentParser
import ReachCommands
import Reachability
import ReachabilityCore

struct WaitCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "wait",
        abstract: "Wait until the network satisfies a condition.",
        discussion: """
            Exits 0 as soon as the path satisfies --for (printing it), 1 when --timeout expires \
            first. The current path is judged before the timeout starts, so --timeout 0 asks \
            "is it so now?". For scripts: `reach wait --for unmetered --timeout 600 && rsync …`.
            """)

    @OptionGroup var global: GlobalOptions

    @Option(
        name: .customLong("for"),
        help: "any, wifi, wired, unmetered (not expensive), or internet (validated: needs --probe). With --probe, each also waits for full connectivity.")
    var condition: Condition = .any

    @Option(help: ArgumentHelp("Give up after this many seconds (0 to 1000000000; default: wait forever).", valueName: "SECONDS"))
    var timeout: Double?

    @Flag(help: "Print nothing.")
    var quiet = false

    func validate() throws {
        if let timeout { _ = try OptionChecks.seconds(timeout, option: "--timeout") }
    }

    func run() async throws {
        let satisfied: TransferNetwork?
        let monitor: NetworkMonitor
        do {
            monitor = try global.monitor()
            if condition == .internet && !monitor.isValidating {
                throw UsageFailure(message: "--for internet needs a probe: --probe URL, or `probe = URL` in --config")
            }
            let gate = TransferGate(monitor: monitor, policy: condition.policy)
            if let timeout {
                satisfied = try await gate.waitUntilAllowed(timeout: try OptionChecks.seconds(timeout, option: "--timeout"))
            } else {
                satisfied = try await gate.waitUntilAllowed()
            }
        } catch {
            throw failure(error)
        }
        guard let satisfied else {
            if !quiet { printError("reach: timed out after \(timeout ?? 0) s waiting for \(condition.rawValue)") }
            throw ExitCode(1)
        }
        _ = satisfied
        // The path that satisfied the condition is the monitor's latest.
        if !quiet, let path = try? await monitor.currentPath() { printLine(PathFormatter.summary(path)) }
    }
}
