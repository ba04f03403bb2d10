import NIOCore
import NIOHTTP1
import NIOPosix

/// A small HTTP/1.1 server for a daemon's control API (on a Unix socket) or its metrics (on
/// TCP). Routing and the JSON are the handler's; this is the transport.
///
/// On a Unix socket the server protects itself before binding: the socket's directory is
/// created 0700 when missing, and otherwise must be a real directory of the daemon's user that
/// nobody else can write to; a stale socket at the path is replaced, anything else there is an
/// error; the socket is created 0600. Each connection's peer credentials (`SO_PEERCRED`) are
/// given to the `authorize` policy; a refused peer gets `403` and is disconnected, and the
/// handler never sees its requests.
///
/// Every connection is bounded by ``Limits``: request body and head size, connection count, idle
/// time. Malformed requests get `400` and are disconnected; keep-alive is supported and
/// pipelined requests are answered in order.
public struct ControlServer: Sendable {
    /// Where the server listens.
    public let address: Address
    /// The bounds applied to every connection.
    public let limits: Limits
    /// Who may connect to a Unix socket (its file mode); ignored on TCP.
    public let access: SocketAccess
    let authorize: @Sendable (PeerCredentials?) -> Bool
    let handler: @Sendable (ControlRequest) async -> ControlResponse

    /// A server for `address`.
    ///
    /// - Parameters:
    ///   - address: A Unix socket path or a TCP host and port.
    ///   - limits: Bounds on bodies, heads, connections and idle time.
    ///   - access: The Unix socket's mode: ``SocketAccess/owner`` (0600) unless the handler
    ///     serves only what every local user may read.
    ///   - authorize: Decides once per connection whether its peer may be served; called
    ///     with nil on TCP. ``sameUserOrRoot()`` is the usual policy on a Unix socket,
    ///     ``allowEveryone`` on TCP.
    ///   - handler: Answers each request of an authorized peer. It runs in the connection's
    ///     task, which is cancelled when the server stops.
    public init(
        address: Address, limits: Limits = Limits(), access: SocketAccess = .owner,
        authorize: @escaping @Sendable (PeerCredentials?) -> Bool, handler: @escaping @Sendable (ControlRequest) async -> ControlResponse
    ) {
        self.address = address
        self.limits = limits
        self.access = access
        self.authorize = authorize
        self.handler = handler
    }

    /// Binds and serves until the calling task is cancelled; then stops accepting, ends open
    /// streaming responses, closes every connection, removes the Unix socket file it created
    /// (if that file is still at the path), and returns.
    ///
    /// - Parameter onListening: Called once the socket accepts connections, with the address
    ///   actually bound: for TCP port 0, the port picked. A place to tell a service manager
    ///   the daemon is ready.
    /// - Throws: ``ControlServerError`` when the socket cannot be set up or bound.
    public func run(onListening: @Sendable (Address) async -> Void = { _ in }) async throws {
        let connections = ConnectionRegistry(
            limit: limits.maxConnections, perUser: limits.maxConnectionsPerUser, rootReserve: limits.rootReserve)
        let listener = try await Listener.open(address, limits: limits, access: access, registry: connections)
        defer {
            connections.closeAll()
            listener.socketFile?.removeIfUnchanged()
        }
        await onListening(listener.address)
        do {
            try await accept(on: listener)
        } catch {
            // Closing the listener on cancellation may end the accept loop with an error.
            if Task.isCancelled { return }
            throw error
        }
    }

    /// Serves each accepted connection in a task of its own.
    private func accept(on listener: Listener) async throws {
        let serverChannel = listener.channel.channel
        try await withTaskCancellationHandler {
            try await listener.channel.executeThenClose { connections in
                try await withThrowingDiscardingTaskGroup { group in
                    // Nil: over the limit, already closed.
                    for try await case let connection? in connections {
                        group.addTask { await HTTPConnection(connection: connection, server: self).serve() }
                    }
                }
            }
        } onCancel: {
            serverChannel.close(promise: nil)
        }
    }
}
