public import FoundationEssentials
public import ReachabilityCore

/// A job as submitted to the daemon: what to do (download, upload or command) and under which
/// network constraints. This is the JSON of `POST /v1/jobs` and of a job's `spec`.
public struct QueueJobSpec: Codable, Sendable, Hashable {
    /// `download`, `upload` or `command`; says which of the three payloads is set.
    public var kind: QueueJobKind
    /// For a download: what to fetch and where to.
    public var download: DownloadSpec?
    /// For an upload: what to send and where to.
    public var upload: UploadSpec?
    /// For a command: what to run.
    public var command: CommandSpec?
    /// The networks the job may use.
    public var constraints: QueueConstraints
    /// `background`, `normal` (the default) or `userInitiated` (may exceed the size limits).
    public var priority: Transfer.Priority?
    /// Not started before this time (iOS's `earliestBeginDate`).
    public var notBefore: Date?
    /// Attempts before the job fails: a transfer's consecutive failed attempts without new
    /// bytes, a command's runs that exit non-zero. 1–1000; 5 by default.
    public var maxAttempts: Int?

    /// A spec given field by field.
    public init(
        kind: QueueJobKind, download: DownloadSpec? = nil, upload: UploadSpec? = nil, command: CommandSpec? = nil,
        constraints: QueueConstraints = QueueConstraints(), priority: Transfer.Priority? = nil, notBefore: Date? = nil, maxAttempts: Int? = nil
    ) {
        self.kind = kind
        self.download = download
        self.upload = upload
        self.command = command
        self.constraints = constraints
        self.priority = priority
        self.notBefore = notBefore
        self.maxAttempts = maxAttempts
    }

    private enum CodingKeys: String, CodingKey, CaseIterable {
        case kind, download, upload, command, constraints, priority, notBefore, maxAttempts
    }

    /// Decodes a spec; a missing `constraints` means any network. In a request body (see
    /// ``QueueJSON/decode(_:from:rejectingUnknownFields:)``) an unknown key, here or in a
    /// nested object, is an error naming it.
    public init(from decoder: any Decoder) throws {
        try QueueJSON.rejectUnknownKeys(CodingKeys.self, in: decoder)
        let container = try decoder.container(keyedBy: CodingKeys.self)
        if container.contains(.download), try !container.decodeNil(forKey: .download) { try QueueJSON.rejectUnknownKeys(DownloadSpec.CodingKeys.self, in: container.superDecoder(forKey: .download)) }
        if container.contains(.upload), try !container.decodeNil(forKey: .upload) { try QueueJSON.rejectUnknownKeys(UploadSpec.CodingKeys.self, in: container.superDecoder(forKey: .upload)) }
        if container.contains(.command), try !container.decodeNil(forKey: .command) { try QueueJSON.rejectUnknownKeys(CommandSpec.CodingKeys.self, in: container.superDecoder(forKey: .command)) }
        if container.contains(.constraints), try !container.decodeNil(forKey: .constraints) {
            try QueueJSON.rejectUnknownKeys(QueueConstraints.CodingKeys.self, in: container.superDecoder(forKey: .constraints))
        }
        kind = try container.decode(QueueJobKind.self, forKey: .kind)
        download = try container.decodeIfPresent(DownloadSpec.self, forKey: .download)
        upload = try container.decodeIfPresent(UploadSpec.self, forKey: .upload)
        command = try container.decodeIfPresent(CommandSpec.self, forKey: .command)
        constraints = try container.decodeIfPresent(QueueConstraints.self, forKey: .constraints) ?? QueueConstraints()
        priority = try container.decodeIfPresent(Transfer.Priority.self, forKey: .priority)
        notBefore = try container.decodeIfPresent(Date.self, forKey: .notBefore)
        maxAttempts = try container.decodeIfPresent(Int.self, forKey: .maxAttempts)
    }

    /// Attempts allowed when the spec does not say.
    public static let defaultMaxAttempts = 5
    /// The range ``maxAttempts`` must be in.
    public static let attemptRange: ClosedRange<Int> = 1...1000
}

/// Which kind of work a queued job is. A struct, so kinds can be added.
public struct QueueJobKind: RawRepresentable, Codable, Sendable, Hashable, CustomStringConvertible {
    /// The JSON token.
    public let rawValue: String
    /// A kind from its JSON token.
    public init(rawValue: String) { self.rawValue = rawValue }
    /// An HTTP download into a file.
    public static let download = QueueJobKind(rawValue: "download")
    /// An HTTP upload of a file (PUT, multipart form or tus).
    public static let upload = QueueJobKind(rawValue: "upload")
    /// A command, run while the constraints hold.
    public static let command = QueueJobKind(rawValue: "command")
    public var description: String { rawValue }
}

