import ReachabilityCore

/// libFuzzer entry point for the DNS codec: the input is a response to a query for
/// `probe.test` (its first two bytes taken as the query id, so the fuzzer gets past the id
/// check), read as an answer to an A and to an AAAA query; then the input as a name to query,
/// whose query must round-trip through a synthesized response.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzDNSMessage(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let id = bytes.count >= 2 ? UInt16(bytes[0]) << 8 | UInt16(bytes[1]) : 0
    for type in [DNSRecordType.a, .aaaa] {
        let answer = DNSMessage.answer(bytes, id: id, name: "probe.test", type: type)
        check(answer, type: type)
        precondition(DNSMessage.answer(bytes, id: id, name: "probe.test", type: type) == answer, "not deterministic")
        precondition(DNSMessage.answer(bytes, id: id &+ 1, name: "probe.test", type: type).addresses.isEmpty, "another id answered")
    }
    roundTrip(String(decoding: bytes.prefix(300), as: UTF8.self))
    return 0
}

/// Addresses xor failure; every address is text of the asked family, listed once.
private func check(_ answer: DNSAnswer, type: DNSRecordType) {
    precondition(answer.addresses.isEmpty == (answer.failure != nil), "addresses and failure disagree: \(answer)")
    precondition(Set(answer.addresses).count == answer.addresses.count, "duplicate addresses")
    for address in answer.addresses {
        if type == .a {
            let octets = address.split(separator: ".", omittingEmptySubsequences: false)
            precondition(octets.count == 4 && octets.allSatisfy { UInt8($0) != nil }, "bad IPv4 text '\(address)'")
        } else {
            precondition(address.contains(":") && address.utf8.allSatisfy { $0 == 0x3A || (0x30...0x39).contains($0) || (0x61...0x66).contains($0) },
                "bad IPv6 text '\(address)'")
        }
    }
}

/// A name that encodes makes a query that a server's echo of it (with one A record owned by
/// a pointer to the question) answers; a name that does not encode throws, never traps.
private func roundTrip(_ name: String) {
    guard let query = try? DNSMessage.query(id: 0xBEEF, name: name, type: .a) else { return }
    precondition(query.count >= 12 + 2 + 4 && query.count <= 12 + 255 + 4, "query of \(query.count) bytes")
    var response = query
    response[2] = 0x81
    response[3] = 0x80
    response[7] = 1
    response += [0xC0, 12, 0, 1, 0, 1, 0, 0, 0, 60, 0, 4, 192, 0, 2, 1]
    let answer = DNSMessage.answer(response, id: 0xBEEF, name: name, type: .a)
    precondition(answer.addresses == ["192.0.2.1"], "'\(name)' does not round-trip: \(answer)")
}
