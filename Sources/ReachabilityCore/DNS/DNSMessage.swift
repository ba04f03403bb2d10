/// DNS messages (RFC 1035 §4) for address lookups: a query for one name, and the reading of
/// its response.
///
/// Connectivity validation resolves its probe hosts through the judged interface's own DNS
/// servers, so it cannot use the system resolver; this is the little it needs. Pure: bytes
/// in, bytes or values out. A response is untrusted input: every read is bounds-checked,
/// compression pointers are followed a bounded number of times, and nothing traps.
public enum DNSMessage {
    /// The class of every record asked for or read here: IN.
    static let internetClass: UInt16 = 1

    /// A standard recursive query (RD set) for `name`: a header with one question, no EDNS.
    ///
    /// - Parameters:
    ///   - id: the transaction id the response must echo (pick it at random).
    ///   - name: a host name; one trailing dot (an absolute name) is allowed.
    /// - Throws: ``DNSMessageError`` for a name that cannot be encoded: an empty label, a label
    ///   over 63 bytes, a name over 253 characters, or a byte that is not printable ASCII.
    public static func query(id: UInt16, name: String, type: DNSRecordType) throws(DNSMessageError) -> [UInt8] {
        let labels = try labels(of: name)
        var message: [UInt8] = []
        message.reserveCapacity(18 + name.utf8.count)
        // id, flags (RD), QDCOUNT 1, ANCOUNT, NSCOUNT, ARCOUNT 0.
        for field: UInt16 in [id, 0x0100, 1, 0, 0, 0] { message += [UInt8(field >> 8), UInt8(field & 0xFF)] }
        for label in labels {
            message.append(UInt8(label.count))
            message += label
        }
        message.append(0)
        for field in [type.rawValue, internetClass] { message += [UInt8(field >> 8), UInt8(field & 0xFF)] }
        return message
    }

    /// Reads the response to the query ``query(id:name:type:)`` made.
    ///
    /// Checks that it is a response (QR), to this id, with the question echoed (names compared
    /// case-insensitively); reports a truncated response (TC) and error codes; follows CNAME
    /// chains within the message from `name`; returns the addresses of `type` it leads to.
    /// Records of other owners are ignored, as a stub resolver does.
    public static func answer(_ bytes: [UInt8], id: UInt16, name: String, type: DNSRecordType) -> DNSAnswer {
        guard let question = try? labels(of: name).map(lowercased) else {
            return .retryable("malformed response: the query name '\(name)' cannot be encoded")
        }
        do {
            return try read(DNSReader(bytes), id: id, question: question, type: type)
        } catch {
            return .retryable("malformed response: \(error.reason)")
        }
    }

    private static func read(_ reader: DNSReader, id: UInt16, question: [[UInt8]], type: DNSRecordType) throws(DNSMalformed) -> DNSAnswer {
        let header = try reader.header()
        guard header.id == id else { throw DNSMalformed("id \(header.id), expected \(id)") }
        guard header.isResponse else { throw DNSMalformed("not a response (QR clear)") }
        guard header.opcode == 0 else { throw DNSMalformed("opcode \(header.opcode)") }
        if header.isTruncated { return .retryable("truncated") }
        var offset = DNSReader.headerLength
        switch header.questionCount {
        case 1:
            let echoed = try reader.question(at: offset)
            guard echoed.name == question, echoed.type == type.rawValue, echoed.class == internetClass else {
                throw DNSMalformed("the question is not the one asked")
            }
            offset = echoed.end
        case 0 where header.responseCode != 0:
            // A server refusing a query (FORMERR, REFUSED) may leave the question out.
            break
        default:
            throw DNSMalformed("\(header.questionCount) questions")
        }
        if let failure = failure(responseCode: header.responseCode) { return failure }
        let records = try reader.records(from: offset, count: header.answerCount)
        return addresses(in: records, question: question, type: type)
    }

    /// The addresses of `type` owned by `question` or by the end of its CNAME chain.
    private static func addresses(in records: [DNSRecord], question: [[UInt8]], type: DNSRecordType) -> DNSAnswer {
        var chain = [question]
        // A chain longer than any real one, or a loop, ends the walk; what it reached counts.
        while chain.count <= 16, let last = chain.last,
            let alias = records.first(where: { $0.type == DNSRecordType.cname.rawValue && $0.owner == last }),
            let target = alias.target, !chain.contains(target)
        {
            chain.append(target)
        }
        var addresses: [String] = []
        for record in records where record.type == type.rawValue && chain.contains(record.owner) {
            if let text = record.address, !addresses.contains(text) { addresses.append(text) }
        }
        return addresses.isEmpty ? DNSAnswer(failure: "no \(type) record") : DNSAnswer(addresses: addresses)
    }

    /// The failure an error response code stands for; `nil` for NOERROR.
    private static func failure(responseCode: UInt8) -> DNSAnswer? {
        switch responseCode {
        case 0: nil
        case 3: DNSAnswer(failure: "name not found (NXDOMAIN)")
        case 1: .retryable("format error (FORMERR)")
        case 2: .retryable("server failure (SERVFAIL)")
        case 4: .retryable("not implemented (NOTIMP)")
        case 5: .retryable("refused (REFUSED)")
        default: .retryable("error code \(responseCode)")
        }
    }

    /// The labels of `name`, checked: a trailing dot dropped, then printable ASCII only, no
    /// empty label, none over 63 bytes, at most 253 characters in all.
    static func labels(of name: String) throws(DNSMessageError) -> [[UInt8]] {
        var bytes = Array(name.utf8)
        if bytes.last == UInt8(ascii: ".") { bytes.removeLast() }
        guard !bytes.isEmpty else { throw DNSMessageError(reason: .emptyLabel, name: name) }
        guard bytes.allSatisfy({ (0x21...0x7E).contains($0) }) else { throw DNSMessageError(reason: .invalidCharacter, name: name) }
        guard bytes.count <= 253 else { throw DNSMessageError(reason: .nameTooLong, name: name) }
        let labels = bytes.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        for label in labels {
            guard !label.isEmpty else { throw DNSMessageError(reason: .emptyLabel, name: name) }
            guard label.count <= 63 else { throw DNSMessageError(reason: .labelTooLong, name: name) }
        }
        return labels.map(Array.init)
    }

    /// ASCII letters folded to lower case: DNS names compare case-insensitively (RFC 4343).
    static func lowercased(_ label: [UInt8]) -> [UInt8] {
        label.map { (0x41...0x5A).contains($0) ? $0 | 0x20 : $0 }
    }
}
