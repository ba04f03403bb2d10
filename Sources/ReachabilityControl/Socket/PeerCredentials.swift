import Glibc
import NIOCore

/// Who is at the other end of a Unix socket connection, as the kernel recorded it when the
/// peer connected (`SO_PEERCRED`): not something the peer can claim.
public struct PeerCredentials: Sendable, Hashable, CustomStringConvertible {
    /// The peer's process ID at connect time.
    public var pid: Int32
    /// The peer's effective user ID.
    public var uid: UInt32
    /// The peer's effective group ID.
    public var gid: UInt32

    /// Credentials with the given IDs (for tests of an authorization policy).
    public init(pid: Int32, uid: UInt32, gid: UInt32) {
        self.pid = pid
        self.uid = uid
        self.gid = gid
    }

    /// `pid 123 uid 1000 gid 1000`.
    public var description: String { "pid \(pid) uid \(uid) gid \(gid)" }
}

extension PeerCredentials {
    /// `struct ucred` (pid_t, uid_t, gid_t), which Glibc's Swift module hides behind
    /// `_GNU_SOURCE`: three 32-bit fields, so this struct has its layout.
    private struct KernelCredentials: Sendable {
        var pid: Int32 = 0
        var uid: UInt32 = 0
        var gid: UInt32 = 0
    }

    /// Reads `SO_PEERCRED` from an accepted Unix socket channel; nil when the channel cannot
    /// say (then an authorization policy sees no credentials and should refuse).
    static func read(from channel: any Channel) -> EventLoopFuture<PeerCredentials?> {
        guard let provider = channel as? any SocketOptionProvider else {
            return channel.eventLoop.makeSucceededFuture(nil)
        }
        let raw: EventLoopFuture<KernelCredentials> = provider.unsafeGetSocketOption(
            level: SocketOptionLevel(SOL_SOCKET), name: SocketOptionName(SO_PEERCRED)
        )
        return raw.map { Optional(PeerCredentials(pid: $0.pid, uid: $0.uid, gid: $0.gid)) }
            .recover { _ in nil }
    }
}
