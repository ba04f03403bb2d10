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

/// The value of one ASCII hex digit (lease files, percent-escapes in the test server), or nil.
package enum ASCIIHex {
    package static func value(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
