/// Why a response could not be read, for `malformed response: …`.
struct DNSMalformed: Error {
    var reason: String
    init(_ reason: String) { self.reason = reason }
}

/// The fixed 12-byte header of a DNS message (RFC 1035 §4.1.1).
struct DNSHeader {
    var id: UInt16
    var flags: UInt16
    var questionCount: Int
    var answerCount: Int

    var isResponse: Bool { flags & 0x8000 != 0 }
    var opcode: UInt8 { UInt8((flags >> 11) & 0xF) }
    var isTruncated: Bool { flags & 0x0200 != 0 }
    var responseCode: UInt8 { UInt8(flags & 0xF) }
}

/// One resource record of the answer section, reduced to what an address lookup needs.
struct DNSRecord {
    /// Lower-cased labels.
    var owner: [[UInt8]]
    var type: UInt16
    /// The address text of an A or AAAA record.
    var address: String?
    /// The lower-cased target of a CNAME record.
    var target: [[UInt8]]?
}

/// Bounds-checked reads from a DNS message.
struct DNSReader {
    static let headerLength = 12
    /// Compression pointers followed for one name before it is called a loop. A name has at
    /// most 127 labels, each of which could be reached by a pointer of its own.
    static let maximumJumps = 128
    /// The longest name on the wire, length bytes and final zero included (RFC 1035 §3.1).
    static let maximumNameLength = 255

    let bytes: [UInt8]

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    func header() throws(DNSMalformed) -> DNSHeader {
        guard bytes.count >= Self.headerLength else { throw DNSMalformed("\(bytes.count) bytes, shorter than a header") }
        return DNSHeader(
            id: try u16(at: 0), flags: try u16(at: 2), questionCount: Int(try u16(at: 4)), answerCount: Int(try u16(at: 6)))
    }

    func u16(at offset: Int) throws(DNSMalformed) -> UInt16 {
        guard offset >= 0, offset + 2 <= bytes.count else { throw DNSMalformed("cut off at byte \(bytes.count)") }
        return UInt16(bytes[offset]) << 8 | UInt16(bytes[offset + 1])
    }

    /// The question at `offset`: name, type, class, and the offset after it.
    func question(at offset: Int) throws(DNSMalformed) -> (name: [[UInt8]], type: UInt16, class: UInt16, end: Int) {
        let name = try self.name(at: offset)
        return (name.labels, try u16(at: name.end), try u16(at: name.end + 2), name.end + 4)
    }

    /// `count` records from `offset` (the answer section). Records of another class are kept
    /// with neither address nor target, so they match nothing.
    func records(from offset: Int, count: Int) throws(DNSMalformed) -> [DNSRecord] {
        var records: [DNSRecord] = []
        var offset = offset
        // Each record takes at least 11 bytes, so a lying count fails on bounds long before
        // it could make this loop long.
        for _ in 0..<count {
            let owner = try name(at: offset)
            let type = try u16(at: owner.end)
            let recordClass = try u16(at: owner.end + 2)
            let length = Int(try u16(at: owner.end + 8))
            let start = owner.end + 10
            guard start + length <= bytes.count else { throw DNSMalformed("a record runs past the end") }
            var record = DNSRecord(owner: owner.labels, type: type)
            if recordClass == DNSMessage.internetClass {
                try decode(&record, data: start..<(start + length))
            }
            records.append(record)
            offset = start + length
        }
        return records
    }

    /// Fills in the address of an A or AAAA record, or the target of a CNAME.
    private func decode(_ record: inout DNSRecord, data: Range<Int>) throws(DNSMalformed) {
        switch record.type {
        case DNSRecordType.a.rawValue:
            guard data.count == 4 else { throw DNSMalformed("an A record of \(data.count) bytes") }
            record.address = bytes[data].map(String.init).joined(separator: ".")
        case DNSRecordType.aaaa.rawValue:
            guard data.count == 16 else { throw DNSMalformed("an AAAA record of \(data.count) bytes") }
            record.address = IPPrefix.ipv6Text(Array(bytes[data]))
        case DNSRecordType.cname.rawValue:
            let target = try name(at: data.lowerBound)
            guard target.end <= data.upperBound else { throw DNSMalformed("a CNAME runs past its record") }
            record.target = target.labels
        default:
            break
        }
    }

    /// The (lower-cased) labels of the name at `offset`, following compression pointers, and
    /// the offset just after the name where it is written (after its first pointer, if any).
    func name(at offset: Int) throws(DNSMalformed) -> (labels: [[UInt8]], end: Int) {
        var labels: [[UInt8]] = []
        var index = offset
        var end: Int?
        var jumps = 0
        var length = 1  // the final zero byte
        while true {
            guard index >= 0, index < bytes.count else { throw DNSMalformed("a name runs past the end") }
            let byte = bytes[index]
            switch byte & 0xC0 {
            case 0xC0:
                guard index + 1 < bytes.count else { throw DNSMalformed("a name runs past the end") }
                jumps += 1
                guard jumps <= Self.maximumJumps else { throw DNSMalformed("compression pointer loop") }
                if end == nil { end = index + 2 }
                index = Int(byte & 0x3F) << 8 | Int(bytes[index + 1])
            case 0x00:
                let count = Int(byte)
                if count == 0 { return (labels, end ?? index + 1) }
                length += count + 1
                guard length <= Self.maximumNameLength else { throw DNSMalformed("a name longer than 255 bytes") }
                guard index + 1 + count <= bytes.count else { throw DNSMalformed("a name runs past the end") }
                labels.append(DNSMessage.lowercased(Array(bytes[(index + 1)..<(index + 1 + count)])))
                index += 1 + count
            default:
                // 0x40 and 0x80: extended label types (RFC 6891 §5), never in a response to us.
                throw DNSMalformed("label type 0x\(String(byte & 0xC0, radix: 16))")
            }
        }
    }
}
