import ReachabilityCore
import FoundationEssentials

#if canImport(Glibc)
import Glibc
#endif

/// What is kept between processes about one tus upload: where the server keeps it, and
/// which version of which file it is of. Never any credentials.
struct ResumeRecord: Codable, Sendable, Hashable {
    static let currentVersion = 1

    var version: Int
    /// The file's absolute path.
    var file: String
    /// The creation URL, without userinfo.
    var url: String
    /// The upload URL the server gave (`Location`), without userinfo.
    var location: String
    /// The file as it was when the upload was created.
    var source: SourceIdentity
    /// The last offset the server confirmed: an estimate for the transfer policy; the
    /// server's `HEAD` is the truth.
    var offset: Int64

    init(file: String, url: String, location: String, source: SourceIdentity, offset: Int64) {
        version = Self.currentVersion
        self.file = file
        self.url = url
        self.location = location
        self.source = source
        self.offset = offset
    }
}

/// Whether a resume record may be continued.
enum ResumeDecision: Sendable, Hashable {
    /// No record: create an upload.
    case fresh
    /// Continue the upload at `location` (after asking the server for its offset).
    case resume(location: String)
    /// The record cannot be used: remove it and create an upload.
    case discard(reason: String)

    static func decide(record: ResumeRecord?, file: String, url: String, source: SourceIdentity) -> ResumeDecision {
        guard let record else { return .fresh }
        guard record.version == ResumeRecord.currentVersion else { return .discard(reason: "unknown record version \(record.version)") }
        guard record.file == file, record.url == url else { return .discard(reason: "the record is for another file or URL") }
        guard record.source == source else { return .discard(reason: "the file changed since the upload was created") }
        guard UploadTarget(record.location) != nil else { return .discard(reason: "the record's upload URL is not an http(s) URL") }
        return .resume(location: record.location)
    }
}

/// Resume records in one directory, one JSON file each, named by a hash of (file, URL).
///
/// A record is written to a fresh temporary file (`O_CREAT|O_EXCL|O_NOFOLLOW`, mode 0600),
/// fsync'd and renamed over the old one, so a crash leaves the old record or the new one,
/// and a symlink planted in the directory is never followed.
struct ResumeStore: Sendable {
    let directory: String

    /// The record's name for `file` (absolute) and `url` (without userinfo).
    static func key(file: String, url: String) -> String {
        ASCIIHex.lowercase(SHA256Hasher.hash(Array((file + "\u{0}" + url).utf8)).prefix(16))
    }

    func path(_ key: String) -> String { directory + "/" + key + ".json" }

    /// Creates the directory (mode 0700) if needed and checks that records can be written in
    /// it: before any traffic, so a bad directory never strands a created upload.
    func prepare() throws(SourceError) {
        if mkdir(directory, 0o700) != 0, errno != EEXIST {
            throw SourceError(detail: "cannot create the state directory \(directory): \(String(cString: strerror(errno)))")
        }
        var info = stat()
        guard lstat(directory, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR else {
            throw SourceError(detail: "the state directory \(directory) is not a directory")
        }
        guard access(directory, W_OK | X_OK) == 0 else {
            throw SourceError(detail: "the state directory \(directory) is not writable")
        }
    }

    /// The record under `key`, nil when there is none or it is unreadable (a regular file of
    /// at most 64 KiB holding valid JSON).
    func read(_ key: String) -> ResumeRecord? {
        let fd = open(path(key), O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG, info.st_size <= 64 << 10 else { return nil }
        var bytes = [UInt8](repeating: 0, count: Int(info.st_size))
        var done = 0
        while done < bytes.count {
            let got = bytes.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress! + done, $0.count - done) }
            if got < 0, errno == EINTR { continue }
            guard got > 0 else { return nil }
            done += got
        }
        return try? JSONDecoder().decode(ResumeRecord.self, from: Data(bytes))
    }

    func write(_ record: ResumeRecord, key: String) throws(SourceError) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        guard let data = try? encoder.encode(record) else { throw SourceError(detail: "cannot encode the resume record") }
        let temporary = directory + "/." + key + ".\(getpid()).\(UInt32.random(in: 0...UInt32.max)).tmp"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw SourceError(detail: "cannot create \(temporary): \(String(cString: strerror(errno)))") }
        var failure: String?
        data.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let written = Glibc.write(fd, raw.baseAddress! + offset, raw.count - offset)
                if written < 0, errno == EINTR { continue }
                guard written > 0 else {
                    failure = "cannot write \(temporary): \(String(cString: strerror(errno)))"
                    return
                }
                offset += written
            }
        }
        if failure == nil, fsync(fd) != 0 { failure = "cannot sync \(temporary): \(String(cString: strerror(errno)))" }
        close(fd)
        if failure == nil, rename(temporary, path(key)) != 0 { failure = "cannot rename \(temporary): \(String(cString: strerror(errno)))" }
        if let failure {
            unlink(temporary)
            throw SourceError(detail: failure)
        }
        syncDirectory()
    }

    func remove(_ key: String) {
        if unlink(path(key)) == 0 { syncDirectory() }
    }

    /// Holds an exclusive lock on `key` for as long as the returned descriptor is open, so two
    /// processes never send the same file to the same URL at once; nil when another holds it.
    func lock(_ key: String) throws(SourceError) -> Int32? {
        let lockPath = directory + "/" + key + ".lock"
        let fd = open(lockPath, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw SourceError(detail: "cannot open \(lockPath): \(String(cString: strerror(errno)))") }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            close(fd)
            return nil
        }
        return fd
    }

    /// Removes the lock file and releases the lock (the descriptor from ``lock(_:)``).
    func unlock(_ key: String, descriptor: Int32) {
        unlink(directory + "/" + key + ".lock")
        close(descriptor)
    }

    private func syncDirectory() {
        let fd = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { return }
        fsync(fd)
        close(fd)
    }
}
