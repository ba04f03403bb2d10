import Glibc

/// The socket file a server bound, by device and inode: shutdown removes the path only while it
/// is still this file, not a socket a newer daemon has put there since.
struct UnixSocketFile: Sendable, Hashable {
    let path: String
    let device: UInt64
    let inode: UInt64

    func removeIfUnchanged() {
        guard let status = try? FileStatus.of(path), status.isSocket, status.device == device, status.inode == inode else { return }
        unlink(path)
    }
}

/// A Unix stream socket bound to its path with its mode (0600, or 0666 for every user) and not yet listening: NIO takes the
/// descriptor and listens. Binding here rather than with NIO's `bind(unixDomainSocketPath:)`
/// is what lets the mode be set between bind and listen.
struct BoundUnixSocket {
    let descriptor: Int32
    let file: UnixSocketFile

    /// Binds a new socket to `address`, whose path must be free.
    ///
    /// The mode is set race-free: Linux creates the socket file with the socket's own inode
    /// mode less the umask, so `fchmod` before `bind` means the file never exists with wider
    /// permissions. The `chmod` after it only makes the mode exact if the umask took
    /// owner bits away; it is safe by path because nobody else can change the directory's
    /// entries, and nobody can connect before `listen` anyway.
    static func bind(_ address: UnixSocketAddress, mode: UInt32) throws(ControlServerError) -> BoundUnixSocket {
        let path = address.path
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw .system("create a socket for", path: path) }
        do throws(ControlServerError) {
            guard fchmod(descriptor, mode) == 0 else { throw .system("set the mode of the socket for", path: path) }
            guard address.withSockaddr({ Glibc.bind(descriptor, $0, $1) }) == 0 else { throw .system("bind", path: path) }
            guard let status = try FileStatus.of(path), status.isSocket else {
                throw ControlServerError(.systemCall, path: path, "the socket \(path) vanished right after bind")
            }
            let file = UnixSocketFile(path: path, device: status.device, inode: status.inode)
            guard chmod(path, mode) == 0 else {
                let code = errno
                file.removeIfUnchanged()
                throw .system("set the mode of", path: path, errorNumber: code)
            }
            return BoundUnixSocket(descriptor: descriptor, file: file)
        } catch {
            close(descriptor)
            throw error
        }
    }
}
