/// The package's one parser of address text (identity prefixes, route lookups, literal hosts),
/// and the network prefix of an address: `192.168.1.20/24` → `192.168.1.0/24`.
package enum IPPrefix {
    /// The family and bytes of an address literal (IPv4 dotted quad, or IPv6 text with an
    /// optional trailing dotted quad), or nil.
    package static func parse(_ text: String) -> (family: AddressFamily, bytes: [UInt8])? {
        if let bytes = ipv4Bytes(text) { return (.ipv4, bytes) }
        if let bytes = ipv6Bytes(text) { return (.ipv6, bytes) }
        return nil
    }

    package static func network(of address: String, prefixLength: Int, family: AddressFamily) -> String? {
        guard var bytes = family == .ipv4 ? ipv4Bytes(address) : ipv6Bytes(address) else { return nil }
        let bits = min(max(prefixLength, 0), bytes.count * 8)
        for index in bytes.indices {
            let keep = min(max(bits - index * 8, 0), 8)
            bytes[index] &= keep == 0 ? 0 : UInt8(truncatingIfNeeded: 0xFF << (8 - keep))
        }
        let text = family == .ipv4 ? bytes.map(String.init).joined(separator: ".") : ipv6Text(bytes)
        return "\(text)/\(bits)"
    }

    static func ipv4Bytes(_ text: some StringProtocol) -> [UInt8]? {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        // Decimal digits only, at most three each: `UInt8` alone would take `+1`.
        guard parts.count == 4, parts.allSatisfy({ (1...3).contains($0.count) && $0.allSatisfy { $0.isASCII && $0.isNumber } }) else {
            return nil
        }
        let bytes = parts.compactMap { UInt8($0) }
        return bytes.count == 4 ? bytes : nil
    }

    static func ipv6Bytes(_ text: String) -> [UInt8]? {
        let halves = text.components(separatedBy: "::")
        guard halves.count <= 2 else { return nil }
        func groups(_ part: String) -> [UInt16]? {
            if part.isEmpty { return [] }
            var texts = part.split(separator: ":", omittingEmptySubsequences: false)
            // `::ffff:192.0.2.1`: a trailing dotted quad stands for the last two groups.
            var tail: [UInt16] = []
            if let last = texts.last, last.contains(".") {
                guard let quad = ipv4Bytes(last) else { return nil }
                tail = [UInt16(quad[0]) << 8 | UInt16(quad[1]), UInt16(quad[2]) << 8 | UInt16(quad[3])]
                texts.removeLast()
            }
            let values = texts.map { text -> UInt16? in
                guard (1...4).contains(text.count), text.allSatisfy(\.isHexDigit) else { return nil }
                return UInt16(text, radix: 16)
            }
            return values.contains(nil) ? nil : values.map { $0! } + tail
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
