import ReachabilityCore
import NIOCore

#if canImport(Glibc)
import Glibc
#endif

/// What identifies one version of a file: if any of it changes, a tus upload of the old
/// version must not be continued with the new one's bytes.
struct SourceIdentity: Sendable, Hashable, Codable {
    var size: Int64
    /// `st_mtim` in nanoseconds since the epoch.
    var modified: Int64
    var inode: UInt64
    var device: UInt64

    init(size: Int64, modified: Int64, inode: UInt64, device: UInt64) {
        self.size = size
        self.modified = modified
        self.inode = inode
        self.device = device
    }

    init(_ info: stat) {
        size = Int64(info.st_size)
        modified = Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec)
        inode = UInt64(info.st_ino)
        device = UInt64(info.st_dev)
    }
}

/// Why a source file cannot be read.
struct SourceError: Error, Sendable {
    var detail: String

    func transferError(url: String, path: String) -> TransferError {
        TransferError(.io, url: url, path: path, detail: detail)
    }
}

/// The file being uploaded, open for reading. Only a regular file is accepted: a FIFO or a
/// device would block, or never end, and could not be sent twice; the check is made on the
/// open descriptor, so the file cannot be swapped between the check and the reads.
final class UploadSource: Sendable {
    let path: String
    let descriptor: Int32
    /// The identity when opened.
    let identity: SourceIdentity

    /// Opens `path` without blocking (`O_NONBLOCK`: a FIFO without a writer, a tty) and
    /// checks what it is.
    init(path: String) throws(SourceError) {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK)
        guard fd >= 0 else { throw SourceError(detail: "cannot open \(path): \(String(cString: strerror(errno)))") }
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            let error = SourceError(detail: "cannot stat \(path): \(String(cString: strerror(errno)))")
            close(fd)
            throw error
        }
        guard (info.st_mode & S_IFMT) == S_IFREG else {
            close(fd)
            throw SourceError(detail: "\(path) is \(Self.kind(info.st_mode)), not a regular file")
        }
        self.path = path
        descriptor = fd
        identity = SourceIdentity(info)
    }

    deinit {
        close(descriptor)
    }

    /// The identity now (size, mtime, inode), nil if it cannot be read.
    func currentIdentity() -> SourceIdentity? {
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { return nil }
        return SourceIdentity(info)
    }

    /// Reads `count` bytes at `offset` into a new buffer; fails if the file ends first (it
    /// shrank while being sent).
    func read(at offset: Int64, count: Int, allocator: ByteBufferAllocator) throws(SourceError) -> ByteBuffer {
        var buffer = allocator.buffer(capacity: count)
        var done = 0
        while done < count {
            var failure: Int32 = 0
            let got = buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: count - done) { raw -> Int in
                let result = pread(descriptor, raw.baseAddress, count - done, off_t(offset + Int64(done)))
                if result < 0 { failure = errno }
                return max(result, 0)
            }
            if failure == EINTR || failure == EAGAIN { continue }
            if failure != 0 { throw SourceError(detail: "cannot read \(path): \(String(cString: strerror(failure)))") }
            if got == 0 { throw SourceError(detail: "\(path) shrank while it was being sent") }
            done += got
        }
        return buffer
    }

    /// Absolute form of `path` (symlinks resolved when possible): the resume record's key must
    /// not depend on the working directory.
    static func absolutePath(_ path: String) -> String {
        if let resolved = realpath(path, nil) {
            defer { free(resolved) }
            return String(cString: resolved)
        }
        if path.hasPrefix("/") { return path }
        guard let cwd = getcwd(nil, 0) else { return path }
        defer { free(cwd) }
        return String(cString: cwd) + "/" + path
    }

    private static func kind(_ mode: mode_t) -> String {
        switch mode & S_IFMT {
        case S_IFDIR: "a directory"
        case S_IFIFO: "a FIFO"
        case S_IFCHR: "a character device"
        case S_IFBLK: "a block device"
        case S_IFSOCK: "a socket"
        default: "a special file"
        }
    }
}
