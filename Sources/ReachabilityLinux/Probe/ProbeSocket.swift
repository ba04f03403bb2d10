internal import CNetlink
import Glibc

/// A TCP connection for a connectivity probe, made out of one interface inside one network
/// namespace: the probe judges that interface, so its packets must not take another route.
///
/// The socket is created on a throwaway thread that entered the namespace (a socket keeps the
/// namespace it was created in), bound with `SO_BINDTODEVICE`, and connected without blocking
/// against a deadline. The caller owns the connected descriptor (NIO's `withConnectedSocket`).
public enum ProbeSocket {
    /// Connects to `address` (an IPv4 or IPv6 literal) on `port`, out of `interface`, within
    /// `timeout`. Runs on its own thread, so no task thread blocks; never takes longer than
    /// `timeout` and a moment. Every failure closes the socket.
    public static func connect(
        to address: String, port: Int, interface: String, namespace: NetworkNamespace?, timeout: Duration
    ) async -> Result<Int32, ProbeSocketError> {
        var thread: OwnerThread?
        let result = await withCheckedContinuation { (continuation: CheckedContinuation<Result<Int32, ProbeSocketError>, Never>) in
            thread = OwnerThread(name: "reach-probe") {
                continuation.resume(
                    returning: connectOnThisThread(address: address, port: port, interface: interface, namespace: namespace, timeout: timeout))
            }
        }
        // The body has resumed: the thread is returning, so this join is immediate.
        thread?.join()
        return result
    }

    /// The blocking work; moves the calling thread into `namespace`, so it must be a fresh one.
    private static func connectOnThisThread(
        address: String, port: Int, interface: String, namespace: NetworkNamespace?, timeout: Duration
    ) -> Result<Int32, ProbeSocketError> {
        let deadline = reach_monotonic_ns() + nanoseconds(timeout)
        guard (1...65535).contains(port) else { return .failure(ProbeSocketError(operation: "port \(port)", errno: EINVAL)) }
        if let namespace {
            do throws(NamespaceError) {
                try namespace.enterOnCurrentThread()
            } catch {
                return .failure(ProbeSocketError(operation: "setns", errno: error.errno))
            }
        }
        // In the namespace: a link-local peer is scoped by the interface's index there.
        guard let peer = SocketPeer(address, port: UInt16(port), interface: interface) else {
            return .failure(ProbeSocketError(operation: "address \(address)", errno: EINVAL))
        }
        let fd = socket(peer.family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        guard fd >= 0 else { return .failure(ProbeSocketError(operation: "socket", errno: errno)) }
        if let failure = bind(fd, to: interface) ?? connect(fd, to: peer, deadline: deadline) {
            close(fd)
            return .failure(failure)
        }
        return .success(fd)
    }

    private static func bind(_ fd: Int32, to interface: String) -> ProbeSocketError? {
        bindToDevice(fd, interface).map { ProbeSocketError(operation: "SO_BINDTODEVICE \(interface)", errno: $0) }
    }

    /// A non-blocking `connect`, then `poll` for writability until the deadline.
    private static func connect(_ fd: Int32, to peer: SocketPeer, deadline: Int64) -> ProbeSocketError? {
        let status = peer.withSocketAddress { Glibc.connect(fd, $0, $1) }
        if status == 0 { return nil }
        guard errno == EINPROGRESS else { return ProbeSocketError(operation: "connect", errno: errno) }
        var entry = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
        while true {
            let left = deadline - reach_monotonic_ns()
            guard left > 0 else { return ProbeSocketError(operation: "connect", errno: ETIMEDOUT, isDeadline: true) }
            let ready = reach_poll_ns(&entry, 1, left)
            if ready < 0, errno == EINTR { continue }
            guard ready >= 0 else { return ProbeSocketError(operation: "poll", errno: errno) }
            if ready > 0 { break }
        }
        var failure: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        guard getsockopt(fd, SOL_SOCKET, SO_ERROR, &failure, &length) == 0 else {
            return ProbeSocketError(operation: "getsockopt", errno: errno)
        }
        return failure == 0 ? nil : ProbeSocketError(operation: "connect", errno: failure)
    }

    private static func nanoseconds(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        guard seconds > 0 || attoseconds > 0 else { return 0 }
        // Clamped: a huge timeout must not overflow the deadline.
        return seconds >= 1 << 32 ? Int64(1) << 62 : seconds * 1_000_000_000 + attoseconds / 1_000_000_000
    }
}

/// Why a probe connection failed: the step and the system error.
public struct ProbeSocketError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The step that failed: `connect`, `socket`, `SO_BINDTODEVICE up0`, `setns`.
    public var operation: String
    /// The system error (`ECONNREFUSED`, …).
    public var errno: Int32
    /// The deadline passed before the connection was made.
    public var isDeadline: Bool

    /// An error given field by field.
    public init(operation: String, errno: Int32, isDeadline: Bool = false) {
        self.operation = operation
        self.errno = errno
        self.isDeadline = isDeadline
    }

    /// The system's words, lower-cased as a probe's detail has them: `connection refused`.
    public var reason: String {
        let text = String(cString: strerror(errno))
        return text.prefix(1).lowercased() + text.dropFirst()
    }

    /// `connection refused`, `no route to host` for `connect`; the step first otherwise.
    public var description: String { operation == "connect" ? reason : "\(operation): \(reason)" }
}
