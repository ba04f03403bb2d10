import Glibc

extension ControlServer {
    /// A policy for ``ControlServer/init(address:limits:authorize:handler:)``: allows peers whose
    /// user is `euid` or root, and refuses connections without credentials (TCP, or when the
    /// kernel would not say).
    public static func sameUserOrRoot(euid: UInt32) -> @Sendable (PeerCredentials?) -> Bool {
        { peer in
            guard let peer else { return false }
            return peer.uid == euid || peer.uid == 0
        }
    }

    /// ``sameUserOrRoot(euid:)`` with this process's effective user ID: the usual policy for
    /// the daemon's control socket.
    public static func sameUserOrRoot() -> @Sendable (PeerCredentials?) -> Bool {
        sameUserOrRoot(euid: geteuid())
    }

    /// A policy that allows every connection: for a TCP listener (which has no peer
    /// credentials) serving what anyone who can reach the port may read, such as metrics.
    public static let allowEveryone: @Sendable (PeerCredentials?) -> Bool = { _ in true }
}
