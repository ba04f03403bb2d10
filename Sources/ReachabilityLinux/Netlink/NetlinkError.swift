internal import CNetlink

/// A libnl or netlink system-call failure. The libnl code stays private (its numbering is
/// libnl's, not ours): ask the properties below, which can grow.
public struct NetlinkError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What was being done: `connect`, `dump links`, `route lookup`, …
    public var operation: String
    /// The libnl error code (`NLE_*`, positive), or 0 when `errno` is set instead.
    private var code: Int32
    /// The system error, when a system call failed rather than libnl.
    public var systemErrno: Int32?
    /// libnl's or the system's words for the error.
    public var message: String

    init(_ operation: String, libnl code: Int32) {
        self.operation = operation
        self.code = abs(code)
        self.message = String(cString: nl_geterror(abs(code)))
    }

    init(_ operation: String, errno value: Int32) {
        self.operation = operation
        self.code = 0
        self.systemErrno = value
        self.message = String(cString: strerror(value))
    }

    /// `-NLE_NOMEM` from a receive is how libnl reports `ENOBUFS`: events were dropped.
    public var mayHaveLostEvents: Bool { code == NLE_NOMEM }

    /// The kernel refused for lack of privilege.
    public var isPermissionDenied: Bool { code == NLE_PERM || systemErrno == EPERM || systemErrno == EACCES }

    public var description: String { "netlink \(operation): \(message)" }
}
