import Dispatch
import Synchronization

/// A connection that many threads share, one call at a time: ``sync(_:)`` runs on the caller's
/// thread under the connection's lock, ``async(_:)`` on a serial queue of its own, so that a
/// caller can go on at once and no thread of Swift's cooperative pool waits for the disk.
package final class SQLiteSerialConnection: Sendable {
    private let connection: Mutex<SQLiteConnection>
    private let queue: DispatchQueue

    /// Opens `path` (``SQLiteConnection/init(path:options:)``); `label` names its queue.
    package init(path: String, options: SQLiteConnection.OpenOptions = .init(), label: String) throws(SQLiteError) {
        connection = Mutex(try SQLiteConnection(path: path, options: options))
        queue = DispatchQueue(label: label)
    }

    /// Runs `body` with the connection now, on the caller's thread, once no other call holds it.
    package func sync<T: Sendable>(_ body: (SQLiteConnection) throws -> T) throws -> T {
        try connection.withLock { connection in try body(connection) }
    }

    /// Runs `body` with the connection on the connection's own queue, after what was queued
    /// before it; returns at once.
    package func async(_ body: @escaping @Sendable (SQLiteConnection) -> Void) {
        queue.async { [self] in connection.withLock { body($0) } }
    }
}
