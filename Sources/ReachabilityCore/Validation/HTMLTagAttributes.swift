/// The attributes of one HTML start tag, read leniently from raw bytes as a browser would:
/// names in any case, values double-quoted, single-quoted or bare. For finding a portal's meta
/// refresh; it does not decode entities.
package struct TagAttributes {
    /// Names (lower case) and values, in order.
    package private(set) var attributes: [(name: [UInt8], value: ArraySlice<UInt8>)] = []
    /// The index after the tag's `>`, or where reading stopped (the end of the input, or after
    /// ``maximumCount`` attributes).
    package private(set) var end: Int

    /// More attributes than any meta tag has: a bound on the work one tag can cause.
    package static let maximumCount = 32

    /// Reads the attributes starting at `start` (just after the tag's name).
    package init(_ bytes: [UInt8], from start: Int) {
        var index = max(start, 0)
        while index < bytes.count, attributes.count < Self.maximumCount {
            // Every pass consumes at least one byte: a blank, a slash, a `>`, a name or an `=`.
            while index < bytes.count, ASCIIBytes.isBlank(bytes[index]) || bytes[index] == UInt8(ascii: "/") { index += 1 }
            guard index < bytes.count else { break }
            if bytes[index] == UInt8(ascii: ">") {
                index += 1
                break
            }
            let nameStart = index
            while index < bytes.count, !Self.endsName(bytes[index]) { index += 1 }
            let name = bytes[nameStart..<index].map(ASCIIBytes.lowercased)
            index = ASCIIBytes.skipBlanks(in: bytes, from: index)
            var value = bytes[index..<index]
            if index < bytes.count, bytes[index] == UInt8(ascii: "=") {
                (value, index) = Self.value(in: bytes, from: ASCIIBytes.skipBlanks(in: bytes, from: index + 1))
            }
            attributes.append((name, value))
        }
        end = index
    }

    /// The value of the first attribute called `name` (lower case), if any.
    package func value(of name: String) -> ArraySlice<UInt8>? {
        attributes.first { $0.name.elementsEqual(name.utf8) }?.value
    }

    private static func endsName(_ byte: UInt8) -> Bool {
        ASCIIBytes.isBlank(byte) || byte == UInt8(ascii: "=") || byte == UInt8(ascii: ">") || byte == UInt8(ascii: "/")
    }

    /// A quoted value up to its closing quote (or the end), or a bare one up to a blank or `>`.
    private static func value(in bytes: [UInt8], from start: Int) -> (ArraySlice<UInt8>, Int) {
        var index = start
        guard index < bytes.count else { return (bytes[index..<index], index) }
        let quote = bytes[index]
        if quote == UInt8(ascii: "\"") || quote == UInt8(ascii: "'") {
            index += 1
            let valueStart = index
            while index < bytes.count, bytes[index] != quote { index += 1 }
            let value = bytes[valueStart..<index]
            return (value, min(index + 1, bytes.count))
        }
        while index < bytes.count, !ASCIIBytes.isBlank(bytes[index]), bytes[index] != UInt8(ascii: ">") { index += 1 }
        return (bytes[start..<index], index)
    }
}
