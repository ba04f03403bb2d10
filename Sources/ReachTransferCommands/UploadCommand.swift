import ArgumentParser
import FoundationEssentials
import Glibc
import ReachCommands
import Reachability
import ReachabilityCore
import ReachabilityTransfers

struct UploadCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "upload",
        abstract: "Upload a file, only while the network allows it; resume tus uploads where they stopped.",
        discussion: """
            Sends FILE with PUT, or with --form FIELD as multipart/form-data (POST, like curl -F \
            FIELD=@FILE). A server that speaks tus 1.0 (asked with OPTIONS) gets a resumable \
            upload instead of the PUT: pausing, a kill or a crash leaves a resume record in \
            --state-dir, and the same command continues from the server's offset, sending no \
            byte twice (--no-tus sends the PUT without asking; a server that answers OPTIONS with 405 or \
            501 gets the PUT at once). The upload waits while the path does not allow it and pauses the moment \
            it stops allowing it (--max-cellular, --no-cellular, --no-expensive). \
            user:password@ in the URL is sent as HTTP Basic and never printed. Exit codes: 0 \
            uploaded, 1 failed (network, HTTP status), 64 bad usage (a FILE that is missing, \
            unreadable or not a regular file, a bad URL, header or size).
            """)

    @OptionGroup var global: GlobalOptions

    @Argument(help: ArgumentHelp("The file to send (a regular file).", valueName: "FILE"))
    var file: String

    @Argument(help: ArgumentHelp("http:// or https:// URL to send it to.", valueName: "URL"))
    var url: String

    @Option(help: ArgumentHelp("Send multipart/form-data with the file in this form field.", valueName: "FIELD"))
    var form: String?

    @Flag(name: .customLong("no-tus"), help: "Send a plain PUT (or the --form POST) without asking the server for tus first.")
    var noTus = false

    @Option(name: .customShort("H"), help: ArgumentHelp("Extra request header 'Name: value'. Repeatable.", valueName: "HEADER"))
    var headers: [String] = []

    @Option(name: .customLong("max-cellular"), help: ArgumentHelp("Largest upload allowed on cellular: 50MB, 1.5GiB, …", valueName: "SIZE"))
    var maxCellular: String?

    @Flag(name: .customLong("no-cellular"), help: "Never upload over cellular.")
    var noCellular = false

    @Flag(name: .customLong("no-expensive"), help: "Never upload over an expensive (metered) network.")
    var noExpensive = false

    @Option(help: ArgumentHelp("Seconds the path must allow again before a paused upload resumes.", valueName: "SECONDS"))
    var settle: Double = 2

    @Option(name: .customLong("ca-file"), help: ArgumentHelp("Also trust the CA certificates in this PEM file.", valueName: "FILE"))
    var caFile: String?

    @Option(
        name: .customLong("state-dir"),
        help: ArgumentHelp("Where tus resume records are kept (default $XDG_STATE_HOME/reach/uploads).", valueName: "DIR"))
    var stateDir: String?

    @Flag(help: "Print JSON lines (progress, pauses, the result) instead of a progress display.")
    var json = false

    func validate() throws {
        // Messages show the URL without its credentials.
        let shown = UploadRequest(file: file, url: url).redactedURL
        guard url.hasPrefix("http://") || url.hasPrefix("https://"), url.count >= 10 else {
            throw ValidationError("not an http:// or https:// URL: '\(shown)'")
        }
        try OptionChecks.checkPort(shown)
        _ = try parsedHeaders()
        if let form, form.isEmpty { throw ValidationError("--form needs a field name") }
        if let maxCellular, ByteCount.parse(maxCellular) == nil {
            throw ValidationError("--max-cellular: not a size: '\(maxCellular)' (examples: 50MB, 700KiB, 1.5GiB)")
        }
        _ = try OptionChecks.seconds(settle, option: "--settle")
        if let caFile {
            try OptionChecks.readableFile(caFile, option: "--ca-file", mustContain: "-----BEGIN CERTIFICATE-----", what: "no PEM certificate")
        }
    }

    /// `-H` values: a token name, a colon, a value without CR or LF. `Content-Length` and
    /// `Transfer-Encoding` describe the body, which reach frames itself.
    private func parsedHeaders() throws -> [HTTPHeaderField] {
        try OptionChecks.headers(headers, reserved: ["content-length", "transfer-encoding"])
    }

    func run() async throws {
        let request: UploadRequest
        do {
            request = UploadRequest(
                file: file, url: url, mode: form.map { .form(field: $0) } ?? (noTus ? .put : .automatic), headers: try parsedHeaders(), caFile: caFile,
                stateDirectory: try stateDirectory())
        } catch {
            throw failure(error)
        }
        var policy = TransferPolicy(allowsCellular: !noCellular, allowsExpensive: !noExpensive, resumeAfter: try OptionChecks.seconds(settle, option: "--settle"))
        policy.cellularSizeLimit = maxCellular.flatMap(ByteCount.parse)
        let monitor: NetworkMonitor
        do { monitor = try global.monitor() } catch { throw failure(error) }
        let downloader = Downloader()
        defer { downloader.shutdown() }
        let engine = TransferEngine(monitor: monitor, downloader: downloader)
        let display = ProgressDisplay(json: json, interactive: !json && isatty(2) == 1, direction: .upload)
        var session = JobSession(engine: engine, display: display) { $0.kind == .invalidURL ? 64 : 1 }
        // Refused before any traffic (a FILE that is missing or not a regular file): usage, and
        // the file's own problem says it all ("/x is a FIFO, not a regular file").
        session.submit(.upload(request, policy: policy), name: PathNames.basename(file), url: request.redactedURL) { error in
            (64, error.kind == .io && !error.detail.isEmpty ? error.detail : error.description)
        }
        let status = await session.run()
        if status != 0 { throw ExitCode(status) }
    }

    /// `--state-dir`, else `$XDG_STATE_HOME/reach/uploads`, else `~/.local/state/reach/uploads`;
    /// the default's parents are created (mode 0700) here, the directory by the uploader.
    private func stateDirectory() throws -> String {
        if let stateDir { return stateDir }
        let environment = ProcessInfo.processInfo.environment
        let base = environment["XDG_STATE_HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil }
            ?? (environment["HOME"] ?? FileManager.default.homeDirectoryForCurrentUser.path) + "/.local/state"
        let parent = base + "/reach"
        do {
            try FileManager.default.createDirectory(atPath: parent, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw UsageFailure(message: "cannot create the state directory \(parent): \(error)")
        }
        return parent + "/uploads"
    }
}
