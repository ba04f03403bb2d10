/// One value SQLite stores: what a column holds and what a statement is bound to.
package enum SQLiteValue: Sendable, Hashable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob([UInt8])

    /// Its SQLite type name, for an error saying what a column held instead.
    var typeName: String {
        switch self {
        case .null: "NULL"
        case .integer: "INTEGER"
        case .real: "REAL"
        case .text: "TEXT"
        case .blob: "BLOB"
        }
    }
}

/// A Swift value a statement can be bound to and a column read back as. Reading fails (nil)
/// for a column of another type, never converting text to a number behind the caller's back.
package protocol SQLiteValueConvertible: Sendable {
    var sqliteValue: SQLiteValue { get }
    init?(sqliteValue: SQLiteValue)
}

extension Int64: SQLiteValueConvertible {
    package var sqliteValue: SQLiteValue { .integer(self) }
    package init?(sqliteValue: SQLiteValue) {
        guard case .integer(let value) = sqliteValue else { return nil }
        self = value
    }
}

extension Int: SQLiteValueConvertible {
    package var sqliteValue: SQLiteValue { .integer(Int64(self)) }
    package init?(sqliteValue: SQLiteValue) {
        guard case .integer(let value) = sqliteValue, let exact = Int(exactly: value) else { return nil }
        self = exact
    }
}

extension Int32: SQLiteValueConvertible {
    package var sqliteValue: SQLiteValue { .integer(Int64(self)) }
    package init?(sqliteValue: SQLiteValue) {
        guard case .integer(let value) = sqliteValue, let exact = Int32(exactly: value) else { return nil }
        self = exact
    }
}

extension Double: SQLiteValueConvertible {
    package var sqliteValue: SQLiteValue { .real(self) }
    /// An integer column reads as a double too: SQLite stores a REAL that has no fraction as an
    /// integer in a column of no declared type, and an expression's result may be either.
    package init?(sqliteValue: SQLiteValue) {
        switch sqliteValue {
        case .real(let value): self = value
        case .integer(let value): self = Double(value)
        default: return nil
        }
    }
}

extension Bool: SQLiteValueConvertible {
    package var sqliteValue: SQLiteValue { .integer(self ? 1 : 0) }
    package init?(sqliteValue: SQLiteValue) {
        guard case .integer(let value) = sqliteValue else { return nil }
        self = value != 0
    }
}

extension String: SQLiteValueConvertible {
    package var sqliteValue: SQLiteValue { .text(self) }
    package init?(sqliteValue: SQLiteValue) {
        guard case .text(let value) = sqliteValue else { return nil }
        self = value
    }
}

extension Optional: SQLiteValueConvertible where Wrapped: SQLiteValueConvertible {
    package var sqliteValue: SQLiteValue { self?.sqliteValue ?? .null }
    package init?(sqliteValue: SQLiteValue) {
        if case .null = sqliteValue {
            self = .none
        } else if let value = Wrapped(sqliteValue: sqliteValue) {
            self = .some(value)
        } else {
            return nil
        }
    }
}
