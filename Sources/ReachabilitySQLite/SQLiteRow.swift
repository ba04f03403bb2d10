/// One row of a query's result, its columns by name.
package struct SQLiteRow: Sendable {
    /// The result's column names, shared by every row of it.
    let names: [String]
    let values: [SQLiteValue]

    /// The value in `column`, or `.null` when the result has no such column.
    package subscript(_ column: String) -> SQLiteValue {
        guard let index = names.firstIndex(of: column) else { return .null }
        return values[index]
    }

    /// The first column's value (`SELECT count(*) …`).
    package var first: SQLiteValue { values.first ?? .null }

    /// `column` as a `T`; an error names the column when it holds something else (a NULL in a
    /// column read as non-optional, text where a number belongs).
    package func get<T: SQLiteValueConvertible>(_ column: String, as type: T.Type = T.self) throws(SQLiteError) -> T {
        let value = self[column]
        guard let converted = T(sqliteValue: value) else { throw .mismatch(column: column, expected: T.self, found: value) }
        return converted
    }
}
