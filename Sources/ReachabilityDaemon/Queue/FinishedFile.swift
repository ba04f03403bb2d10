import FoundationEssentials
import Glibc
import ReachabilityCore
import ReachabilityTransfers

/// A regular file as found on disk (never through a symlink): its size, time and SHA-256.
struct FinishedFile {
    let path: String
    let size: Int64
    let modified: Date

    /// The file at `path`, when it is a regular file (not a symlink).
    init?(path: String) {
        var info = stat()
        guard lstat(path, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return nil }
        self.path = path
        size = Int64(info.st_size)
        modified = Date(timeIntervalSince1970: Double(info.st_mtim.tv_sec) + Double(info.st_mtim.tv_nsec) / 1e9)
    }

    /// The SHA-256 of its contents, read in 1 MiB blocks; nil when it cannot be read.
    func sha256() -> String? {
        let fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var hasher = SHA256Hasher()
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count >= 0 else { return nil }
            if count == 0 { break }
            buffer.withUnsafeBytes { hasher.update(bufferPointer: UnsafeRawBufferPointer(rebasing: $0[..<count])) }
        }
        return ASCIIHex.lowercase(hasher.finalize())
    }
}
