import Foundation
import ReachabilityTestKit
import ReachabilityTransfers
import Synchronization
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Upload tests need the real servers; under `CI=true` they run regardless (and fail if a
/// server is missing), elsewhere only where `scripts/testservers/setup.sh` and apache2 ran.
let pythonServersReady = requiredUnderCI(UploadTestServer.pythonServersAvailable)
let apacheReady = requiredUnderCI(UploadTestServer.apacheAvailable)

/// A scratch directory with a random file in it, and a state directory for resume records.
struct UploadFiles {
    let directory: TemporaryDirectory
    let file: String
    let size: Int
    let sha256: String
    var stateDirectory: String { directory.path + "/state" }

    init(size: Int, name: String = "data.bin") throws {
        directory = try TemporaryDirectory()
        file = directory.path + "/" + name
        self.size = size
        try run("/bin/sh", ["-c", "head -c \(size) /dev/urandom > '\(file)'"])
        sha256 = try sha256sum(file)
    }

    func remove() { directory.remove() }
}

/// Runs `body` with an uploader that retries quickly; always shuts it down.
func withUploader<T>(_ body: (Uploader) async throws -> T) async throws -> T {
    let uploader = Uploader(retryPolicy: RetryPolicy(baseDelay: .milliseconds(20), maxDelay: .milliseconds(200), maxRetryAfter: .seconds(2)))
    do {
        let result = try await body(uploader)
        try await uploader.shutdownGracefully()
        return result
    } catch {
        try? await uploader.shutdownGracefully()
        throw error
    }
}

/// The progress reports of one upload, for assertions after it.
final class UploadProgressLog: Sendable {
    private let reports = Mutex<[UploadProgress]>([])

    func record(_ progress: UploadProgress) { reports.withLock { $0.append(progress) } }
    var all: [UploadProgress] { reports.withLock { $0 } }
    var last: UploadProgress? { all.last }

    /// Waits (bounded) until a report satisfies `predicate`.
    func wait(bound: Duration = .seconds(30), _ predicate: (UploadProgress) -> Bool) async throws {
        let deadline = ContinuousClock.now + bound
        while ContinuousClock.now < deadline {
            if all.contains(where: predicate) { return }
            try await Task.sleep(for: .milliseconds(5))
        }
        throw TestFailure("no progress report matched; last: \(String(describing: last))")
    }
}

/// The tus server's offset for `location`, by `curl -I` (an oracle outside the code under
/// test), once the server has finished with every request: after a client is cut off the
/// server still reads what the kernel had buffered, and confirms its offset only at the end, so
/// this waits until the offset equals the bytes it stored and stays so for 200 ms.
func settledTusOffset(_ location: String, server: UploadTestServer, credentials: String? = nil) async throws -> Int64 {
    var previous: Int64?
    for _ in 0..<150 {
        var arguments = ["-sS", "-I", "-H", "Tus-Resumable: 1.0.0"]
        if let credentials { arguments += ["-u", credentials] }
        let output = try run("/usr/bin/curl", arguments + [location]).output
        let line = output.split(separator: "\r\n").first { $0.lowercased().hasPrefix("upload-offset:") }
        let offset = line.flatMap { Int64($0.split(separator: ":")[1].trimmingCharacters(in: .whitespaces)) }
        let stored = (try? FileManager.default.attributesOfItem(atPath: server.storedPath(location))[.size] as? NSNumber)?.int64Value
        if let offset, offset == stored, offset == previous { return offset }
        previous = offset == stored ? offset : nil
        try await Task.sleep(for: .milliseconds(200))
    }
    throw TestFailure("the offset of \(location) did not settle")
}

/// The one resume record in `directory`, as JSON text and parsed.
func resumeRecord(in directory: String) throws -> (text: String, object: [String: Any])? {
    let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
    guard let name = names.first(where: { $0.hasSuffix(".json") }) else { return nil }
    let data = try Data(contentsOf: URL(fileURLWithPath: directory + "/" + name))
    let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    return (String(decoding: data, as: UTF8.self), object)
}

/// A TCP listener on 127.0.0.1 that accepts nothing: ``connectionsWaiting`` says whether
/// anyone connected, to prove that a refused upload sent no traffic.
final class SilentListener {
    let port: Int
    private let descriptor: Int32

    init() throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let ok = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { raw in
                bind(fd, raw, length) == 0 && listen(fd, 8) == 0 && getsockname(fd, raw, &length) == 0
            }
        }
        guard ok else {
            close(fd)
            throw TestFailure("cannot listen on 127.0.0.1")
        }
        port = Int(UInt16(bigEndian: address.sin_port))
        descriptor = fd
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
    }

    /// Whether a connection is queued (accepting it to find out).
    var connectionsWaiting: Bool {
        let client = accept(descriptor, nil, nil)
        guard client >= 0 else { return false }
        close(client)
        return true
    }

    deinit { close(descriptor) }
}
