import ReachabilityCore
@testable import ReachabilityTransfers
import Testing

private func event(_ id: Int64, _ state: JobState, done: Int64 = 0) -> JobEvent {
    JobEvent(id: JobID(id), state: state, progress: JobProgress(completedBytes: done))
}

/// What a feed hands its consumer: every state change, in order; progress coalesced.
@Suite("JobEventFeed")
struct JobEventFeedTests {
    /// (events yielded before the consumer looks, what one batch holds as "id:state:bytes").
    static let cases: [(String, [JobEvent], [String])] = [
        ("progress of one state is coalesced to the newest",
         [event(1, .running, done: 1), event(1, .running, done: 2), event(1, .running, done: 3)], ["1:running:3"]),
        ("every state change is kept, in order",
         [event(1, .queued), event(1, .running, done: 5), event(1, .running, done: 9), event(1, .succeeded, done: 9)],
         ["1:pending:0", "1:running:9", "1:succeeded:9"]),
        ("two jobs interleaved keep their own order",
         [event(1, .running, done: 1), event(2, .running, done: 1), event(1, .running, done: 2), event(2, .cancelled), event(1, .succeeded, done: 2)],
         ["1:running:2", "2:running:1", "2:cancelled:0", "1:succeeded:2"]),
        ("progress after a state change does not overwrite the change before it",
         [event(1, .running, done: 1), event(1, .paused(.byUser), done: 1), event(1, .running, done: 2), event(1, .running, done: 3)],
         ["1:running:1", "1:paused:1", "1:running:3"]),
        ("two finals are both kept", [event(1, .succeeded), event(1, .succeeded)], ["1:succeeded:0", "1:succeeded:0"]),
    ]

    @Test(arguments: cases.indices)
    func aBatchKeepsEveryStateChange(_ index: Int) async {
        let (name, events, expected) = Self.cases[index]
        let feed = JobEventFeed()
        for event in events { feed.yield(event) }
        let batch = await feed.nextBatch() ?? []
        #expect(batch.map { "\($0.id):\($0.state.statusToken):\($0.progress.completedBytes)" } == expected, "\(name)")
    }

    /// 4,000 jobs, each queued → running with 50 progress events → succeeded, all before the
    /// consumer takes anything (the daemon's burst): nothing of a state is lost.
    @Test func aBurstFarBeyondAnyBufferLosesNoStateChange() async {
        let feed = JobEventFeed()
        for id in Int64(1)...4000 {
            feed.yield(event(id, .queued))
            for done in Int64(1)...50 { feed.yield(event(id, .running, done: done)) }
            feed.yield(event(id, .succeeded, done: 50))
        }
        let batch = await feed.nextBatch() ?? []
        #expect(batch.count == 12_000)
        let finals = batch.filter { $0.state == .succeeded }
        #expect(Set(finals.map(\.id.rawValue)) == Set(1...4000))
        let running = batch.filter { $0.state == .running }
        #expect(running.allSatisfy { $0.progress.completedBytes == 50 })
    }

    @Test func aFinishedFeedHandsOverWhatItHoldsThenEnds() async {
        let feed = JobEventFeed()
        feed.yield(event(7, .running))
        feed.finish()
        feed.yield(event(7, .succeeded))  // after the end: not taken
        #expect(await feed.nextBatch()?.map(\.id.rawValue) == [7])
        #expect(await feed.nextBatch() == nil)
    }

    @Test func aWaitingConsumerIsWokenAndIteratesEventByEvent() async {
        let feed = JobEventFeed()
        let consumer = Task { () -> [String] in
            var seen: [String] = []
            for await event in feed {
                seen.append(event.state.statusToken)
                if event.state.isFinal { break }
            }
            return seen
        }
        feed.yield(event(1, .queued))
        feed.yield(event(1, .running))
        feed.yield(event(1, .succeeded))
        let seen = await consumer.value
        #expect(seen.first == "pending" && seen.last == "succeeded")
        #expect(seen.count == 3)
    }

    @Test func aCancelledConsumerStopsWaiting() async {
        let feed = JobEventFeed()
        let consumer = Task { await feed.nextBatch() }
        consumer.cancel()
        #expect(await consumer.value == nil)
    }
}
