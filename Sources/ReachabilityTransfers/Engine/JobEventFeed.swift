import ReachabilityCore
import Synchronization

/// A subscriber's view of a ``TransferEngine``'s events: every change of state reaches it, in
/// order, however far behind it is; only progress is coalesced (a job's newer progress replaces
/// its older progress not yet taken, when the state between them did not change). What it
/// holds is therefore bounded by the state changes it has not taken, never by the bytes moved.
///
/// Iterate it event by event, or take whatever is waiting in one go with ``nextBatch()`` (the
/// daemon writes each batch in one transaction).
public final class JobEventFeed: AsyncSequence, Sendable {
    public typealias Element = JobEvent

    struct Buffer {
        var events: [JobEvent] = []
        /// Where each job's last event sits in `events`, to coalesce its progress.
        var lastIndex: [JobID: Int] = [:]
        var waiter: CheckedContinuation<[JobEvent]?, Never>?
        var isFinished = false

        /// Appends `event`, or replaces its job's last waiting event when only progress differs.
        mutating func append(_ event: JobEvent) {
            if let index = lastIndex[event.id], JobEventFeed.coalesces(events[index], with: event) {
                events[index] = event
                return
            }
            lastIndex[event.id] = events.count
            events.append(event)
        }

        mutating func take() -> [JobEvent] {
            defer {
                events = []
                lastIndex = [:]
            }
            return events
        }
    }

    private let buffer = Mutex(Buffer())

    init() {}

    /// `later` may take `earlier`'s place: same job, same state, nothing final, and the same
    /// network (a move to another network is worth seeing).
    static func coalesces(_ earlier: JobEvent, with later: JobEvent) -> Bool {
        earlier.id == later.id && earlier.state == later.state && !later.state.isFinal && earlier.network == later.network
    }

    func yield(_ event: JobEvent) {
        let delivery = buffer.withLock { buffer -> (CheckedContinuation<[JobEvent]?, Never>, [JobEvent])? in
            guard !buffer.isFinished else { return nil }
            buffer.append(event)
            guard let waiter = buffer.waiter else { return nil }
            buffer.waiter = nil
            return (waiter, buffer.take())
        }
        if let (waiter, events) = delivery { waiter.resume(returning: events) }
    }

    /// Ends the feed: a waiting or later ``nextBatch()`` gets what is buffered, then nil.
    func finish() {
        let waiter = buffer.withLock { buffer -> CheckedContinuation<[JobEvent]?, Never>? in
            buffer.isFinished = true
            defer { buffer.waiter = nil }
            return buffer.waiter
        }
        waiter?.resume(returning: nil)
    }

    /// The events waiting, oldest first (at least one), once there are any; nil once the feed
    /// is finished and empty, or the calling task is cancelled.
    public func nextBatch() async -> [JobEvent]? {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<[JobEvent]?, Never>) in
                let ready = buffer.withLock { buffer -> [JobEvent]?? in
                    if !buffer.events.isEmpty { return .some(buffer.take()) }
                    if buffer.isFinished || Task.isCancelled { return .some(nil) }
                    precondition(buffer.waiter == nil, "JobEventFeed: one consumer at a time")
                    buffer.waiter = continuation
                    return nil
                }
                if let ready { continuation.resume(returning: ready) }
            }
        } onCancel: {
            let waiter = buffer.withLock { buffer -> CheckedContinuation<[JobEvent]?, Never>? in
                defer { buffer.waiter = nil }
                return buffer.waiter
            }
            waiter?.resume(returning: nil)
        }
    }

    /// Events one by one, as ``nextBatch()`` delivers them.
    public struct AsyncIterator: AsyncIteratorProtocol {
        let feed: JobEventFeed
        var pending: ArraySlice<JobEvent> = []

        public mutating func next() async -> JobEvent? {
            if pending.isEmpty {
                guard let batch = await feed.nextBatch() else { return nil }
                pending = batch[...]
            }
            return pending.popFirst()
        }
    }

    public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(feed: self) }
}
