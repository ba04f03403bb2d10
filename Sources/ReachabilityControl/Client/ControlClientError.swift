import AsyncHTTPClient
import Glibc
import NIOCore
import NIOPosix

/// Why a request to the daemon's control socket failed.
///
/// A struct over an extensible ``Code`` rather than an enum, so new failure kinds are not a
/// source-breaking change; ``description`` names the socket and says what went wrong.
public struct ControlClientError: Error, CustomStringConvertible, Sendable {
    /// What kind of failure this is; compare with the static members.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Kind: Hashable, Sendable {
            case daemonNotRunning, permissionDenied, untrustedSocket, timedOut, cancelled, unexpectedResponse, invalidRequest, communication
        }

        private let kind: Kind

        /// Nothing listens on the socket: no file at the path, or a stale socket left by a
        /// daemon that is gone.
        public static let daemonNotRunning = Code(kind: .daemonNotRunning)
        /// This user may not open the socket (or a directory on the way to it).
        public static let permissionDenied = Code(kind: .permissionDenied)
        /// The socket (or its directory) belongs to another user: nothing was sent to it.
        public static let untrustedSocket = Code(kind: .untrustedSocket)
        /// No complete answer within the request timeout.
        public static let timedOut = Code(kind: .timedOut)
        /// The calling task was cancelled.
        public static let cancelled = Code(kind: .cancelled)
        /// The daemon answered with something unusable: a stream request answered with an
        /// error status (see ``ControlClientError/status``), a body over the client's bound,
        /// or an event line over the bound.
        public static let unexpectedResponse = Code(kind: .unexpectedResponse)
        /// The request could not be formed: a path that is not a URL path, a socket path too
        /// long for `sun_path`, a method that is not a token.
        public static let invalidRequest = Code(kind: .invalidRequest)
        /// The connection failed or the exchange broke off (I/O or HTTP protocol error).
        public static let communication = Code(kind: .communication)

        /// A short name for the kind of failure.
        public var description: String {
            switch kind {
            case .daemonNotRunning: "daemon not running"
            case .permissionDenied: "permission denied"
            case .untrustedSocket: "untrusted socket"
            case .timedOut: "timed out"
            case .cancelled: "cancelled"
            case .unexpectedResponse: "unexpected response"
            case .invalidRequest: "invalid request"
            case .communication: "communication failed"
            }
        }
    }

    /// What kind of failure this is.
    public let code: Code
    /// The control socket's path.
    public let socketPath: String
    /// The HTTP status, for ``Code/unexpectedResponse`` to a stream request.
    public let status: Int?
    /// A sentence naming ``socketPath`` and what went wrong.
    public let description: String

    init(_ code: Code, socketPath: String, _ description: String, status: Int? = nil) {
        self.code = code
        self.socketPath = socketPath
        self.status = status
        self.description = description
    }
}

extension ControlClientError {
    /// Classifies what the HTTP client threw while talking to `socketPath`.
    init(classifying error: any Error, socketPath path: String) {
        if let error = error as? ControlClientError {
            self = error
        } else if let code = Self.errnoCode(in: error), [ENOENT, ECONNREFUSED, ENOTSOCK].contains(code) {
            self.init(.daemonNotRunning, socketPath: path, "no reach daemon is listening on \(path)")
        } else if let code = Self.errnoCode(in: error), [EACCES, EPERM].contains(code) {
            self.init(.permissionDenied, socketPath: path, "permission denied opening \(path): this user may not use the reach daemon")
        } else if let error = error as? HTTPClientError, [.connectTimeout, .deadlineExceeded, .readTimeout].contains(error) {
            self.init(.timedOut, socketPath: path, "the reach daemon on \(path) did not answer in time")
        } else if error is CancellationError || (error as? HTTPClientError) == .cancelled {
            self.init(.cancelled, socketPath: path, "the request to the reach daemon on \(path) was cancelled")
        } else if error is NIOTooManyBytesError {
            self.init(.unexpectedResponse, socketPath: path, "the reach daemon on \(path) sent a larger answer than expected")
        } else if error is SocketAddressError {
            self.init(.invalidRequest, socketPath: path, "\(path) cannot be used as a socket address: \(error)")
        } else {
            self.init(.communication, socketPath: path, "talking to the reach daemon on \(path) failed: \(error)")
        }
    }

    /// The `errno` of a failed connect, possibly inside NIO's connection error.
    private static func errnoCode(in error: any Error) -> Int32? {
        if let error = error as? IOError { return error.errnoCode }
        if let error = error as? NIOConnectionError {
            return error.connectionErrors.lazy.compactMap { errnoCode(in: $0.error) }.first
        }
        return nil
    }
}
