public import FoundationEssentials
public import ReachabilityTransfers

/// A job in the daemon's queue, as `GET /v1/jobs/{id}` returns it and the event stream
/// carries it.
public struct QueueJob: Codable, Sendable, Hashable, Identifiable {
    /// The job's id (its row in the queue database): positive, never reused.
    public var id: Int64
    /// What was submitted, with credentials shown as `***`.
    public var spec: QueueJobSpec
    /// Where the job stands.
    public var state: JobStatus
    /// Why it is paused or failed; nil otherwise.
    public var reason: JobReason?
    /// Bytes done and moved.
    public var progress: QueueProgress
    /// The network it runs on, while it runs (`wifi via wlan0`).
    public var network: String?
    /// Runs started so far (a daemon restart or a user pause counts a new one).
    public var attempts: Int
    /// What it produced, once succeeded.
    public var result: QueueResult?
    /// When it was added.
    public var createdAt: Date
    /// When its state, reason or progress last changed.
    public var updatedAt: Date
    /// When it succeeded, failed or was cancelled.
    public var finishedAt: Date?

    /// A job given field by field.
    public init(
        id: Int64, spec: QueueJobSpec, state: JobStatus, reason: JobReason? = nil, progress: QueueProgress = QueueProgress(),
        network: String? = nil, attempts: Int = 0, result: QueueResult? = nil, createdAt: Date, updatedAt: Date, finishedAt: Date? = nil
    ) {
        self.id = id
        self.spec = spec
        self.state = state
        self.reason = reason
        self.progress = progress
        self.network = network
        self.attempts = attempts
        self.result = result
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.finishedAt = finishedAt
    }
}

/// A queued job's bytes.
public struct QueueProgress: Codable, Sendable, Hashable {
    /// Bytes done: on disk for a download, acknowledged for an upload.
    public var completedBytes: Int64
    /// The whole size, once known.
    public var totalBytes: Int64?
    /// Bytes moved over the network by this job, in all its runs.
    public var transferredBytes: Int64

    /// Progress given field by field.
    public init(completedBytes: Int64 = 0, totalBytes: Int64? = nil, transferredBytes: Int64 = 0) {
        self.completedBytes = completedBytes
        self.totalBytes = totalBytes
        self.transferredBytes = transferredBytes
    }
}

/// What a succeeded job produced.
public struct QueueResult: Codable, Sendable, Hashable {
    /// A download's file.
    public var path: String?
    /// Bytes of the file downloaded or uploaded.
    public var bytes: Int64?
    /// The file's SHA-256 (downloads).
    public var sha256: String?
    /// A command's exit status.
    public var exitStatus: Int32?

    /// A result given field by field.
    public init(path: String? = nil, bytes: Int64? = nil, sha256: String? = nil, exitStatus: Int32? = nil) {
        self.path = path
        self.bytes = bytes
        self.sha256 = sha256
        self.exitStatus = exitStatus
    }
}
