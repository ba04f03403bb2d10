/// Who may connect to a Unix control socket, by its file mode: the owner only (0600, the
/// control API), or every local user (0666, a read-only API whose handler serves only what
/// anyone may read). Its directory, when the server creates it, is 0700 or 0755 to match.
public struct SocketAccess: Sendable, Hashable {
    /// The socket file's mode.
    public let socketMode: UInt32
    /// The mode of the socket's directory when the server creates it.
    public let directoryMode: UInt32

    /// The daemon's user (and root, who passes file modes).
    public static let owner = SocketAccess(socketMode: 0o600, directoryMode: 0o700)
    /// The daemon's user, in a directory every user may enter (0755 when created): beside a
    /// socket for ``everyone``.
    public static let ownerBesidePublic = SocketAccess(socketMode: 0o600, directoryMode: 0o755)
    /// Every local user; the handler decides what they are served.
    public static let everyone = SocketAccess(socketMode: 0o666, directoryMode: 0o755)
}
