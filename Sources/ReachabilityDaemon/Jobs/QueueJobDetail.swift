public import FoundationEssentials

/// `GET /v1/jobs/{id}`: the job, its history and, for a command, its log file.
public struct QueueJobDetail: Codable, Sendable, Hashable {
    /// The job.
    public var job: QueueJob
    /// Each state it went through, oldest first.
    public var history: [QueueHistoryEntry]
    /// A command job's output file.
    public var logPath: String?

    /// A detail given field by field.
    public init(job: QueueJob, history: [QueueHistoryEntry], logPath: String? = nil) {
        self.job = job
        self.history = history
        self.logPath = logPath
    }
}

/// One state a job went through.
public struct QueueHistoryEntry: Codable, Sendable, Hashable {
    /// When.
    public var at: Date
    /// The state (`pending`, `running`, …).
    public var state: String
    /// Why, in words.
    public var reason: String?

    /// An entry given field by field.
    public init(at: Date, state: String, reason: String?) {
        self.at = at
        self.state = state
        self.reason = reason
    }
}

/// `POST /v1/jobs`: the job and the client's working directory, which relative paths in it
/// are resolved against.
public struct QueueAddRequest: Codable, Sendable, Hashable {
    /// The client's working directory (absolute).
    public var workingDirectory: String?
    /// The job.
    public var job: QueueJobSpec

    /// A request given field by field.
    public init(workingDirectory: String?, job: QueueJobSpec) {
        self.workingDirectory = workingDirectory
        self.job = job
    }

    enum CodingKeys: String, CodingKey, CaseIterable { case workingDirectory, job }

    /// Decodes a request; unknown keys are an error when the decoder was asked (the daemon asks).
    public init(from decoder: any Decoder) throws {
        try QueueJSON.rejectUnknownKeys(CodingKeys.self, in: decoder)
        let container = try decoder.container(keyedBy: CodingKeys.self)
        workingDirectory = try container.decodeIfPresent(String.self, forKey: .workingDirectory)
        job = try container.decode(QueueJobSpec.self, forKey: .job)
    }
}

/// The control API's error body: `{"error": {"code": …, "message": …}}`.
public struct QueueErrorBody: Codable, Sendable, Hashable {
    /// The error.
    public var error: Detail

    /// The code and message of an error.
    public struct Detail: Codable, Sendable, Hashable {
        /// A stable token (``QueueError/token``, or `notFound`, `methodNotAllowed`, `badRequest`).
        public var code: String
        /// What went wrong, in words.
        public var message: String
    }

    /// A body for `code` and `message`.
    public init(code: String, message: String) { error = Detail(code: code, message: message) }
}

/// `GET /v1/jobs`: `{"jobs": […]}`.
public struct QueueJobList: Codable, Sendable, Hashable {
    /// The jobs, oldest first.
    public var jobs: [QueueJob]
    /// A list of `jobs`.
    public init(jobs: [QueueJob]) { self.jobs = jobs }
}
