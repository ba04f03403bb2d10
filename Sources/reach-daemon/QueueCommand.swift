import ArgumentParser
import FoundationEssentials
import ReachCommands
import ReachabilityDaemon

/// `reach queue …`: the daemon's client.
struct QueueCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "queue",
        abstract: "Add, list, pause, resume, cancel and wait for the daemon's jobs; read its path.",
        discussion: """
            Exit codes: 0 success, 1 a job failed (wait) or the daemon refused, 3 timeout (wait), \
            64 bad usage or a job the daemon rejects, 69 no daemon listening on the socket.
            """,
        subcommands: [
            QueueAddCommand.self, QueueListCommand.self, QueueShowCommand.self, QueuePauseCommand.self, QueueResumeCommand.self,
            QueueCancelCommand.self, QueueWaitCommand.self, QueueWatchCommand.self, QueuePathCommand.self,
        ]
    )

    // Declared here too, so `reach queue --socket PATH list` works as well as `list --socket PATH`.
    @OptionGroup var connection: QueueConnection
}

/// The socket option every queue command takes.
struct QueueConnection: ParsableArguments {
    @Option(help: ArgumentHelp("The daemon's control socket (default: as `reach daemon`'s).", valueName: "PATH"))
    var socket: String?

    var socketPath: String { socket ?? DaemonPaths.socket() }

    /// Runs `body` with a client, turning its errors into messages and exit codes.
    func withClient<T>(command: String = "reach queue", _ body: (QueueClient) async throws -> T) async throws -> T {
        // A socket named with --socket is the user's choice; one found by convention is checked.
        let client = QueueClient(socketPath: socketPath, checksOwner: socket == nil)
        do {
            let value = try await body(client)
            await client.shutdown()
            return value
        } catch let error as QueueClientError {
            await client.shutdown()
            printError("\(command): \(error)")
            throw ExitCode(error.exitCode)
        } catch {
            await client.shutdown()
            throw error
        }
    }
}

extension QueueConnection {
    /// Runs `action` (pause, resume, cancel) on job `id` and prints the job's new line.
    func act(on id: Int64, _ action: (QueueClient, Int64) async throws -> QueueJob) async throws {
        let job = try await withClient { try await action($0, id) }
        printLine(QueueFormat.line(job))
    }
}

extension QueueClientError {
    /// 69 when no daemon listens (EX_UNAVAILABLE), 64 for a job it rejects, else 1.
    var exitCode: Int32 {
        if isNotRunning { return 69 }
        if status == 400 { return 64 }
        return 1
    }
}

/// A job id argument.
struct JobIDArgument: ParsableArguments {
    @Argument(help: ArgumentHelp("The job's id (from `reach queue add` or `list`).", valueName: "ID"))
    var id: Int64

    func validate() throws {
        guard id > 0 else { throw ValidationError("a job id is a positive number") }
    }
}

struct QueueListCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "list", abstract: "List the jobs, with why each waits.")
    @OptionGroup var connection: QueueConnection
    @Flag(help: "Print the jobs as a JSON array.") var json = false

    func run() async throws {
        if json {
            printLine(String(decoding: try await connection.withClient { try await $0.listJSONArray() }, as: UTF8.self))
        } else {
            // The summary view: a fraction of the bytes and of the decoding.
            printLine(QueueFormat.table(try await connection.withClient { try await $0.summaries() }))
        }
    }
}

struct QueueShowCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "show", abstract: "Show one job: spec, state, reason, progress, history.")
    @OptionGroup var connection: QueueConnection
    @OptionGroup var job: JobIDArgument
    @Flag(help: "Print the job as JSON.") var json = false

    func run() async throws {
        let detail = try await connection.withClient { try await $0.detail(job.id) }
        printLine(json ? String(decoding: try QueueJSON.encode(detail), as: UTF8.self) : QueueFormat.detail(detail))
    }
}

struct QueuePauseCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "pause", abstract: "Pause a job (a download keeps its partial file).")
    @OptionGroup var connection: QueueConnection
    @OptionGroup var job: JobIDArgument

    func run() async throws { try await connection.act(on: job.id) { try await $0.pause($1) } }
}

struct QueueResumeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "resume", abstract: "Resume a job paused with `pause`.")
    @OptionGroup var connection: QueueConnection
    @OptionGroup var job: JobIDArgument

    func run() async throws { try await connection.act(on: job.id) { try await $0.resume($1) } }
}

struct QueueCancelCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "cancel", abstract: "Cancel a job for good (its partial file is removed).")
    @OptionGroup var connection: QueueConnection
    @OptionGroup var job: JobIDArgument

    func run() async throws { try await connection.act(on: job.id) { try await $0.cancel($1) } }
}
