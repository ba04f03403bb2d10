import ReachabilityCore
import FoundationEssentials

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The sidecar metadata file (`NAME.part.json`, mode 0600), replaced atomically: a temporary
/// file created exclusively (never through a planted symlink), fsync'd, renamed over it.
enum MetadataFile {
    /// The largest sidecar read: a few hundred bytes are expected.
    static let maximumSize = 64 << 10

    static func read(_ name: String, in directory: DirectoryHandle) -> PartialDownload? {
        guard let fd = try? directory.openRegular(name, flags: O_RDONLY) else { return nil }
        defer { close(fd) }
        var bytes = [UInt8](repeating: 0, count: maximumSize + 1)
        var count = 0
        while count < bytes.count {
            let got = bytes.withUnsafeMutableBytes { pread(fd, $0.baseAddress! + count, $0.count - count, off_t(count)) }
            if got < 0, errno == EINTR { continue }
            guard got > 0 else { break }
            count += got
        }
        guard count <= maximumSize else { return nil }
        return try? JSONDecoder().decode(PartialDownload.self, from: Data(bytes[0..<count]))
    }

    static func write(_ metadata: PartialDownload, name: String, in directory: DirectoryHandle) throws(FileError) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        guard let data = try? encoder.encode(metadata) else { throw FileError("encode", path: directory.display(name), code: EINVAL) }
        let temporary = name + ".\(UInt32.random(in: 0...UInt32.max)).tmp"
        let fd = try directory.openRegular(temporary, flags: O_WRONLY, create: true, exclusive: true)
        var failure: FileError?
        data.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let written = Glibc.write(fd, raw.baseAddress! + offset, raw.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    failure = FileError("write", path: directory.display(temporary))
                    return
                }
                offset += written
            }
        }
        if failure == nil, fsync(fd) != 0 { failure = FileError("fsync", path: directory.display(temporary)) }
        close(fd)
        if let failure {
            directory.remove(temporary)
            throw failure
        }
        do throws(FileError) {
            try directory.rename(temporary, to: name)
        } catch {
            directory.remove(temporary)
            throw error
        }
        directory.sync()
    }
}
