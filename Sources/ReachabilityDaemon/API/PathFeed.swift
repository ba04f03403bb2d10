import FoundationEssentials
import ReachabilityCore
import Synchronization

/// The latest path, as JSON, and whoever wants each new one: the control API's `/v1/path` and
/// event stream read it from memory (no netlink round trip per request).
final class PathFeed: Sendable {
    private struct State {
        var json = "{}"
        var sharedJSON = "{}"
        var summary = "unknown"
        /// The latest path's stream lines, newline included: made once per path, whatever the
        /// number of subscribers.
        var lines = Lines(json: "{}", sharedJSON: "{}", summary: "unknown")
        var subscribers: [Int: (form: LineForm, continuation: AsyncStream<[UInt8]>.Continuation)] = [:]
        var next = 0
    }

    private struct Lines {
        var event: [UInt8]
        var document: [UInt8]
        var shared: [UInt8]

        init(json: String, sharedJSON: String, summary: String) {
            event = Array("{\"type\":\"path\",\"summary\":\(PathJSON.string(summary)),\"path\":\(json)}\n".utf8)
            document = Array((json + "\n").utf8)
            shared = Array((sharedJSON + "\n").utf8)
        }

        subscript(form: LineForm) -> [UInt8] {
            switch form {
            case .event: event
            case .document: document
            case .shared: shared
            }
        }
    }

    private let state = Mutex(State())

    /// What a subscriber's lines are.
    enum LineForm: Sendable {
        /// `{"type":"path","summary":…,"path":{…}}`, for `/v1/events`.
        case event
        /// The path document alone, as `/v1/path` answers, for `/v1/path/events`.
        case document
        /// The path as every user may read it (`PathJSON.sharedText`), for `path.sock`.
        case shared
    }

    /// Records `path` and sends its line to the subscribers.
    func publish(_ path: NetworkPath) {
        let json = PathJSON.text(path)
        let sharedJSON = PathJSON.sharedText(path)
        let summary = Self.summary(path)
        let lines = Lines(json: json, sharedJSON: sharedJSON, summary: summary)
        let subscribers = state.withLock { state in
            state.json = json
            state.sharedJSON = sharedJSON
            state.summary = summary
            state.lines = lines
            return Array(state.subscribers.values)
        }
        for subscriber in subscribers { subscriber.continuation.yield(lines[subscriber.form]) }
    }

    /// The latest path's JSON (`reach status --json`'s).
    func latestJSON() -> String { state.withLock { $0.json } }

    /// The latest path as every user may read it (`PathJSON.sharedText`).
    func latestSharedJSON() -> String { state.withLock { $0.sharedJSON } }

    /// The latest path in words: `wifi via wlan0, unmetered`.
    func latestSummary() -> String { state.withLock { $0.summary } }

    /// Lines (newline included) of every path from now on, starting with the current one.
    /// Paths are states: a subscriber that falls behind skips to the newest 64.
    func subscribe(_ form: LineForm = .event) -> AsyncStream<[UInt8]> {
        let (stream, continuation) = AsyncStream.makeStream(of: [UInt8].self, bufferingPolicy: .bufferingNewest(64))
        let key = state.withLock { state in
            state.next += 1
            state.subscribers[state.next] = (form, continuation)
            continuation.yield(state.lines[form])
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
