extension ControlServer {
    /// Bounds on what one client can make the server hold.
    public struct Limits: Sendable, Hashable {
        /// The largest request body accepted; a larger one is answered 413 and the connection
        /// closed without reading the rest. Default 1 MiB.
        public var maxBodyBytes: Int
        /// The largest request head (request line and header fields) accepted; a larger one is
        /// answered 400 and the connection closed. Default 16 KiB.
        public var maxHeaderBytes: Int
        /// How many connections are served at once; further ones are closed as soon as they
        /// are accepted. Default 128.
        public var maxConnections: Int
        /// How long a connection may stay silent, with no request being answered, before it is
        /// closed. A request whose answer is still being computed or streamed keeps it open.
        /// Default 60 s.
        public var idleTimeout: Duration

        /// Limits with the given values, each defaulting as documented on its property.
        public init(
            maxBodyBytes: Int = 1 << 20, maxHeaderBytes: Int = 16 << 10, maxConnections: Int = 128, idleTimeout: Duration = .seconds(60)
        ) {
            self.maxBodyBytes = maxBodyBytes
            self.maxHeaderBytes = maxHeaderBytes
            self.maxConnections = maxConnections
            self.idleTimeout = idleTimeout
        }
    }
}
