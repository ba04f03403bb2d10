import FoundationEssentials
import ReachabilityCore
import ReachabilityTransfers

/// A job the queue accepted: the spec it runs (paths absolute, credentials intact) and the spec
/// it stores and shows (credentials as `***`, never on disk).
struct AcceptedJob: Sendable {
    /// What runs, in this process only.
    var spec: QueueJobSpec
    /// What is written to the database and shown.
    var stored: QueueJobSpec
    /// The two differ: after a restart the job cannot run again without its credentials.
    var hasSecrets: Bool { spec != stored }
}

extension QueueJobSpec {
    /// Checks every field and resolves relative paths against `workingDirectory` (the client's,
    /// absolute); nothing touches the network.
    func accepted(workingDirectory: String?) throws(QueueError) -> AcceptedJob {
        var spec = self
        try spec.checkCommon()
        let resolve = try PathResolver(workingDirectory: workingDirectory)
        switch kind {
        case .download:
            guard var download, upload == nil, command == nil else { throw .invalidJob("a download job needs \"download\" and nothing else") }
            try download.check(resolve)
            spec.download = download
        case .upload:
            guard var upload, download == nil, command == nil else { throw .invalidJob("an upload job needs \"upload\" and nothing else") }
            try upload.check(resolve)
            spec.upload = upload
        case .command:
            guard var command, download == nil, upload == nil else { throw .invalidJob("a command job needs \"command\" and nothing else") }
            try command.check(resolve)
            spec.command = command
        default:
            throw .invalidJob("unknown job kind '\(kind.rawValue.prefix(40))' (download, upload or command)")
        }
        return AcceptedJob(spec: spec, stored: spec.redacted())
    }

    private func checkCommon() throws(QueueError) {
        if let maxAttempts, !Self.attemptRange.contains(maxAttempts) {
            throw .invalidJob("maxAttempts: \(maxAttempts) is not in \(Self.attemptRange.lowerBound)-\(Self.attemptRange.upperBound)")
        }
        if let when = constraints.when, !QueueConstraints.conditions.contains(when) {
            throw .invalidJob("when: '\(when.prefix(40))' is not one of any, wifi, wired, unmetered")
        }
        if let limit = constraints.maxCellularBytes, limit < 0 { throw .invalidJob("maxCellularBytes: \(limit) is negative") }
        if let settle = constraints.settleSeconds, !(settle >= 0 && settle <= 1_000_000_000) {
            throw .invalidJob("settleSeconds: \(settle) is not in 0-1000000000")
        }
    }

    /// The network policy of `reach get` / `reach run --when` these constraints describe.
    var policy: TransferPolicy {
        var policy: TransferPolicy =
            switch constraints.when {
            case "wifi": .wifiOnly
            case "wired": .wiredOnly
            case "unmetered": .unmetered
            default: .any
            }
        if constraints.noCellular == true { policy.allowsCellular = false }
        if constraints.noExpensive == true { policy.allowsExpensive = false }
        policy.cellularSizeLimit = constraints.maxCellularBytes
        if let settle = constraints.settleSeconds { policy.resumeAfter = .milliseconds(Int64(settle * 1000)) }
        return policy
    }

    /// The spec with URL credentials and secret header values replaced by `***`.
    func redacted() -> QueueJobSpec {
        var spec = self
        if let download {
            spec.download?.url = TransferURL(download.url)?.redacted ?? download.url
            spec.download?.headers = download.headers.map(Self.redacting)
        }
        if let upload {
            spec.upload?.url = TransferURL(upload.url)?.redacted ?? upload.url
            spec.upload?.headers = upload.headers.map(Self.redacting)
        }
        return spec
    }

    /// Headers with the values of credential-bearing fields replaced by `***`.
    static func redacting(_ headers: [String]) -> [String] {
        headers.map { line in
            guard let field = HTTPHeaderField.parse(line), TransferURL.isCredentialHeader(field.name) else { return line }
            return field.name + ": ***"
        }
    }
}

/// Makes paths absolute against the client's working directory.
struct PathResolver {
    let workingDirectory: String?

    init(workingDirectory: String?) throws(QueueError) {
        // Bytes, not characters: "/" followed by a combining mark is one Character.
        if let workingDirectory, workingDirectory.utf8.first != 0x2F {
            throw .invalidJob("workingDirectory: '\(workingDirectory.prefix(200))' is not absolute")
        }
        self.workingDirectory = workingDirectory
    }

