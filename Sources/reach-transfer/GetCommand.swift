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
            process: run the same command again to resume it. Exit codes: 0 every file \
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

    @Option(name: .customLong("ca-file"), help: ArgumentHelp("Also trust the CA certificates in this PEM file.", valueName: "FILE"))
    var caFile: String?

    @Option(name: .customLong("per-host"), help: "Downloads at once from one host.")
    var perHost: Int = 2

    @Option(help: ArgumentHelp("Seconds the path must allow again before a paused download resumes.", valueName: "SECONDS"))
    var settle: Double = 2

    @Flag(help: "Print JSON lines (progress, pauses, results) instead of a progress display.")
    var json = false

    func validate() throws {
        guard !urls.isEmpty else { throw ValidationError("give at least one URL") }
        for url in urls where !(url.hasPrefix("http://") || url.hasPrefix("https://")) || url.count < 10 {
            throw ValidationError("not an http:// or https:// URL: '\(url)'")
        }
        if let maxCellular, ByteCount.parse(maxCellular) == nil {
            throw ValidationError("--max-cellular: not a size: '\(maxCellular)' (examples: 50MB, 700KiB, 1.5GiB)")
        }
        if let sha256 {
            guard urls.count == 1 else { throw ValidationError("--sha256 needs exactly one URL") }
            guard sha256.count == 64, sha256.allSatisfy(\.isHexDigit) else { throw ValidationError("--sha256: expected 64 hex digits, not '\(sha256)'") }
        }
        try OptionChecks.check(perHost, option: "--per-host", in: 1...64, unit: "downloads")
        _ = try OptionChecks.seconds(settle, option: "--settle")
        if let caFile {
            // A CA file that cannot be used is a usage error before any traffic (exit 64), not a
            // TLS failure later.
            try OptionChecks.readableFile(caFile, option: "--ca-file", mustContain: "-----BEGIN CERTIFICATE-----", what: "no PEM certificate")
        }
        for url in urls { try OptionChecks.checkPort(url) }
    }

    func run() async throws {
        var policy = TransferPolicy(allowsCellular: !noCellular, allowsExpensive: !noExpensive, resumeAfter: try OptionChecks.seconds(settle, option: "--settle"))
        policy.cellularSizeLimit = maxCellular.flatMap(ByteCount.parse)
        let monitor: NetworkMonitor
        do { monitor = NetworkMonitor(configuration: try global.monitorConfiguration()) } catch { throw failure(error) }
        let gate = TransferGate(monitor: monitor, policy: policy)
        let downloader = Downloader()
        defer { downloader.shutdown() }
        let display = ProgressDisplay(json: json, interactive: !json && isatty(2) == 1)
        let limiter = HostLimiter(perHost: perHost)

        let jobs = try urls.map { url in (url, try destination(for: url)) }
        let outcomes = await withTaskGroup(of: Int32.self, returning: [Int32].self) { group in
            for (url, path) in jobs {
                group.addTask {
                    await limiter.run(host: Self.host(of: url)) {
                        await download(url: url, to: path, gate: gate, downloader: downloader, display: display)
                    }
                }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        let worst = outcomes.max() ?? 0
        if worst != 0 { throw ExitCode(worst) }
    }

    /// One download through the gate; returns its exit code.
    private func download(url: String, to path: String, gate: TransferGate, downloader: Downloader, display: ProgressDisplay) async -> Int32 {
        let name = PathNames.basename(path)
        do {
            // The size decides the size limits; a server that does not say is "unknown size".
            let resource = try? await downloader.probe(url)
            let transfer = Transfer(direction: .download, expectedBytes: resource?.size)
            let request = DownloadRequest(url: url, destination: path, expectedSHA256: sha256, caFile: caFile)
            let result = try await gate.run(transfer, onEvent: { display.gateEvent(name: name, url: url, $0) }) {
                try await downloader.download(request) { display.progress(name: name, url: url, $0) }
            }
            display.done(name: name, url: url, result)
            return 0
        } catch let error as TransferError {
            display.failed(name: name, url: url, error.description)
            switch error.kind {
            case .invalidURL, .notWritable: return 64
            case .checksumMismatch: return 2
            default: return 1
            }
        } catch {
            display.failed(name: name, url: url, "\(error)")
            return 1
        }
    }

    private func destination(for url: String) throws -> String {
        let name = FileNames.fromURL(url)
        guard let output else { return name }
        if urls.count == 1 && !PathNames.isDirectory(output) { return output }
        guard PathNames.isDirectory(output) else { throw ValidationError("-o \(output): with several URLs, -o must be an existing directory") }
        return output + "/" + name
    }

    static func host(of url: String) -> String {
        let rest = url.split(separator: "/", maxSplits: 3, omittingEmptySubsequences: false)
        return rest.count > 2 ? String(rest[2]) : url
    }
}

enum FileNames {
    /// The last path component of a URL, without query or fragment; `index.html` when empty.
    static func fromURL(_ url: String) -> String {
        let withoutQuery = url.split(separator: "?", maxSplits: 1).first.map(String.init) ?? url
        let withoutFragment = withoutQuery.split(separator: "#", maxSplits: 1).first.map(String.init) ?? withoutQuery
        let parts = withoutFragment.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count > 3, let last = parts.last, !last.isEmpty, last != ".", last != ".." else { return "index.html" }
        return String(last)
    }
}

/// At most `perHost` downloads at once per host; the rest queue in order.
actor HostLimiter {
    private let perHost: Int
    private var active: [String: Int] = [:]
    private var waiting: [String: [CheckedContinuation<Void, Never>]] = [:]

    init(perHost: Int) { self.perHost = perHost }

    func run<T: Sendable>(host: String, _ body: @Sendable () async -> T) async -> T {
        if active[host, default: 0] >= perHost {
            await withCheckedContinuation { waiting[host, default: []].append($0) }
        } else {
            active[host, default: 0] += 1
        }
        let result = await body()
        if var queue = waiting[host], !queue.isEmpty {
            let next = queue.removeFirst()
            waiting[host] = queue
            next.resume()
        } else {
            active[host, default: 1] -= 1
        }
        return result
    }
}
