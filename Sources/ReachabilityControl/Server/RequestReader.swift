import NIOCore
import NIOHTTP1

/// Reads requests off a connection one at a time: the head first, so the caller can refuse
/// it before any of the body is read, then the body up to a bound.
struct RequestReader {
    enum Body {
        case complete([UInt8])
        /// Larger than the bound; the rest is left unread (the connection must be closed).
        case tooLarge
    }

    private var parts: NIOAsyncChannelInboundStream<HTTPServerRequestPart>.AsyncIterator

    init(_ inbound: NIOAsyncChannelInboundStream<HTTPServerRequestPart>) {
        parts = inbound.makeAsyncIterator()
    }

    /// The next request's head; nil when the client closed the connection.
    mutating func nextHead() async throws -> HTTPRequestHead? {
        while let part = try await parts.next() {
            // Leftovers of a request whose body was not wanted are skipped.
            if case .head(let head) = part { return head }
        }
        return nil
    }

    /// The body of the request whose head was just read, at most `limit` bytes.
    mutating func body(of head: HTTPRequestHead, limit: Int) async throws -> Body {
        if let declared = head.headers.first(name: "content-length").flatMap(Int.init), declared > limit {
            return .tooLarge
        }
        var body: [UInt8] = []
        while let part = try await parts.next() {
            switch part {
            case .head:
                // NIO's parser never sends a head before the previous request's end.
                return .complete(body)
            case .body(let buffer):
                guard body.count + buffer.readableBytes <= limit else { return .tooLarge }
                body.append(contentsOf: buffer.readableBytesView)
            case .end:
                return .complete(body)
            }
        }
        // The client went away mid-body; the caller sees the closed connection when it answers.
        return .complete(body)
    }
}
