import Crypto
import Dispatch
import Foundation
import NIOCore
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A failed system call on a local file.
struct FileError: Error, Sendable {
    var code: Int32
    var operation: String
    var path: String

    init(_ operation: String, path: String, code: Int32 = errno) {
        self.code = code
        self.operation = operation
        self.path = path
    }

    var message: String { "\(operation) \(path): \(String(cString: strerror(code)))" }

    var kind: TransferError.Kind {
        switch code {
        case ENOSPC, EDQUOT, EFBIG: .diskFull
        case EACCES, EPERM, EROFS, ENOTDIR, ENOENT, EISDIR: .notWritable
        default: .io
        }
    }

    func transferError(url: String) -> TransferError {
        TransferError(kind, url: url, path: path, detail: message)
    }
}

/// The paths one download uses.
struct TransferPaths: Sendable {
    let destination: String
    let part: String
    let metadata: String
    let directory: String

    init(destination: String) {
        self.destination = destination
        part = destination + ".part"
        metadata = destination + ".part.json"
        if let slash = destination.lastIndex(of: "/") {
            let parent = String(destination[..<slash])
            directory = parent.isEmpty ? "/" : parent
        } else {
            directory = "."
        }
    }
}

enum LocalFiles {
    /// Fails with `notWritable` unless a file can be created next to the destination (checked by
    /// creating and removing a probe file, which also catches read-only mounts as root).
    static func checkWritable(_ paths: TransferPaths, url: String) throws(TransferError) {
        var info = stat()
        guard stat(paths.directory, &info) == 0 else {
            throw TransferError(
                .notWritable, url: url, path: paths.destination,
                detail: "directory \(paths.directory): \(String(cString: strerror(errno)))"
            )
        }
        guard (info.st_mode & S_IFMT) == S_IFDIR else {
            throw TransferError(.notWritable, url: url, path: paths.destination, detail: "\(paths.directory) is not a directory")
        }
        if stat(paths.destination, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR {
            throw TransferError(.notWritable, url: url, path: paths.destination, detail: "the destination is a directory")
        }
        let probe = paths.directory + "/.reach-probe-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        let fd = open(probe, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else {
            throw TransferError(
                .notWritable, url: url, path: paths.destination,
                detail: "directory \(paths.directory): \(String(cString: strerror(errno)))"
            )
        }
        close(fd)
        unlink(probe)
    }

    /// The length of the file at `path`, nil when it does not exist.
    static func length(of path: String) -> Int64? {
        var info = stat()
        guard stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return nil }
        return Int64(info.st_size)
    }

    static func remove(_ path: String) {
        unlink(path)
    }

    /// fsyncs a directory so a rename or unlink in it is durable.
    static func syncDirectory(_ path: String) {
        let fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { return }
        fsync(fd)
        close(fd)
    }

    static func rename(_ from: String, to: String) throws(FileError) {
        guard Glibc.rename(from, to) == 0 else { throw FileError("rename to \(to)", path: from) }
    }
}

/// The sidecar metadata file, replaced atomically (write a temporary file, fsync, rename).
enum MetadataFile {
    static func read(_ path: String) -> PartialDownload? {
        guard let data = FileManager.default.contents(atPath: path) else { return nil }
        return try? JSONDecoder().decode(PartialDownload.self, from: data)
    }

    static func write(_ metadata: PartialDownload, to path: String, directory: String) throws(FileError) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        guard let data = try? encoder.encode(metadata) else { throw FileError("encode", path: path, code: EINVAL) }
        let temporary = path + ".tmp"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw FileError("open", path: temporary) }
        var failure: FileError?
        data.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let written = Glibc.write(fd, raw.baseAddress! + offset, raw.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    failure = FileError("write", path: temporary)
                    return
                }
                offset += written
            }
        }
        if failure == nil, fsync(fd) != 0 { failure = FileError("fsync", path: temporary) }
        close(fd)
        if let failure {
            unlink(temporary)
            throw failure
        }
        guard Glibc.rename(temporary, path) == 0 else {
            let error = FileError("rename", path: temporary)
            unlink(temporary)
            throw error
        }
        LocalFiles.syncDirectory(directory)
    }
}

/// A SHA-256 computed on a serial queue of its own, so hashing overlaps receiving and
/// writing. Work is applied in submission order; ``digestHex()`` waits for all of it.
final class PipelinedHasher: Sendable {
    private let queue = DispatchQueue(label: "reach.transfers.sha256")
    private let hasher: Mutex<SHA256>
    private let pending = Atomic<Int>(0)

    init(_ hasher: consuming sending SHA256) {
        self.hasher = Mutex(hasher)
    }

    /// Bytes submitted and not hashed yet.
    var pendingBytes: Int { pending.load(ordering: .relaxed) }

    func submit(_ buffer: ByteBuffer) {
        let count = buffer.readableBytes
        guard count > 0 else { return }
        pending.wrappingAdd(count, ordering: .relaxed)
        queue.async { [self] in
            hasher.withLock { state in
                buffer.withUnsafeReadableBytes { state.update(bufferPointer: $0) }
            }
            pending.wrappingSubtract(count, ordering: .relaxed)
        }
    }

    /// Starts over (after the work already submitted).
    func reset() {
        queue.async { [self] in hasher.withLock { $0 = SHA256() } }
    }

