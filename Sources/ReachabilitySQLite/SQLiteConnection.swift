import CSQLite

/// One connection to an SQLite database, used by one thread at a time (its owner serialises
/// calls: ``SQLiteSerialConnection``). Statements run with bound values only, never with values
/// spliced into the SQL, and stay compiled for the connection's life.
package final class SQLiteConnection {
    /// How a connection opens its file.
    package struct OpenOptions: Sendable, Hashable {
        /// Creates the file when it is missing.
        package var creates = true

        package init(creates: Bool = true) {
            self.creates = creates
        }
    }

    /// How long a statement waits for another connection's lock before failing with
    /// `SQLITE_BUSY`, in milliseconds.
    static let busyTimeoutMilliseconds: Int32 = 5_000

    private let handle: OpaquePointer
    /// Compiled statements by their SQL: prepared once per connection, not once per use.
    private var statements: [String: OpaquePointer] = [:]

    /// Opens the database at `path`. A symlink is refused (`SQLITE_OPEN_NOFOLLOW`).
    package init(path: String, options: OpenOptions = OpenOptions()) throws(SQLiteError) {
        var flags = SQLITE_OPEN_NOFOLLOW | SQLITE_OPEN_EXRESCODE | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_READWRITE
        if options.creates { flags |= SQLITE_OPEN_CREATE }
        var opened: OpaquePointer?
        let code = sqlite3_open_v2(path, &opened, flags, nil)
        guard code == SQLITE_OK, let opened else {
            // A handle comes back even for most failures, holding the message; it must be closed.
            let message = opened.map { String(cString: sqlite3_errmsg($0)) } ?? String(cString: sqlite3_errstr(code))
            sqlite3_close_v2(opened)
            throw SQLiteError(code: code, message: "cannot open \(path): \(message)")
        }
        handle = opened
        sqlite3_busy_timeout(handle, Self.busyTimeoutMilliseconds)
    }

    deinit {
        for statement in statements.values { sqlite3_finalize(statement) }
        sqlite3_close_v2(handle)
    }

    // MARK: Statements

    /// Runs `sql`, which may hold several statements and binds nothing (a schema, a pragma).
    package func executeScript(_ sql: String) throws(SQLiteError) {
        var message: UnsafeMutablePointer<CChar>?
        let code = sqlite3_exec(handle, sql, nil, nil, &message)
        defer { sqlite3_free(message) }
        guard code == SQLITE_OK else {
            throw SQLiteError(code: sqlite3_extended_errcode(handle), message: message.map { String(cString: $0) } ?? error.message)
        }
    }

    /// Runs one statement with `arguments` bound to its `?` in order, discarding rows.
    package func execute(_ sql: String, _ arguments: [any SQLiteValueConvertible] = []) throws(SQLiteError) {
        try withStatement(sql, arguments) { statement throws(SQLiteError) in
            while try step(statement) {}
        }
    }

    /// Runs one query with `arguments` bound, returning every row.
    package func rows(_ sql: String, _ arguments: [any SQLiteValueConvertible] = []) throws(SQLiteError) -> [SQLiteRow] {
        try withStatement(sql, arguments) { statement throws(SQLiteError) in
            let count = sqlite3_column_count(statement)
            let names = (0..<count).map { String(cString: sqlite3_column_name(statement, $0)) }
            var rows: [SQLiteRow] = []
            while try step(statement) {
                rows.append(SQLiteRow(names: names, values: (0..<count).map { column(statement, $0) }))
            }
            return rows
        }
    }

    /// The first column of the first row (`PRAGMA journal_mode`, `SELECT count(*)`), or `.null`.
    package func value(_ sql: String, _ arguments: [any SQLiteValueConvertible] = []) throws(SQLiteError) -> SQLiteValue {
        try rows(sql, arguments).first?.first ?? .null
    }

    /// The row id of the last row this connection inserted.
    package var lastInsertedRowID: Int64 { sqlite3_last_insert_rowid(handle) }

    /// Runs `body` in a transaction that takes the write lock at once (`BEGIN IMMEDIATE`), so
    /// that it never fails half-way for a lock another connection holds. Committed when `body`
    /// returns, rolled back when it throws (the error is rethrown).
    package func transaction<T>(_ body: () throws -> T) throws -> T {
        try executeScript("BEGIN IMMEDIATE")
        do {
            let result = try body()
            try executeScript("COMMIT")
            return result
        } catch {
            // SQLite may have rolled back already (a full disk); a second rollback then fails,
            // and the first error is the one to report.
            try? executeScript("ROLLBACK")
            throw error
        }
    }

    /// A passive checkpoint of the write-ahead log: the log's size and how much of it was
    /// copied into the database file, in pages. It takes no lock a writer waits for.
    package func checkpointPassively() throws(SQLiteError) -> (logged: Int, copied: Int) {
        var logged: Int32 = 0
        var copied: Int32 = 0
        let code = sqlite3_wal_checkpoint_v2(handle, nil, SQLITE_CHECKPOINT_PASSIVE, &logged, &copied)
        guard code == SQLITE_OK else { throw error }
        return (Int(logged), Int(copied))
    }

    // MARK: Internals

    private var error: SQLiteError {
        SQLiteError(code: sqlite3_extended_errcode(handle), message: String(cString: sqlite3_errmsg(handle)))
    }

    private func withStatement<T>(
        _ sql: String, _ arguments: [any SQLiteValueConvertible], _ body: (OpaquePointer) throws(SQLiteError) -> T
    ) throws(SQLiteError) -> T {
        let statement = try prepared(sql)
        defer {
            sqlite3_reset(statement)
            sqlite3_clear_bindings(statement)
        }
        let expected = sqlite3_bind_parameter_count(statement)
        guard expected == arguments.count else {
            throw SQLiteError(code: SQLITE_RANGE, message: "\(sql.prefix(60)): \(arguments.count) values for \(expected) parameters")
        }
        for (index, argument) in arguments.enumerated() { try bind(argument.sqliteValue, at: Int32(index + 1), in: statement) }
        return try body(statement)
    }

    private func prepared(_ sql: String) throws(SQLiteError) -> OpaquePointer {
        if let statement = statements[sql] { return statement }
        var statement: OpaquePointer?
        guard sqlite3_prepare_v3(handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil) == SQLITE_OK, let statement else {
            throw error
        }
        statements[sql] = statement
        return statement
    }

    private func bind(_ value: SQLiteValue, at index: Int32, in statement: OpaquePointer) throws(SQLiteError) {
        let code: Int32
        switch value {
        case .null: code = sqlite3_bind_null(statement, index)
        case .integer(let number): code = sqlite3_bind_int64(statement, index, number)
        case .real(let number): code = sqlite3_bind_double(statement, index, number)
        case .text(let text): code = sqlite3_bind_text(statement, index, text, -1, reach_sqlite_transient())
        case .blob(let bytes):
            code = bytes.withUnsafeBytes { sqlite3_bind_blob64(statement, index, $0.baseAddress, UInt64($0.count), reach_sqlite_transient()) }
        }
        guard code == SQLITE_OK else { throw error }
    }

    /// Steps `statement`: true while it has a row, false when it is done.
    private func step(_ statement: OpaquePointer) throws(SQLiteError) -> Bool {
        switch sqlite3_step(statement) {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default: throw error
        }
    }

    private func column(_ statement: OpaquePointer, _ index: Int32) -> SQLiteValue {
        switch sqlite3_column_type(statement, index) {
        case SQLITE_INTEGER: return .integer(sqlite3_column_int64(statement, index))
        case SQLITE_FLOAT: return .real(sqlite3_column_double(statement, index))
        case SQLITE_TEXT:
            guard let text = sqlite3_column_text(statement, index) else { return .text("") }
            let count = Int(sqlite3_column_bytes(statement, index))
            return .text(String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self))
        case SQLITE_BLOB:
            let count = Int(sqlite3_column_bytes(statement, index))
            guard count > 0, let bytes = sqlite3_column_blob(statement, index) else { return .blob([]) }
            return .blob(Array(UnsafeRawBufferPointer(start: bytes, count: count)))
        default: return .null
        }
    }
}
