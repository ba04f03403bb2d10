/// A database's versions, applied in order, each once, each in a transaction of its own, and
/// recorded by identifier. The record is the table GRDB's migrator kept (`grdb_migrations`), so
/// a database written while the queue used GRDB opens as it is and keeps every row.
package struct SQLiteMigrator: Sendable {
    package struct Migration: Sendable {
        package var identifier: String
        package var sql: String
    }

    /// Where the applied migrations are recorded: the table GRDB created, in its layout.
    package static let recordTable = "grdb_migrations"

    package private(set) var migrations: [Migration] = []

    package init() {}

    /// Adds a migration, run after those registered before it.
    package mutating func register(_ identifier: String, sql: String) {
        precondition(!migrations.contains { $0.identifier == identifier }, "migration \(identifier) registered twice")
        migrations.append(Migration(identifier: identifier, sql: sql))
    }

    /// The identifiers recorded in `connection`'s database (none for a new one).
    package func applied(in connection: SQLiteConnection) throws(SQLiteError) -> Set<String> {
        let exists = try connection.value("SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = ?", [Self.recordTable])
        guard exists != .integer(0) else { return [] }
        var identifiers: Set<String> = []
        for row in try connection.rows("SELECT identifier FROM \(Self.recordTable)") { identifiers.insert(try row.get("identifier")) }
        return identifiers
    }

    /// Migrations the database records that this build does not know: a newer version wrote it.
    package func unknown(in connection: SQLiteConnection) throws(SQLiteError) -> [String] {
        let known = Set(migrations.map(\.identifier))
        return try applied(in: connection).subtracting(known).sorted()
    }

    /// Applies the migrations the database has not had, in order.
    package func migrate(_ connection: SQLiteConnection) throws {
        try connection.executeScript("CREATE TABLE IF NOT EXISTS \(Self.recordTable) (identifier TEXT NOT NULL PRIMARY KEY)")
        let done = try applied(in: connection)
        for migration in migrations where !done.contains(migration.identifier) {
            try connection.transaction {
                try connection.executeScript(migration.sql)
                try connection.execute("INSERT INTO \(Self.recordTable) (identifier) VALUES (?)", [migration.identifier])
            }
        }
    }
}
