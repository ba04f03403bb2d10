import Glibc

/// Whether a socket file may be trusted with a request (a job's `Authorization` header, a path
/// question): only root, this user, or someone root or this user gave the place to can have put
/// it there. That is: its directory is writable by nobody but its owner (or sticky), and either
/// the socket and the directory belong to root or this user, or the directory's own parent does
/// (then root or this user made the directory, and chose its owner: systemd's
/// `RuntimeDirectory=` for a daemon with `User=reach`), the socket being the directory owner's.
/// Otherwise another user may have put it there (an `XDG_RUNTIME_DIR` on a shared directory)
/// to read what is sent.
enum SocketOwnership {
    /// Nil when `path` may be used (or does not exist: connecting says so); the reason otherwise.
    static func problem(with path: String, euid: UInt32 = geteuid()) -> String? {
        var info = stat()
        guard lstat(path, &info) == 0 else { return nil }
        if info.st_mode & S_IFMT != S_IFSOCK { return "\(path) is not a socket" }
        let directory = parent(of: path)
        var above = stat()
        guard stat(directory, &above) == 0 else { return nil }
        if above.st_mode & 0o022 != 0 && above.st_mode & UInt32(S_ISVTX) == 0 {
            return "\(directory) is writable by others (mode \(String(above.st_mode & 0o7777, radix: 8))): its socket could be anyone's"
        }
        let trusted: (UInt32) -> Bool = { $0 == 0 || $0 == euid }
        if trusted(info.st_uid) && trusted(above.st_uid) { return nil }
        // Another user's directory: fine if root or this user made it (its parent is theirs and
        // nobody else's to write), and the socket is that directory owner's.
        var grand = stat()
        let madeByTrusted = stat(parent(of: directory), &grand) == 0 && trusted(grand.st_uid) && grand.st_mode & 0o022 == 0
        if madeByTrusted && (info.st_uid == above.st_uid || trusted(info.st_uid)) { return nil }
        return "\(path) belongs to uid \(info.st_uid) (its directory to uid \(above.st_uid)), neither root nor you (uid \(euid)), "
            + "in a place others could have made: not sending anything to it"
    }

    private static func parent(of path: String) -> String {
        path.lastIndex(of: "/").map { $0 == path.startIndex ? "/" : String(path[..<$0]) } ?? "."
    }
}
