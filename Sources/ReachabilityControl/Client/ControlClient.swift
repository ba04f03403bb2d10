import AsyncHTTPClient
import FoundationEssentials
import NIOCore
import NIOHTTP1
import NIOPosix

/// A client of a ``ControlServer`` on a Unix socket: requests with JSON (or any) bodies, and
/// streams of events. Call ``shutdown()`` when done, or use
/// ``withControlClient(socketPath:requestTimeout:isolation:_:)``.
public final class ControlClient: Sendable {
    /// The control socket's path.
    public let socketPath: String
    /// How long a ``send(method:path:body:headers:)`` may take, answer included. Streams have no
    /// timeout.
    public let requestTimeout: Duration
    /// The largest answer ``send(method:path:body:headers:)`` reads, so a confused server
    /// cannot make the client hold unbounded memory: 64 MiB.
    public static let maxResponseBytes = 64 << 20
    let http: HTTPClient

    /// Whether it refuses a socket (or socket directory) of another user than root and this
    /// one before sending anything: on for sockets found by convention (`XDG_RUNTIME_DIR` may
    /// be a shared directory), off for one the user named.
    public let checksOwner: Bool

    /// A client for the socket at `socketPath`. Nothing connects until the first request.
    public init(socketPath: String, requestTimeout: Duration = .seconds(30), checksOwner: Bool = true) {
        self.socketPath = socketPath
        self.requestTimeout = requestTimeout
        self.checksOwner = checksOwner
        var pool = HTTPClient.Configuration.ConnectionPool(idleTimeout: .seconds(10))
        // Fail at once when nobody listens: retrying until the timeout would only delay
        // "no daemon is running".
        pool.retryConnectionEstablishment = false
        var configuration = HTTPClient.Configuration(
            redirectConfiguration: .disallow, timeout: .init(connect: .seconds(5)), connectionPool: pool
        )
        configuration.httpVersion = .http1Only
        http = HTTPClient(eventLoopGroup: MultiThreadedEventLoopGroup.singleton, configuration: configuration)
    }

    /// Sends a request and reads the whole answer.
    ///
    /// - Parameters:
    ///   - method: `GET`, `POST`, `DELETE`, ….
    ///   - path: The path and query, percent-encoded as needed: `/v1/jobs?state=queued`.
    ///   - body: The request body; none when empty.
    ///   - headers: Header fields to send, such as `Content-Type`.
    /// - Returns: The status code and body, whatever the status: an error status is an
    ///   answer, not a failure.
    public func send(method: String = "GET", path: String, body: [UInt8] = [], headers: [(String, String)] = [])
        async throws(ControlClientError) -> (status: Int, body: [UInt8])
    {
        do {
            let request = try makeRequest(method: method, path: path, body: body, headers: headers)
            let response = try await http.execute(request, timeout: TimeAmount(requestTimeout))
            let bytes = try await response.body.collect(upTo: Self.maxResponseBytes)
            return (Int(response.status.code), Array(bytes.readableBytesView))
        } catch {
            throw ControlClientError(classifying: error, socketPath: socketPath)
        }
    }

    /// Shuts the client down, closing its pooled connections. Requests after this fail.
    public func shutdown() async {
        try? await http.shutdown()
    }

    func makeRequest(method: String, path: String, body: [UInt8], headers: [(String, String)]) throws(ControlClientError)
        -> HTTPClientRequest
    {
        if checksOwner, let problem = SocketOwnership.problem(with: socketPath) {
            throw ControlClientError(.untrustedSocket, socketPath: socketPath, problem)
        }
        guard path.hasPrefix("/"), let url = URL(httpURLWithSocketPath: socketPath, uri: path) else {
            throw ControlClientError(.invalidRequest, socketPath: socketPath, "\"\(path)\" is not a request path for \(socketPath)")
        }
        var request = HTTPClientRequest(url: url.absoluteString)
        request.method = HTTPMethod(rawValue: method)
        request.headers = HTTPHeaders(headers)
        if !body.isEmpty || ["POST", "PUT", "PATCH"].contains(method) {
            request.body = .bytes(ByteBuffer(bytes: body))
        }
        return request
    }
}

/// Runs `body` with a ``ControlClient`` for `socketPath` and shuts it down afterwards, whether
/// `body` returns or throws.
public func withControlClient<Result>(
    socketPath: String, requestTimeout: Duration = .seconds(30), isolation: isolated (any Actor)? = #isolation,
    _ body: (ControlClient) async throws -> Result
) async throws -> Result {
    let client = ControlClient(socketPath: socketPath, requestTimeout: requestTimeout)
    do {
        let result = try await body(client)
        await client.shutdown()
        return result
    } catch {
        await client.shutdown()
        throw error
    }
}
