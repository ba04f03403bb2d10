import CSQLite

/// What SQLite said when a call failed: its extended result code and message.
package struct SQLiteError: Error, Sendable, Hashable, CustomStringConvertible {
    /// SQLite's extended result code (`SQLITE_IOERR_FSYNC`, …).
    package var code: Int32
    package var message: String

    package init(code: Int32, message: String) {
        self.code = code
        self.message = message
    }

    /// The primary result code (`SQLITE_FULL`, `SQLITE_BUSY`, …): the low byte of the extended one.
    package var primaryCode: Int32 { code & 0xff }

    /// The file system (or the database's size limit) is full: nothing of the write was kept.
    package var isFull: Bool { primaryCode == SQLITE_FULL }

    package var description: String { "\(message) (SQLite error \(code))" }

    /// A column that does not hold what the reader expects.
    static func mismatch(column: String, expected: Any.Type, found: SQLiteValue) -> SQLiteError {
        SQLiteError(code: SQLITE_MISMATCH, message: "column '\(column)' holds \(found.typeName), not \(expected)")
    }
}
