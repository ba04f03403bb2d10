import AsyncHTTPClient
import NIOCore
import NIOHTTP1

extension ControlClient {
    /// The body of a `GET` for `path` as it arrives: see ``ResponseChunks``.
    public func stream(path: String, headers: [(String, String)] = []) -> ResponseChunks {
        ResponseChunks(client: self, path: path, headers: headers)
    }

    /// The lines of a newline-delimited body (NDJSON events) from a `GET` for `path`: see
    /// ``ResponseLines``.
    public func lines(path: String, headers: [(String, String)] = [], maxLineBytes: Int = 1 << 20) -> ResponseLines {
        ResponseLines(chunks: stream(path: path, headers: headers), maxLineBytes: maxLineBytes)
    }

    /// The body of a `GET`, in chunks as they come off the socket (not necessarily as the server
    /// sent them), without a timeout.
    ///
    /// The request is sent when iteration starts. It ends when the server ends the body; an
    /// iteration that stops early (`break`, a thrown error, a cancelled task) closes the
    /// connection, which tells the server. Throws ``ControlClientError``, with
    /// ``ControlClientError/Code/unexpectedResponse`` and the ``ControlClientError/status`` when
    /// the answer's status is not 2xx.
    public struct ResponseChunks: AsyncSequence, Sendable {
        /// A chunk of the body.
        public typealias Element = [UInt8]

        let client: ControlClient
        let path: String
        let headers: [(String, String)]

        /// An iterator that sends the request on its first call.
        public func makeAsyncIterator() -> Iterator {
            Iterator(pending: self)
        }

        /// Sends the request on the first ``next()``, then yields the body's chunks.
        public struct Iterator: AsyncIteratorProtocol {
            private var pending: ResponseChunks?
            private var body: HTTPClientResponse.Body.AsyncIterator?
            private let socketPath: String

            init(pending: ResponseChunks) {
                self.pending = pending
                socketPath = pending.client.socketPath
            }

            /// The next chunk; nil once the body ended.
            public mutating func next() async throws(ControlClientError) -> [UInt8]? {
                do {
                    if let pending {
                        self.pending = nil
                        body = try await pending.open().makeAsyncIterator()
                    }
                    guard let buffer = try await body?.next() else {
                        body = nil
                        return nil
                    }
                    return Array(buffer.readableBytesView)
                } catch {
                    body = nil
                    throw ControlClientError(classifying: error, socketPath: socketPath)
                }
            }
        }

        /// Sends the request; the body of a 2xx answer.
        private func open() async throws -> HTTPClientResponse.Body {
            let socketPath = client.socketPath
            let request = try client.makeRequest(method: "GET", path: path, body: [], headers: headers)
            let response = try await client.http.execute(request, deadline: .distantFuture)
            let status = Int(response.status.code)
            guard (200..<300).contains(status) else {
                let body = try await response.body.collect(upTo: 64 << 10)
                throw ControlClientError(
                    .unexpectedResponse, socketPath: socketPath,
                    "the reach daemon on \(socketPath) answered \(status) to \(path): \(String(buffer: body))", status: status
                )
            }
            return response.body
        }
    }

    /// The lines of a newline-delimited body, each without its `\n` (or `\r\n`); empty lines
    /// (keep-alives) are skipped, and a last line without a newline is kept.
    ///
    /// Ends, and stops early, as ``ResponseChunks`` does; a line longer than its bound ends it
    /// with ``ControlClientError/Code/unexpectedResponse``.
    public struct ResponseLines: AsyncSequence, Sendable {
        /// A line, without its terminator.
        public typealias Element = [UInt8]

        let chunks: ResponseChunks
        let maxLineBytes: Int

        /// An iterator that sends the request on its first call.
        public func makeAsyncIterator() -> Iterator {
            Iterator(chunks: chunks.makeAsyncIterator(), splitter: LineSplitter(maxLineBytes: maxLineBytes), socketPath: chunks.client.socketPath)
        }

        /// Reads chunks and cuts them into lines.
        public struct Iterator: AsyncIteratorProtocol {
            private var chunks: ResponseChunks.Iterator?
            private var splitter: LineSplitter
            private var ready: [[UInt8]] = []
            private let socketPath: String

            init(chunks: ResponseChunks.Iterator, splitter: LineSplitter, socketPath: String) {
                self.chunks = chunks
                self.splitter = splitter
                self.socketPath = socketPath
            }

            /// The next line; nil once the body ended.
            public mutating func next() async throws(ControlClientError) -> [UInt8]? {
                while ready.isEmpty {
                    guard let chunk = try await chunks?.next() else {
                        chunks = nil
                        return splitter.finish()
                    }
                    guard let lines = splitter.append(chunk) else {
                        chunks = nil
                        throw ControlClientError(
                            .unexpectedResponse, socketPath: socketPath,
                            "an event line from \(socketPath) is longer than \(splitter.maxLineBytes) bytes"
                        )
                    }
                    ready = lines
                }
                return ready.removeFirst()
            }
        }
    }
}
