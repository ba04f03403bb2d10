import ReachabilityCore
import Testing

// MARK: - Hand-built messages

private func u16(_ value: UInt16) -> [UInt8] { [UInt8(value >> 8), UInt8(value & 0xFF)] }

/// A name in wire form, uncompressed.
private func wireName(_ text: String) -> [UInt8] {
    text.split(separator: ".").flatMap { [UInt8($0.utf8.count)] + Array($0.utf8) } + [0]
}

/// A pointer to `offset` (12 is the question's name, right after the header).
private func pointer(_ offset: UInt16) -> [UInt8] { u16(0xC000 | offset) }

private func record(_ owner: [UInt8], type: UInt16, recordClass: UInt16 = 1, data: [UInt8]) -> [UInt8] {
    owner + u16(type) + u16(recordClass) + [0, 0, 0, 60] + u16(UInt16(data.count)) + data
}

private let aType: UInt16 = 1
private let aaaaType: UInt16 = 28
private let cnameType: UInt16 = 5
/// QR, RD, RA; NOERROR.
private let answerFlags: UInt16 = 0x8180

/// A response to a query of `name` and `type` (question compressed against nothing: it comes
/// first, at offset 12, so records can point at it).
private func response(
    id: UInt16 = 0x1234, flags: UInt16 = answerFlags, name: String = "probe.test", type: UInt16 = 1, answers: [[UInt8]],
    questionCount: UInt16 = 1
) -> [UInt8] {
    let question = questionCount == 0 ? [] : wireName(name) + u16(type) + u16(1)
    return u16(id) + u16(flags) + u16(questionCount) + u16(UInt16(answers.count)) + u16(0) + u16(0) + question + answers.flatMap { $0 }
}

private func answer(_ bytes: [UInt8], name: String = "probe.test", type: DNSRecordType = .a) -> DNSAnswer {
    DNSMessage.answer(bytes, id: 0x1234, name: name, type: type)
}

// MARK: - Suites

@Suite("DNS queries")
struct DNSQueryTests {
    @Test("a recursive query for one name, byte by byte")
    func encoding() throws {
        let query = try DNSMessage.query(id: 0x1234, name: "probe.test", type: .a)
        #expect(query == [0x12, 0x34, 0x01, 0x00, 0, 1, 0, 0, 0, 0, 0, 0] + wireName("probe.test") + [0, 1, 0, 1])
        #expect(try DNSMessage.query(id: 7, name: "probe.test.", type: .aaaa) == u16(7) + query[2..<24] + [0, 28, 0, 1])
    }

    @Test("the longest name and label that fit")
    func limits() throws {
        let label = String(repeating: "a", count: 63)
        #expect(try DNSMessage.query(id: 1, name: "\(label).test", type: .a).count == 12 + 1 + 63 + 1 + 4 + 1 + 4)
        let name = [String](repeating: String(repeating: "b", count: 49), count: 5).joined(separator: ".")
        #expect(name.count == 249)
        _ = try DNSMessage.query(id: 1, name: name + ".abc", type: .a)
    }

    @Test("names that cannot be encoded", arguments: [
        ("", DNSMessageError.Reason.emptyLabel), (".", .emptyLabel), ("a..b", .emptyLabel), (".a", .emptyLabel), ("a.b..", .emptyLabel),
        (String(repeating: "x", count: 64) + ".test", .labelTooLong),
        ([String](repeating: String(repeating: "c", count: 50), count: 5).joined(separator: ".") + ".de", .nameTooLong),
        ("exämple.test", .invalidCharacter), ("a b.test", .invalidCharacter), ("a\u{0}.test", .invalidCharacter),
        ("tab\t.test", .invalidCharacter),
    ])
    func refused(_ name: String, _ reason: DNSMessageError.Reason) {
        #expect(throws: DNSMessageError(reason: reason, name: name)) { try DNSMessage.query(id: 1, name: name, type: .a) }
    }

    @Test("record type names")
    func typeNames() {
        #expect(DNSRecordType.a.description == "A")
        #expect(DNSRecordType.aaaa.description == "AAAA")
        #expect(DNSRecordType(rawValue: 99).description == "TYPE99")
    }
}

@Suite("DNS responses")
struct DNSResponseTests {
    @Test("an A record owned by a pointer to the question")
    func plainAnswer() {
        let result = answer(response(answers: [record(pointer(12), type: aType, data: [10, 53, 0, 1])]))
        #expect(result == DNSAnswer(addresses: ["10.53.0.1"]))
        #expect(result.isDefinitive)
    }