    func callAsFunction(_ path: String, field: String) throws(QueueError) -> String {
        guard !path.isEmpty, path.utf8.count <= 4096, !path.utf8.contains(0) else { throw .invalidJob("\(field): not a usable path") }
        if path.utf8.first == 0x2F { return path }
        guard let workingDirectory else { throw .invalidJob("\(field): '\(path.prefix(200))' is relative and no workingDirectory was sent") }
        return (workingDirectory.hasSuffix("/") ? workingDirectory : workingDirectory + "/") + path
    }
}

extension DownloadSpec {
    /// 0-9, a-f, A-F: Unicode's other hex digits (fullwidth `０`) can never match a digest.
    static func isASCIIHex(_ byte: UInt8) -> Bool {
        (0x30...0x39).contains(byte) || (0x41...0x46).contains(byte) || (0x61...0x66).contains(byte)
    }

    static let reservedHeaders: Set<String> = ["range", "if-range", "content-length", "transfer-encoding", "host"]

    mutating func check(_ resolve: PathResolver) throws(QueueError) {
        guard let parsed = TransferURL(url) else {
            throw .invalidJob("url: not an http:// or https:// URL with a host (and a port in 1-65535): '\(TransferURL.redactingUserinfo(String(url.prefix(300))))'")
        }
        if let sha256, !(sha256.utf8.count == 64 && sha256.utf8.allSatisfy(Self.isASCIIHex)) { throw .invalidJob("sha256: expected 64 hex digits") }
        if let connections, !DownloadRequest.connectionRange.contains(connections) {
            throw .invalidJob("connections: \(connections) is not in 1-16")
        }
        _ = try QueueHeaders.parse(headers ?? [], reserved: Self.reservedHeaders)
        if let caFile { self.caFile = try resolve(caFile, field: "caFile") }
        let target = try resolve(destination ?? TransferURL.fileName(of: parsed.requestURL), field: "destination")
        var isDirectory = false
        if FileManager.default.fileExists(atPath: target, isDirectory: &isDirectory), isDirectory {
            destination = (target.hasSuffix("/") ? target : target + "/") + TransferURL.fileName(of: parsed.requestURL)
        } else {
            destination = target
        }
    }
}

extension UploadSpec {
    static let reservedHeaders: Set<String> = ["content-length", "transfer-encoding", "host"]

    mutating func check(_ resolve: PathResolver) throws(QueueError) {
        guard TransferURL(url) != nil else {
            throw .invalidJob("url: not an http:// or https:// URL with a host (and a port in 1-65535): '\(TransferURL.redactingUserinfo(String(url.prefix(300))))'")
        }
        if let form, form.isEmpty || form.unicodeScalars.count > 200 { throw .invalidJob("form: needs a field name (at most 200 characters)") }
        _ = try QueueHeaders.parse(headers ?? [], reserved: Self.reservedHeaders)
        file = try resolve(file, field: "file")
        if let caFile { self.caFile = try resolve(caFile, field: "caFile") }
    }
}

extension CommandSpec {
    mutating func check(_ resolve: PathResolver) throws(QueueError) {
        guard let program = arguments.first, !program.isEmpty else { throw .invalidJob("command: needs a command (arguments[0])") }
        guard arguments.count <= 4096, !arguments.contains(where: { $0.utf8.contains(0) }) else { throw .invalidJob("command: unusable arguments") }
        if let onDisallow, onDisallow != "suspend" && onDisallow != "terminate" {
            throw .invalidJob("onDisallow: '\(onDisallow.prefix(40))' is not suspend or terminate")
        }
        if let killAfterSeconds, !(killAfterSeconds >= 0 && killAfterSeconds <= 3600) {
            throw .invalidJob("killAfterSeconds: \(killAfterSeconds) is not in 0-3600")
        }
        if let workingDirectory {
            self.workingDirectory = try resolve(workingDirectory, field: "workingDirectory")
        } else {
            self.workingDirectory = resolve.workingDirectory
        }
    }
}

/// `Name: value` header lines.
enum QueueHeaders {
    static func parse(_ lines: [String], reserved: Set<String>) throws(QueueError) -> [HTTPHeaderField] {
        guard lines.count <= 100 else { throw .invalidJob("headers: at most 100") }
        var fields: [HTTPHeaderField] = []
        for line in lines {
            guard let field = HTTPHeaderField.parse(line) else {
                throw .invalidJob("headers: expected 'Name: value' (a token name, no control characters in the value)")
            }
            guard !reserved.contains(field.name.lowercased()) else { throw .invalidJob("headers: \(field.name) is set by reach itself") }
            fields.append(field)
        }
        return fields
    }
}
