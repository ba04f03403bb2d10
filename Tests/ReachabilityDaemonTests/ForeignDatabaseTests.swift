import Foundation
import GRDB
import Reachability
@testable import ReachabilityDaemon
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
        let database = try DatabaseQueue(path: directory.path + "/queue.sqlite")
        try await database.write { db in
            try db.execute(sql: "INSERT INTO grdb_migrations (identifier) VALUES ('v9: budgets')")
        }
        let dump = { @Sendable (db: Database) throws -> [String] in
            try String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations ORDER BY identifier")
                + String.fetchAll(db, sql: "SELECT id || ' ' || state || ' ' || spec FROM job ORDER BY id")
        }
        let before = try await database.read(dump)
        try database.close()
        let refusal = #expect(throws: QueueError.self) { try queue(directory) }
        #expect(refusal?.message.contains("written by a newer version of reach") == true, "\(refusal?.message ?? "")")
        #expect(refusal?.message.contains("v9: budgets") == true)
        #expect(try await DatabaseQueue(path: directory.path + "/queue.sqlite").read(dump) == before, "the database was changed")
    }

    @Test func aJobInAStateThisBuildDoesNotKnowStopsTheStart() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try await seed(directory)
        let database = try DatabaseQueue(path: directory.path + "/queue.sqlite")
        try await database.write { db in try db.execute(sql: "UPDATE job SET state = 'overBudget' WHERE id = 1") }
        try database.close()
        let queue = try queue(directory)
        let refusal = #expect(throws: QueueError.self) { try queue.start() }
        #expect(refusal?.message.contains("job 1 is in state 'overBudget', which this version does not know") == true, "\(refusal?.message ?? "")")
        #expect(queue.list().isEmpty, "nothing was taken up")
    }
}
