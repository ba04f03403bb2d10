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
            let jobs = try await client.list()
            return .timedOut(jobs.filter { wanted.contains($0.id) && !$0.state.isFinal }.map(\.id).sorted())
        }
    }

    /// One subscription, until every job in `wanted` is final.
    private func watch(_ wanted: Set<Int64>) async throws -> Outcome {
        // Subscribe first, then read the states: no change can fall between the two.
        let events = client.events()
        let known = Dictionary(uniqueKeysWithValues: try await client.list().map { ($0.id, $0) })
        var finished = known.filter { wanted.contains($0.key) && $0.value.state.isFinal }
        if finished.count == wanted.count { return Self.outcome(Array(finished.values)) }
        for try await event in events {
            guard let job = event.job, wanted.contains(job.id) else { continue }
            if job.state.isFinal { finished[job.id] = job }
            if finished.count == wanted.count { return Self.outcome(Array(finished.values)) }
        }
        throw QueueClientError(communication: "the daemon closed the event stream", socketPath: client.socketPath)
    }

    private static func outcome(_ jobs: [QueueJob]) -> Outcome {
        let failed = jobs.filter { $0.state != .succeeded }.sorted { $0.id < $1.id }
        return failed.isEmpty ? .allSucceeded : .someFailed(failed)
    }
}
