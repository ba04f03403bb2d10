import ReachabilityCore
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The destination's directory, opened once: every file a download creates, renames or
/// removes is named relative to this descriptor and opened with `O_NOFOLLOW`, so whoever can
/// write the directory cannot redirect root's download into another file with a planted
/// symlink, and a rename of the directory mid-download cannot scatter its files.
///
/// A download that waits (the engine's queue may hold thousands) ``park()``s it: the
/// descriptor is closed until the next use, which opens the path again and goes on only if it
/// is still the same directory (device and inode). Otherwise every waiting download would hold
/// a descriptor: under the 1,024 that systemd gives a service, the 994th failed.
final class DirectoryHandle: Sendable {
    /// The directory as given (for messages).
    let path: String
    private let device: UInt64
    private let inode: UInt64
    /// The open descriptor; -1 while parked. Used under the lock, so ``park()`` cannot close
    /// it while another thread uses it.
    private let descriptor: Mutex<Int32>

    init(path: String) throws(FileError) {
        let fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { throw FileError("open directory", path: path) }
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            let error = FileError("stat directory", path: path)
            close(fd)
            throw error
        }
        self.path = path
        device = UInt64(info.st_dev)
        inode = UInt64(info.st_ino)
        descriptor = Mutex(fd)
    }

    deinit { descriptor.withLock { if $0 >= 0 { close($0) } } }

    /// Device and inode: the same directory reached by two paths has one identity.
    var identity: String { "\(device):\(inode)" }

    /// Closes the descriptor until the next use.
    func park() {
        descriptor.withLock { fd in
            guard fd >= 0 else { return }
            close(fd)
            fd = -1
        }
    }

    /// Opens the directory again after ``park()`` (nothing to do while open): fails, before any
    /// request, when the path is no longer the directory the download was checked in.
    func reopenIfParked() throws(FileError) {
        try withDescriptor { _ throws(FileError) in }
    }

    /// `body` with the open descriptor, opening the directory again after ``park()``.
    private func withDescriptor<T: Sendable>(_ body: (Int32) throws(FileError) -> T) throws(FileError) -> T {
        try descriptor.withLock { fd throws(FileError) -> T in
            if fd < 0 { fd = try reopen() }
            return try body(fd)
        }
    }

    /// The path opened again, refused unless it is the directory first opened: one put in its
    /// place since (another directory, a symlink to one) is not where the download was checked.
    private func reopen() throws(FileError) -> Int32 {
        let fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { throw FileError("open directory", path: path) }
        var info = stat()
        guard fstat(fd, &info) == 0, UInt64(info.st_dev) == device, UInt64(info.st_ino) == inode else {
            close(fd)
            throw FileError("refusing to use another directory than the one the download was added for at", path: path, code: ESTALE)
        }
        return fd
    }

    func display(_ name: String) -> String { path == "." ? name : path == "/" ? "/" + name : path + "/" + name }

    /// What is at `name`, without following a symlink; nil when nothing is (or the directory
    /// cannot be opened again).
    func status(of name: String) -> stat? {
        try? withDescriptor { fd throws(FileError) -> stat? in
            var info = stat()
            return fstatat(fd, name, &info, AT_SYMLINK_NOFOLLOW) == 0 ? info : nil
        }
    }

    /// Opens the regular file `name` (creating it, mode 0600, with `create`), never following a
    /// symlink and never blocking on a FIFO; anything but a regular file is refused.
    func openRegular(_ name: String, flags: Int32, create: Bool = false, exclusive: Bool = false) throws(FileError) -> Int32 {
        var all = flags | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK | O_NOCTTY
        if create { all |= O_CREAT }
        if exclusive { all |= O_EXCL }
        let fd = try withDescriptor { directory throws(FileError) -> Int32 in
            let fd = openat(directory, name, all, 0o600)
            guard fd >= 0 else {
                let code = errno
                throw FileError(code == ELOOP ? "refusing to follow a symlink at" : "open", path: display(name), code: code)
            }
            return fd
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
        try withDescriptor { fd throws(FileError) in
            guard renameat(fd, from, fd, to) == 0 else { throw FileError("rename to \(display(to))", path: display(from)) }
        }
    }

    func remove(_ name: String) {
        _ = try? withDescriptor { fd throws(FileError) in unlinkat(fd, name, 0) }
    }

    /// Makes a rename or unlink in the directory durable.
    func sync() {
        _ = try? withDescriptor { fd throws(FileError) in fsync(fd) }
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
