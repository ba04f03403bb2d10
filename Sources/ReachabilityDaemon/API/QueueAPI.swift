import ReachabilityTransfers
import FoundationEssentials
import ReachabilityControl
import ReachabilityMetrics

/// The control API, version 1 (`openapi/reach-daemon.yaml` is its contract): jobs under
/// `/v1/jobs`, the path under `/v1/path` (``PathAPI``), an event stream under `/v1/events`
/// (JSON lines), and `/metrics` (Prometheus text). Every answer is JSON but the metrics.
struct QueueAPI: Sendable {
    let queue: JobQueue
    let paths: PathFeed
    let metrics: ReachMetrics
    /// The read-only endpoints, shared with the path socket.
    var pathAPI: PathAPI
    /// `/v1/budgets`; nil: not served (tests without budgets).
    var budgetAPI: BudgetAPI?

    init(queue: JobQueue, paths: PathFeed, metrics: ReachMetrics, pathAPI: PathAPI? = nil) {
        self.queue = queue
        self.paths = paths
        self.metrics = metrics
        self.pathAPI = pathAPI ?? PathAPI(paths: paths, destination: nil)
    }
    /// Bytes an event-stream client may have waiting before it is dropped.
    var eventBufferLimit = EventStreamBuffer.defaultLimit

    func handle(_ request: ControlRequest) async -> ControlResponse {
        let parts = request.path.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
        let method = request.method
        if parts == ["metrics"] {
            guard method == "GET" else { return Self.notAllowed(request, allow: "GET") }
            return .text(status: 200, metrics.render(), contentType: ReachMetrics.contentType)
        }
        if let answer = await pathAPI.handle(request) { return answer }
        if parts.count >= 2, parts[0] == "v1", Self.needsTheQueue.contains(parts[1]), !queue.isLoaded { return Self.starting() }
        if let budgetAPI, let answer = await budgetAPI.handle(request) { return answer }
        guard parts.first == "v1", parts.count >= 2 else { return Self.notFound(request) }
        switch parts[1] {
        case "jobs" where parts.count == 2:
            if method == "GET" { return list(request) }
            if method == "POST" { return await add(request) }
            return Self.notAllowed(request, allow: "GET, POST")
        case "jobs" where parts.count == 3:
            guard method == "GET" else { return Self.notAllowed(request, allow: "GET") }
            return answer(parts[2]) { id throws(QueueError) in try queue.detail(id) }
        case "jobs" where parts.count == 4:
            // An unknown action is no endpoint (404), whatever the method.
            guard Self.actions.contains(parts[3]) else { return Self.notFound(request) }
            guard method == "POST" else { return Self.notAllowed(request, allow: "POST") }
            return await act(parts[3], on: parts[2]) ?? Self.notFound(request)
        case "events" where parts.count == 2:
            guard method == "GET" else { return Self.notAllowed(request, allow: "GET") }
            return .stream(status: 200, contentType: "application/x-ndjson", events())
        default:
            return Self.notFound(request)
        }
    }

    /// The endpoints whose answers depend on the stored jobs (a budget's hold is judged on
    /// them too): not served until the queue has loaded.
    private static let needsTheQueue: Set<String> = ["jobs", "budgets", "events"]

    /// How long a client is asked to wait while the queue loads (whole seconds, RFC 9110).
    static let startingRetryAfter = 1

    /// 503 while the queue loads: an empty list or a 404 for a stored job would be wrong.
    static func starting() -> ControlResponse {
        var response = failure(503, "starting", "the daemon is loading its queue; ask again shortly")
        response.headers.append(("Retry-After", String(startingRetryAfter)))
        return response
    }

    /// The actions under `/v1/jobs/{id}/`.
    private static let actions = ["pause", "resume", "cancel"]

    /// `pause`, `resume` or `cancel` on job `text`; nil for another action.
    private func act(_ action: String, on text: String) async -> ControlResponse? {
        guard Self.actions.contains(action) else { return nil }
        guard let id = Self.jobID(text) else { return Self.badID(text) }
        do throws(QueueError) {
            switch action {
            case "pause": return Self.json(200, try await queue.pause(id))
            case "resume": return Self.json(200, try await queue.resume(id))
            default: return Self.json(200, try await queue.cancel(id))
            }
        } catch {
            return Self.error(error)
        }
    }

    private static func notFound(_ request: ControlRequest) -> ControlResponse {
        failure(404, "notFound", "no such endpoint: \(request.path.prefix(200))")
    }

