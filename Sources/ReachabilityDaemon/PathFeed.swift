import Foundation
import ReachabilityCore
import Synchronization

/// The latest path, as JSON, and whoever wants each new one: the control API's `/v1/path` and
/// event stream read it from memory (no netlink round trip per request).
final class PathFeed: Sendable {
    private struct State {
        var json = "{}"
        var summary = "unknown"
        var subscribers: [Int: AsyncStream<String>.Continuation] = [:]
        var next = 0
    }

    private let state = Mutex(State())

    /// Records `path` and sends its event line to the subscribers.
    func publish(_ path: NetworkPath) {
        let json = PathJSON.text(path)
        let summary = Self.summary(path)
        let line = "{\"type\":\"path\",\"summary\":\(PathJSON.string(summary)),\"path\":\(json)}"
        let subscribers = state.withLock { state in
            state.json = json
            state.summary = summary
            return Array(state.subscribers.values)
        }
        for subscriber in subscribers { subscriber.yield(line) }
    }

    /// The latest path's JSON (`reach status --json`'s).
    func latestJSON() -> String { state.withLock { $0.json } }

    /// The latest path in words: `wifi via wlan0, unmetered`.
    func latestSummary() -> String { state.withLock { $0.summary } }

    /// Event lines of every path from now on, starting with the current one.
    func subscribe() -> AsyncStream<String> {
        let (stream, continuation) = AsyncStream.makeStream(of: String.self, bufferingPolicy: .bufferingNewest(64))
        let key = state.withLock { state in
            state.next += 1
            state.subscribers[state.next] = continuation
            continuation.yield("{\"type\":\"path\",\"summary\":\(PathJSON.string(state.summary)),\"path\":\(state.json)}")
            return state.next
        }
        continuation.onTermination = { [weak self] _ in _ = self?.state.withLock { $0.subscribers.removeValue(forKey: key) } }
        return stream
    }

    static func summary(_ path: NetworkPath) -> String {
        let summary = PathSummary(path)
        var text = "\(summary.status)"
        if let primary = summary.primary { text += " via \(primary.name)" }
        return text + (summary.isExpensive ? ", expensive" : ", unmetered")
    }
}
