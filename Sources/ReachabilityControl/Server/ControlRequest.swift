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
    /// Every query parameter in the order sent, repeats included (what generated clients send
    /// for a list: `?state=pending&state=paused`).
    public var queryItems: [(name: String, value: String)]
    /// The header fields in the order sent, names as sent.
    public var headers: [(String, String)]
    /// The body; empty when there is none.
    public var body: [UInt8]
    /// Who sent it, on a Unix socket; nil on TCP.
    public var peer: PeerCredentials?

    /// A request with the given parts (for tests of a handler without a socket). Without
    /// `queryItems`, they are `query`'s pairs, sorted by name.
    public init(
        method: String, path: String, query: [String: String] = [:], queryItems: [(name: String, value: String)]? = nil,
        headers: [(String, String)] = [], body: [UInt8] = [], peer: PeerCredentials? = nil
    ) {
        self.method = method
        self.path = path
        self.query = query
        self.queryItems = queryItems ?? query.sorted { $0.key < $1.key }.map { (name: $0.key, value: $0.value) }
        self.headers = headers
        self.body = body
        self.peer = peer
    }

    /// The values of every query parameter called `name`, in the order sent.
    public func queryValues(_ name: String) -> [String] {
        queryItems.filter { $0.name == name }.map(\.value)
    }

    /// The value of the first header field called `name` (compared without regard to case).
    public func header(_ name: String) -> String? {
        headers.first { $0.0.lowercased() == name.lowercased() }?.1
    }
}
