/// The type of a DNS resource record (RFC 1035 §3.2.2): what a query asks for.
public struct DNSRecordType: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    public let rawValue: UInt16

    public init(rawValue: UInt16) { self.rawValue = rawValue }

    /// An IPv4 address (RFC 1035).
    public static let a = DNSRecordType(rawValue: 1)
    /// An IPv6 address (RFC 3596).
    public static let aaaa = DNSRecordType(rawValue: 28)
    /// An alias (RFC 1035): followed inside a response, not asked for.
    static let cname = DNSRecordType(rawValue: 5)

    /// `A`, `AAAA`, `CNAME`, or `TYPE99` (RFC 3597's name for the others).
    public var description: String {
        switch rawValue {
        case 1: "A"
        case 28: "AAAA"
        case 5: "CNAME"
        default: "TYPE\(rawValue)"
        }
    }
}

/// What a DNS response said about one query: addresses, or why there are none.
public struct DNSAnswer: Sendable, Hashable, CustomStringConvertible {
    /// The addresses of the asked type, as text (dotted quad, RFC 5952 IPv6), in the order the
    /// response gave them, without duplicates.
    public var addresses: [String]
    /// `nil` when ``addresses`` is not empty; otherwise one of `name not found (NXDOMAIN)`,
    /// `server failure (SERVFAIL)`, `refused (REFUSED)`, `no A record`, `truncated`,
    /// `malformed response: …`, and the like.
    public var failure: String?
    /// Whether another server would be asked in vain: the server gave addresses, said the name
    /// does not exist, or that it has no record of that type. `false` for a server failure, a
    /// refusal, a truncated or a malformed response, which the next server may answer.
    public var isDefinitive: Bool

    /// An answer given field by field.
    public init(addresses: [String] = [], failure: String? = nil, isDefinitive: Bool = true) {
        self.addresses = addresses
        self.failure = failure
        self.isDefinitive = isDefinitive
    }

    /// A failure another server may not share.
    static func retryable(_ failure: String) -> DNSAnswer {
        DNSAnswer(failure: failure, isDefinitive: false)
    }

    public var description: String { failure ?? addresses.joined(separator: ", ") }
}

/// A name that cannot be put in a DNS query.
public struct DNSMessageError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Why the name cannot be encoded.
    public struct Reason: RawRepresentable, Sendable, Hashable {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }

        /// Nothing between two dots, or no name at all.
        public static let emptyLabel = Reason(rawValue: "empty label")
        /// A label longer than 63 bytes (RFC 1035 §2.3.4).
        public static let labelTooLong = Reason(rawValue: "label longer than 63 bytes")
        /// A name longer than 253 characters (255 bytes on the wire).
        public static let nameTooLong = Reason(rawValue: "name longer than 253 characters")
        /// A byte that is not printable ASCII: a space, a control character, or non-ASCII
        /// (an internationalized name must be given in its `xn--` form).
        public static let invalidCharacter = Reason(rawValue: "not printable ASCII")
    }

    /// Why `name` cannot be encoded.
    public var reason: Reason
    /// The name as given.
    public var name: String

    /// An error for `name`.
    public init(reason: Reason, name: String) {
        self.reason = reason
        self.name = name
    }

    public var description: String { "cannot ask DNS for '\(name)': \(reason.rawValue)" }
}
