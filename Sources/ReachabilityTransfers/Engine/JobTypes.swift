import ReachabilityCore
public import Reachability
/// A job's identity within a ``TransferEngine``.
public struct JobID: Sendable, Hashable, Comparable, Codable, CustomStringConvertible {
    /// The number behind the id.
    public let rawValue: Int64

    /// An id of the caller's choosing (a database row's), for ``TransferEngine/submit(_:id:)``.
    public init(_ rawValue: Int64) { self.rawValue = rawValue }

    public static func < (lhs: JobID, rhs: JobID) -> Bool { lhs.rawValue < rhs.rawValue }

    public var description: String { String(rawValue) }
}

/// Where a job stands, modelled on Android DownloadManager's status and reason.
public enum JobState: Sendable, Hashable, CustomStringConvertible {
    /// Accepted; waiting for its turn (a free slot for its host) or for its first judgement.
    case queued
    /// The network does not allow it: the reason names the predicate that fails.
    case waiting(TransferWaitReason)
    /// The network allows it and it holds a host slot: its work is running.
    case running
    /// Stopped for a reason outside the network policy: by the user, or between attempts.
    case paused(JobPauseReason)
    /// Finished: the download's or upload's result is in the ``JobEvent``.
    case succeeded
    /// Given up, for the error's reason (retries exhausted, or a failure retrying cannot fix).
    case failed(TransferError)
    /// Stopped for good by ``TransferEngine/cancel(_:)``; a download's partial file is removed.
    case cancelled

    /// Succeeded, failed or cancelled: nothing more happens to the job.
    public var isFinal: Bool {
        switch self {
        case .succeeded, .failed, .cancelled: true
        default: false
        }
    }

    public var description: String {
        switch self {
        case .queued: "queued"
        case .waiting(let reason): "waiting: \(reason)"
        case .running: "running"
        case .paused(let reason): "paused: \(reason)"
        case .succeeded: "succeeded"
        case .failed(let error): "failed: \(error)"
        case .cancelled: "cancelled"
        }
    }
}

/// Why a job is paused. A struct over a private code, so reasons can be added.
public struct JobPauseReason: Sendable, Hashable, CustomStringConvertible {
    private enum Code: Hashable {
        case byUser
        case retrying(after: Duration, cause: String)
        case shutdown
    }

    private let code: Code

    /// ``TransferEngine/pause(_:)`` was called.
    public static let byUser = JobPauseReason(code: .byUser)

    /// ``TransferEngine/shutdown()`` stopped the job (as a pause: a download's partial file is
    /// kept); a new engine can take it up again.
    public static let shutdown = JobPauseReason(code: .shutdown)

    /// Waiting `after` before the next attempt, because of `cause`.
    public static func retrying(after: Duration, cause: String) -> JobPauseReason {
        JobPauseReason(code: .retrying(after: after, cause: cause))
    }

    /// The wait before the next attempt, for ``retrying(after:cause:)``.
    public var retryAfter: Duration? {
        if case .retrying(let after, _) = code { return after }
        return nil
    }

    /// A stable token for JSON: `byUser`, `retrying`, `shutdown`.
    public var token: String {
        switch code {
        case .byUser: "byUser"
        case .retrying: "retrying"
        case .shutdown: "shutdown"
        }
    }

    public var description: String {
        switch code {
        case .byUser: "paused by the user"
        case .retrying(let after, let cause): "retrying in \(ByteCount.seconds(after)) after: \(cause)"
        case .shutdown: "stopped: the engine shut down"
        }
    }
}

/// Bytes a job has moved and has to move.
public struct JobProgress: Sendable, Hashable {
    /// Bytes done (on disk for a download, acknowledged for an upload).
    public var completedBytes: Int64
    /// The whole size, when known.
    public var totalBytes: Int64?
    /// Bytes moved over the network by this job so far, in this process (retries included).
    public var transferredBytes: Int64
    /// Bytes moved again although already done once (a server ignoring `Range`).
    public var refetchedBytes: Int64

    /// Progress given field by field; by default nothing done and the size unknown.
    public init(completedBytes: Int64 = 0, totalBytes: Int64? = nil, transferredBytes: Int64 = 0, refetchedBytes: Int64 = 0) {
        self.completedBytes = completedBytes
        self.totalBytes = totalBytes
        self.transferredBytes = transferredBytes
        self.refetchedBytes = refetchedBytes
    }

    /// What is left to move, when the size is known.
    public var remainingBytes: Int64? { totalBytes.map { max(0, $0 - completedBytes) } }
}

/// Something that happened to a job.
public struct JobEvent: Sendable, Hashable {
    /// The job the event is about.
    public var id: JobID
    /// The state after the event.
    public var state: JobState
    /// The job's bytes done and moved, as of the event.
    public var progress: JobProgress
    /// The network the job runs on, while it runs.
    public var network: TransferNetwork?
    /// A finished job's results, out of line: inline they were 200 of an event's 354 bytes,
    /// and the engine keeps one event per job (10,000 waiting downloads have none).
    private var results: Results?

    /// For a finished download: its result.
    public var download: DownloadResult? {
        get { results?.download }
        set { results = Results(download: newValue, upload: upload, command: command) }
    }
    /// For a finished upload: its result.
    public var upload: UploadResult? {
        get { results?.upload }
        set { results = Results(download: download, upload: newValue, command: command) }
    }
    /// For a finished command: how it ended.
    public var command: CommandTermination? {
        get { results?.command }
        set { results = Results(download: download, upload: upload, command: newValue) }
    }

    /// The results, immutable (a change makes new ones), compared by value.
    private final class Results: Sendable, Hashable {
        let download: DownloadResult?
        let upload: UploadResult?
        let command: CommandTermination?

        init?(download: DownloadResult?, upload: UploadResult?, command: CommandTermination?) {
            guard download != nil || upload != nil || command != nil else { return nil }
            (self.download, self.upload, self.command) = (download, upload, command)
        }

        static func == (lhs: Results, rhs: Results) -> Bool {
            lhs.download == rhs.download && lhs.upload == rhs.upload && lhs.command == rhs.command
        }

        func hash(into hasher: inout Hasher) {
            hasher.combine(download)
            hasher.combine(upload)
            hasher.combine(command)
        }
    }

    /// An event given field by field.
    public init(
        id: JobID, state: JobState, progress: JobProgress, network: TransferNetwork? = nil, download: DownloadResult? = nil,
        upload: UploadResult? = nil
    ) {
        self.id = id
        self.state = state
        self.progress = progress
        self.network = network
        results = Results(download: download, upload: upload, command: nil)
    }
}

/// What a job's last run produced.
enum JobOutput: Sendable {
    case download(DownloadResult)
    case upload(UploadResult)
    case command(CommandTermination)
    case none
}
