import NIOCore
import NIOHTTP1

/// Writes responses on a connection's channel, waiting for each write to reach the socket:
/// a slow reader holds back a stream instead of making the server buffer it, and a connection
/// closed after a response has sent all of it. A whole response (head, body and end) goes to
/// the event loop at once and out in one flush: one hop there and back instead of three, and
/// the client gets the head and the body together.
struct ResponseWriter {
    let channel: any Channel

    /// Sends `response` to the request `head`; returns whether the connection stays open for
    /// another request.
    func send(_ response: ControlResponse, to head: HTTPRequestHead, keepAlive: Bool) async throws -> Bool {
        var keepAlive = keepAlive
        // HEAD, 204 and 304 answers have no body on the wire; NIO refuses or mis-frames one.
        let omitsBody = head.method == .HEAD || response.status == 204 || response.status == 304
        var headers = HTTPHeaders(response.headers)
        switch response.body {
        case .bytes(let bytes):
            headers.replaceOrAdd(name: "content-length", value: String(bytes.count))
            let answerHead = responseHead(response, head, &headers, keepAlive: keepAlive)
            let body = bytes.isEmpty || omitsBody ? nil : ByteBuffer(bytes: bytes)
            try await writeWhole(head: answerHead, body: body)
            return keepAlive
        case .stream(let chunks):
            // Without chunked encoding (HTTP/1.0) only closing the connection ends the body.
            keepAlive = keepAlive && (head.version.major, head.version.minor) >= (1, 1)
            headers.remove(name: "content-length")
            try await write(.head(responseHead(response, head, &headers, keepAlive: keepAlive)))
            if !omitsBody { try await StreamPump(writer: self).send(chunks) }
        }
        try await write(.end(nil))
        return keepAlive
    }

    /// 100 Continue, for a client that waits for it before sending its body.
    func sendContinue(to head: HTTPRequestHead) async throws {
        try await write(.head(HTTPResponseHead(version: head.version, status: .continue)))
    }

    func write(_ part: HTTPServerResponsePart) async throws {
        try await channel.writeAndFlush(part).get()
    }

    /// Head, body and end in one flush; returns when the end has reached the socket (the parts
    /// before it have then too: a channel's writes complete in order).
    private func writeWhole(head: HTTPResponseHead, body: ByteBuffer?) async throws {
        let channel = channel
        try await channel.eventLoop.flatSubmit {
            channel.write(HTTPServerResponsePart.head(head), promise: nil)
            if let body { channel.write(HTTPServerResponsePart.body(.byteBuffer(body)), promise: nil) }
            return channel.writeAndFlush(HTTPServerResponsePart.end(nil))
        }.get()
    }

    private func responseHead(_ response: ControlResponse, _ request: HTTPRequestHead, _ headers: inout HTTPHeaders, keepAlive: Bool)
        -> HTTPResponseHead
    {
        headers.replaceOrAdd(name: "connection", value: keepAlive ? "keep-alive" : "close")
        let status = (200...599).contains(response.status) ? response.status : 500
        return HTTPResponseHead(version: request.version, status: HTTPResponseStatus(statusCode: status), headers: headers)
    }
}
