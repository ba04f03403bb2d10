/// Byte-level text helpers for scanning what a server sent (a probe's body) without decoding
/// it: ASCII case folding, blanks, searching. Bytes outside ASCII simply never match.
package enum ASCIIBytes {
    /// `byte` in lower case when it is an ASCII capital letter.
    package static func lowercased(_ byte: UInt8) -> UInt8 {
        byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte + 0x20 : byte
    }

    /// Space, tab, LF, CR or form feed: HTML's ASCII whitespace.
    package static func isBlank(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D || byte == 0x0C
    }

    /// A letter, digit, `_` or `$`: a byte that continues a JavaScript identifier.
    package static func isIdentifierByte(_ byte: UInt8) -> Bool {
        let lower = lowercased(byte)
        return (lower >= UInt8(ascii: "a") && lower <= UInt8(ascii: "z")) || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
            || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "$")
    }

    /// Whether `bytes` holds `needle` (lower-case ASCII) at `index`, ignoring ASCII case.
    package static func matches(_ needle: String, in bytes: [UInt8], at index: Int) -> Bool {
        guard index >= 0, index <= bytes.count else { return false }
        return bytes[index...].prefix(needle.utf8.count).lowercasedEquals(needle)
    }

    /// The first index at or after `start` where `needle` (lower-case ASCII) begins, ignoring
    /// ASCII case.
    package static func find(_ needle: String, in bytes: [UInt8], from start: Int) -> Int? {
        let pattern = Array(needle.utf8)
        guard let first = pattern.first, start >= 0, bytes.count >= pattern.count else { return nil }
        let last = bytes.count - pattern.count
        var index = start
        while index <= last {
            if lowercased(bytes[index]) == first, matches(needle, in: bytes, at: index) { return index }
            index += 1
        }
        return nil
    }

    /// The first index at or after `start` that is not a blank (`bytes.count` if none).
    package static func skipBlanks(in bytes: [UInt8], from start: Int) -> Int {
        var index = max(start, 0)
        while index < bytes.count, isBlank(bytes[index]) { index += 1 }
        return index
    }

    /// `bytes` without blanks at either end.
    package static func trimmed(_ bytes: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        var slice = bytes
        while let first = slice.first, isBlank(first) { slice.removeFirst() }
        while let last = slice.last, isBlank(last) { slice.removeLast() }
        return slice
    }
}

extension Collection<UInt8> {
    /// Whether these bytes are `text` (lower-case ASCII), ignoring ASCII case.
    package func lowercasedEquals(_ text: String) -> Bool {
        elementsEqual(text.utf8) { ASCIIBytes.lowercased($0) == $1 }
    }
}
