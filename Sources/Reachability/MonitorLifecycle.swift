import ReachabilityCore

/// The life of a ``NetworkMonitor``'s source and the paths it published, as one state machine
/// that returns what to do (the monitor does it, outside its lock):
///
/// ```
///  idle ──first subscriber──► starting(run, latest?) ──source started──► running(run, subscription, latest?)
///   ▲                              │  │                                        │
///   │       start failed: every    │  └─ started with nobody left: stop ───────┤
///   └────── waiter ends with ──────┘                          last subscriber left: stop
///           the error
/// ```
///
/// - A new subscriber gets `latest` at once whenever there is one, in `starting` as in
///   `running`: the source delivers the current path *before* its start returns, so a
///   subscriber arriving in between must not wait for the next change.
/// - `latest` belongs to one run and is dropped on every stop: a stale value from an earlier
///   run must never deduplicate the next run's first path away.
/// - Paths from a run that is over (its number is not the current one) are ignored.
struct MonitorLifecycle<Subscriber, Subscription> {
    enum Phase {
        case idle
        case starting(run: UInt64, latest: NetworkPath?)
        case running(run: UInt64, subscription: Subscription, latest: NetworkPath?)
    }

    private(set) var phase: Phase = .idle
    private(set) var subscribers: [UInt64: Subscriber] = [:]
    private var runs: UInt64 = 0

    /// The newest path of the current run, if any.
    var latest: NetworkPath? {
        switch phase {
        case .idle: nil
        case .starting(_, let latest), .running(_, _, let latest): latest
        }
    }

    enum SubscribeAction {
        /// Start the source for this run; the subscriber waits for its first path.
        case startSource(run: UInt64)
        /// Hand the subscriber this path now.
        case replay(NetworkPath)
        /// The source is starting and has published nothing yet: the first path will come.
        case wait
    }

    mutating func subscribe(_ id: UInt64, _ subscriber: Subscriber) -> SubscribeAction {
        subscribers[id] = subscriber
        switch phase {
        case .idle:
            runs += 1
            phase = .starting(run: runs, latest: nil)
            return .startSource(run: runs)
        case .starting, .running:
            return latest.map(SubscribeAction.replay) ?? .wait
        }
    }

    /// Returns the subscription to cancel when the last subscriber of a running source left.
    /// A source still starting is stopped when its start returns (see ``started(run:_:)``).
    mutating func unsubscribe(_ id: UInt64) -> Subscription? {
        subscribers[id] = nil
        guard subscribers.isEmpty, case .running(_, let subscription, _) = phase else { return nil }
        phase = .idle
        return subscription
    }

    /// The source of `run` started. Returns it back when it must be stopped at once: everybody
    /// left while it was starting, or the run is not the current one.
    mutating func started(run: UInt64, _ subscription: Subscription) -> Subscription? {
        guard case .starting(let current, let latest) = phase, current == run else { return subscription }
        guard !subscribers.isEmpty else {
            phase = .idle
            return subscription
        }
        phase = .running(run: run, subscription: subscription, latest: latest)
        return nil
    }

    /// The source of `run` could not start: returns the subscribers to end with its error.
    mutating func startFailed(run: UInt64) -> [Subscriber] {
        guard case .starting(let current, _) = phase, current == run else { return [] }
        phase = .idle
        defer { subscribers.removeAll() }
        return Array(subscribers.values)
    }

    /// A path from `run`: returns the subscribers to hand it to (none when it equals the latest
    /// or the run is over).
    mutating func received(_ path: NetworkPath, run: UInt64) -> [Subscriber] {
        switch phase {
        case .starting(let current, let latest) where current == run:
            guard latest != path else { return [] }
            phase = .starting(run: run, latest: path)
        case .running(let current, let subscription, let latest) where current == run:
            guard latest != path else { return [] }
            phase = .running(run: run, subscription: subscription, latest: path)
        default:
            return []
        }
        return Array(subscribers.values)
    }
}
