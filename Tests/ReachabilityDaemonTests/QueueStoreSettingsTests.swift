@testable import ReachabilityDaemon
import ReachabilitySQLite
import ReachabilityTestKit
import Testing

/// The settings the queue's durability rests on, as its writer connection has them.
@Suite("The queue database's settings")
struct QueueStoreSettingsTests {
    /// A new store in a directory of its own, removed after `body`.
    private func withStore<T>(_ body: (QueueStore) async throws -> T) async throws -> T {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        return try await body(try QueueStore(directory: directory.path))
    }

    @Test func theWriterSyncsEveryCommitAndCheckpointsOnlyPastTheBackstop() async throws {
        let settings = try await withStore { store in try store.writer.sync { db in
            [
                "journal_mode": try db.value("PRAGMA journal_mode"),
                // 2 is FULL: the log is synced at each commit, before the client hears of it.
                "synchronous": try db.value("PRAGMA synchronous"),
                "wal_autocheckpoint": try db.value("PRAGMA wal_autocheckpoint"),
                "journal_size_limit": try db.value("PRAGMA journal_size_limit"),
                "foreign_keys": try db.value("PRAGMA foreign_keys"),
            ]
        } }
        #expect(settings == [
            "journal_mode": .text("wal"), "synchronous": .integer(2), "wal_autocheckpoint": .integer(240),
            "journal_size_limit": .integer(1_048_576), "foreign_keys": .integer(1),
        ])
    }

    @Test func onlyTheIndexAReadUsesIsKept() async throws {
        // Each index is more pages of log per add and per change; unfinished jobs are read all
        // at once at the start, a job's history by its id, finished jobs (not in memory)
        // through a partial index that changes once per job, when it finishes.
        let indexes = try await withStore { store in try store.reader.sync { db in
            try db.rows("SELECT name FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL ORDER BY name").map { try $0.get("name", as: String.self) }
        } }
        #expect(indexes == ["history_by_job", "job_finished"])
    }
}
