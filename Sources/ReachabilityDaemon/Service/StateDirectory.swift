import Glibc

/// The daemon's own directories (state, the socket's): created 0700 when missing; an existing
/// one must be a real directory (not a symlink) owned by this user and writable by no one
/// else, since a root daemon trusts what it finds there.
public enum StateDirectory {
    /// Makes sure `path` is such a directory, creating it and missing parents (0700).
    public static func prepare(_ path: String) throws(QueueError) {
        guard path.hasPrefix("/"), path.utf8.count < 4096 else { throw .invalidJob("the state directory must be an absolute path: \(path)") }
        var prefix = ""
        for component in path.split(separator: "/") {
            prefix += "/" + component
            if mkdir(prefix, 0o700) != 0 && errno != EEXIST {
                throw .storage("cannot create \(prefix): \(String(cString: strerror(errno)))")
            }
        }
        try check(path)
    }

    /// Creates the subdirectory `path` (0700) when missing, checked as ``prepare(_:)`` does.
    static func makePrivateSubdirectory(_ path: String) throws(QueueError) {
        if mkdir(path, 0o700) != 0 && errno != EEXIST { throw .storage("cannot create \(path): \(String(cString: strerror(errno)))") }
        try check(path)
    }

    static func check(_ path: String) throws(QueueError) {
        var info = stat()
        guard lstat(path, &info) == 0 else { throw .storage("cannot use \(path): \(String(cString: strerror(errno)))") }
        guard info.st_mode & S_IFMT == S_IFDIR else { throw .storage("\(path) is not a directory (a symlink or a file)") }
        guard info.st_uid == geteuid() else { throw .storage("\(path) belongs to uid \(info.st_uid), not to this user (uid \(geteuid()))") }
        guard info.st_mode & 0o022 == 0 else { throw .storage("\(path) is writable by others (mode \(String(info.st_mode & 0o777, radix: 8)))") }
    }
}
