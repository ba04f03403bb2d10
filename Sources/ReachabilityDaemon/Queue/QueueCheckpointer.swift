import ReachabilitySQLite
import Synchronization

/// Copies the queue's write-ahead log into the database file on a connection and a thread of
/// its own, so that no add waits for it. SQLite's own checkpoint runs in the connection that
/// commits, inside that commit: every ~20th add paid two more syncs for it (the log's and the
/// database file's, 1.5-2 ms on a virtual disk).
///
/// A checkpoint here is `PASSIVE`: it takes no lock the writer waits for, and copies what was
/// committed when it began. The writer's connection keeps SQLite's automatic checkpoint as a
/// backstop (``backstopPages``) for when this one falls behind, so the log stays bounded
/// whatever happens here.
final class QueueCheckpointer: Sendable {
    /// Commits between two checkpoints: about 100 pages of log at an add's five or six.
    static let commitsPerCheckpoint = 16
    /// Pages of log at which the writer checkpoints in its own commit (SQLite's
    /// `wal_autocheckpoint`): reached only when this checkpointer falls behind. Under the
    /// log's 1 MiB size limit, so the file is reused as it is, never cut back and grown again
    /// (a sync of a file that grew writes its metadata too).
    static let backstopPages = 240
    /// Checkpoints in a row at most, while commits keep landing behind each one.
    static let catchUpAttempts = 4

    private struct State: Sendable {
        var commits = 0
        var isRunning = false
        var checkpoints = 0
        var lastError: String?
    }

    private let connection: SQLiteSerialConnection
    private let state = Mutex(State())

    /// A connection of its own to the database at `path` (created and migrated already).
    init(path: String) throws {
        connection = try SQLiteSerialConnection(path: path, options: .init(creates: false), label: "reach.queue.checkpoint")
        try connection.sync { db in
            // Its checkpoints sync the log before copying and the database file after (FULL),
            // so a log the writer then restarts never held the only copy of a change.
            try db.executeScript("PRAGMA synchronous = FULL; PRAGMA journal_size_limit = \(QueueStore.journalSizeLimit);")
        }
    }

    /// Checkpoints done so far (for tests).
    var checkpoints: Int { state.withLock { $0.checkpoints } }

    /// Counts a commit of the writer's; every ``commitsPerCheckpoint``-th starts a checkpoint
    /// unless one is running (the next commit then starts it).
    func committed() {
        let starts = state.withLock { state -> Bool in
            state.commits += 1
            guard state.commits >= Self.commitsPerCheckpoint, !state.isRunning else { return false }
            state.commits = 0
            state.isRunning = true
            return true
        }
        if starts { run() }
    }

    private func run() {
        connection.async { [self] db in
            var failure: String?
            do {
                // Until it has caught up, a few times: the log restarts from its beginning
                // only after a checkpoint that copied all of it, and an add committed while
                // this one ran is left for the next.
                for _ in 0..<Self.catchUpAttempts {
                    let (logged, copied) = try db.checkpointPassively()
                    if copied >= logged { break }
                }
            } catch {
                // The writer's backstop checkpoints then; the log says why this one could not.
                failure = "\(error)"
            }
            let report = state.withLock { state -> String? in
                state.isRunning = false
                state.checkpoints += 1
                defer { state.lastError = failure }
                return failure != state.lastError ? failure : nil
            }
            if let report { QueueLog.notice("cannot checkpoint the queue's log (the writer will): \(report)") }
        }
    }
}
