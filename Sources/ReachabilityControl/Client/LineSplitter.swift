/// Cuts a byte stream into lines.
struct LineSplitter {
    let maxLineBytes: Int
    private var pending: [UInt8] = []

    init(maxLineBytes: Int) {
        self.maxLineBytes = maxLineBytes
    }

    /// The lines `bytes` completes (without their terminators, empty ones dropped); nil when
    /// the unfinished line grew past the bound.
    mutating func append(_ bytes: [UInt8]) -> [[UInt8]]? {
        var lines: [[UInt8]] = []
        for byte in bytes {
            if byte == UInt8(ascii: "\n") {
                if pending.last == UInt8(ascii: "\r") { pending.removeLast() }
                if !pending.isEmpty { lines.append(pending) }
                pending.removeAll(keepingCapacity: true)
            } else {
                guard pending.count < maxLineBytes else { return nil }
                pending.append(byte)
            }
        }
        return lines
    }

    /// The unterminated last line, if any, once the stream ended.
    mutating func finish() -> [UInt8]? {
        defer { pending = [] }
        return pending.isEmpty ? nil : pending
    }
}
