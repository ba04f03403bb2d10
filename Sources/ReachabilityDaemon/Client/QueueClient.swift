import FoundationEssentials
import ReachabilityControl

/// A client of `reach daemon`'s control API on its Unix socket: what `reach queue` uses, and
/// what another program can use instead of speaking HTTP itself.
///
/// ```swift
/// let client = QueueClient(socketPath: DaemonPaths.socket())
/// let job = try await client.add(spec, workingDirectory: FileManager.default.currentDirectoryPath)
/// await client.shutdown()
/// ```
public final class QueueClient: Sendable {
    /// The socket it talks to.
    public let socketPath: String
    private let control: ControlClient

    /// A client of the daemon listening on `socketPath`. With `checksOwner` (the default) it
    /// sends nothing to a socket of another user than root and this one
    /// (`ControlClient.checksOwner`); pass false for a socket the user named.
    public init(socketPath: String, checksOwner: Bool = true) {
        self.socketPath = socketPath
        control = ControlClient(socketPath: socketPath, checksOwner: checksOwner)
    }

    /// Closes its connections. Call once, when done.
    public func shutdown() async { await control.shutdown() }

    /// Adds a job; relative paths in it are resolved against `workingDirectory`.
    public func add(_ spec: QueueJobSpec, workingDirectory: String?) async throws(QueueClientError) -> QueueJob {
        let body = try encode(QueueAddRequest(workingDirectory: workingDirectory, job: spec))
        return try await call("POST", "/v1/jobs", body: body, expecting: QueueJob.self)
    }

    /// Every job, oldest first.
    public func list() async throws(QueueClientError) -> [QueueJob] {
        try await call("GET", "/v1/jobs", expecting: QueueJobList.self).jobs
    }

    /// Every job, oldest first, as the JSON array `reach queue list --json` prints. The daemon's
    /// own encoding is passed through (it is what decoding and encoding again would print, at a
    /// third of the time for 1,000 jobs); an answer of another shape is decoded and encoded.
    public func listJSONArray() async throws(QueueClientError) -> [UInt8] {
        let (status, answer) = try await send("GET", "/v1/jobs")
        guard (200..<300).contains(status) else { throw QueueClientError(status: status, body: answer, socketPath: socketPath) }
        let head = Array("{\"jobs\":[".utf8)
        if answer.count >= head.count + 2, answer.starts(with: head), answer.suffix(2).elementsEqual("]}".utf8) {
            return Array(answer[(head.count - 1)..<(answer.count - 1)])
        }
        do {
            return Array(try QueueJSON.encode(try QueueJSON.decode(QueueJobList.self, from: Data(answer)).jobs))
        } catch {
            throw QueueClientError(communication: "unexpected answer to GET /v1/jobs: \(QueueJSON.explain(error))", socketPath: socketPath)
        }
    }

    /// Every job as a list shows it (``QueueJobSummary``), oldest first: a fraction of the
    /// bytes and of the decoding of ``list()``.
    public func summaries() async throws(QueueClientError) -> [QueueJobSummary] {
        try await call("GET", "/v1/jobs?view=summary", expecting: QueueJobSummaryList.self).jobs
    }

    /// A job with its history.
    public func detail(_ id: Int64) async throws(QueueClientError) -> QueueJobDetail {
        try await call("GET", "/v1/jobs/\(id)", expecting: QueueJobDetail.self)
    }

    /// Pauses a job.
    public func pause(_ id: Int64) async throws(QueueClientError) -> QueueJob { try await call("POST", "/v1/jobs/\(id)/pause", expecting: QueueJob.self) }
    /// Resumes a job paused by ``pause(_:)``.
    public func resume(_ id: Int64) async throws(QueueClientError) -> QueueJob { try await call("POST", "/v1/jobs/\(id)/resume", expecting: QueueJob.self) }
    /// Cancels a job.
    public func cancel(_ id: Int64) async throws(QueueClientError) -> QueueJob { try await call("POST", "/v1/jobs/\(id)/cancel", expecting: QueueJob.self) }

