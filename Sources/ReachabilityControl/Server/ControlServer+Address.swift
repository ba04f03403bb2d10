extension ControlServer {
    /// Where a server listens: a Unix socket path, or a TCP host and port.
    public struct Address: Sendable, Hashable, CustomStringConvertible {
        enum Kind: Sendable, Hashable {
            case unix(path: String)
            case tcp(host: String, port: Int)
        }

        let kind: Kind

        /// A Unix stream socket at `path`, created 0600 in a directory only the daemon's user
        /// can change (see ``ControlServer``).
        public static func unix(_ path: String) -> Address {
            Address(kind: .unix(path: path))
        }

        /// A TCP socket on `host` (an address such as `127.0.0.1`, `::1` or `0.0.0.0`, or a
        /// name) and `port`; port 0 picks a free one, which the listening address reports.
        public static func tcp(host: String, port: Int) -> Address {
            Address(kind: .tcp(host: host, port: port))
        }

        /// The socket's path, for a Unix address.
        public var unixPath: String? {
            if case .unix(let path) = kind { path } else { nil }
        }

        /// The host, for a TCP address.
        public var host: String? {
            if case .tcp(let host, _) = kind { host } else { nil }
        }

        /// The port, for a TCP address.
        public var port: Int? {
            if case .tcp(_, let port) = kind { port } else { nil }
        }

        /// `unix:/run/reach/reach.sock`, `127.0.0.1:9100` or `[::1]:9100`.
        public var description: String {
            switch kind {
            case .unix(let path): "unix:\(path)"
            case .tcp(let host, let port): host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
            }
        }
    }
}
