import FoundationEssentials
public import ReachabilityTransfers

/// A job as `GET /v1/jobs?view=summary` lists it: what a table of jobs shows, and no more.
///
/// A full ``QueueJob`` carries its whole spec, result and times; decoding a thousand of them
/// was most of the time `reach queue list` took.
public struct QueueJobSummary: Codable, Sendable, Hashable, Identifiable {
    /// The job's id.
    public var id: Int64
    /// `download`, `upload` or `command`.
    public var kind: QueueJobKind
    /// Where the job stands.
    public var state: JobStatus
    /// What the job does, in words: `get URL → PATH`, `upload FILE → URL`, `run CMD ARGS`.
    public var title: String
    /// Why it is paused or failed; nil otherwise.
    public var reason: JobReason?
    /// Bytes done and moved.
    public var progress: QueueProgress
    /// The network it runs on, while it runs.
    public var network: String?

    /// A summary given field by field.
    public init(
        id: Int64, kind: QueueJobKind, state: JobStatus, title: String, reason: JobReason? = nil,
        progress: QueueProgress = QueueProgress(), network: String? = nil
    ) {
        self.id = id
        self.kind = kind
        self.state = state
        self.title = title
        self.reason = reason
        self.progress = progress
        self.network = network
    }
}

extension QueueJob {
    /// The job as a list shows it.
    public var summary: QueueJobSummary {
        QueueJobSummary(id: id, kind: spec.kind, state: state, title: spec.title, reason: reason, progress: progress, network: network)
    }
}

extension QueueJobSpec {
    /// What the job does, in words (credentials already shown as `***` in a stored spec).
    public var title: String {
        if let download { return "get \(download.url) → \(download.destination ?? "?")" }
        if let upload { return "upload \(upload.file) → \(upload.url)" }
        if let command { return "run " + command.arguments.joined(separator: " ") }
        return kind.rawValue
    }
}

/// The answer of `GET /v1/jobs?view=summary`.
public struct QueueJobSummaryList: Codable, Sendable, Hashable {
    /// The jobs, oldest first.
    public var jobs: [QueueJobSummary]
    /// A list of `jobs`.
    public init(jobs: [QueueJobSummary]) { self.jobs = jobs }
}

/// How much of each job a list carries: `?view=full` (the default) or `?view=summary`. A struct,
/// so views can be added.
public struct QueueListView: RawRepresentable, Sendable, Hashable {
    /// The query token.
    public let rawValue: String
    /// A view from its query token.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// Every field (``QueueJob``).
    public static let full = QueueListView(rawValue: "full")
    /// What a table shows (``QueueJobSummary``).
    public static let summary = QueueListView(rawValue: "summary")

    /// The views the API serves.
    public static let all: [QueueListView] = [.full, .summary]
}
