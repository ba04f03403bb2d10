/// A `Content-Range` header value (RFC 9110 §14.4): `bytes FIRST-LAST/TOTAL`,
/// `bytes FIRST-LAST/*` or `bytes */TOTAL`.
///
/// A parsed value always satisfies `0 <= first <= last`, and `last < total` when both are
/// known: a server's numbers are checked before any arithmetic is done on them.
public struct ContentRange: Sendable, Hashable {
    /// The inclusive byte range sent, absent for the unsatisfied form `bytes */TOTAL`.
    public var range: ClosedRange<Int64>?
    /// The full size, absent when the server wrote `*`.
    public var total: Int64?

    /// A value as given (not checked: use ``init(_:)`` for what a server sent).
    public init(range: ClosedRange<Int64>?, total: Int64?) {
        self.range = range
        self.total = total
    }

    /// Parses a header value; nil when it is malformed, not in bytes, or its numbers are out
    /// of range (signs, more than `Int64.max`, `last < first`, `last >= total`).
    public init?(_ header: String) {
        let text = header.trimmingBlanks()
        let unit = "bytes"
        // `bytes` then at least one blank (RFC 9110: `range-unit SP range-resp`).
        guard text.prefix(unit.count).lowercased() == unit else { return nil }
        let rest = text.dropFirst(unit.count)
        guard let blank = rest.first, blank == " " || blank == "\t", let slash = rest.lastIndex(of: "/") else {
            return nil
        }
        let rangeText = rest[..<slash].trimmingBlanks()
        let totalText = rest[rest.index(after: slash)...].trimmingBlanks()
        if totalText == "*" {
            total = nil
        } else {
            guard let value = DecimalDigits.int64(totalText) else { return nil }
            total = value
        }
        if rangeText == "*" {
            guard total != nil else { return nil }
            range = nil
            return
        }
        guard let dash = rangeText.firstIndex(of: "-"), let first = DecimalDigits.int64(rangeText[..<dash]),
            let last = DecimalDigits.int64(rangeText[rangeText.index(after: dash)...]), first <= last
        else { return nil }
        if let total, last >= total { return nil }
        range = first...last
    }
}
