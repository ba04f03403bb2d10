import ArgumentParser
import FoundationEssentials
import ReachCommands
import ReachabilityCore
import ReachabilityDaemon

/// `reach queue add get|upload|run`.
struct QueueAddCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "add", abstract: "Add a job; prints its id.", subcommands: [AddGetCommand.self, AddUploadCommand.self, AddRunCommand.self])

    @OptionGroup var connection: QueueConnection
}

/// The constraints and scheduling flags every job takes (those of `reach get` and `reach run`).
struct JobOptions: ParsableArguments {
    @Option(help: "any, wifi, wired or unmetered (not expensive).")
    var when: String?

    @Flag(name: .customLong("no-cellular"), help: "Never over cellular.")
    var noCellular = false

    @Flag(name: .customLong("no-expensive"), help: "Never over an expensive (metered) network.")
    var noExpensive = false

    @Option(name: .customLong("max-cellular"), help: ArgumentHelp("The most the job may move over cellular: 50MB, 1.5GiB, …", valueName: "SIZE"))
    var maxCellular: String?

    @Option(help: ArgumentHelp("Seconds the path must allow the job again before it continues.", valueName: "SECONDS"))
    var settle: Double?

    @Option(help: "background, normal or userInitiated.")
    var priority: String?

    @Option(name: .customLong("not-before"), help: ArgumentHelp("Not before this time: 2026-11-24T22:00:00Z, or +30m, +2h, +90s.", valueName: "TIME"))
    var notBefore: String?

    @Option(help: ArgumentHelp("Attempts before the job fails (1-1000, default 5).", valueName: "N"))
    var retries: Int?

    func validate() throws {
        if let when, !QueueConstraints.conditions.contains(when) { throw ValidationError("--when: expected any, wifi, wired or unmetered, not '\(when)'") }
        if let maxCellular, ByteCount.parse(maxCellular) == nil {
            throw ValidationError("--max-cellular: not a size: '\(maxCellular)' (examples: 50MB, 700KiB, 1.5GiB)")
        }
        if let settle { _ = try OptionChecks.seconds(settle, option: "--settle") }
        if let priority, Transfer.Priority(rawValue: priority) == nil {
            throw ValidationError("--priority: expected background, normal or userInitiated, not '\(priority)'")
        }
        if let notBefore, NotBefore.parse(notBefore, now: Date()) == nil {
            throw ValidationError("--not-before: expected an ISO 8601 time (2026-11-24T22:00:00Z) or +N[s|m|h|d], not '\(notBefore)'")
        }
        if let retries { try OptionChecks.check(retries, option: "--retries", in: QueueJobSpec.attemptRange, unit: "attempts") }
    }

    /// A spec of `kind` with these options.
    func spec(_ kind: QueueJobKind) throws -> QueueJobSpec {
        let constraints = QueueConstraints(
            when: when, noCellular: noCellular ? true : nil, noExpensive: noExpensive ? true : nil,
            maxCellularBytes: maxCellular.flatMap(ByteCount.parse),
            settleSeconds: settle)
        return QueueJobSpec(
            kind: kind, constraints: constraints, priority: priority.flatMap(Transfer.Priority.init(rawValue:)),
            notBefore: notBefore.flatMap { NotBefore.parse($0, now: Date()) }, maxAttempts: retries)
    }
}

/// `--not-before`: an absolute time or `+N` with a unit from now.
enum NotBefore {
    static func parse(_ text: String, now: Date) -> Date? {
        guard text.hasPrefix("+") else { return QueueTime.parse(text) }
        let body = text.dropFirst()
        let units: [Character: Double] = ["s": 1, "m": 60, "h": 3600, "d": 86400]
        let unit = body.last.flatMap { units[$0] }
        guard let number = Double(unit == nil ? body : body.dropLast()), number >= 0, number <= 10 * 365 * 86400 else { return nil }
        return now.addingTimeInterval(number * (unit ?? 1))
    }
}

