import ReachabilityCore
import Synchronization

/// Hands every published event to every current subscriber's ``JobEventFeed``. A feed its
/// consumer has dropped is forgotten (the hub holds it weakly), so nothing accumulates for it.
final class EventHub: Sendable {
    private final class Subscription: Sendable {
        weak let feed: JobEventFeed?
        init(_ feed: JobEventFeed) { self.feed = feed }
    }

    private let subscriptions = Mutex<[Subscription]>([])

    func subscribe() -> JobEventFeed {
        let feed = JobEventFeed()
        subscriptions.withLock { $0.append(Subscription(feed)) }
        return feed
    }

    func publish(_ event: JobEvent) {
        let feeds = subscriptions.withLock { subscriptions -> [JobEventFeed] in
            subscriptions.removeAll { $0.feed == nil }
            return subscriptions.compactMap(\.feed)
        }
        for feed in feeds { feed.yield(event) }
    }

    /// Ends every feed (the engine shut down): each consumer gets what is buffered, then nil.
    func finish() {
        let feeds = subscriptions.withLock { subscriptions -> [JobEventFeed] in
            defer { subscriptions = [] }
            return subscriptions.compactMap(\.feed)
        }
        for feed in feeds { feed.finish() }
    }
}
