import ReachabilityCore

/// libFuzzer entry point for `ByteCount.parse`, the size parser of `--max-cellular`: the input
/// is what a user typed.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzByteCount(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    guard let bytes = ByteCount.parse(text) else {
        // Plain digits that fit are always a size.
        if !text.isEmpty, text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), let value = UInt64(text) {
            precondition(value > UInt64(Int64.max), "'\(text)' refused")
        }
        return 0
    }
    precondition(bytes >= 0, "negative size \(bytes) for '\(text)'")
    // Only ASCII digits, one dot and a unit make a size: no sign, exponent, inf or nan.
    let number = text.utf8.filter { $0 == UInt8(ascii: ".") || ($0 >= 0x30 && $0 <= 0x39) }
    precondition(number.filter { $0 == UInt8(ascii: ".") }.count <= 1, "two dots in '\(text)'")
    precondition(!text.contains { $0 == "-" || $0 == "+" || $0 == "e" || $0 == "E" || $0 == "n" }, "sign or exponent in '\(text)'")
    // A count of bytes reads back as itself, with or without the unit `B`.
    precondition(ByteCount.parse(String(bytes)) == bytes && ByteCount.parse("\(bytes) B") == bytes, "\(bytes) does not parse back")
    _ = ByteCount.text(bytes)
    return 0
}
