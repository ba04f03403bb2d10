import Glibc

/// Why a notification could not be sent to the service manager.
///
/// A struct over an extensible ``Code`` rather than an enum, so new failure kinds are not a
/// source-breaking change; ``errorNumber`` carries `errno` when a system call failed.
public struct SystemdNotifyError: Error, CustomStringConvertible, Sendable {
    /// What kind of failure this is; compare with the static members.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Kind: Hashable, Sendable {
            case invalidMessage, socketUnavailable, sendFailed
        }

        private let kind: Kind

        /// The assignments cannot form a notification: an empty list, a malformed key, a
        /// value with a newline or NUL byte, or a datagram longer than the manager accepts.
        public static let invalidMessage = Code(kind: .invalidMessage)
        /// The datagram socket could not be created (for example, out of descriptors).
        public static let socketUnavailable = Code(kind: .socketUnavailable)
        /// The datagram was not delivered: no socket at the address, nobody listening, or the
        /// manager's queue stayed full past the send timeout.
        public static let sendFailed = Code(kind: .sendFailed)

        /// A short name for the kind of failure.
        public var description: String {
            switch kind {
            case .invalidMessage: "invalid message"
            case .socketUnavailable: "socket unavailable"
            case .sendFailed: "send failed"
            }
        }
    }

    /// What kind of failure this is.
    public let code: Code
    /// The `errno` of the failed system call, or `nil` when no system call failed.
    public let errorNumber: Int32?
    /// A sentence saying what failed, with the system's text for ``errorNumber``.
    public let description: String

    init(_ code: Code, _ message: String, errorNumber: Int32? = nil) {
        self.code = code
        self.errorNumber = errorNumber
        if let errorNumber {
            description = "\(message): \(String(cString: strerror(errorNumber)))"
        } else {
            description = message
        }
    }
}
