/// What a handler answers: a status, header fields and a body that is either complete or a
/// stream of chunks.
public struct ControlResponse: Sendable {
    enum Body: Sendable {
        case bytes([UInt8])
        case stream(AsyncStream<[UInt8]>)
    }

    /// The status code. One outside 200…599 is sent as 500: informational codes cannot end
    /// a response.
    public var status: Int
    /// Header fields to send besides the framing ones (`Content-Length`, `Transfer-Encoding`,
    /// `Connection`), which the server sets.
    public var headers: [(String, String)]
    let body: Body

    init(status: Int, headers: [(String, String)], body: Body) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// A complete JSON body (`Content-Type: application/json`).
    public static func json(status: Int, _ body: [UInt8]) -> ControlResponse {
        ControlResponse(status: status, headers: [("Content-Type", "application/json")], body: .bytes(body))
    }

    /// A complete text body of the given type (for example the Prometheus exposition format,
    /// `text/plain; version=0.0.4; charset=utf-8`).
    public static func text(status: Int, _ text: String, contentType: String = "text/plain; charset=utf-8") -> ControlResponse {
        ControlResponse(status: status, headers: [("Content-Type", contentType)], body: .bytes(Array(text.utf8)))
    }

    /// A body sent as it is produced, with chunked transfer encoding: each chunk is flushed to
    /// the client as it comes, and the next is taken only once the client's socket accepted it.
    ///
    /// The response ends when `chunks` finishes. When the client goes away first, or the server
    /// stops, the server stops iterating `chunks`, which ends the stream: its `onTermination`
    /// handler runs and further `yield`s return `.terminated`, so the producer learns to stop.
    public static func stream(status: Int, contentType: String, _ chunks: AsyncStream<[UInt8]>) -> ControlResponse {
        ControlResponse(status: status, headers: [("Content-Type", contentType)], body: .stream(chunks))
    }

    /// `{"error": message}` with `status`: the shape of the server's own error answers.
    static func error(status: Int, _ message: String) -> ControlResponse {
        json(status: status, Array("{\"error\":\"\(jsonEscaped(message))\"}".utf8))
    }
}

/// `text` as the inside of a JSON string literal.
func jsonEscaped(_ text: String) -> String {
    var escaped = ""
    for scalar in text.unicodeScalars {
        switch scalar {
        case "\"": escaped += "\\\""
        case "\\": escaped += "\\\\"
        case "\n": escaped += "\\n"
        case _ where scalar.value < 0x20:
            let hex = String(scalar.value, radix: 16)
            escaped += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
        default: escaped.unicodeScalars.append(scalar)
        }
    }
    return escaped
}
