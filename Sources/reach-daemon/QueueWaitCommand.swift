import ReachabilityTransfers
import ArgumentParser
import FoundationEssentials
import ReachCommands
import ReachabilityCore
import ReachabilityDaemon

/// `reach queue wait`: until the jobs finish.
struct QueueWaitCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "wait",
        abstract: "Wait until jobs finish: exit 0 when all succeeded, 1 when one failed or was cancelled, 3 on timeout."
    )
    @OptionGroup var connection: QueueConnection

    @Argument(help: ArgumentHelp("Job ids.", valueName: "ID"))
    var ids: [Int64] = []

    @Flag(help: "Wait for every unfinished job.") var all = false

    @Option(help: ArgumentHelp("Give up after this many seconds (exit 3).", valueName: "SECONDS"))
    var timeout: Double?

    func validate() throws {
        guard all != !ids.isEmpty else { throw ValidationError("give job ids or --all (not both)") }
        guard ids.allSatisfy({ $0 > 0 }) else { throw ValidationError("a job id is a positive number") }
        if let timeout { _ = try OptionChecks.seconds(timeout, option: "--timeout") }
    }

    func run() async throws {
        let limit = try timeout.map { try OptionChecks.seconds($0, option: "--timeout") }
        let outcome = try await connection.withClient { client in
            try await QueueWaiter(client: client, ids: all ? nil : Set(ids)).wait(timeout: limit)
        }
        switch outcome {
        case .allSucceeded: return
        case .someFailed(let jobs):
            for job in jobs { printError(TerminalText.safe("reach queue: job \(job.id) \(job.state): \(job.reason?.message ?? "")")) }
            throw ExitCode(1)
        case .timedOut(let pending):
            printError("reach queue: timed out; still unfinished: \(Self.list(pending.sorted()))")
            throw ExitCode(3)
        }
    }
}

/// `reach queue watch`: every job change as it happens.
struct QueueWatchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "watch", abstract: "Print each job change as it happens (until interrupted).")
    @OptionGroup var connection: QueueConnection
    @Flag(help: "Print JSON lines: {\"type\":\"job\",\"job\":{…}} and {\"type\":\"path\",…}.") var json = false

    func run() async throws {
        ReaderWatch.exitWhenStandardOutputCloses()
        try await connection.withClient { client in
            var last: [Int64: String] = [:]
            // The daemon sends every path; its line shows the summary, so one line per change of it.
            var lastPath: String?
            for try await event in client.events() {
                if json {
                    printLine(event.jsonLine)
                } else if let job = event.job {
                    // Progress arrives many times a second: people see state changes and whole percents.
                    let line = QueueFormat.line(job)
                    if last[job.id] != line { printLine(line) }
                    last[job.id] = line
                } else if let summary = event.pathSummary, summary != lastPath {
                    printLine("path: \(summary)")
                    lastPath = summary
                }
            }
        }
    }
}

extension QueueWaitCommand {
    /// At most 20 ids, then how many more: `--all` over 10,000 jobs is not a 60 KB line.
    static func list(_ ids: [Int64]) -> String {
        let shown = ids.prefix(20).map(String.init).joined(separator: ", ")
        return ids.count > 20 ? shown + " and \(ids.count - 20) more (reach queue list)" : shown
    }
}
