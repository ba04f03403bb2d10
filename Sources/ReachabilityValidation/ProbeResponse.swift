/// What a probe's server answered: the status line, the headers as received and the start of
/// the body (at most ``bodyLimit`` bytes: a probe needs no more to judge).
struct ProbeResponse: Sendable {
    /// The most of a body a probe reads: enough for any portal page's redirect or JSON.
    static let bodyLimit = 64 * 1024

    var status: Int
    var reason: String
    var headers: [(name: String, value: String)]
    var body: [UInt8] = []

    /// The first value of header `name`, compared case-insensitively.
    func header(_ name: String) -> String? {
        let wanted = name.lowercased()
        return headers.first { $0.name.lowercased() == wanted }?.value
    }
}
