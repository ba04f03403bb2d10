import ArgumentParser
import Reachability
import ReachabilityCore

struct WaitCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "wait",
        abstract: "Wait until the network satisfies a condition.",
        discussion: """
            Exits 0 as soon as the path satisfies --for (printing it), 1 when --timeout expires \
            first. For scripts: `reach wait --for unmetered --timeout 600 && rsync …`.
            """)

    @OptionGroup var global: GlobalOptions

    @Option(name: .customLong("for"), help: "any, wifi, wired or unmetered (not expensive).")
    var condition: Condition = .any

    @Option(help: ArgumentHelp("Give up after this many seconds (default: wait forever).", valueName: "SECONDS"))
    var timeout: Double?

    @Flag(help: "Print nothing.")
    var quiet = false

    func validate() throws {
        if let timeout, !(timeout >= 0) { throw ValidationError("--timeout must be 0 or more seconds, not \(timeout)") }
    }

    func run() async throws {
        let gate: TransferGate
        do {
            gate = TransferGate(monitor: NetworkMonitor(configuration: try global.monitorConfiguration()), policy: condition.policy)
        } catch {
            throw failure(error)
        }
        let satisfied: NetworkPath?
        do {
            satisfied = try await withThrowingTaskGroup(of: NetworkPath?.self) { group in
                group.addTask { try await gate.waitUntilAllowed() }
                if let timeout {
                    group.addTask {
                        try await Task.sleep(for: .milliseconds(Int64(timeout * 1000)))
                        return nil
                    }
                }
                let first = try await group.next() ?? nil
                group.cancelAll()
                return first
            }
        } catch {
            throw failure(error)
        }
        guard let satisfied else {
            if !quiet { printError("reach: timed out after \(timeout ?? 0) s waiting for \(condition.rawValue)") }
            throw ExitCode(1)
        }
        if !quiet { printLine(PathFormatter.summary(satisfied)) }
    }
}
