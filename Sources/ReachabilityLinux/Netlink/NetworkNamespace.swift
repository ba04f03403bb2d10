internal import CNetlink
import Glibc

/// A Linux network namespace held open by a file descriptor.
///
/// The monitor can watch a namespace other than its own: its netlink thread enters the
/// namespace before opening sockets. Sysfs is not namespaced that way (`/sys` shows the
/// namespace it was mounted in), so classification inside another namespace relies on netlink
/// facts, overrides, or an injected sysfs root.
public final class NetworkNamespace: Sendable {
    public let fileDescriptor: Int32

    /// Opens a namespace by path: `/run/netns/NAME`, `/proc/PID/ns/net`, …
    public init(path: String) throws(NamespaceError) {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw NamespaceError(operation: "open \(path)", errno: errno) }
        fileDescriptor = fd
    }

    /// Opens a namespace created by `ip netns add NAME`.
    public convenience init(named name: String) throws(NamespaceError) {
        try self.init(path: "/run/netns/\(name)")
    }

    private init(fileDescriptor: Int32) {
        self.fileDescriptor = fileDescriptor
    }

    /// Creates a new, empty, unnamed namespace. It lives while this object lives (and while any
    /// socket or process inside holds it), so nothing is left behind if the process dies.
    public static func createAnonymous() throws(NamespaceError) -> NetworkNamespace {
        let outcome: Result<Int32, NamespaceError> = OwnerThread.run(name: "reach-unshare") {
            // The throwaway thread moves into the new namespace; the caller's threads do not.
            guard reach_unshare_net() == 0 else { return .failure(NamespaceError(operation: "unshare(CLONE_NEWNET)", errno: errno)) }
            let fd = open("/proc/thread-self/ns/net", O_RDONLY | O_CLOEXEC)
            guard fd >= 0 else { return .failure(NamespaceError(operation: "open /proc/thread-self/ns/net", errno: errno)) }
            return .success(fd)
        }
        return NetworkNamespace(fileDescriptor: try outcome.get())
    }

    /// A path other processes can use to enter it (`nsenter --net=PATH`, `ip netns exec` style).
    public var path: String { "/proc/\(getpid())/fd/\(fileDescriptor)" }

    /// Moves the calling thread into the namespace.
    func enterOnCurrentThread() throws(NamespaceError) {
        guard reach_setns_net(fileDescriptor) == 0 else { throw NamespaceError(operation: "setns", errno: errno) }
    }

    deinit { close(fileDescriptor) }
}

/// A namespace operation that failed, with the system error.
public struct NamespaceError: Error, Sendable, Hashable, CustomStringConvertible {
    public var operation: String
    public var errno: Int32
    /// The system's words for the error: `No such file or directory`.
    public var reason: String { String(cString: strerror(errno)) }
    public var description: String { "\(operation): \(reason)" }
}
