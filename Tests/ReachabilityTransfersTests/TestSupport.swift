import Foundation
import ReachabilityTransfers
import Testing

#if canImport(Glibc)
import Glibc
#endif

struct TestFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// Finds a built product next to the test bundle: walks up from `/proc/self/exe`'s directory.
func builtProduct(_ name: String) throws -> String {
    let exe = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
    var directory = URL(fileURLWithPath: exe).deletingLastPathComponent()
    for _ in 0..<6 {
        let candidate = directory.appendingPathComponent(name).path
        if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        directory = directory.deletingLastPathComponent()
    }
    throw TestFailure("\(name) not found near \(exe); build it with `swift build --build-tests`")
}

/// Runs a command to completion; returns its standard output.
@discardableResult
func run(_ executable: String, _ arguments: [String], allowFailure: Bool = false) throws -> (status: Int32, output: String) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    let pipe = Pipe()
    process.standardOutput = pipe
    process.standardError = pipe
    try process.run()
    let data = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    let output = String(decoding: data, as: UTF8.self)
    if !allowFailure, process.terminationStatus != 0 {
        throw TestFailure("\(executable) \(arguments.joined(separator: " ")) failed (\(process.terminationStatus)): \(output)")
    }
    return (process.terminationStatus, output)
}

/// The SHA-256 of a file by `sha256sum`, an oracle independent of the code under test.
func sha256sum(_ path: String) throws -> String {
    let output = try run("/usr/bin/sha256sum", [path]).output
    return String(output.prefix(64))
}

/// Deterministic pseudo-random bytes (xorshift), different for every seed.
func pattern(size: Int, seed: UInt64) -> [UInt8] {
    var state = seed &* 0x9E37_79B9_7F4A_7C15 | 1
    var bytes = [UInt8](repeating: 0, count: size)
    var index = 0
    while index < size {
        state ^= state << 13
        state ^= state >> 7
        state ^= state << 17
        var word = state
        for _ in 0..<8 where index < size {
            bytes[index] = UInt8(truncatingIfNeeded: word)
            word >>= 8
            index += 1
        }
    }
    return bytes
}

/// One line of the server's `--log`.
struct LoggedRequest: Sendable {
    var method: String
    var path: String
    var query: String
    var range: String?
    var ifRange: String?
    var status: Int
    var bytes: Int64
    var start: Int64?
    var outcome: String
    /// `Authorization`, `User-Agent` and `X-…` headers as `name: value`.
    var headers: [String] = []
    /// When the server read the request and ended the response (microseconds, monotonic).
    var began: Int64 = 0
    var ended: Int64 = 0

    /// The bytes asked for by `Range: bytes=FIRST-LAST` (end exclusive); nil without one.
    var requestedRange: Range<Int64>? {
        guard let range, range.hasPrefix("bytes="), !range.contains(",") else { return nil }
        let bounds = range.dropFirst("bytes=".count).split(separator: "-", omittingEmptySubsequences: false)
        guard bounds.count == 2, let first = Int64(bounds[0]) else { return nil }
        return first..<((Int64(bounds[1]) ?? Int64.max - 1) + 1)
    }
}

/// The most requests the server was serving at the same moment.
func maximumOverlap(_ requests: [LoggedRequest]) -> Int {
    // Ends sort before starts at the same instant: back-to-back requests do not overlap.
    let events = requests.flatMap { [($0.began, 1), ($0.ended, -1)] }.sorted { ($0.0, $0.1) < ($1.0, $1.1) }
    var current = 0
    var most = 0
    for (_, change) in events {
        current += change
        most = max(most, current)
    }
    return most
}

/// A `reach-testserver` process on 127.0.0.1 with its own document root and log, plus a
/// scratch directory for destinations. Every test gets its own.
final class TestServer {
    let base: String
    let root: String
    let scratch: String
    let logPath: String
    let host: String
    let port: Int
    private let process: Process
    private let stdinPipe: Pipe

