import ReachabilityCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The destination's directory, opened once: every file a download creates, renames or
/// removes is named relative to this descriptor and opened with `O_NOFOLLOW`, so whoever can
/// write the directory cannot redirect root's download into another file with a planted
/// symlink, and a rename of the directory mid-download cannot scatter its files.
final class DirectoryHandle: Sendable {
    /// The directory as given (for messages).
    let path: String
    let descriptor: Int32

    init(path: String) throws(FileError) {
        let fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { throw FileError("open directory", path: path) }
        self.path = path
        descriptor = fd
    }

    deinit { close(descriptor) }

    /// Device and inode: the same directory reached by two paths has one identity.
    var identity: String {
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { return path }
        return "\(info.st_dev):\(info.st_ino)"
    }

    func display(_ name: String) -> String { path == "." ? name : path == "/" ? "/" + name : path + "/" + name }

    /// What is at `name`, without following a symlink; nil when nothing is.
    func status(of name: String) -> stat? {
        var info = stat()
        guard fstatat(descriptor, name, &info, AT_SYMLINK_NOFOLLOW) == 0 else { return nil }
        return info
    }

    /// Opens the regular file `name` (creating it, mode 0600, with `create`), never following a
    /// symlink and never blocking on a FIFO; anything but a regular file is refused.
    func openRegular(_ name: String, flags: Int32, create: Bool = false, exclusive: Bool = false) throws(FileError) -> Int32 {
        var all = flags | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK | O_NOCTTY
        if create { all |= O_CREAT }
        if exclusive { all |= O_EXCL }
        let fd = openat(descriptor, name, all, 0o600)
        guard fd >= 0 else {
            let code = errno
            throw FileError(code == ELOOP ? "refusing to follow a symlink at" : "open", path: display(name), code: code)
        }
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            let error = FileError("stat", path: display(name))
            close(fd)
            throw error
        }
        guard (info.st_mode & S_IFMT) == S_IFREG else {
            close(fd)
            throw FileError("refusing to use \(FileKind.describe(info.st_mode)) at", path: display(name), code: EINVAL)
        }
        return fd
    }

    func rename(_ from: String, to: String) throws(FileError) {
        guard renameat(descriptor, from, descriptor, to) == 0 else { throw FileError("rename to \(display(to))", path: display(from)) }
    }

    func remove(_ name: String) {
        unlinkat(descriptor, name, 0)
    }

    /// Makes a rename or unlink in the directory durable.
    func sync() {
        fsync(descriptor)
    }
}

/// File types in words, for refusals.
enum FileKind {
    static func describe(_ mode: mode_t) -> String {
        switch mode & S_IFMT {
        case S_IFREG: "a regular file"
        case S_IFDIR: "a directory"
        case S_IFLNK: "a symlink"
        case S_IFCHR: "a character device"
        case S_IFBLK: "a block device"
        case S_IFIFO: "a FIFO"
        case S_IFSOCK: "a socket"
        default: "a special file"
        }
    }
}
