import ReachabilityTransfers
/// Waits until jobs finish: `reach queue wait`.
public struct QueueWaiter: Sendable {
    /// How the wait ended.
    public enum Outcome: Sendable {
        /// Every job succeeded.
        case allSucceeded
        /// Every job finished, and these failed or were cancelled.
        case someFailed([QueueJob])
        /// The time ran out with these still unfinished.
        case timedOut([Int64])
    }

    let client: QueueClient
    let ids: Set<Int64>?

    /// A wait for `ids`, or (nil) every job unfinished when it starts.
    public init(client: QueueClient, ids: Set<Int64>?) {
        self.client = client
        self.ids = ids
    }

    /// Waits, at most `timeout` when given. Throws ``QueueClientError`` for an unknown id or a
    /// daemon that goes away. Dropped by the daemon for reading too slowly, it subscribes again.
    public func wait(timeout: Duration?) async throws -> Outcome {
        let jobs = try await client.list()
        if let ids, let missing = ids.subtracting(jobs.map(\.id)).sorted().first {
            throw QueueClientError(status: 404, body: Array("{\"error\":{\"code\":\"notFound\",\"message\":\"no job \(missing)\"}}".utf8), socketPath: client.socketPath)
        }
        let wanted = ids ?? Set(jobs.filter { !$0.state.isFinal }.map(\.id))
        return try await withThrowingTaskGroup(of: Outcome?.self) { group in
            group.addTask {
                while true {
                    do {
                        return try await watch(wanted)
                    } catch let error as QueueClientError where error.code == "slowClient" {
                        continue  // subscribe and list again: the list says what was missed
                    }
                }
            }
            if let timeout {
                group.addTask {
                    try await Task.sleep(for: timeout)
                    return nil
                }
            }
            let first = try await group.next() ?? nil
            group.cancelAll()
            if let first { return first }
            // The time ran out; the list has the last word (a job may have finished meanwhile).
            let jobs = try await client.list().filter { wanted.contains($0.id) }
            let unfinished = jobs.filter { !$0.state.isFinal }.map(\.id).sorted()
            return unfinished.isEmpty ? Self.outcome(jobs) : .timedOut(unfinished)
        }
    }

    /// One subscription, until every job in `wanted` is final.
    private func watch(_ wanted: Set<Int64>) async throws -> Outcome {
        // Subscribed first, then the states read: no change can fall between the two. The
        // stream's first line (the current path) is sent once the daemon has subscribed this
        // client, so the list is read only after it; asking for the stream is not enough (its
        // request may reach the daemon after the list's: jobs finishing in between were missed).
        var events = client.events().makeAsyncIterator()
        guard let first = try await events.next() else { throw closed }
        var finished: [Int64: QueueJob] = [:]
        let note = { (job: QueueJob) in if wanted.contains(job.id) && job.state.isFinal { finished[job.id] = job } }
        try await client.list().forEach(note)
        if let job = first.job { note(job) }
        while finished.count < wanted.count {
            guard let event = try await events.next() else { throw closed }
            if let job = event.job { note(job) }
        }
        return Self.outcome(Array(finished.values))
    }

    private var closed: QueueClientError {
        QueueClientError(communication: "the daemon closed the event stream", socketPath: client.socketPath)
    }

    private static func outcome(_ jobs: [QueueJob]) -> Outcome {
        let failed = jobs.filter { $0.state != .succeeded }.sorted { $0.id < $1.id }
        return failed.isEmpty ? .allSucceeded : .someFailed(failed)
    }
}