    init() throws {
        var template = Array("/tmp/reach-transfers-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw TestFailure("mkdtemp failed") }
        base = String(cString: made)
        root = base + "/root"
        scratch = base + "/out"
        logPath = base + "/requests.jsonl"
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)

        process = Process()
        process.executableURL = URL(fileURLWithPath: try builtProduct("reach-testserver"))
        process.arguments = ["--root", root, "--log", logPath, "--port", "0", "--exit-on-stdin-eof"]
        let stdout = Pipe()
        stdinPipe = Pipe()
        process.standardOutput = stdout
        process.standardInput = stdinPipe
        try process.run()

        // The first line says where it listens.
        var line = Data()
        while !line.contains(UInt8(ascii: "\n")) {
            let chunk = stdout.fileHandleForReading.availableData
            if chunk.isEmpty { throw TestFailure("reach-testserver exited before listening") }
            line.append(chunk)
        }
        let text = String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard text.hasPrefix("listening on "), let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...])
        else { throw TestFailure("unexpected first line from reach-testserver: \(text)") }
        host = String(text.dropFirst("listening on ".count)[..<colon])
        self.port = port
    }

    /// Stops the server (SIGTERM) and removes its directories.
    func stop() {
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
        }
        try? stdinPipe.fileHandleForWriting.close()
        try? FileManager.default.removeItem(atPath: base)
    }

    var exitStatus: Int32 { process.terminationStatus }

    func url(_ name: String, query: String = "") -> String {
        "http://\(host):\(port)/\(name)" + (query.isEmpty ? "" : "?" + query)
    }

    /// Writes a file of `size` deterministic bytes into the root.
    @discardableResult
    func addFile(_ name: String, size: Int, seed: UInt64) throws -> [UInt8] {
        let bytes = pattern(size: size, seed: seed)
        try Data(bytes).write(to: URL(fileURLWithPath: root + "/" + name))
        return bytes
    }

    func destination(_ name: String) -> String { scratch + "/" + name }

    /// The requests logged once `condition` holds of them (or after about 5 s): the server logs
    /// a request when its response ends, which may be after the client has what it needs.
    func requests(until condition: ([LoggedRequest]) -> Bool) async throws -> [LoggedRequest] {
        for _ in 0..<250 {
            let logged = try requests()
            if condition(logged) { return logged }
            try await Task.sleep(for: .milliseconds(20))
        }
        return try requests()
    }

    /// The requests logged so far.
    func requests() throws -> [LoggedRequest] {
        guard let data = FileManager.default.contents(atPath: logPath) else { return [] }
        return try String(decoding: data, as: UTF8.self).split(separator: "\n").map { line in
            guard let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else {
                throw TestFailure("bad log line \(line)")
            }
            return LoggedRequest(
                method: object["method"] as? String ?? "",
                path: object["path"] as? String ?? "",
                query: object["query"] as? String ?? "",
                range: object["range"] as? String,
                ifRange: object["ifRange"] as? String,
                status: (object["status"] as? NSNumber)?.intValue ?? 0,
                bytes: (object["bytes"] as? NSNumber)?.int64Value ?? 0,
                start: (object["start"] as? NSNumber)?.int64Value,
                outcome: object["outcome"] as? String ?? "",
                headers: object["headers"] as? [String] ?? [],
                began: (object["began"] as? NSNumber)?.int64Value ?? 0,
                ended: (object["ended"] as? NSNumber)?.int64Value ?? 0
            )
        }
    }

    /// The requests logged once `count` have been (the server logs a response when it has
    /// finished writing it, which can be just after the client has read it). Bounded wait.
    func requests(count: Int) async throws -> [LoggedRequest] {
        for _ in 0..<400 {
            let logged = try requests()
            if logged.count >= count { return logged }
            try await Task.sleep(for: .milliseconds(25))
        }
        let logged = try requests()
        throw TestFailure("expected \(count) logged requests, found \(logged.count): \(logged)")
    }
}

