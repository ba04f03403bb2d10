import ReachabilityCore
import CGNULibc
import Dispatch
import FoundationEssentials
import NIOCore
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A SHA-256 computed on a serial queue of its own, so hashing overlaps receiving and
/// writing. Work is applied in submission order; ``digestHex()`` waits for all of it. Buffers
/// are handed to the queue in batches of about 1 MiB: one wake-up of the queue per 64 KiB
/// chunk cost more CPU than the hashing itself saved.
final class PipelinedHasher: Sendable {
    private static let batchBytes = 1 << 20

    private let queue = DispatchQueue(label: "reach.transfers.sha256")
    private let hasher: Mutex<SHA256Hasher>
    private let pending = Atomic<Int>(0)
    /// Buffers submitted and not yet handed to the queue.
    private let batch = Mutex<(buffers: [ByteBuffer], bytes: Int)>(([], 0))

    init(_ hasher: consuming sending SHA256Hasher) {
        self.hasher = Mutex(hasher)
    }

    /// Bytes submitted and not hashed yet.
    var pendingBytes: Int { pending.load(ordering: .relaxed) }

    func submit(_ buffer: ByteBuffer) {
        let count = buffer.readableBytes
        guard count > 0 else { return }
        pending.wrappingAdd(count, ordering: .relaxed)
        let full = batch.withLock { batch -> [ByteBuffer]? in
            batch.buffers.append(buffer)
            batch.bytes += count
            guard batch.bytes >= Self.batchBytes else { return nil }
            defer { batch = ([], 0) }
            return batch.buffers
        }
        if let full { hand(full) }
    }

    /// Hands what is batched to the queue.
    private func flush() {
        let buffers = batch.withLock { batch -> [ByteBuffer] in
            defer { batch = ([], 0) }
            return batch.buffers
        }
        if !buffers.isEmpty { hand(buffers) }
    }

    private func hand(_ buffers: [ByteBuffer]) {
        queue.async { [self] in
            var hashed = 0
            hasher.withLock { state in
                for buffer in buffers {
                    buffer.withUnsafeReadableBytes { state.update(bufferPointer: $0) }
                    hashed += buffer.readableBytes
                }
            }
            pending.wrappingSubtract(hashed, ordering: .relaxed)
        }
    }

    /// Starts over (after the work already submitted).
    func reset() {
        flush()
        queue.async { [self] in hasher.withLock { $0 = SHA256Hasher() } }
    }

    /// Waits until everything submitted has been hashed.
    func drain() async {
        flush()
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            queue.async { continuation.resume() }
        }
    }

    /// The digest of everything submitted, lowercase hex.
    func digestHex() async -> String {
        await drain()
        return hasher.withLock { state in
            ASCIIHex.lowercase(state.finalize())
        }
    }
}

/// The partial file, with a running SHA-256 of its first ``length`` bytes when the download
/// computes one.
///
/// Written from its start, it grows only at its end (``append(_:)``) and every byte is hashed as
/// it is written. Fetched in segments, it is written anywhere (``write(_:at:)``, by several tasks
/// at once) and may have holes; ``length`` is then the complete prefix accounted so far, which
/// ``hashThrough(_:)`` extends (reading the bytes back only to hash them).
///
/// Without a hasher nothing is ever read back. The hash is paid for only when asked for: about
/// 0.6 CPU s per GiB even with SHA-NI, half of what curl spends on the whole download.
final class PartFile: Sendable {
    /// Hashing may lag behind writing by this much before writers wait for it.
    static let maximumHashBacklog = 32 << 20

    let path: String
    let descriptor: Int32
    /// Complete bytes from the file's start, all submitted to the hasher when there is one.
    private let state: Mutex<Int64>
    /// Nil when the download computes no SHA-256.
    private let hasher: PipelinedHasher?

    /// Opens (creating if needed, mode 0600, never through a symlink) the partial file `name`
    /// in `directory`. With `hashing`, the SHA-256 of what it already holds is computed (when
    /// `prefixComplete`; a segmented partial file, which may have holes, starts with an empty
    /// prefix). Takes an exclusive `flock` so two processes never write the same partial file.
    init(directory: DirectoryHandle, name: String, truncate: Bool, hashing: Bool, prefixComplete: Bool = true) throws(FileError) {
        let path = directory.display(name)
        let fd = try directory.openRegular(name, flags: O_RDWR, create: true)
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
        let length = prefixComplete ? Int64(info.st_size) : 0
        var prefix = SHA256Hasher()
        if hashing, length > 0 {
            do throws(FileError) {
                try Self.hashPrefix(fd: fd, path: path, length: length, into: &prefix)
            } catch {
                close(fd)
                throw error
            }
        }
        state = Mutex(length)
        hasher = hashing ? PipelinedHasher(prefix) : nil
    }

