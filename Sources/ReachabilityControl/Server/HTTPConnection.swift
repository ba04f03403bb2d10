import NIOCore
import NIOHTTP1

/// Serves the requests of one connection in order until the client closes it, a response
/// closes it, or the server stops.
struct HTTPConnection {
    let connection: AcceptedConnection
    let server: ControlServer

    func serve() async {
        let channel = connection.channel.channel
        // Cancelled when the server stops: closing the channel ends a read or write in
        // progress, so the connection's task returns promptly.
        await withTaskCancellationHandler {
            try? await connection.channel.executeThenClose { inbound in
                var reader = RequestReader(inbound)
                let writer = ResponseWriter(channel: channel)
                let authorized = server.authorize(connection.peer)
                while let head = try await reader.nextHead() {
                    let keepAlive = try await answer(head, &reader, writer, authorized: authorized)
                    guard keepAlive else { return }
                }
            }
        } onCancel: {
            channel.close(promise: nil)
        }
    }

    /// Answers one request; returns whether the connection stays open.
    private func answer(_ head: HTTPRequestHead, _ reader: inout RequestReader, _ writer: ResponseWriter, authorized: Bool)
        async throws -> Bool
    {
        guard authorized else {
            return try await writer.send(forbidden, to: head, keepAlive: false)
        }
        guard let target = RequestTarget(head.uri) else {
            return try await writer.send(.error(status: 400, "the request target must be a path"), to: head, keepAlive: false)
        }
        let limit = server.limits.maxBodyBytes
        if head.headers.first(name: "expect")?.lowercased() == "100-continue",
            head.headers.first(name: "content-length").flatMap(Int.init).map({ $0 <= limit }) ?? true
        {
            try await writer.sendContinue(to: head)
        }
        guard case .complete(let body) = try await reader.body(of: head, limit: limit) else {
            let tooLarge = ControlResponse.error(status: 413, "the request body is larger than \(limit) bytes")
            return try await writer.send(tooLarge, to: head, keepAlive: false)
        }
        let request = ControlRequest(
            method: head.method.rawValue, path: target.path, query: target.query, queryItems: target.queryItems,
            headers: head.headers.map { ($0.name, $0.value) },
            body: body, peer: connection.peer
        )
        let response = await server.handler(request)
        return try await writer.send(response, to: head, keepAlive: head.isKeepAlive)
    }

    /// The answer to every request of a peer the policy refused; the connection is closed after it.
    private var forbidden: ControlResponse {
        let who = connection.peer.map { "uid \($0.uid) is not allowed to use this socket" } ?? "peers without credentials are not allowed"
        return .error(status: 403, "forbidden: \(who)")
    }
}
