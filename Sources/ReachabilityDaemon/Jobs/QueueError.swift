/// Why the queue refused or could not do something. A struct over a private code, so cases can
/// be added; ``httpStatus`` is what the control API answers.
public struct QueueError: Error, Sendable, Hashable, CustomStringConvertible {
    private enum Code: String, Hashable {
        case invalidJob, notFound, conflict, storageFull, storage, unavailable
    }

    private let code: Code
    /// What happened, in words, naming the input at fault.
    public let message: String

    private init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    /// The job is not valid: a bad URL, option value or path.
    public static func invalidJob(_ message: String) -> QueueError { QueueError(.invalidJob, message) }
    /// No job has this id.
    public static func notFound(_ id: Int64) -> QueueError { QueueError(.notFound, "no job \(id)") }
    /// Nothing has this name (a budget).
    public static func notFound(_ message: String) -> QueueError { QueueError(.notFound, message) }
    /// The job is in a state that does not allow it (resuming a finished job).
    public static func conflict(_ message: String) -> QueueError { QueueError(.conflict, message) }
    /// The state directory's file system is full: nothing was recorded.
    public static func storageFull(_ message: String) -> QueueError { QueueError(.storageFull, message) }
    /// The queue database failed.
    public static func storage(_ message: String) -> QueueError { QueueError(.storage, message) }
    /// The daemon is stopping.
    public static func unavailable(_ message: String) -> QueueError { QueueError(.unavailable, message) }

    /// A stable token for JSON: `invalidJob`, `notFound`, `conflict`, `storageFull`, `storage`,
    /// `unavailable`.
    public var token: String { code.rawValue }

    /// The HTTP status the control API answers with.
    public var httpStatus: Int {
        switch code {
        case .invalidJob: 400
        case .notFound: 404
        case .conflict: 409
        case .storageFull: 507
        case .storage: 500
        case .unavailable: 503
        }
    }

    public var description: String { message }
}
