import Glibc
import Synchronization

/// Sends service-manager notifications (sd_notify(3)) without libsystemd: each call is one
/// datagram of newline-separated `KEY=VALUE` assignments to the `AF_UNIX` socket named by
/// `$NOTIFY_SOCKET`.
///
/// Obtain one with ``takeFromEnvironment()`` at startup; it is `nil` when the process was not
/// started by systemd with `Type=notify`, and then there is nothing to send. Sends are
/// thread-safe and share one socket, created at the first send.
public final class SystemdNotifier: Sendable {
    /// What `$NOTIFY_SOCKET` held: a path, or `@name` for an abstract socket.
    public let socketPath: String
    /// The watchdog the manager expects pings for (`WATCHDOG_USEC`), when there is one.
    public let watchdogSettings: WatchdogSettings?

    private let address: NotifySocketAddress
    /// The datagram socket, -1 until the first send; the lock also serializes sends.
    private let descriptor = Mutex<Int32>(-1)

    /// How long a send may wait while the manager's receive queue is full before it fails,
    /// so a stuck manager cannot hang the caller (sd_notify itself would block).
    static let sendTimeout = timeval(tv_sec: 2, tv_usec: 0)

    /// A notifier for the socket at `socketPath` (an absolute path, or `@name` for an abstract
    /// socket), with the `watchdog` the manager expects pings for, if any.
    ///
    /// Returns `nil` when `socketPath` is not such an address or does not fit `sun_path`.
    /// Nothing is opened yet: a socket that does not exist shows as an error from ``send(_:)``.
    public init?(socketPath: String, watchdog: WatchdogSettings? = nil) {
        guard let address = NotifySocketAddress(socketPath) else { return nil }
        self.socketPath = socketPath
        self.address = address
        self.watchdogSettings = watchdog
    }

    deinit {
        descriptor.withLock { descriptor in
            if descriptor >= 0 { close(descriptor) }
        }
    }

    /// Sends `assignments` (such as `[("READY", "1"), ("STATUS", "Idle")]`) in one datagram.
    ///
    /// `STATUS` values are made one line with ``statusLine(_:)``. Throws
    /// ``SystemdNotifyError/Code/invalidMessage`` for an empty list, a key other than letters,
    /// digits and underscores, another value containing a newline or NUL byte, or more than
    /// 4096 bytes in all; ``SystemdNotifyError/Code/sendFailed`` when the datagram is not
    /// delivered (the socket does not exist, or the manager does not read it in time).
    public func send(_ assignments: [(String, String)]) throws(SystemdNotifyError) {
        let message = try NotifyMessage.encode(assignments)
        try descriptor.withLock { descriptor throws(SystemdNotifyError) in
            if descriptor < 0 { descriptor = try Self.makeSocket() }
            try deliver(message, on: descriptor)
        }
    }

    private func deliver(_ message: [UInt8], on descriptor: Int32) throws(SystemdNotifyError) {
        var sent: Int
        repeat {
            sent = message.withUnsafeBytes { bytes in
                address.withSockaddr { sockaddr, length in
                    sendto(descriptor, bytes.baseAddress, bytes.count, Int32(MSG_NOSIGNAL), sockaddr, length)
                }
            }
        } while sent < 0 && errno == EINTR
        if sent < 0 {
            throw SystemdNotifyError(.sendFailed, "cannot notify \(socketPath)", errorNumber: errno)
        }
        guard sent == message.count else {
            throw SystemdNotifyError(.sendFailed, "notification to \(socketPath) was cut short (\(sent) of \(message.count) bytes)")
        }
    }

    /// An unconnected datagram socket, closed on exec so user commands the daemon starts do
    /// not inherit it, with a bounded send wait (``sendTimeout``).
    private static func makeSocket() throws(SystemdNotifyError) -> Int32 {
        let descriptor = Glibc.socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else {
            throw SystemdNotifyError(.socketUnavailable, "cannot create a notification socket", errorNumber: errno)
        }
        var timeout = sendTimeout
        _ = setsockopt(descriptor, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        return descriptor
    }
}
