import ReachabilityCore

/// libFuzzer entry point for `Glob`: the input is a pattern and a name separated by the first
/// NUL byte (no NUL: the pattern is matched against itself).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzGlob(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = UnsafeBufferPointer(start: data, count: size)
    let separator = bytes.firstIndex(of: 0)
    let pattern = String(decoding: bytes[..<(separator ?? size)], as: UTF8.self)
    let name = separator.map { String(decoding: bytes[($0 + 1)...], as: UTF8.self) } ?? pattern
    guard let glob = Glob(pattern) else {
        precondition(pattern.contains("["), "only an unclosed bracket makes a pattern invalid")
        return 0
    }
    let matched = glob.matches(name)
    // Cheap truths that hold for every input. The others only for ASCII: elsewhere joining
    // texts can merge characters (a prepended mark followed by '*' is one Character).
    precondition(Glob("*")!.matches(name), "'*' matches everything")
    guard pattern.utf8.allSatisfy({ $0 < 0x80 }), name.utf8.allSatisfy({ $0 < 0x80 }) else { return 0 }
    if !pattern.contains(where: { $0 == "*" || $0 == "?" || $0 == "[" }) {
        precondition(matched == (pattern == name), "a literal pattern matches only itself")
    }
    if matched { precondition(Glob(pattern + "*")!.matches(name), "a trailing '*' keeps a match") }
    return 0
}
