import Glibc

/// Why a ``ControlServer`` could not start listening.
///
/// A struct over an extensible ``Code`` rather than an enum, so new failure kinds are not a
/// source-breaking change; ``description`` names the path and what is wrong with it.
public struct ControlServerError: Error, CustomStringConvertible, Sendable {
    /// What kind of failure this is; compare with the static members.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Kind: Hashable, Sendable {
            case unsafeDirectory, pathOccupied, alreadyListening, invalidPath, systemCall
        }

        private let kind: Kind

        /// The socket's directory is a symbolic link or not a directory, belongs to another
        /// user, is writable by group or others, or its own parent does not exist.
        public static let unsafeDirectory = Code(kind: .unsafeDirectory)
        /// Something other than a socket (a file, a symbolic link, a directory) is at the
        /// socket's path. It is left alone.
        public static let pathOccupied = Code(kind: .pathOccupied)
        /// Another server answers on the socket's path: another daemon is running.
        public static let alreadyListening = Code(kind: .alreadyListening)
        /// The path cannot name a Unix socket: empty, ending in `/`, with a NUL byte, or longer
        /// than `sun_path` holds (107 bytes).
        public static let invalidPath = Code(kind: .invalidPath)
        /// A system call failed: creating the directory or socket, binding, listening.
        public static let systemCall = Code(kind: .systemCall)

        /// A short name for the kind of failure.
        public var description: String {
            switch kind {
            case .unsafeDirectory: "unsafe directory"
            case .pathOccupied: "path occupied"
            case .alreadyListening: "already listening"
            case .invalidPath: "invalid path"
            case .systemCall: "system call failed"
            }
        }
    }

    /// What kind of failure this is.
    public let code: Code
    /// The file or directory concerned (the host and port for TCP).
    public let path: String
    /// The `errno` of the failed system call, or `nil` when no system call failed.
    public let errorNumber: Int32?
    /// A sentence naming ``path`` and what is wrong, with the system's text for ``errorNumber``.
    public let description: String

    init(_ code: Code, path: String, _ message: String, errorNumber: Int32? = nil) {
        self.code = code
        self.path = path
        self.errorNumber = errorNumber
        if let errorNumber {
            description = "\(message): \(String(cString: strerror(errorNumber)))"
        } else {
            description = message
        }
    }

    /// A failed system call on `path`, with the current `errno`.
    static func system(_ what: String, path: String, errorNumber: Int32 = errno) -> ControlServerError {
        ControlServerError(.systemCall, path: path, "cannot \(what) \(path)", errorNumber: errorNumber)
    }
}