/// Runs `body` with a fresh server and a downloader with short retry delays; always cleans up.
func withServer<T>(
    retryPolicy: RetryPolicy = RetryPolicy(baseDelay: .milliseconds(20), maxDelay: .milliseconds(200), maxRetryAfter: .seconds(5)),
    _ body: (TestServer, Downloader) async throws -> T
) async throws -> T {
    let server = try TestServer()
    let downloader = Downloader(retryPolicy: retryPolicy)
    do {
        let result = try await body(server, downloader)
        try await downloader.shutdownGracefully()
        server.stop()
        return result
    } catch {
        try? await downloader.shutdownGracefully()
        server.stop()
        throw error
    }
}

func fileBytes(_ path: String) -> [UInt8]? {
    FileManager.default.contents(atPath: path).map { [UInt8]($0) }
}

/// Drops `path`'s pages from the page cache (after writing them back), so a later read of it
/// shows in ``residentBytes(_:count:)``.
func evictFromPageCache(_ path: String) throws {
    let fd = open(path, O_RDONLY)
    guard fd >= 0 else { throw TestFailure("open \(path): errno \(errno)") }
    defer { close(fd) }
    guard fdatasync(fd) == 0, posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED) == 0 else { throw TestFailure("evict \(path): errno \(errno)") }
}

/// How many of the first `count` bytes of `path` are in the page cache (`mincore`), in whole pages.
func residentBytes(_ path: String, count: Int) throws -> Int {
    let fd = open(path, O_RDONLY)
    guard fd >= 0 else { throw TestFailure("open \(path): errno \(errno)") }
    defer { close(fd) }
    guard let map = mmap(nil, count, PROT_READ, MAP_SHARED, fd, 0), map != MAP_FAILED else { throw TestFailure("mmap \(path): errno \(errno)") }
    defer { munmap(map, count) }
    let page = Int(sysconf(Int32(_SC_PAGESIZE)))
    var pages = [UInt8](repeating: 0, count: (count + page - 1) / page)
    guard mincore(map, count, &pages) == 0 else { throw TestFailure("mincore \(path): errno \(errno)") }
    return pages.filter { $0 & 1 != 0 }.count * page
}

func exists(_ path: String) -> Bool { FileManager.default.fileExists(atPath: path) }

/// Leaves a partial download as a process killed mid-transfer would: the first `length` bytes
/// in `DEST.part` and the sidecar metadata (whose byte count may lag behind the file).
func leavePartial(
    destination: String, url: String, bytes: ArraySlice<UInt8>, size: Int64?, etag: String?, lastModified: String?,
    recordedBytes: Int64? = nil
) throws {
    try Data(bytes).write(to: URL(fileURLWithPath: destination + ".part"))
    let metadata = PartialDownload(
        url: url, size: size, etag: etag, lastModified: lastModified, bytesWritten: recordedBytes ?? Int64(bytes.count)
    )
    try JSONEncoder().encode(metadata).write(to: URL(fileURLWithPath: destination + ".part.json"))
}

/// Whether a small tmpfs can be mounted here (root with CAP_SYS_ADMIN). Under `CI=true` the
/// disk-full test runs regardless, and fails if it cannot mount.
/// A tool-dependent test runs when the tool is there, and always under `CI=true` (where
/// `scripts/test.sh` installs it), so a missing tool fails there instead of skipping.
func requiredUnderCI(_ available: @autoclosure () -> Bool) -> Bool {
    ProcessInfo.processInfo.environment["CI"] == "true" || available()
}

enum TmpfsSupport {
    static let isSupported: Bool = {
        if ProcessInfo.processInfo.environment["CI"] == "true" { return true }
        guard getuid() == 0 else { return false }
        var template = Array("/tmp/reach-tmpfs-probe-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { return false }
        let directory = String(cString: made)
        defer { rmdir(directory) }
        guard let mounted = try? run("/bin/mount", ["-t", "tmpfs", "-o", "size=64k", "tmpfs", directory], allowFailure: true),
            mounted.status == 0
        else { return false }
        _ = try? run("/bin/umount", [directory], allowFailure: true)
        return true
    }()
}