    @Test("several addresses in order, duplicates once, other classes and owners ignored")
    func severalAddresses() {
        let bytes = response(answers: [
            record(pointer(12), type: aType, data: [10, 0, 0, 2]),
            record(wireName("other.test"), type: aType, data: [10, 0, 0, 66]),
            record(pointer(12), type: aType, recordClass: 3, data: [10, 0, 0, 67]),
            record(pointer(12), type: aType, data: [10, 0, 0, 1]),
            record(wireName("PROBE.test"), type: aType, data: [10, 0, 0, 2]),
        ])
        #expect(answer(bytes).addresses == ["10.0.0.2", "10.0.0.1"])
    }

    @Test("AAAA records as RFC 5952 text")
    func aaaa() {
        let address: [UInt8] = [0x20, 0x01, 0x0D, 0xB8] + [UInt8](repeating: 0, count: 11) + [1]
        let bytes = response(type: aaaaType, answers: [record(pointer(12), type: aaaaType, data: address)])
        #expect(answer(bytes, type: .aaaa).addresses == ["2001:db8::1"])
    }

    @Test("a CNAME chain is followed within the message, compressed names included")
    func cnameChain() {
        // probe.test → edge.cdn.test → node.cdn.test, whose A record comes first.
        let question = wireName("probe.test") + u16(1) + u16(1)
        let nodeAddress = record(wireName("node.cdn.test"), type: aType, data: [192, 0, 2, 7])
        // 18: the question's "test" label.
        let first = record(pointer(12), type: cnameType, data: [4] + Array("edge".utf8) + [3] + Array("cdn".utf8) + pointer(18))
        // The "edge" label follows the first CNAME's owner (2 bytes) and fixed fields (10).
        let edgeOffset = UInt16(12 + question.count + nodeAddress.count + 2 + 10)
        let second = record(pointer(edgeOffset), type: cnameType, data: [4] + Array("node".utf8) + pointer(edgeOffset + 5))
        let unrelated = record(wireName("ads.test"), type: aType, data: [192, 0, 2, 99])
        let bytes = response(answers: [nodeAddress, first, second, unrelated])
        #expect(answer(bytes) == DNSAnswer(addresses: ["192.0.2.7"]))
    }

    @Test("a CNAME loop ends without addresses")
    func cnameLoop() {
        let bytes = response(answers: [
            record(pointer(12), type: cnameType, data: wireName("b.test")),
            record(wireName("b.test"), type: cnameType, data: wireName("probe.test")),
        ])
        #expect(answer(bytes) == DNSAnswer(failure: "no A record"))
    }

    @Test("error codes", arguments: [
        (UInt16(3), "name not found (NXDOMAIN)", true), (2, "server failure (SERVFAIL)", false), (5, "refused (REFUSED)", false),
        (1, "format error (FORMERR)", false), (4, "not implemented (NOTIMP)", false), (9, "error code 9", false),
    ])
    func errorCodes(_ code: UInt16, _ failure: String, _ definitive: Bool) {
        let result = answer(response(flags: answerFlags | code, answers: []))
        #expect(result == DNSAnswer(failure: failure, isDefinitive: definitive))
        // A refusal may leave the question out.
        #expect(answer(response(flags: answerFlags | code, answers: [], questionCount: 0)).failure == failure)
    }

    @Test("no record of the type asked (NODATA)")
    func noData() {
        #expect(answer(response(type: aaaaType, answers: []), type: .aaaa) == DNSAnswer(failure: "no AAAA record"))
        // An A record does not answer an AAAA question.
        let bytes = response(type: aaaaType, answers: [record(pointer(12), type: aType, data: [10, 0, 0, 1])])
        #expect(answer(bytes, type: .aaaa).failure == "no AAAA record")
    }

    @Test("a truncated response is reported, not read")
    func truncated() {
        let result = answer(response(flags: answerFlags | 0x0200, answers: [record(pointer(12), type: aType, data: [10, 0, 0, 1])]))
        #expect(result == DNSAnswer(failure: "truncated", isDefinitive: false))
    }

