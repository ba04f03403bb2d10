/// The network prefix of an address: `192.168.1.20/24` → `192.168.1.0/24`, for path identity.
enum IPPrefix {
    static func network(of address: String, prefixLength: Int, family: AddressFamily) -> String? {
        guard var bytes = family == .ipv4 ? ipv4Bytes(address) : ipv6Bytes(address) else { return nil }
        let bits = min(max(prefixLength, 0), bytes.count * 8)
        for index in bytes.indices {
            let keep = min(max(bits - index * 8, 0), 8)
            bytes[index] &= keep == 0 ? 0 : UInt8(truncatingIfNeeded: 0xFF << (8 - keep))
        }
        let text = family == .ipv4 ? bytes.map(String.init).joined(separator: ".") : ipv6Text(bytes)
        return "\(text)/\(bits)"
    }

    static func ipv4Bytes(_ text: String) -> [UInt8]? {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4 else { return nil }
        let bytes = parts.compactMap { UInt8($0) }
        return bytes.count == 4 ? bytes : nil
    }

    static func ipv6Bytes(_ text: String) -> [UInt8]? {
        let halves = text.components(separatedBy: "::")
        guard halves.count <= 2 else { return nil }
        func groups(_ part: String) -> [UInt16]? {
            if part.isEmpty { return [] }
            let values = part.split(separator: ":", omittingEmptySubsequences: false).map { UInt16($0, radix: 16) }
            return values.contains(nil) ? nil : values.map { $0! }
        }
        guard let head = groups(halves[0]) else { return nil }
        var all = head
        if halves.count == 2 {
            guard let tail = groups(halves[1]), head.count + tail.count < 8 else { return nil }
            all += Array(repeating: 0, count: 8 - head.count - tail.count) + tail
        }
        guard all.count == 8 else { return nil }
        return all.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }
    }

    /// RFC 5952 text: lower-case, the longest run of two or more zero groups as `::`.
    static func ipv6Text(_ bytes: [UInt8]) -> String {
        let groups = stride(from: 0, to: 16, by: 2).map { UInt16(bytes[$0]) << 8 | UInt16(bytes[$0 + 1]) }
        var best = (start: -1, length: 0)
        var index = 0
        while index < 8 {
            var end = index
            while end < 8 && groups[end] == 0 { end += 1 }
            if end - index > best.length && end - index >= 2 { best = (index, end - index) }
            index = max(end, index + 1)
        }
        let text = groups.map { String($0, radix: 16) }
        guard best.start >= 0 else { return text.joined(separator: ":") }
        let head = text[..<best.start].joined(separator: ":")
        let tail = text[(best.start + best.length)...].joined(separator: ":")
        return head + "::" + tail
    }
}

extension String {
    fileprivate func components(separatedBy separator: String) -> [String] {
        var parts: [String] = []
        var rest = Substring(self)
        while let range = rest.firstRange(of: separator) {
            parts.append(String(rest[..<range.lowerBound]))
            rest = rest[range.upperBound...]
        }
        parts.append(String(rest))
        return parts
    }
}
