extension ControlServer {
    /// Bounds on what one client can make the server hold.
    public struct Limits: Sendable, Hashable {

        /// The largest request body accepted; a larger one is answered 413 and the connection
        /// closed without reading the rest. Default 1 MiB.
        public var maxBodyBytes: Int
        /// The largest request head (request line and header fields) accepted; a larger one is
        /// answered 400 and the connection closed. Default 16 KiB.
        public var maxHeaderBytes: Int
        /// How many connections are served at once; beyond, an idle one is closed to make room,
        /// or the new one when none is idle. Root may hold 16 more. Default 128.
        public var maxConnections: Int
        /// How many of them one user (by `SO_PEERCRED`; root excepted) may hold, so no user
        /// locks out the others: beyond, the user's oldest idle one is closed to make room, or
        /// the new one when none is idle. Default a quarter of ``maxConnections``.
        public var maxConnectionsPerUser: Int
        /// Connections root may hold beyond ``maxConnections`` (`reach queue` as root gets in
        /// however full the server is). Default 16.
        public var rootReserve: Int
        /// How long a connection may stay silent, with no request being answered, before it is
        /// closed. A request whose answer is still being computed or streamed keeps it open.
        /// Default 60 s.
        public var idleTimeout: Duration

        /// Limits with the given values, each defaulting as documented on its property.
        public init(
            maxBodyBytes: Int = 1 << 20, maxHeaderBytes: Int = 16 << 10, maxConnections: Int = 128, maxConnectionsPerUser: Int? = nil,
            rootReserve: Int = 16, idleTimeout: Duration = .seconds(60)
        ) {
            self.rootReserve = max(0, rootReserve)
            self.maxBodyBytes = maxBodyBytes
            self.maxHeaderBytes = maxHeaderBytes
            self.maxConnections = maxConnections
            self.maxConnectionsPerUser = maxConnectionsPerUser ?? max(1, maxConnections / 4)
            self.idleTimeout = idleTimeout
        }
    }
}