    /// Waits until everything submitted has been hashed.
    func drain() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            queue.async { continuation.resume() }
        }
    }

    /// The digest of everything submitted, lowercase hex.
    func digestHex() async -> String {
        await drain()
        return hasher.withLock { state in
            state.finalize().map { byte in
                let hex = String(byte, radix: 16)
                return byte < 16 ? "0" + hex : hex
            }.joined()
        }
    }
}

/// The partial file, written only at its end, with a running SHA-256 of everything in it.
///
/// Sendable so the attempt's child task can write it; one task uses it at a time.
final class PartFile: Sendable {
    /// Hashing may lag behind writing by this much before writers wait for it.
    static let maximumHashBacklog = 32 << 20

    let path: String
    let descriptor: Int32
    /// Bytes in the file (all submitted to the hasher).
    private let state: Mutex<Int64>
    private let hasher: PipelinedHasher

    /// Opens (creating if needed) the partial file and hashes what it already holds. Takes an
    /// exclusive `flock` so two processes never write the same partial file.
    init(path: String, truncate: Bool) throws(FileError) {
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw FileError("open", path: path) }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            let error = FileError("lock (another process is downloading into it)", path: path)
            close(fd)
            throw error
        }
        // Truncated only once locked: never under another writer's feet.
        if truncate, ftruncate(fd, 0) != 0 {
            let error = FileError("truncate", path: path)
            close(fd)
            throw error
        }
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            let error = FileError("stat", path: path)
            close(fd)
            throw error
        }
        self.path = path
        descriptor = fd
        let length = Int64(info.st_size)
        var prefix = SHA256()
        if length > 0 {
            do throws(FileError) {
                try Self.hashPrefix(fd: fd, path: path, length: length, into: &prefix)
            } catch {
                close(fd)
                throw error
            }
        }
        state = Mutex(length)
        hasher = PipelinedHasher(prefix)
    }

    deinit {
        close(descriptor)
    }

    private static func hashPrefix(fd: Int32, path: String, length: Int64, into hasher: inout SHA256) throws(FileError) {
        let chunk = 4 << 20
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: chunk, alignment: 16)
        defer { buffer.deallocate() }
        var offset: Int64 = 0
        while offset < length {
            let count = pread(fd, buffer.baseAddress, min(chunk, Int(length - offset)), off_t(offset))
            if count < 0 {
                if errno == EINTR { continue }
                throw FileError("read", path: path)
            }
            if count == 0 { throw FileError("read (file shrank)", path: path, code: EIO) }
            hasher.update(bufferPointer: UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
            offset += Int64(count)
        }
    }

    var length: Int64 { state.withLock { $0 } }

    /// Whether the hasher is far enough behind that the writer should ``drainHashing()``.
    var hashingIsBehind: Bool { hasher.pendingBytes > Self.maximumHashBacklog }

    /// Waits for the hasher to catch up.
    func drainHashing() async { await hasher.drain() }

    /// Appends `buffer` at the end of the file (`pwrite` at the current length). On a failure
    /// the bytes that did reach the file are counted and hashed, so length and hash stay true.
    func append(_ buffer: ByteBuffer) throws(FileError) {
        try state.withLock { (length: inout Int64) throws(FileError) in
            var done = 0
            defer {
                if done > 0 {
                    hasher.submit(buffer.getSlice(at: buffer.readerIndex, length: done) ?? buffer)
                    length += Int64(done)
                }
            }
            try buffer.withUnsafeReadableBytes { (raw: UnsafeRawBufferPointer) throws(FileError) in
                while done < raw.count {
                    let written = pwrite(descriptor, raw.baseAddress! + done, raw.count - done, off_t(length + Int64(done)))
                    if written < 0 {
                        if errno == EINTR { continue }
                        throw FileError("write", path: path)
                    }
                    done += written
                }
            }
        }
    }

    /// Empties the file and the hash (a restart from byte 0).
    func truncate() throws(FileError) {
        try state.withLock { (length: inout Int64) throws(FileError) in
            guard ftruncate(descriptor, 0) == 0 else { throw FileError("truncate", path: path) }
            length = 0
            hasher.reset()
        }
    }

    /// Starts writing back `length` bytes from `offset` without waiting, so the final
    /// ``sync()`` has little left to do.
    func startWriteback(offset: Int64, length: Int64) {
        _ = Self.syncFileRange?(descriptor, offset, length, 2 /* SYNC_FILE_RANGE_WRITE */)
    }

    /// glibc's `sync_file_range` (hidden from Swift without `_GNU_SOURCE`); nil if absent.
    private static let syncFileRange: (@convention(c) (Int32, Int64, Int64, UInt32) -> Int32)? = {
        guard let symbol = dlsym(nil, "sync_file_range") else { return nil }
        return unsafeBitCast(symbol, to: (@convention(c) (Int32, Int64, Int64, UInt32) -> Int32).self)
    }()

    /// Makes the written bytes durable.
    func sync() throws(FileError) {
        guard fdatasync(descriptor) == 0 else { throw FileError("fsync", path: path) }
    }

    /// The SHA-256 of the whole file, lowercase hex (waits for the hasher).
    func digestHex() async -> String {
        await hasher.digestHex()
    }
}