    /// 405 with the `Allow` field RFC 9110 asks for: the methods the endpoint serves.
    static func notAllowed(_ request: ControlRequest, allow: String) -> ControlResponse {
        var response = failure(405, "methodNotAllowed", "\(request.method.prefix(20)) is not allowed on \(request.path.prefix(200))")
        response.headers.append(("Allow", allow))
        return response
    }

    private func list(_ request: ControlRequest) -> ControlResponse {
        var states: Set<JobStatus>?
        // Comma-separated (`?state=pending,paused`) or repeated (`?state=pending&state=paused`), or both.
        let filters = request.queryValues("state")
        if !filters.isEmpty {
            // An empty item (`state=`, `state=failed,`) is an error wherever it is.
            let wanted = filters.flatMap { $0.split(separator: ",", omittingEmptySubsequences: false).map { JobStatus(rawValue: String($0)) } }
            guard wanted.allSatisfy(JobStatus.all.contains) else {
                return Self.failure(400, "badRequest", "state: expected pending, running, paused, succeeded, failed or cancelled")
            }
            states = Set(wanted)
        }
        let view = QueueListView(rawValue: request.query["view"] ?? QueueListView.full.rawValue)
        guard QueueListView.all.contains(view) else { return Self.failure(400, "badRequest", "view: expected full or summary") }
        do { return .json(status: 200, try queue.listJSON(states: states, view: view)) } catch { return Self.error(error) }
    }

    private func add(_ request: ControlRequest) async -> ControlResponse {
        let body: QueueAddRequest
        do {
            body = try QueueJSON.decode(QueueAddRequest.self, from: Data(request.body), rejectingUnknownFields: true)
        } catch let unknown as QueueJSON.UnknownField {
            return Self.failure(400, "invalidJob", "\(unknown): not a field of the API (misspelt?)")
        } catch {
            return Self.failure(400, "invalidJob", "the job is not valid JSON: \(QueueJSON.explain(error))")
        }
        let client = request.peer.map { ClientFileView(pid: $0.pid) }
        do {
            // Judged on the bytes moved until now, not on a count up to an interval old.
            await budgetAPI?.keeper.refresh()
            return Self.json(201, try await queue.add(body.job, workingDirectory: body.workingDirectory, client: client))
        } catch {
            return Self.error(error)
        }
    }

    private func answer<T: Encodable>(_ text: String, _ body: (Int64) throws(QueueError) -> T) -> ControlResponse {
        guard let id = Self.jobID(text) else { return Self.badID(text) }
        do { return Self.json(200, try body(id)) } catch { return Self.error(error) }
    }

    /// Job changes and path changes as JSON lines, the current path first, in chunks of whole
    /// lines; bounded per client (``EventStreamBuffer``): a client that falls too far behind gets
    /// a final `dropped` line.
    private func events() -> AsyncStream<[UInt8]> {
        let buffer = EventStreamBuffer(limit: eventBufferLimit)
        let jobs = queue.events()
        let pathUpdates = paths.subscribe()
        let forwardJobs = Task {
            for await job in jobs {
                guard let line = try? QueueJSON.encode(QueueStreamEvent(job: job)) else { continue }
                if !buffer.push(Array(line) + [0x0A]) { break }
            }
        }
        let forwardPaths = Task {
            for await line in pathUpdates where !buffer.push(line) { break }
        }
        let stop = { @Sendable in
            buffer.close()
            forwardJobs.cancel()
            forwardPaths.cancel()
        }
        return AsyncStream(unfolding: {
            guard let chunk = await buffer.next() else {
                stop()
                return nil
            }
            return chunk
        }, onCancel: stop)
    }

    /// A job id: ASCII digits only (no `+`, no spaces), 1 to Int64.max.
    static func jobID(_ text: String) -> Int64? {
        guard !text.isEmpty, text.utf8.allSatisfy({ (0x30...0x39).contains($0) }), let id = Int64(text), id > 0 else { return nil }
        return id
    }

    private static func badID(_ text: String) -> ControlResponse {
        failure(400, "badRequest", "not a job id: '\(text.prefix(40))'")
    }

    static func json<T: Encodable>(_ status: Int, _ value: T) -> ControlResponse {
        guard let data = try? QueueJSON.encode(value) else { return failure(500, "internal", "cannot encode the answer") }
        return .json(status: status, Array(data))
    }

    static func error(_ error: QueueError) -> ControlResponse { failure(error.httpStatus, error.token, error.message) }

    static func failure(_ status: Int, _ code: String, _ message: String) -> ControlResponse {
        json(status, QueueErrorBody(code: code, message: message))
    }
}

/// A job line of the event stream: `{"type":"job","job":{…}}`.
struct QueueStreamEvent: Encodable {
    var type = "job"
    var job: QueueJob
}