/// What a download job fetches.
public struct DownloadSpec: Codable, Sendable, Hashable {
    /// The `http://` or `https://` URL.
    public var url: String
    /// The destination file (absolute once accepted), or an existing directory to put the
    /// URL's file name in.
    public var destination: String?
    /// The expected SHA-256, 64 hex digits.
    public var sha256: String?
    /// Extra request headers, `Name: value`.
    public var headers: [String]?
    /// Connections to fetch ranges on (1–16).
    public var connections: Int?
    /// A PEM file of extra CA certificates to trust.
    public var caFile: String?

    enum CodingKeys: String, CodingKey, CaseIterable { case url, destination, sha256, headers, connections, caFile }

    /// A download given field by field.
    public init(url: String, destination: String? = nil, sha256: String? = nil, headers: [String]? = nil, connections: Int? = nil, caFile: String? = nil) {
        self.url = url
        self.destination = destination
        self.sha256 = sha256
        self.headers = headers
        self.connections = connections
        self.caFile = caFile
    }
}

/// What an upload job sends.
public struct UploadSpec: Codable, Sendable, Hashable {
    /// The file to send (a regular file).
    public var file: String
    /// The `http://` or `https://` URL to send it to.
    public var url: String
    /// Send a multipart form with the file in this field; nil: PUT, or tus when the server
    /// speaks it.
    public var form: String?
    /// Extra request headers, `Name: value`.
    public var headers: [String]?
    /// A PEM file of extra CA certificates to trust.
    public var caFile: String?

    enum CodingKeys: String, CodingKey, CaseIterable { case file, url, form, headers, caFile }

    /// An upload given field by field.
    public init(file: String, url: String, form: String? = nil, headers: [String]? = nil, caFile: String? = nil) {
        self.file = file
        self.url = url
        self.form = form
        self.headers = headers
        self.caFile = caFile
    }
}

/// What a command job runs.
public struct CommandSpec: Codable, Sendable, Hashable {
    /// The command and its arguments; the first is looked up on the daemon's `PATH`.
    public var arguments: [String]
    /// The directory it runs in (the client's working directory by default).
    public var workingDirectory: String?
    /// `suspend` (SIGSTOP/SIGCONT, the default) or `terminate` (SIGTERM, then SIGKILL after
    /// ``killAfterSeconds``, and a fresh run when allowed again).
    public var onDisallow: String?
    /// Seconds between SIGTERM and SIGKILL (0–3600; 10 by default).
    public var killAfterSeconds: Double?

    enum CodingKeys: String, CodingKey, CaseIterable { case arguments, workingDirectory, onDisallow, killAfterSeconds }

    /// A command given field by field.
    public init(arguments: [String], workingDirectory: String? = nil, onDisallow: String? = nil, killAfterSeconds: Double? = nil) {
        self.arguments = arguments
        self.workingDirectory = workingDirectory
        self.onDisallow = onDisallow
        self.killAfterSeconds = killAfterSeconds
    }
}

/// The networks a queued job may use: the flags of `reach get` and `reach run --when`.
public struct QueueConstraints: Codable, Sendable, Hashable {
    /// `any` (the default), `wifi`, `wired` or `unmetered`.
    public var when: String?
    /// Never over cellular.
    public var noCellular: Bool?
    /// Never over an expensive (metered) network.
    public var noExpensive: Bool?
    /// The most bytes the job may move over cellular.
    public var maxCellularBytes: Int64?
    /// Seconds the path must allow the job again before a paused job continues.
    public var settleSeconds: Double?

    enum CodingKeys: String, CodingKey, CaseIterable { case when, noCellular, noExpensive, maxCellularBytes, settleSeconds }

    /// Constraints given field by field; by default any network.
    public init(when: String? = nil, noCellular: Bool? = nil, noExpensive: Bool? = nil, maxCellularBytes: Int64? = nil, settleSeconds: Double? = nil) {
        self.when = when
        self.noCellular = noCellular
        self.noExpensive = noExpensive
        self.maxCellularBytes = maxCellularBytes
        self.settleSeconds = settleSeconds
    }

    /// The values `when` accepts.
    public static let conditions = ["any", "wifi", "wired", "unmetered"]
}