    @Test("responses that are not the answer to this query", arguments: [
        (response(id: 0x4321, answers: []), "id 17185, expected 4660"),
        (response(flags: 0x0100, answers: []), "not a response (QR clear)"),
        (response(flags: answerFlags | 0x2800, answers: []), "opcode 5"),
        (response(name: "other.test", answers: []), "the question is not the one asked"),
        (response(type: aaaaType, answers: []), "the question is not the one asked"),
        (response(answers: [], questionCount: 0), "0 questions"),
        (response(answers: [], questionCount: 2), "2 questions"),
    ])
    func notOurs(_ bytes: [UInt8], _ reason: String) {
        #expect(answer(bytes) == DNSAnswer(failure: "malformed response: \(reason)", isDefinitive: false))
    }

    @Test("the question echo is compared without regard to case")
    func caseInsensitive() {
        let bytes = response(name: "PrObE.TeSt", answers: [record(pointer(12), type: aType, data: [10, 0, 0, 1])])
        #expect(answer(bytes, name: "probe.TEST.").addresses == ["10.0.0.1"])
    }

    @Test("malformed records", arguments: [
        ([record(pointer(12), type: 1, data: [10, 0, 0, 1, 9])], "an A record of 5 bytes"),
        ([record(pointer(12), type: 28, data: [1, 2, 3, 4])], "an AAAA record of 4 bytes"),
        ([record(pointer(200), type: 1, data: [10, 0, 0, 1])], "a name runs past the end"),
        ([record([0x40, 1], type: 1, data: [10, 0, 0, 1])], "label type 0x40"),
        // The target's labels run on into the next record, whose owner pointer ends them.
        ([record(pointer(12), type: 5, data: [1, UInt8(ascii: "x")]), record(pointer(12), type: 1, data: [10, 0, 0, 1])],
         "a CNAME runs past its record"),
    ] as [([[UInt8]], String)])
    func malformedRecords(_ records: [[UInt8]], _ reason: String) {
        #expect(answer(response(answers: records)).failure == "malformed response: \(reason)")
    }

    @Test("compression pointer loops end", arguments: [UInt16(0), 1, 2])
    func pointerLoops(_ shape: UInt16) {
        // The answer's owner sits at 28; it points at itself, or two pointers point at each other.
        let owner: [UInt8]
        switch shape {
        case 0: owner = pointer(28)
        case 1: owner = pointer(30) + pointer(28)
        default: owner = [1, UInt8(ascii: "x")] + pointer(28)
        }
        let result = answer(response(answers: [record(owner, type: aType, data: [10, 0, 0, 1])]))
        #expect(result.failure?.hasPrefix("malformed response:") == true)
        #expect(result.addresses.isEmpty)
    }

    @Test("a name over 255 bytes through pointers is refused")
    func longName() {
        // Four 63-byte labels, then a pointer back to the question: 4 × 64 + 12 bytes.
        let long = [UInt8](repeating: 63, count: 1) + [UInt8](repeating: UInt8(ascii: "a"), count: 63)
        let owner = long + long + long + long + pointer(12)
        #expect(answer(response(answers: [record(owner, type: aType, data: [10, 0, 0, 1])])).failure
            == "malformed response: a name longer than 255 bytes")
    }

    @Test("every prefix of a valid response parses without trapping")
    func prefixes() {
        let bytes = response(answers: [
            record(pointer(12), type: cnameType, data: wireName("b.test")),
            record(wireName("b.test"), type: aType, data: [10, 0, 0, 1]),
        ])
        for length in 0..<bytes.count {
            let result = answer(Array(bytes.prefix(length)))
            #expect(result.addresses.isEmpty, "length \(length)")
            #expect(result.failure?.hasPrefix("malformed response:") == true, "length \(length)")
        }
        #expect(answer(bytes).addresses == ["10.0.0.1"])
    }

    @Test("random bytes behind a plausible header never trap", arguments: [3, 11, 2024])
    func garbage(_ seed: UInt64) {
        var state = seed
        func next() -> UInt8 {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return UInt8(truncatingIfNeeded: state >> 33)
        }
        let question = wireName("probe.test") + u16(1) + u16(1)
        for round in 0..<300 {
            let body = (0..<(round % 90)).map { _ in next() }
            // Answer counts up to 255 and random tails: pointers, labels, lengths at random.
            let bytes = u16(0x1234) + u16(answerFlags) + u16(1) + u16(UInt16(next())) + u16(0) + u16(0) + question + body
            let result = answer(bytes)
            #expect(result.addresses.isEmpty == (result.failure != nil))
            _ = answer(body)
        }
    }
}
