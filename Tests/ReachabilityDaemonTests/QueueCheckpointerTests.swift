import FoundationEssentials
import Glibc
@testable import ReachabilityDaemon
import ReachabilitySQLite
import ReachabilityTestKit
import ReachabilityTransfers
import Testing

/// The log is copied into the database file by the checkpointer's own connection, not inside
/// the writer's commits, and stays within its size limit.
@Suite("The queue's checkpointer")
struct QueueCheckpointerTests {
    private static func insert(_ index: Int) -> QueueStore.Write {
        .insert(spec: #"{"kind":"command","title":"job \#(index)"}"#, hasSecrets: false, state: .pending, reason: nil, at: Date())
    }

    /// Jobs in the database file alone, read from a copy of it without its log.
    private static func jobsInDatabaseFile(_ store: QueueStore, scratch: String) throws -> Int {
        let copy = scratch + "/copy.sqlite"
        try FileManager.default.copyItem(atPath: store.path, toPath: copy)
        return Int(sqliteValue: try SQLiteConnection(path: copy).value("SELECT count(*) FROM job")) ?? 0
    }

    @Test func theLogReachesTheDatabaseFileWithoutTheWriterCheckpointing() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = try QueueStore(directory: directory.path)
        let writer = QueueWriter(store: store)
        // Two checkpoints' worth of commits, fewer pages of log than the writer's backstop
        // (about 5 a commit): without the checkpointer the database file would hold no job.
        let commits = 2 * QueueCheckpointer.commitsPerCheckpoint + 8
        for index in 0..<commits { _ = try await writer.commit(Self.insert(index)) }
        let deadline = ContinuousClock.now + .seconds(10)
        while store.checkpointer.checkpoints < 2, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(5)) }
        #expect(store.checkpointer.checkpoints == 2)
        let scratch = try TemporaryDirectory()
        defer { scratch.remove() }
        // Each checkpoint copies what was committed when it began: all of the first 16 at least.
        let copied = try Self.jobsInDatabaseFile(store, scratch: scratch.path)
        #expect(copied >= QueueCheckpointer.commitsPerCheckpoint)
        #expect(copied <= commits)
    }

    @Test func theLogStaysWithinItsSizeLimitWhileAddingJobs() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = try QueueStore(directory: directory.path)
        let writer = QueueWriter(store: store)
        var largest: Int64 = 0
        for index in 0..<400 {
            _ = try await writer.commit(Self.insert(index))
            var info = stat()
            if stat(store.path + "-wal", &info) == 0 { largest = max(largest, Int64(info.st_size)) }
        }
        // 400 commits are about 2,000 pages of log (8 MB); the file is reused from its start
        // after each checkpoint that copied all of it. It passes the backstop (240 pages,
        // under 1 MiB) only while the checkpointer's connection and the writer's overlap.
        #expect(largest > 0)
        #expect(largest <= 2 * Int64(QueueStore.journalSizeLimit))
        #expect(store.checkpointer.checkpoints >= 400 / QueueCheckpointer.commitsPerCheckpoint - 1)
        let count = try store.reader.sync { db in Int(sqliteValue: try db.value("SELECT count(*) FROM job")) }
        #expect(count == 400)
    }
}
