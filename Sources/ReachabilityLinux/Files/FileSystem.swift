import Glibc
import ReachabilityCore
import SystemPackage

/// The package's one home for reading files (sysfs, leases, configuration), without Foundation
/// (which would pull ICU into the CLI). Every read is bounded and only of regular files: a
/// sysfs tree or a `--config` can point anywhere, and `/dev/zero` or a FIFO must give an error,
/// not an endless read or a hang.
package enum FileSystem {
    /// The largest sysfs attribute or `uevent` read (the kernel's are under a page).
    package static let attributeLimit = 64 << 10

    /// The bytes of the regular file at `path`, refused when it is anything else or larger than
    /// `limit`. Opened non-blocking, so a FIFO cannot hang the open; symlinks are followed
    /// (sysfs is made of them), but what they lead to must be a regular file.
    package static func readRegularFile(_ path: String, limit: Int) throws(FileReadError) -> [UInt8] {
        let descriptor: FileDescriptor
        do {
            descriptor = try FileDescriptor.open(FilePath(path), .readOnly, options: [.nonBlocking, .closeOnExec])
        } catch {
            throw FileReadError(path: path, reason: "\(error)")
        }
        defer { try? descriptor.close() }
        do {
            guard try descriptor.stat().type == .regular else { throw FileReadError(path: path, reason: "not a regular file") }
            var bytes: [UInt8] = []
            var chunk = [UInt8](repeating: 0, count: min(limit + 1, 16 << 10))
            while true {
                let count = try chunk.withUnsafeMutableBytes { try descriptor.read(into: $0) }
                if count == 0 { return bytes }
                bytes.append(contentsOf: chunk[..<count])
                guard bytes.count <= limit else { throw FileReadError(path: path, reason: "larger than \(limit) bytes") }
            }
        } catch let error as FileReadError {
            throw error
        } catch {
            throw FileReadError(path: path, reason: "\(error)")
        }
    }

    /// The text of a small regular file, or nil if it cannot be read (sysfs: a missing
    /// attribute is an answer, not an error).
    static func read(_ path: String) -> String? {
        (try? readRegularFile(path, limit: attributeLimit)).map { String(decoding: $0, as: UTF8.self) }
    }

    /// The bytes of a regular file up to `limit`, or nil if it cannot be read or is larger.
    static func readBytes(_ path: String, limit: Int = 1 << 20) -> [UInt8]? {
        try? readRegularFile(path, limit: limit)
    }

    /// Modification time in nanoseconds, or nil when the path is not a regular file.
    static func modificationTime(_ path: String) -> Int? {
        var info = stat()
        guard stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return nil }
        return Int(info.st_mtim.tv_sec) * 1_000_000_000 + Int(info.st_mtim.tv_nsec)
    }

    /// The first line of a small file, trimmed of blanks.
    static func readValue(_ path: String) -> String? {
        guard let text = read(path) else { return nil }
        let line = text.split(separator: "\n", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        let trimmed = line.trimmingBlanks()
        return trimmed.isEmpty ? nil : String(trimmed)
    }

    package static func exists(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0
    }

    package static func isDirectory(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR
    }

    /// The target of a symbolic link, as written.
    package static func linkTarget(_ path: String) -> String? {
        var buffer = [CChar](repeating: 0, count: 4096)
        let count = readlink(path, &buffer, buffer.count - 1)
        guard count > 0 else { return nil }
        return String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The canonical absolute path, symlinks resolved.
    static func resolve(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// Names in a directory, without `.` and `..`, sorted.
    static func list(_ path: String) -> [String]? {
        guard let dir = opendir(path) else { return nil }
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafePointer(to: entry.pointee.d_name) {
                $0.withMemoryRebound(to: CChar.self, capacity: 256) { String(cString: $0) }
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names.sorted()
    }

    package static func basename(_ path: String) -> String {
        String(path.split(separator: "/").last ?? Substring(path))
    }

    package static func parent(_ path: String) -> String {
        guard let slash = path.lastIndex(of: "/"), slash != path.startIndex else { return "/" }
        return String(path[..<slash])
    }

    /// A root directory option without its trailing slash (`/sys/` → `/sys`; `/` stays).
    static func normalizedRoot(_ root: String) -> String {
        root.count > 1 && root.hasSuffix("/") ? String(root.dropLast()) : root
    }
}

/// A file that could not be read: what and why, in one line.
package struct FileReadError: Error, Sendable, Hashable, CustomStringConvertible {
    package var path: String
    package var reason: String
    package var description: String { "\(path): \(reason)" }
}
