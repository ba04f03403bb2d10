import GRDB
@testable import ReachabilityDaemon
import ReachabilityTestKit
import Testing

/// The settings the queue's durability rests on, as its writer connection has them (GRDB turns
/// WAL on after the connection's own set-up, and with it sets `synchronous = NORMAL`).
@Suite("The queue database's settings")
struct QueueStoreSettingsTests {
    /// A new store in a directory of its own, removed after `body`.
    private func withStore<T>(_ body: (QueueStore) async throws -> T) async throws -> T {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        return try await body(try QueueStore(directory: directory.path))
    }

    @Test func theWriterSyncsEveryCommitAndCheckpointsOnlyPastTheBackstop() async throws {
        let settings = try await withStore { store in try await store.pool.write { db in
            [
                "journal_mode": try String.fetchOne(db, sql: "PRAGMA journal_mode"),
                // 2 is FULL: the log is synced at each commit, before the client hears of it.
                "synchronous": try Int.fetchOne(db, sql: "PRAGMA synchronous").map(String.init),
                "wal_autocheckpoint": try Int.fetchOne(db, sql: "PRAGMA wal_autocheckpoint").map(String.init),
                "journal_size_limit": try Int.fetchOne(db, sql: "PRAGMA journal_size_limit").map(String.init),
            ]
        } }
        #expect(settings == ["journal_mode": "wal", "synchronous": "2", "wal_autocheckpoint": "240", "journal_size_limit": "1048576"])
    }

    @Test func onlyTheIndexAReadUsesIsKept() async throws {
        // Each index is more pages of log per add and per change; jobs are read all at once at
        // the start, a job's history by its id.
        let indexes = try await withStore { store in try await store.pool.read { db in
            try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL ORDER BY name")
        } }
        #expect(indexes == ["history_by_job"])
    }
}
