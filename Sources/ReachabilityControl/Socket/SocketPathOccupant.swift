import Glibc

/// Whatever is already at the socket's path. A socket nobody answers on is a stale one from a
/// crashed daemon and is removed; a socket that answers means another daemon runs; anything
/// else is not ours to remove.
enum SocketPathOccupant {
    static func clear(_ address: UnixSocketAddress) throws(ControlServerError) {
        let path = address.path
        guard let status = try FileStatus.of(path) else { return }
        guard status.isSocket else {
            throw ControlServerError(
                .pathOccupied, path: path, "\(path) exists and is \(status.typeDescription), not a socket; not removing it"
            )
        }
        guard try !isAnswered(address) else {
            throw ControlServerError(.alreadyListening, path: path, "another daemon is listening on \(path)")
        }
        guard unlink(path) == 0 || errno == ENOENT else { throw .system("remove the stale socket", path: path) }
    }

    /// Whether a server accepts connections on the socket: a non-blocking connect succeeds, or
    /// would block because its backlog is full (still a live server). Refused means stale.
    private static func isAnswered(_ address: UnixSocketAddress) throws(ControlServerError) -> Bool {
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        guard descriptor >= 0 else { throw .system("create a socket to probe", path: address.path) }
        defer { close(descriptor) }
        let result = address.withSockaddr { connect(descriptor, $0, $1) }
        if result == 0 { return true }
        let code = errno
        switch code {
        case EAGAIN, EINPROGRESS: return true
        case ECONNREFUSED: return false
        default: throw .system("check whether a daemon listens on", path: address.path, errorNumber: code)
        }
    }
}