    deinit {
        close(descriptor)
    }

    private static func hashPrefix(fd: Int32, path: String, length: Int64, into hasher: inout SHA256Hasher) throws(FileError) {
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

    /// Whether the download computes a SHA-256 of this file.
    var hashes: Bool { hasher != nil }

    /// Whether the hasher is far enough behind that the writer should ``drainHashing()``.
    var hashingIsBehind: Bool { (hasher?.pendingBytes ?? 0) > Self.maximumHashBacklog }

    /// Bytes submitted to the hasher and not hashed yet.
    var hashBacklog: Int { hasher?.pendingBytes ?? 0 }

    /// Waits for the hasher to catch up.
    func drainHashing() async { await hasher?.drain() }

    /// Appends `buffer` at the end of the file (`pwrite` at the current length). On a failure
    /// the bytes that did reach the file are counted and hashed, so length and hash stay true.
    func append(_ buffer: ByteBuffer) throws(FileError) {
        try state.withLock { (length: inout Int64) throws(FileError) in
            var done = 0
            defer {
                if done > 0 {
                    hasher?.submit(buffer.getSlice(at: buffer.readerIndex, length: done) ?? buffer)
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

    /// Writes `bytes` at `offset` (a segment's bytes; the hash is not touched). Returns how many
    /// reached the file, with the error that stopped it short.
    func write(_ bytes: UnsafeRawBufferPointer, at offset: Int64) -> (written: Int, error: FileError?) {
        var done = 0
        while done < bytes.count {
            let written = pwrite(descriptor, bytes.baseAddress! + done, bytes.count - done, off_t(offset + Int64(done)))
            if written < 0 {
                if errno == EINTR { continue }
                return (done, FileError("write", path: path))
            }
            done += written
        }
        return (done, nil)
    }

    /// Extends the complete prefix to `end`, the caller knowing bytes up to `end` are complete.
    /// With a hasher, it reads them back to hash them, at most `step` bytes now; without, the
    /// prefix moves to `end` at once. Returns the new ``length``.
    @discardableResult
    func hashThrough(_ end: Int64, step: Int = 4 << 20) throws(FileError) -> Int64 {
        let start = length
        guard end > start else { return start }
        guard let hasher else {
            return state.withLock { (length: inout Int64) -> Int64 in
                length = max(length, end)
                return length
            }
        }
        let count = Int(min(Int64(step), end - start))
        var buffer = ByteBufferAllocator().buffer(capacity: count)
        var failure: FileError?
        buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: count) { raw in
            var filled = 0
            while filled < count {
                let got = pread(descriptor, raw.baseAddress! + filled, count - filled, off_t(start + Int64(filled)))
                if got < 0, errno == EINTR { continue }
                guard got > 0 else {
                    failure = FileError(got == 0 ? "read (file shrank)" : "read", path: path, code: got == 0 ? EIO : errno)
                    return filled
                }
                filled += got
            }
            return filled
        }
        if let failure { throw failure }
        return state.withLock { (length: inout Int64) -> Int64 in
            // Only this task extends a segmented file's hash; a truncate in between would not happen.
            guard length == start else { return length }
            hasher.submit(buffer)
            length = start + Int64(count)
            return length
        }
    }

    /// The file's size on disk (holes included).
    var fileLength: Int64 {
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { return 0 }
        return Int64(info.st_size)
    }

    /// Empties the file and the hash (a restart from byte 0).
    func truncate() throws(FileError) {
        try state.withLock { (length: inout Int64) throws(FileError) in
            guard ftruncate(descriptor, 0) == 0 else { throw FileError("truncate", path: path) }
            length = 0
            hasher?.reset()
        }
    }

    /// Starts writing back `length` bytes from `offset` without waiting, so the final
    /// ``sync()`` has little left to do.
    func startWriteback(offset: Int64, length: Int64) {
        _ = reach_sync_file_range_write(descriptor, offset, length)
    }

    /// Gives the file a mode (and, as root, an owner) before it replaces the destination: the
    /// existing file's, so replacing it keeps them, or the usual `0666 & ~umask` for a new one.
    func adopt(mode: mode_t, owner: (uid_t, gid_t)?) throws(FileError) {
        if let owner, geteuid() == 0, fchown(descriptor, owner.0, owner.1) != 0 { throw FileError("chown", path: path) }
        guard fchmod(descriptor, mode) == 0 else { throw FileError("chmod", path: path) }
    }

    /// Makes the written bytes durable.
    func sync() throws(FileError) {
        guard fdatasync(descriptor) == 0 else { throw FileError("fsync", path: path) }
    }

    /// The SHA-256 of the whole file, lowercase hex (waits for the hasher); nil when the
    /// download computes none.
    func digestHex() async -> String? {
        await hasher?.digestHex()
    }
}