    /// The daemon's current path, as `reach status --json` prints it.
    public func pathJSON() async throws(QueueClientError) -> String {
        let (status, body) = try await send("GET", "/v1/path")
        guard status == 200 else { throw QueueClientError(status: status, body: body, socketPath: socketPath) }
        return String(decoding: body, as: UTF8.self)
    }

    /// The event stream: the current path first, then every job and path change. A client that
    /// reads too slowly is dropped by the daemon: the stream then throws a ``QueueClientError``
    /// with code `slowClient` (subscribe again and list the jobs to catch up).
    public func events() -> AsyncThrowingStream<QueueEvent, any Error> {
        let control = self.control
        let lines = control.lines(path: "/v1/events")
        let socketPath = self.socketPath
        return AsyncThrowingStream { continuation in
            let task = Task {
                do {
                    try await Self.waitWhileStarting(lines: lines, retry: { control.lines(path: "/v1/events") }) { line in
                        guard let event = QueueEvent(line: line) else { return }
                        if let message = event.droppedMessage {
                            throw QueueClientError(dropped: message, socketPath: socketPath)
                        }
                        continuation.yield(event)
                    }
                    continuation.finish()
                } catch let error as QueueClientError {
                    continuation.finish(throwing: error)
                } catch let error as ControlClientError {
                    continuation.finish(throwing: QueueClientError(error))
                } catch {
                    continuation.finish(throwing: QueueClientError(communication: "\(error)", socketPath: socketPath))
                }
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }

    /// Reads `lines` into `handle`; while the daemon answers 503 before the first line (its
    /// queue loading), opens the stream again with `retry`, as ``send(_:_:body:)`` asks again.
    private static func waitWhileStarting(
        lines first: ControlClient.ResponseLines, retry: () -> ControlClient.ResponseLines, _ handle: ([UInt8]) throws -> Void
    ) async throws {
        let deadline = ContinuousClock.now + startingPatience
        var lines = first
        while true {
            do {
                for try await line in lines { try handle(line) }
                return
            } catch let error as ControlClientError where error.status == 503 && ContinuousClock.now < deadline {
                try await Task.sleep(for: startingPoll)
                lines = retry()
            }
        }
    }

    // MARK: Budgets

    /// Every data budget, by name.
    public func budgets() async throws(QueueClientError) -> [BudgetDocument] {
        try await call("GET", "/v1/budgets", expecting: [BudgetDocument].self)
    }

    /// One data budget (`name` is checked by the caller: ``DataBudget/isValidName(_:)``).
    public func budget(_ name: String) async throws(QueueClientError) -> BudgetDocument {
        try await call("GET", "/v1/budgets/\(name)", expecting: BudgetDocument.self)
    }

    /// Defines or redefines a data budget (its count is kept).
    public func setBudget(_ name: String, _ spec: BudgetSpec) async throws(QueueClientError) -> BudgetDocument {
        try await call("PUT", "/v1/budgets/\(name)", body: try encode(spec), expecting: BudgetDocument.self)
    }

    /// `reset`, `snooze` (POST) or `remove` (DELETE) on a data budget.
    public func budgetAction(_ action: String, _ name: String) async throws(QueueClientError) -> BudgetDocument {
        if action == "remove" { return try await call("DELETE", "/v1/budgets/\(name)", expecting: BudgetDocument.self) }
        return try await call("POST", "/v1/budgets/\(name)/\(action)", expecting: BudgetDocument.self)
    }

    private func call<T: Decodable>(_ method: String, _ path: String, body: [UInt8] = [], expecting: T.Type) async throws(QueueClientError) -> T {
        let (status, answer) = try await send(method, path, body: body)
        guard (200..<300).contains(status) else { throw QueueClientError(status: status, body: answer, socketPath: socketPath) }
        do {
            return try QueueJSON.decode(T.self, from: Data(answer))
        } catch {
            throw QueueClientError(communication: "unexpected answer to \(method) \(path): \(QueueJSON.explain(error))", socketPath: socketPath)
        }
    }

    /// One exchange; while the daemon answers that it is still loading its queue (503
    /// `starting`, for a moment after a restart), asked again every ``startingPoll``, for at
    /// most ``startingPatience``: a job that exists must not look missing to a script.
    private func send(_ method: String, _ path: String, body: [UInt8] = []) async throws(QueueClientError) -> (Int, [UInt8]) {
        let deadline = ContinuousClock.now + Self.startingPatience
        while true {
            let answer: (status: Int, body: [UInt8])
            do {
                let headers = body.isEmpty ? [] : [("Content-Type", "application/json")]
                answer = try await control.send(method: method, path: path, body: body, headers: headers)
            } catch {
                throw QueueClientError(error)
            }
            guard Self.isStarting(status: answer.status, body: answer.body), ContinuousClock.now < deadline else { return (answer.status, answer.body) }
            do { try await Task.sleep(for: Self.startingPoll) } catch { return (answer.status, answer.body) }
        }
    }

    /// How long a call waits for a daemon that is loading its queue.
    static let startingPatience = Duration.seconds(60)
    /// How often it asks again meanwhile (the daemon's `Retry-After` is a whole second, the
    /// load usually a fraction of one).
    static let startingPoll = Duration.milliseconds(50)

    /// A 503 whose code is `starting`: the daemon's queue is not loaded yet.
    static func isStarting(status: Int, body: [UInt8]) -> Bool {
        status == 503 && (try? QueueJSON.decode(QueueErrorBody.self, from: Data(body)))?.error.code == "starting"
    }

    private func encode<T: Encodable>(_ value: T) throws(QueueClientError) -> [UInt8] {
        do { return Array(try QueueJSON.encode(value)) } catch { throw QueueClientError(communication: "cannot encode: \(error)", socketPath: socketPath) }
    }
}

/// One line of the event stream.
public struct QueueEvent: Sendable {
    /// A job that changed.
    public var job: QueueJob?
    /// For a path change: the path in words (`wifi via wlan0, unmetered`).
    public var pathSummary: String?
    /// The line as the daemon sent it (JSON).
    public var jsonLine: String
    /// For the daemon's last line to a client that read too slowly: why it was dropped.
    public var droppedMessage: String?

    init?(line: [UInt8]) {
        jsonLine = String(decoding: line, as: UTF8.self)
        // One decoding a line: a job line's job, or the few words a path or a drop line carries.
        guard let decoded = try? QueueJSON.decode(Line.self, from: Data(line)) else { return nil }
        switch decoded.type {
        case "job":
            guard let job = decoded.job else { return nil }
            self.job = job
        case "path": pathSummary = decoded.summary
        case "dropped": droppedMessage = decoded.message ?? "dropped"
        default: break
        }
    }

    private struct Line: Decodable {
        var type: String
        var job: QueueJob?
        var summary: String?
        var message: String?
    }
}

/// Why a call to the daemon failed: none listens, it refused (with its status and message), or
/// the exchange broke.
public struct QueueClientError: Error, Sendable, CustomStringConvertible {
    /// The HTTP status the daemon answered with; nil when it did not answer.
    public let status: Int?
    /// The daemon's error code (`invalidJob`, `notFound`, `conflict`, …), when it answered.
    public let code: String?
    /// No daemon listens on the socket.
    public let isNotRunning: Bool
    /// What happened, in one line, naming the socket when nothing answered.
    public let description: String

    init(_ error: ControlClientError) {
        status = nil
        code = nil
        isNotRunning = error.code == .daemonNotRunning
        description = error.description
    }

    /// `{"error": "…"}`: the transport's own refusals.
    private struct PlainErrorBody: Decodable { var error: String }

    init(status: Int, body: [UInt8], socketPath: String) {
        let decoded = try? QueueJSON.decode(QueueErrorBody.self, from: Data(body))
        // The transport's own refusals (403 to another user, 413) carry a plain message.
        let plain = (try? QueueJSON.decode(PlainErrorBody.self, from: Data(body)))?.error
        self.status = status
        code = decoded?.error.code
        isNotRunning = false
        description = decoded?.error.message ?? plain ?? "the daemon on \(socketPath) answered HTTP \(status)"
    }

    init(dropped message: String, socketPath: String) {
        status = nil
        code = "slowClient"
        isNotRunning = false
        description = "the daemon on \(socketPath) dropped the event stream: \(message)"
    }

    init(communication message: String, socketPath: String) {
        status = nil
        code = nil
        isNotRunning = false
        description = message
    }
}
