import Synchronization

/// Hands every published event to every current subscriber, each with its own buffer.
final class EventHub: Sendable {
    private let subscribers = Mutex<[UInt64: AsyncStream<JobEvent>.Continuation]>([:])
    private let nextID = Atomic<UInt64>(0)

    /// A subscriber's buffer holds this many events; a slower one loses the oldest progress.
    static let buffer = 4096

    func subscribe() -> AsyncStream<JobEvent> {
        let (stream, continuation) = AsyncStream.makeStream(of: JobEvent.self, bufferingPolicy: .bufferingNewest(Self.buffer))
        let id = nextID.wrappingAdd(1, ordering: .relaxed).newValue
        subscribers.withLock { $0[id] = continuation }
        continuation.onTermination = { [weak self] _ in _ = self?.subscribers.withLock { $0.removeValue(forKey: id) } }
        return stream
    }

    func publish(_ event: JobEvent) {
        for subscriber in subscribers.withLock({ Array($0.values) }) { subscriber.yield(event) }
    }
}
