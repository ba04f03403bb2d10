import Glibc

/// What `lstat` says about a path, without following a final symbolic link.
struct FileStatus {
    let raw: stat

    /// The status of `path`; nil when there is nothing there (`ENOENT`). Other failures throw.
    static func of(_ path: String) throws(ControlServerError) -> FileStatus? {
        var info = stat()
        guard lstat(path, &info) == 0 else {
            let code = errno
            if code == ENOENT { return nil }
            throw .system("inspect", path: path, errorNumber: code)
        }
        return FileStatus(raw: info)
    }

    var type: mode_t { raw.st_mode & S_IFMT }
    var isDirectory: Bool { type == S_IFDIR }
    var isSocket: Bool { type == S_IFSOCK }
    var isSymbolicLink: Bool { type == S_IFLNK }
    /// The permission bits (`0o755`).
    var permissions: mode_t { raw.st_mode & 0o7777 }
    var owner: uid_t { raw.st_uid }
    var device: UInt64 { UInt64(raw.st_dev) }
    var inode: UInt64 { UInt64(raw.st_ino) }

    /// "a regular file", "a symbolic link", …: for messages.
    var typeDescription: String {
        switch type {
        case S_IFREG: "a regular file"
        case S_IFLNK: "a symbolic link"
        case S_IFDIR: "a directory"
        case S_IFSOCK: "a socket"
        case S_IFIFO: "a named pipe"
        case S_IFCHR, S_IFBLK: "a device"
        default: "not a socket"
        }
    }
}

/// `0o755` as `0755`, as `ls` and `chmod` write it.
func octal(_ mode: mode_t) -> String {
    "0" + String(mode, radix: 8)
}
