import ArgumentParser
import Glibc
import ReachCommands
import Reachability
import ReachabilityCore
import ReachabilityTransfers
import Synchronization

struct GetCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "get",
        abstract: "Download files, only while the network allows it; resume what was paused.",
        discussion: """
            Each download waits until the path allows it, pauses the moment it stops allowing it \
            (a size over --max-cellular on cellular, cellular at all with --no-cellular, any \
            metered network with --no-expensive), and resumes with HTTP Range when allowed again, \
            losing no byte. A partial download (DEST.part and DEST.part.json) survives the \
            process: run the same command again to resume it. With --connections N, a server \
            that serves ranges is asked for up to N ranges at once (each resumable); other \
            servers get one connection. Exit codes: 0 every file \
            downloaded, 1 a download failed (network, HTTP status, disk), 2 a checksum did not \
            match, 64 bad usage (bad URL, size or option).
            """)

    @OptionGroup var global: GlobalOptions

    @Argument(help: ArgumentHelp("http:// or https:// URLs.", valueName: "URL"))
    var urls: [String]

    @Option(name: [.customShort("o"), .customLong("output")], help: ArgumentHelp("Destination file (one URL) or directory (several).", valueName: "PATH"))
    var output: String?

    @Option(name: .customLong("max-cellular"), help: ArgumentHelp("Largest download allowed on cellular: 50MB, 1.5GiB, …", valueName: "SIZE"))
    var maxCellular: String?

    @Flag(name: .customLong("no-cellular"), help: "Never download over cellular.")
    var noCellular = false

    @Flag(name: .customLong("no-expensive"), help: "Never download over an expensive (metered) network.")
    var noExpensive = false

    @Option(help: ArgumentHelp("Expected SHA-256 of the file (one URL).", valueName: "HEX"))
    var sha256: String?

    @Flag(name: .customLong("show-sha256"), help: "Compute each file's SHA-256 as it arrives and print it (about 0.6 CPU s per GiB).")
    var showSHA256 = false

    @Option(name: .customLong("ca-file"), help: ArgumentHelp("Also trust the CA certificates in this PEM file.", valueName: "FILE"))
    var caFile: String?

    @Option(name: .customLong("per-host"), help: "Downloads at once from one host.")
    var perHost: Int = 2

    @Option(help: ArgumentHelp("Connections per file (1-16): ranges fetched in parallel from a server that serves them.", valueName: "N"))
    var connections: Int = 1

    @Option(help: ArgumentHelp("Seconds the path must allow again before a paused download resumes.", valueName: "SECONDS"))
    var settle: Double = 2

    @Option(name: .customShort("H"), help: ArgumentHelp("An extra request header, 'Name: value' (repeatable).", valueName: "HEADER"))
    var header: [String] = []

    @Option(help: ArgumentHelp("Consecutive failed attempts without new bytes before giving up (1-1000).", valueName: "N"))
    var retries: Int = 5

    @Option(name: .customLong("retry-max-time"), help: ArgumentHelp("Most seconds spent waiting between attempts, per download.", valueName: "SECONDS"))
    var retryMaxTime: Double = 600

    @Flag(help: "Print JSON lines (progress, pauses, retries, results) instead of a progress display.")
    var json = false

    func validate() throws {
        guard !urls.isEmpty else { throw ValidationError("give at least one URL") }
        for url in urls {
            // The port first: its message is the more precise one.
            try OptionChecks.checkPort(TransferURL.redactingUserinfo(url))
            guard TransferURL(url) == nil else { continue }
            throw ValidationError("not an http:// or https:// URL with a host (and a port in 1-65535): '\(TransferURL.redactingUserinfo(url))'")
        }
        if let maxCellular, ByteCount.parse(maxCellular) == nil {
            throw ValidationError("--max-cellular: not a size: '\(maxCellular)' (examples: 50MB, 700KiB, 1.5GiB)")
        }
        if let sha256 {
            guard urls.count == 1 else { throw ValidationError("--sha256 needs exactly one URL") }
            guard sha256.count == 64, sha256.allSatisfy(\.isHexDigit) else { throw ValidationError("--sha256: expected 64 hex digits, not '\(sha256)'") }
        }
        if output == "-" {
            guard urls.count == 1 else { throw ValidationError("-o - (standard output) takes exactly one URL") }
            guard sha256 == nil else { throw ValidationError("--sha256 cannot check standard output") }
            guard !showSHA256 else { throw ValidationError("--show-sha256 cannot hash standard output (pipe it to sha256sum)") }
        }
        try OptionChecks.check(perHost, option: "--per-host", in: 1...64, unit: "downloads")
        try OptionChecks.check(connections, option: "--connections", in: DownloadRequest.connectionRange, unit: "connections")
        try OptionChecks.check(retries, option: "--retries", in: 1...1000, unit: "attempts")
        _ = try OptionChecks.seconds(settle, option: "--settle")
        _ = try OptionChecks.seconds(retryMaxTime, option: "--retry-max-time")
        _ = try requestHeaders()
        if let caFile {
            // A CA file that cannot be used is a usage error before any traffic (exit 64), not a
            // TLS failure later.
            try OptionChecks.readableFile(caFile, option: "--ca-file", mustContain: "-----BEGIN CERTIFICATE-----", what: "no PEM certificate")
        }
    }

    /// `-H` values as request headers; the downloader's own are refused.
    private func requestHeaders() throws -> [HTTPHeaderField] {
        try OptionChecks.headers(header, reserved: ["range", "if-range", "content-length", "transfer-encoding", "host"])
    }

    private func policy() throws -> TransferPolicy {
        var policy = TransferPolicy(allowsCellular: !noCellular, allowsExpensive: !noExpensive, resumeAfter: try OptionChecks.seconds(settle, option: "--settle"))
        policy.cellularSizeLimit = maxCellular.flatMap(ByteCount.parse)
        return policy
    }

    func run() async throws {
        let monitor: NetworkMonitor
        do { monitor = try global.monitor() } catch { throw failure(error) }
        let downloader = Downloader()
        defer { downloader.shutdown() }
        let engine = TransferEngine(monitor: monitor, downloader: downloader, configuration: .init(perHost: perHost, maxRunning: 64))
        let display = ProgressDisplay(json: json, interactive: !json && isatty(2) == 1, jsonToStandardError: output == "-")
        var session = JobSession(engine: engine, display: display, exitCode: Self.exitCode)
        for (url, job) in try jobs(policy: try policy(), downloader: downloader) {
            session.submit(job.job, name: job.name, url: TransferURL(url)?.redacted ?? url)
        }
        let status = await session.run()
        if status != 0 { throw ExitCode(status) }
    }

    /// The engine's jobs, one per URL: a download into a file, or a stream to standard output.
    private func jobs(policy: TransferPolicy, downloader: Downloader) throws -> [(String, (name: String, job: TransferJob))] {
        let headers = try requestHeaders()
        let maxRetryTime = try OptionChecks.seconds(retryMaxTime, option: "--retry-max-time")
        if output == "-", let url = urls.first {
            let (retries, caFile) = (self.retries, self.caFile)
            let job = TransferJob.work(host: TransferURL(url)?.host, direction: .download, policy: policy) { context in
                let written = Atomic<Int64>(0)
                _ = try await downloader.stream(url, headers: headers, caFile: caFile, maxAttempts: retries) { chunk in
                    try writeStandardOutput(chunk)
                    let total = written.wrappingAdd(Int64(chunk.count), ordering: .relaxed).newValue
                    context.report(JobProgress(completedBytes: total, transferredBytes: total))
                }
            }
            return [(url, ("-", job))]
        }
        return try urls.map { url in
            let path = try destination(for: url)
            let request = DownloadRequest(
                url: url, destination: path, expectedSHA256: sha256, caFile: caFile, maxAttempts: retries, maxRetryTime: maxRetryTime,
                headers: headers, connections: connections, computesSHA256: showSHA256
            )
            return (url, (PathNames.basename(path), TransferJob.download(request, policy: policy)))
        }
    }

    static func exitCode(_ error: TransferError) -> Int32 {
        switch error.kind {
        case .invalidURL, .notWritable, .invalidRequest: 64
        case .checksumMismatch: 2
        default: 1
        }
    }

    private func destination(for url: String) throws -> String {
        let name = TransferURL.fileName(of: url)
        guard let output else { return name }
        if urls.count == 1 && !PathNames.isDirectory(output) { return output }
        guard PathNames.isDirectory(output) else { throw ValidationError("-o \(output): with several URLs, -o must be an existing directory") }
        return output + "/" + name
    }

}
