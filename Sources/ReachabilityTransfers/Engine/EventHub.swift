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

    /// Yields under the hub's lock (each feed has a lock of its own, never held while taking
    /// this one): no array of feeds is made per event, which 10,000 waiting jobs re-judged at
    /// once publish one after another.
    func publish(_ event: JobEvent) {
        subscriptions.withLock { subscriptions in
            var dropped = false
            for subscription in subscriptions {
                if let feed = subscription.feed { feed.yield(event) } else { dropped = true }
            }
            if dropped { subscriptions.removeAll { $0.feed == nil } }
        }
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
