public import Logging
public import ReachabilityCore

/// What `reach daemon` runs with.
public struct DaemonConfiguration: Sendable, Hashable {
    /// A TCP address to listen on.
    public struct ListenAddress: Sendable, Hashable {
        /// An IP address or host name (`127.0.0.1`, `::1`).
        public var host: String
        /// The port (0: any free one).
        public var port: Int

        /// An address given field by field.
        public init(host: String, port: Int) {
            self.host = host
            self.port = port
        }
    }

    /// The state directory (`queue.sqlite`, upload resume records, command logs).
    public var stateDirectory: String
    /// The control socket: the whole API, for the daemon's user and root.
    public var socketPath: String
    /// The path socket: the path, its changes and per-destination answers for every local user
    /// (mode 0666), nothing else; nil for none. By default `path.sock` beside the control socket.
    public var pathSocketPath: String?
    /// The dispatcher hooks' directory (``DaemonPaths/dispatcherDirectory(environment:)`` by
    /// default); nil: no hooks. A directory that does not exist runs none.
    public var dispatcherDirectory: String? = DaemonPaths.dispatcherDirectory()
    /// How long one hook may run before its process group is terminated.
    public var dispatcherTimeout: Duration = .seconds(60)
    /// Also serve `/metrics` over TCP here; nil: only on the socket.
    public var metricsListen: ListenAddress?
    /// Transfers at once against one host.
    public var perHost = 2
    /// Transfers at once in all.
    public var maxRunning = 8
    /// How often the interfaces' counters are read for the data budgets (one link dump) and the
    /// budgets checkpointed: a `kill -9` loses at most this much counting.
    public var countInterval: Duration = .seconds(60)
    /// The data budgets of the configuration file.
    public var configuredBudgets: [ConfiguredBudget] = []
    /// A failed command's first wait before it runs again.
    public var commandRetryDelay: Duration = .seconds(30)
    /// The least severe messages logged: `notice` (the default) tells starts, stops and
    /// budgets; `info` adds retries, successes and path changes; `warning` is job failures,
    /// hooks that failed and the like.
    public var logLevel: Logger.Level = .notice

    /// A configuration with the given directory and socket, no TCP metrics listener.
    public init(stateDirectory: String, socketPath: String) {
        self.stateDirectory = stateDirectory
        self.socketPath = socketPath
        pathSocketPath = Self.pathSocket(besides: socketPath)
    }

    /// The servers the daemon listens with: the control socket, and the path socket and the
    /// TCP metrics address when set.
    var listenerCount: Int { 1 + (pathSocketPath == nil ? 0 : 1) + (metricsListen == nil ? 0 : 1) }

    /// `path.sock` in the control socket's directory.
    public static func pathSocket(besides socketPath: String) -> String {
        directory(of: socketPath) + "/path.sock"
    }

    /// Everything before a path's last `/` (empty for a name at the root).
    static func directory(of path: String) -> Substring {
        path[..<(path.lastIndex(of: "/") ?? path.startIndex)]
    }
}
