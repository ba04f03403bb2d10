// The small text helpers the package shares, one home each.

/// The one trimming helper of the package (configuration lines, lease files, sysfs values, HTTP
/// headers): spaces, tabs, carriage returns and newlines at either end. Foundation's
/// `trimmingCharacters(in:)` would pull Foundation into modules that avoid it.
extension StringProtocol where SubSequence == Substring {
    package func trimmingBlanks() -> Substring {
        let isBlank: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\r" || $0 == "\n" || $0 == "\r\n" }
        guard let first = firstIndex(where: { !isBlank($0) }), let last = lastIndex(where: { !isBlank($0) }) else {
            return self[endIndex...]
        }
        return self[first...last]
    }
}

/// The value of one ASCII hex digit (lease files, percent-escapes in the test server), or nil;
/// bytes written as lower-case hex, two digits each (digests).
package enum ASCIIHex {
    private static let digits = Array("0123456789abcdef".utf8)

    /// `bytes` as lower-case hex, two digits a byte (`String(format: "%02x")` is Foundation's).
    package static func lowercase(_ bytes: some Sequence<UInt8>) -> String {
        var text: [UInt8] = []
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0f)])
        }
        return String(decoding: text, as: UTF8.self)
    }

    package static func value(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}

extension Character {
    /// Whether this is one of the ASCII digits `0`–`9`. Not `("0"..."9").contains(self)`: a
    /// digit followed by a combining mark (`5\u{301}`) sorts inside that range.
    package var isASCIIDigit: Bool {
        guard let ascii = asciiValue else { return false }
        return ascii >= UInt8(ascii: "0") && ascii <= UInt8(ascii: "9")
    }
}

/// Unsigned decimal numbers as HTTP writes them (`1*DIGIT`): ASCII digits only, no sign, no
/// blanks; nil when empty, when anything else appears, or when the value passes `Int64.max`.
/// `Int64(_:)` would accept a leading `+`.
package enum DecimalDigits {
    package static func int64<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> Int64? {
        guard !bytes.isEmpty else { return nil }
        var value: Int64 = 0
        for byte in bytes {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            let (times10, overflow1) = value.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = times10.addingReportingOverflow(Int64(byte - UInt8(ascii: "0")))
            guard !overflow1, !overflow2 else { return nil }
            value = sum
        }
        return value
    }

    /// ``int64(_:)`` of a text's UTF-8.
    package static func int64<Text: StringProtocol>(_ text: Text) -> Int64? {
        int64(text.utf8)
    }
}
