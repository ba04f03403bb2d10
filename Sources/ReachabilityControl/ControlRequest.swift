/// One HTTP request to a ``ControlServer``, read whole (its body is bounded by
/// ``ControlServer/Limits/maxBodyBytes``).
public struct ControlRequest: Sendable {
    /// The method as sent: `GET`, `POST`, `DELETE`, ….
    public var method: String
    /// The path of the request target without its query, as sent: percent-escapes are left
    /// for the router to decode per segment, so an escaped `/` (`%2F`) stays inside one.
    public var path: String
    /// The query's parameters, percent-decoded (`+` as a space); the last of repeated names wins.
    public var query: [String: String]
    /// The header fields in the order sent, names as sent.
    public var headers: [(String, String)]
    /// The body; empty when there is none.
    public var body: [UInt8]
    /// Who sent it, on a Unix socket; nil on TCP.
    public var peer: PeerCredentials?

    /// A request with the given parts (for tests of a handler without a socket).
    public init(
        method: String, path: String, query: [String: String] = [:], headers: [(String, String)] = [], body: [UInt8] = [],
        peer: PeerCredentials? = nil
    ) {
        self.method = method
        self.path = path
        self.query = query
        self.headers = headers
        self.body = body
        self.peer = peer
    }

    /// The value of the first header field called `name` (compared without regard to case).
    public func header(_ name: String) -> String? {
        headers.first { $0.0.lowercased() == name.lowercased() }?.1
    }
}
