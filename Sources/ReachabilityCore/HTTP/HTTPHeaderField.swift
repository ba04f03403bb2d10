/// One header field as a user writes it on the command line (`-H 'Name: value'`, as curl).
public struct HTTPHeaderField: Sendable, Hashable {
    /// The field name, a token (RFC 9110 §5.1), as written (names compare case-insensitively).
    public var name: String
    /// The field value without surrounding blanks; may be empty. Never holds CR, LF, NUL or
    /// another control character but the tab.
    public var value: String

    /// A field as given (not checked: use ``parse(_:)`` for what a user typed).
    public init(name: String, value: String) {
        self.name = name
        self.value = value
    }

    /// Parses `Name: value`: a token, a colon right after it, optional blanks, the value.
    /// Nil for anything else (no colon, an empty name, blanks before the colon, a byte outside
    /// a token in the name, a control character in the value, which could split the request).
    public static func parse(_ line: String) -> HTTPHeaderField? {
        let bytes = Array(line.utf8)
        guard let colon = bytes.firstIndex(of: UInt8(ascii: ":")), colon > 0,
            bytes[..<colon].allSatisfy(isTokenByte)
        else { return nil }
        var value = bytes[(colon + 1)...]
        while let first = value.first, isBlank(first) { value.removeFirst() }
        while let last = value.last, isBlank(last) { value.removeLast() }
        guard value.allSatisfy(isValueByte) else { return nil }
        return HTTPHeaderField(
            name: String(decoding: bytes[..<colon], as: UTF8.self), value: String(decoding: value, as: UTF8.self)
        )
    }

    /// Whether `byte` is a `tchar`: the characters a field name may have.
    package static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "z"),
            UInt8(ascii: "A")...UInt8(ascii: "Z"):
            true
        default:
            "!#$%&'*+-.^_`|~".utf8.contains(byte)
        }
    }

    /// Whether `byte` may appear in a field value: visible ASCII, blanks, and UTF-8 (obs-text).
    package static func isValueByte(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: "\t") || (byte >= 0x20 && byte != 0x7F)
    }

    private static func isBlank(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t")
    }
}
