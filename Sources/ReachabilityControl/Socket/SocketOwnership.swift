import Glibc

/// Whether a socket file may be trusted with a request (a job's `Authorization` header, a path
/// question): it is a socket owned by root or by this user, in a directory owned by one of them
/// that nobody else can write (unless sticky: then others cannot replace what is not theirs).
/// Otherwise another user may have put it there (an `XDG_RUNTIME_DIR` on a shared directory)
/// to read what is sent.
enum SocketOwnership {
    /// Nil when `path` may be used (or does not exist: connecting says so); the reason otherwise.
    static func problem(with path: String, euid: UInt32 = geteuid()) -> String? {
        var info = stat()
        guard lstat(path, &info) == 0 else { return nil }
        if info.st_mode & S_IFMT != S_IFSOCK { return "\(path) is not a socket" }
        if info.st_uid != 0 && info.st_uid != euid {
            return "\(path) belongs to uid \(info.st_uid), neither root nor you (uid \(euid)): not sending anything to it"
        }
        let directory = path.lastIndex(of: "/").map { $0 == path.startIndex ? "/" : String(path[..<$0]) } ?? "."
        var above = stat()
        guard lstat(directory, &above) == 0 else { return nil }
        if above.st_uid != 0 && above.st_uid != euid {
            return "\(directory) belongs to uid \(above.st_uid), neither root nor you (uid \(euid)): its socket could be anyone's"
        }
        if above.st_mode & 0o022 != 0 && above.st_mode & UInt32(S_ISVTX) == 0 {
            return "\(directory) is writable by others (mode \(String(above.st_mode & 0o7777, radix: 8))): its socket could be anyone's"
        }
        return nil
    }
}
