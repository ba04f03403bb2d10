import ReachabilityCore
/// What a ``TransferEngine`` runs: a download, an upload, a command, or any async body that
/// moves data (a sync), each with a policy, a priority and the host it talks to.
public struct TransferJob: Sendable {
    /// What the job does.
    enum Work: Sendable {
        case download(DownloadRequest)
        case upload(UploadRequest)
        case body(direction: Transfer.Direction, expectedBytes: Int64?, @Sendable (JobContext) async throws -> Void)
        case command(CommandRequest)
    }

    /// The rules the job is gated by, judged on the route to ``host`` (or the default path).
    public var policy: TransferPolicy
    /// `userInitiated` may exceed the size limits (see `Transfer.Priority`) and goes first
    /// when slots free up; `background` goes last.
    public var priority: Transfer.Priority
    /// The server's host: the job is judged by the route to it (nil: by the default path).
    public var host: String?
    let work: Work

    /// Downloads `request`, judged by the route to its URL's host.
    public static func download(_ request: DownloadRequest, policy: TransferPolicy = .any, priority: Transfer.Priority = .normal) -> TransferJob {
        TransferJob(policy: policy, priority: priority, host: TransferURL(request.url)?.host, work: .download(request))
    }

    /// Uploads `request`, judged by the route to its URL's host. The size is the file's (what
    /// remains of it, for a tus upload a server already holds part of).
    public static func upload(_ request: UploadRequest, policy: TransferPolicy = .any, priority: Transfer.Priority = .normal) -> TransferJob {
        TransferJob(policy: policy, priority: priority, host: TransferURL(request.url)?.host, work: .upload(request))
    }

    /// Runs `body` while the network allows it: cancelled when it stops allowing it, called
    /// again when it allows it again (the body resumes its own work). Report progress and
    /// ask for re-judgement through the ``JobContext``.
    public static func work(
        host: String?, direction: Transfer.Direction = .download, expectedBytes: Int64? = nil, policy: TransferPolicy = .any,
        priority: Transfer.Priority = .normal, _ body: @escaping @Sendable (JobContext) async throws -> Void
    ) -> TransferJob {
        TransferJob(policy: policy, priority: priority, host: host, work: .body(direction: direction, expectedBytes: expectedBytes, body))
    }

    /// Runs `request`'s command, judged by the default path (a command names no server): in a
    /// slot of the engine's total, retried while it fails; a pause suspends it.
    public static func command(_ request: CommandRequest, policy: TransferPolicy = .any, priority: Transfer.Priority = .normal) -> TransferJob {
        TransferJob(policy: policy, priority: priority, host: nil, work: .command(request))
    }

    var direction: Transfer.Direction {
        switch work {
        case .download, .command: .download
        case .upload: .upload
        case .body(let direction, _, _): direction
        }
    }
}

/// What a running job's body sees: the run the gate allowed, and where to report.
public struct JobContext: Sendable {
    /// The network, budget and re-judgement of this run.
    public let run: GateRun
    let reporter: @Sendable (JobProgress) -> Void

    /// Reports bytes done and moved; bytes moved count against the size limits of the
    /// network the run is on.
    public func report(_ progress: JobProgress) { reporter(progress) }
}
