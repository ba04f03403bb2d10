/// A request target in origin form (`/v1/jobs?state=queued`) split into its path and its
/// decoded query parameters.
struct RequestTarget {
    let path: String
    /// Every parameter in the order sent, repeats included (`?state=a&state=b`).
    let queryItems: [(name: String, value: String)]
    /// The last value of each name.
    var query: [String: String] { Dictionary(queryItems.map { ($0.name, $0.value) }, uniquingKeysWith: { $1 }) }

    /// Nil for a target that is not in origin form (`*`, `http://host/…`): this server has no
    /// use for those.
    init?(_ uri: String) {
        guard uri.hasPrefix("/") else { return nil }
        // A fragment is never sent by clients; if one is, it is not part of the query.
        let withoutFragment = uri.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false)[0]
        let parts = withoutFragment.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        path = String(parts[0])
        var items: [(name: String, value: String)] = []
        if parts.count > 1 {
            for pair in parts[1].split(separator: "&") {
                let nameAndValue = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                let value = nameAndValue.count > 1 ? Self.decode(nameAndValue[1]) : ""
                items.append((Self.decode(nameAndValue[0]), value))
            }
        }
        queryItems = items
    }

    /// Form decoding: `+` is a space, `%XX` a byte; a malformed escape stays as written, and
    /// bytes that are not UTF-8 become U+FFFD.
    static func decode(_ text: Substring) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count)
        var input = text.utf8[...]
        while let byte = input.popFirst() {
            if byte == UInt8(ascii: "+") {
                bytes.append(UInt8(ascii: " "))
            } else if byte == UInt8(ascii: "%"), input.count >= 2, let high = hexValue(input[input.startIndex]),
                let low = hexValue(input[input.index(after: input.startIndex)])
            {
                bytes.append(high << 4 | low)
                input = input.dropFirst(2)
            } else {
                bytes.append(byte)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
