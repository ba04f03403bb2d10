import ReachabilityCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The files one download uses, named inside the destination's directory: `NAME.part` and the
/// sidecar `NAME.part.json`. A name too long for the suffixes (`NAME_MAX` is 255 bytes) gets
/// short hidden names derived from its hash instead, so every name that can be a destination
/// can be downloaded.
struct TransferPaths: Sendable {
    /// The destination as given.
    let destination: String
    /// Its directory as given (`.` for a bare name).
    let directoryPath: String
    let name: String
    let partName: String
    let metadataName: String

    init(destination: String) {
        self.destination = destination
        if let slash = destination.lastIndex(of: "/") {
            let parent = String(destination[..<slash])
            directoryPath = parent.isEmpty ? "/" : parent
            name = String(destination[destination.index(after: slash)...])
        } else {
            directoryPath = "."
            name = destination
        }
        // ".part.json" plus a temporary suffix of up to 24 bytes.
        if name.utf8.count + 34 <= 255 {
            partName = name + ".part"
        } else {
            let digest = SHA256Hasher.hash(Array(name.utf8)).prefix(12).map { String($0, radix: 16) }.joined()
            partName = ".reach-" + digest + ".part"
        }
        metadataName = partName + ".json"
    }

    var part: String { directoryPath == "." ? partName : directoryPath + "/" + partName }
    var metadata: String { directoryPath == "." ? metadataName : directoryPath + "/" + metadataName }
}

/// What a download may write to: checked before any request.
enum DestinationCheck {
    /// Fails unless `name` is absent or a regular file, and the directory takes new files
    /// (checked by creating and removing a probe file, which also catches read-only mounts as
    /// root). A device, FIFO, socket, symlink or directory at the destination is refused: the
    /// final rename would replace it.
    static func check(_ paths: TransferPaths, in directory: DirectoryHandle, url: String) throws(TransferError) {
        if let info = directory.status(of: paths.name), (info.st_mode & S_IFMT) != S_IFREG {
            throw TransferError(
                .notWritable, url: url, path: paths.destination,
                detail: "the destination is \(FileKind.describe(info.st_mode)); refusing to replace it (use -o - for standard output)"
            )
        }
        // A planted symlink or FIFO as the partial file or its sidecar is refused now, before
        // any request, rather than when the body arrives.
        for name in [paths.partName, paths.metadataName] {
            if let info = directory.status(of: name), (info.st_mode & S_IFMT) != S_IFREG {
                throw TransferError(
                    .notWritable, url: url, path: directory.display(name),
                    detail: "\(directory.display(name)) is \(FileKind.describe(info.st_mode)); refusing to use it"
                )
            }
        }
        let probe = ".reach-probe-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        do throws(FileError) {
            let fd = try directory.openRegular(probe, flags: O_WRONLY, create: true, exclusive: true)
            close(fd)
            directory.remove(probe)
        } catch {
            throw TransferError(.notWritable, url: url, path: paths.destination, detail: "directory \(directory.path): \(String(cString: strerror(error.code)))")
        }
    }

    /// The mode and owner the finished file gets: the existing destination's, else `0666 &
    /// ~umask` and the process's own.
    static func modeForFinishedFile(_ paths: TransferPaths, in directory: DirectoryHandle) throws(FileError) -> (mode_t, (uid_t, gid_t)?) {
        guard let info = directory.status(of: paths.name) else { return (0o666 & ~processUmask, nil) }
        guard (info.st_mode & S_IFMT) == S_IFREG else {
            throw FileError("refusing to replace \(FileKind.describe(info.st_mode)) at", path: paths.destination, code: EINVAL)
        }
        // Set-id bits are not carried over to new content.
        return (info.st_mode & 0o1777, (info.st_uid, info.st_gid))
    }

    /// The umask now, from `/proc/self/status` (Linux 4.7+): setting it to read it would race
    /// other threads creating files. 022 when unreadable. Read per download (a daemon's umask
    /// can change), one small read.
    static var processUmask: mode_t {
        guard let file = fopen("/proc/self/status", "re") else { return 0o022 }
        defer { fclose(file) }
        var line = [CChar](repeating: 0, count: 256)
        while fgets(&line, Int32(line.count), file) != nil {
            let text = String(decoding: line.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            guard text.hasPrefix("Umask:") else { continue }
            let digits = text.dropFirst("Umask:".count).filter { ("0"..."7").contains($0) }
            return mode_t(digits, radix: 8).map { $0 & 0o777 } ?? 0o022
        }
        return 0o022
    }
}
