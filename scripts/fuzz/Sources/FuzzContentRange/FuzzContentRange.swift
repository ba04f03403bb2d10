import ReachabilityCore

/// libFuzzer entry point for `ContentRange`: the input is one `Content-Range` value, as a
/// server may send anything there.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzContentRange(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    guard let parsed = ContentRange(text) else { return 0 }
    // The promises the resume decisions rely on: 0 <= first <= last < total, and the
    // unsatisfied form `*/TOTAL` always has a total.
    if let range = parsed.range {
        precondition(range.lowerBound >= 0, "negative first byte")
        if let total = parsed.total { precondition(range.upperBound < total, "last byte not below the total") }
    } else {
        precondition(parsed.total != nil, "'bytes */*' accepted")
    }
    if let total = parsed.total { precondition(total >= 0, "negative total") }
    // The canonical form of what was parsed parses to the same value.
    let first = parsed.range.map { "\($0.lowerBound)-\($0.upperBound)" } ?? "*"
    let canonical = "bytes \(first)/\(parsed.total.map(String.init) ?? "*")"
    precondition(ContentRange(canonical) == parsed, "'\(canonical)' does not parse back")
    return 0
}
