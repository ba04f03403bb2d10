import FoundationEssentials
import Reachability
@testable import ReachabilityDaemon
import ReachabilitySQLite
import ReachabilityTestKit
import Testing

/// A database this build cannot understand is refused with a clear message and left untouched,
/// never used silently: a newer version's migration, or a job in a state this build does not know.
@Suite("A database from a newer version")
struct ForeignDatabaseTests {
    private func queue(_ directory: TemporaryDirectory) throws -> JobQueue {
        try JobQueue(configuration: .init(stateDirectory: directory.path), monitor: NetworkMonitor(source: FakeNetworkSource(), clock: ContinuousClock()))
    }

    private func seed(_ directory: TemporaryDirectory) async throws {
        let queue = try queue(directory)
        try queue.start()
        _ = try await queue.add(QueueJobSpec(kind: .command, command: CommandSpec(arguments: ["true"]), notBefore: Date().addingTimeInterval(3600)), workingDirectory: "/")
        await queue.shutdown()
    }

    @Test func aMigrationThisBuildDoesNotKnowIsRefused() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try await seed(directory)
        let path = directory.path + "/queue.sqlite"
        try SQLiteConnection(path: path).execute("INSERT INTO grdb_migrations (identifier) VALUES ('v9: budgets')")
        let dump = { () throws -> [String] in
            let db = try SQLiteConnection(path: path)
            return try (db.rows("SELECT identifier FROM grdb_migrations ORDER BY identifier")
                + db.rows("SELECT id || ' ' || state || ' ' || spec FROM job ORDER BY id")).map { String(sqliteValue: $0.first) ?? "" }
        }
        let before = try dump()
        #expect(before.count == 6, "five migrations (four of this build's, the unknown one) and the job: \(before)")
        let refusal = #expect(throws: QueueError.self) { try queue(directory) }
        #expect(refusal?.message.contains("written by a newer version of reach") == true, "\(refusal?.message ?? "")")
        #expect(refusal?.message.contains("v9: budgets") == true)
        #expect(try dump() == before, "the database was changed")
    }

    @Test func aJobInAStateThisBuildDoesNotKnowStopsTheStart() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try await seed(directory)
        try SQLiteConnection(path: directory.path + "/queue.sqlite").execute("UPDATE job SET state = 'overBudget' WHERE id = 1")
        let queue = try queue(directory)
        let refusal = #expect(throws: QueueError.self) { try queue.start() }
        #expect(refusal?.message.contains("job 1 is in state 'overBudget', which this version does not know") == true, "\(refusal?.message ?? "")")
        #expect(try queue.list().isEmpty, "nothing was taken up")
    }
}