/// Adds `spec` and prints the new job's id.
func addJob(_ spec: QueueJobSpec, connection: QueueConnection) async throws {
    let job = try await connection.withClient { client in
        try await client.add(spec, workingDirectory: FileManager.default.currentDirectoryPath)
    }
    printLine(String(job.id))
}

struct AddGetCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "get", abstract: "Queue a download.")
    @OptionGroup var connection: QueueConnection
    @Argument(help: ArgumentHelp("The http:// or https:// URL.", valueName: "URL")) var url: String
    @Option(name: [.customShort("o"), .customLong("output")], help: ArgumentHelp("Destination file or directory.", valueName: "PATH"))
    var output: String?
    @Option(help: ArgumentHelp("Expected SHA-256 of the file.", valueName: "HEX")) var sha256: String?
    @Option(name: .customShort("H"), help: ArgumentHelp("An extra request header, 'Name: value' (repeatable).", valueName: "HEADER"))
    var header: [String] = []
    @Option(help: ArgumentHelp("Connections per file (1-16).", valueName: "N")) var connections: Int?
    @Option(name: .customLong("ca-file"), help: ArgumentHelp("Also trust the CA certificates in this PEM file.", valueName: "FILE"))
    var caFile: String?
    @OptionGroup var options: JobOptions

    func run() async throws {
        var spec = try options.spec(.download)
        spec.download = DownloadSpec(url: url, destination: output, sha256: sha256, headers: header.isEmpty ? nil : header, connections: connections, caFile: caFile)
        try await addJob(spec, connection: connection)
    }
}

struct AddUploadCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "upload", abstract: "Queue an upload (PUT, multipart form, or tus).")
    @OptionGroup var connection: QueueConnection
    @Argument(help: ArgumentHelp("The file to send.", valueName: "FILE")) var file: String
    @Argument(help: ArgumentHelp("The http:// or https:// URL to send it to.", valueName: "URL")) var url: String
    @Option(help: ArgumentHelp("Send multipart/form-data with the file in this form field.", valueName: "FIELD")) var form: String?
    @Option(name: .customShort("H"), help: ArgumentHelp("An extra request header, 'Name: value' (repeatable).", valueName: "HEADER"))
    var header: [String] = []
    @Option(name: .customLong("ca-file"), help: ArgumentHelp("Also trust the CA certificates in this PEM file.", valueName: "FILE"))
    var caFile: String?
    @OptionGroup var options: JobOptions

    func run() async throws {
        var spec = try options.spec(.upload)
        spec.upload = UploadSpec(file: file, url: url, form: form, headers: header.isEmpty ? nil : header, caFile: caFile)
        try await addJob(spec, connection: connection)
    }
}

struct AddRunCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run", abstract: "Queue a command, run while the constraints hold (output in the daemon's logs/job-ID.log).")
    @OptionGroup var connection: QueueConnection
    @Option(name: .customLong("on-disallow"), help: "suspend (SIGSTOP/SIGCONT, default) or terminate (SIGTERM, SIGKILL after --kill-after).")
    var onDisallow: String?
    @Option(name: .customLong("kill-after"), help: ArgumentHelp("Seconds from SIGTERM to SIGKILL (0-3600, default 10).", valueName: "SECONDS"))
    var killAfter: Double?
    @OptionGroup var options: JobOptions
    @Argument(parsing: .captureForPassthrough, help: ArgumentHelp("The command and its arguments, after --.", valueName: "COMMAND"))
    var command: [String] = []

    func validate() throws {
        if let onDisallow, onDisallow != "suspend" && onDisallow != "terminate" { throw ValidationError("--on-disallow: suspend or terminate") }
        if let killAfter, !(0...3600).contains(killAfter) { throw ValidationError("--kill-after must be from 0 to 3600 seconds, not \(killAfter)") }
        guard !arguments.isEmpty else { throw ValidationError("give the command after --") }
    }

    private var arguments: [String] { command.first == "--" ? Array(command.dropFirst()) : command }

    func run() async throws {
        var spec = try options.spec(.command)
        spec.command = CommandSpec(arguments: arguments, onDisallow: onDisallow, killAfterSeconds: killAfter)
        try await addJob(spec, connection: connection)
    }
}
